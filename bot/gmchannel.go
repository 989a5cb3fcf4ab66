package bot

import (
	"context"

	"github.com/bwmarrin/discordgo"

	"github.com/hpkeeper/hpkeeper/commands"
)

// GMChannel posts the results only GMs may read in a table's GM channel,
// a channel or private thread the table names (/table option gm-channel),
// with the bot token, as the tracker posts its message. It implements the
// GM screen's Poster (commands/gmscreen); a post Discord refuses is
// returned as an error, and the GM screen queues the result instead.
type GMChannel struct {
	session *discordgo.Session
}

// NewGMChannel returns a GMChannel calling Discord's REST API through
// session (made with NewSession; it need not be connected to the gateway).
func NewGMChannel(session *discordgo.Session) *GMChannel { return &GMChannel{session: session} }

// PostToGMs posts msg (its content and embeds; buttons would act on
// another channel's table, so it has none) as a new message in the
// channel; it pings nobody.
func (g *GMChannel) PostToGMs(ctx context.Context, channelID string, msg *commands.Response) error {
	d := trackerData(&commands.Response{Content: msg.Content, Embeds: msg.Embeds})
	_, err := g.session.ChannelMessageSendComplex(channelID, &discordgo.MessageSend{
		Content: d.Content, Embeds: d.Embeds, AllowedMentions: d.AllowedMentions,
	}, discordgo.WithContext(ctx))
	return err
}
