package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Discord wants the first answer to an interaction within 3 s and then
// accepts edits and follow-ups with its token for 15 minutes. A handler that
// has not answered within DefaultDeferAfter gets a deferred first answer,
// and its real answer is sent through the interaction's webhook when ready:
//
//   - a command is deferred with type 5 (DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
//     public: Discord shows "… is thinking"). A public answer then edits that
//     original response (PATCH …/messages/@original); an ephemeral one must
//     not be shown in public, so the original is deleted and the answer sent
//     as an ephemeral follow-up (POST /webhooks/{application id}/{token}).
//   - a button press or a modal submit is deferred with type 6
//     (DEFERRED_UPDATE_MESSAGE, nothing shown). An UpdateMessage answer edits
//     the message that carried the component (@original); any other message
//     is a follow-up, ephemeral when the answer is.
//   - a modal cannot follow a deferral: an answer that opens one becomes an
//     ephemeral "took too long" follow-up, and pressing the button again
//     opens it (opening a modal changes nothing).
//   - autocomplete cannot be deferred: it is answered with no choices, and the
//     late choices are dropped.
//
// Files go with the edit or the follow-up, as a multipart body; the
// answer's own follow-ups (commands.Response.FollowUps) are posted after it.
// An answer not ready within the token's life is logged and dropped.

// DefaultDeferAfter is how long a handler may take before its interaction
// is answered with a deferred response: a third of Discord's 3 s, leaving
// room for the network and a proxy.
const DefaultDeferAfter = time.Second

// tokenLife is how long Discord accepts edits and follow-ups with an
// interaction token, counted here from when the interaction arrived.
const tokenLife = 15 * time.Minute

// TooSlowForModal is the ephemeral follow-up sent when a handler that opens
// a modal answered after the interaction was deferred.
const TooSlowForModal = "Sorry, that took too long to open the form. Nothing was changed: press the button again."

// WithDeferAfter sets how long the Endpoint waits for a handler before it
// answers with a deferred response (default DefaultDeferAfter; 0 or less
// never defers). Tests shorten it.
func WithDeferAfter(d time.Duration) EndpointOption {
	return func(e *Endpoint) { e.deferAfter = d }
}

// deferral is the deferred first answer to a request of kind: type 5 for a
// command, type 6 for a component or a modal submit, and for autocomplete
// (which cannot be deferred) a result with no choices.
func deferral(kind commands.Kind) *discordgo.InteractionResponse {
	switch kind {
	case commands.KindComponent, commands.KindModal:
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	case commands.KindAutocomplete:
		return &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}}}
	}
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}
}

// awaitLate waits for the answer to interaction i, received at received
// and deferred with deferred, delivers it with deliverLate through c, and
// then posts its follow-ups (followups.go), as an inline answer's follow-ups
// follow it. It gives up, logging an error, when the answer is not ready
// within the token's life; when the transport's stop settles the commands
// still running first (fl, inflight.go), it tells the player what became
// of the command instead (settleLate). It returns the first failure to
// deliver (nil: all of it was sent).
func awaitLate(c *http.Client, log zerolog.Logger, i *discordgo.Interaction, received time.Time, deferred *discordgo.InteractionResponse, late <-chan reply, fl *inflight) error {
	ilog := interactionLogger(log, i)
	expiry := received.Add(tokenLife)
	timer := time.NewTimer(time.Until(expiry))
	defer timer.Stop()
	var r reply
	select {
	case r = <-late:
	case <-timer.C:
		ilog.Error().Msg("no answer within the interaction token's 15 minutes; nothing sent")
		return errors.New("no answer within the interaction token's life")
	case <-fl.settledChan():
		select {
		case r = <-late: // it came just now
		default:
			return settleLate(c, ilog, i, deferred, fl, expiry)
		}
	}
	deadline := time.Now().Add(followUpTimeout)
	if expiry.Before(deadline) {
		deadline = expiry
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	if err := deliverLate(ctx, c, i, deferred.Type, r.resp); err != nil {
		ilog.Error().Err(err).Msg("cannot deliver the deferred answer")
		return err
	}
	ilog.Debug().Int("response_type", int(r.resp.Type)).Dur("took", time.Since(start)).Msg("deferred answer delivered")
	return sendFollowUps(ctx, c, ilog, i, r.followUps)
}

// settleLate tells interaction i, deferred with deferred and still running
// when the stop settled the transport's commands (inflight.go), whether it
// was applied, through its webhook; its own answer is not waited for.
func settleLate(c *http.Client, ilog zerolog.Logger, i *discordgo.Interaction, deferred *discordgo.InteractionResponse, fl *inflight, expiry time.Time) error {
	notice := fl.notice(ilog, i)
	deadline := time.Now().Add(followUpTimeout)
	if expiry.Before(deadline) {
		deadline = expiry
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	resp := ResponseFrom(commands.KindCommand, &commands.Response{Content: notice, Ephemeral: true})
	if err := deliverLate(ctx, c, i, deferred.Type, resp); err != nil {
		ilog.Error().Err(err).Msg("cannot tell a command still running at the stop what became of it")
		return err
	}
	ilog.Warn().Str("told", notice).Msg("a deferred command still running at the stop was told what became of it")
	return nil
}

// deliverLate sends resp, the answer to interaction i after the deferral of
// type deferred, through the interaction's webhook with c, as this file's
// comment says.
func deliverLate(ctx context.Context, c *http.Client, i *discordgo.Interaction, deferred discordgo.InteractionResponseType, resp *discordgo.InteractionResponse) error {
	if deferred == discordgo.InteractionApplicationCommandAutocompleteResult {
		return nil // answered with no choices; too late for these
	}
	if resp.Type == discordgo.InteractionResponseModal {
		resp = ResponseFrom(commands.KindCommand, &commands.Response{Content: TooSlowForModal, Ephemeral: true})
	}
	data := resp.Data
	if data == nil {
		data = &discordgo.InteractionResponseData{}
	}
	ephemeral := data.Flags&discordgo.MessageFlagsEphemeral != 0
	original := discordgo.EndpointInteractionResponseActions(i.AppID, i.Token)
	switch {
	case resp.Type == discordgo.InteractionResponseUpdateMessage && deferred == discordgo.InteractionResponseDeferredMessageUpdate,
		deferred == discordgo.InteractionResponseDeferredChannelMessageWithSource && !ephemeral:
		return sendWebhookMessage(ctx, c, http.MethodPatch, original, resp, 0)
	case deferred == discordgo.InteractionResponseDeferredChannelMessageWithSource:
		// The deferral is public: delete it, then answer for the caller alone.
		if err := webhookCall(ctx, c, http.MethodDelete, original, "", nil); err != nil {
			return fmt.Errorf("delete the public deferral: %w", err)
		}
	}
	return sendWebhookMessage(ctx, c, http.MethodPost, discordgo.EndpointFollowupMessage(i.AppID, i.Token), resp, data.Flags&discordgo.MessageFlagsEphemeral)
}

// sendWebhookMessage sends the message of resp (content, embeds, button
// rows, files) with method to endpoint, with flags (0 for an edit).
func sendWebhookMessage(ctx context.Context, c *http.Client, method, endpoint string, resp *discordgo.InteractionResponse, flags discordgo.MessageFlags) error {
	payload, err := webhookPayload(resp, flags)
	if err != nil {
		return err
	}
	files, err := readFiles(resp)
	if err != nil {
		return err
	}
	ct, body := "application/json", payload
	if len(files) > 0 {
		if ct, body, err = multipartBody(payload, files); err != nil {
			return err
		}
	}
	return webhookCall(ctx, c, method, endpoint, ct, body)
}

// webhookPayload is the JSON of the message of resp sent through a webhook
// with flags: its content, embeds and button rows, mentions parsing nothing
// but the users resp's allowed mentions list (init-ping), as EncodeResponse
// writes them inline.
func webhookPayload(resp *discordgo.InteractionResponse, flags discordgo.MessageFlags) ([]byte, error) {
	msg := webhookMessage{Embeds: []*discordgo.MessageEmbed{}, Components: []discordgo.MessageComponent{}, Flags: flags}
	if d := resp.Data; d != nil {
		if d.AllowedMentions != nil {
			msg.AllowedMentions.Users = allowedUsers(d.AllowedMentions.Users)
		}
		msg.Content = d.Content
		if d.Embeds != nil {
			msg.Embeds = d.Embeds
		}
		if d.Components != nil {
			msg.Components = d.Components
		}
	}
	return json.Marshal(msg)
}
