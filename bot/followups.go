package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Follow-up messages (commands.Response.FollowUps, e.g. a hidden
// character's numbers for the GM alone) are posted after the answer, in
// order, through the interaction's webhook (POST /webhooks/{application
// id}/{interaction token}; the token authorises it), by the HTTP endpoint
// and the gateway alike. dispatch keeps them in a followUpBox that the
// caller put in the context.

// followUpBox holds the follow-ups of one interaction's answer.
type followUpBox struct {
	mu   sync.Mutex
	msgs []*commands.Response
}

type followUpKey struct{}

// withFollowUpBox returns ctx carrying a new box for dispatch to fill.
func withFollowUpBox(ctx context.Context) (context.Context, *followUpBox) {
	b := &followUpBox{}
	return context.WithValue(ctx, followUpKey{}, b), b
}

// keepFollowUps puts the follow-ups of answer into ctx's box, if it has one.
func keepFollowUps(ctx context.Context, answer *commands.Response) {
	b, ok := ctx.Value(followUpKey{}).(*followUpBox)
	if !ok || answer == nil || len(answer.FollowUps) == 0 {
		return
	}
	b.mu.Lock()
	b.msgs = append(b.msgs, answer.FollowUps...)
	b.mu.Unlock()
}

// take returns the box's follow-ups and empties it.
func (b *followUpBox) take() []*commands.Response {
	b.mu.Lock()
	defer b.mu.Unlock()
	msgs := b.msgs
	b.msgs = nil
	return msgs
}

// followUpBody encodes a follow-up message for the webhook: its content,
// embeds, buttons, the ephemeral flag and allowed mentions that parse
// nothing, as JSON, or multipart with its files.
func followUpBody(f *commands.Response) (contentType string, body []byte, err error) {
	data := ResponseFrom(commands.KindCommand, f).Data
	d := *data
	if d.Embeds == nil {
		d.Embeds = []*discordgo.MessageEmbed{}
	}
	if d.Components == nil {
		d.Components = []discordgo.MessageComponent{}
	}
	payload, err := json.Marshal(messageData{InteractionResponseData: &d, AllowedMentions: noMentions{Parse: []discordgo.AllowedMentionType{}}})
	if err != nil {
		return "", nil, fmt.Errorf("encode follow-up: %w", err)
	}
	files, err := readFiles(&discordgo.InteractionResponse{Data: data})
	if err != nil || len(files) == 0 {
		return "application/json", payload, err
	}
	return multipartBody(payload, files)
}

// sendFollowUps posts msgs, the follow-ups of interaction i, one after the
// other, logging those that fail.
func sendFollowUps(ctx context.Context, c *http.Client, log zerolog.Logger, i *discordgo.Interaction, msgs []*commands.Response) {
	for _, f := range msgs {
		ct, body, err := followUpBody(f)
		if err == nil {
			err = postFollowUp(ctx, c, i, ct, body)
		}
		if err != nil {
			log.Error().Err(err).Bool("ephemeral", f.Ephemeral).Msg("cannot send a follow-up message")
		}
	}
}
