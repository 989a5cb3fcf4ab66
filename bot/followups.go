package bot

import (
	"context"
	"net/http"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Follow-up messages (commands.Response.FollowUps, e.g. a hidden
// character's numbers for the GM alone) are posted after the answer, in
// order, through the interaction's webhook (POST /webhooks/{application
// id}/{interaction token}; the token authorises it, see webhookCall), by
// the HTTP endpoint and the gateway alike: after the inline answer or the
// callback, or, when the answer was deferred, after the deferred answer
// (deferred.go). dispatch returns them with the answer (reply).

// sendFollowUps posts msgs, the follow-ups of interaction i, one after the
// other with c, each with its content, embeds, buttons and files, ephemeral
// when it is, mentions parsing nothing; it logs those that fail and returns
// the first failure.
func sendFollowUps(ctx context.Context, c *http.Client, log zerolog.Logger, i *discordgo.Interaction, msgs []*commands.Response) (first error) {
	for _, f := range msgs {
		if f == nil {
			continue
		}
		var flags discordgo.MessageFlags
		if f.Ephemeral {
			flags = discordgo.MessageFlagsEphemeral
		}
		resp := ResponseFrom(commands.KindCommand, f)
		if err := sendWebhookMessage(ctx, c, http.MethodPost, discordgo.EndpointFollowupMessage(i.AppID, i.Token), resp, flags); err != nil {
			log.Error().Err(err).Bool("ephemeral", f.Ephemeral).Msg("cannot send a follow-up message")
			if first == nil {
				first = err
			}
		}
	}
	return first
}
