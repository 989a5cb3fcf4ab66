// Package bot connects the transport-agnostic commands.Service to Discord.
//
// It offers two ways to receive interactions, both converting with
// RequestFrom, answering with Handler.Handle and replying with ResponseFrom and
// EncodeResponse:
//   - Endpoint, an http.Handler for Discord's "interactions endpoint URL"
//     (verified Ed25519 signatures, replies written inline), served by Serve;
//   - RunGateway, a discordgo gateway session that answers INTERACTION_CREATE
//     events through the REST callback.
//
// CommandDefinitions and Register publish the commands of a commands.Registry
// to Discord. Nothing here logs the bot token.
package bot

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Handler answers one request. *commands.Service implements it; Handle must
// return a non-nil response (a nil one is answered with an apology).
type Handler interface {
	Handle(ctx context.Context, r *commands.Request) *commands.Response
}

var _ Handler = (*commands.Service)(nil)

// interactionLogger returns log with the fields that identify interaction i.
func interactionLogger(log zerolog.Logger, i *discordgo.Interaction) zerolog.Logger {
	userID := ""
	switch {
	case i.Member != nil && i.Member.User != nil:
		userID = i.Member.User.ID
	case i.User != nil:
		userID = i.User.ID
	}
	return log.With().
		Str("interaction_id", i.ID).
		Str("guild_id", i.GuildID).
		Str("channel_id", i.ChannelID).
		Str("user_id", userID).
		Logger()
}

// dispatch converts interaction i, lets h answer it with the per-interaction
// logger in ctx, and converts the answer. A panic anywhere in that chain is
// logged and answered with an ephemeral apology. The error (wrapping
// ErrUnsupportedInteraction) is for an interaction RequestFrom refuses; there
// is no response then.
func dispatch(ctx context.Context, h Handler, log zerolog.Logger, i *discordgo.Interaction, now time.Time) (resp *discordgo.InteractionResponse, err error) {
	ilog := interactionLogger(log, i)
	ctx = ilog.WithContext(ctx)
	defer func() {
		if p := recover(); p != nil {
			ilog.Error().
				Str("panic", fmt.Sprint(p)).
				Str("stack", string(debug.Stack())).
				Msg("interaction handler panicked")
			resp, err = apology(), nil
		}
	}()
	req, err := RequestFrom(i, now)
	if err != nil {
		return nil, err
	}
	fetchAttachments(ctx, filesClient(ctx), ilog, req) // files.go
	start := time.Now()
	answer := h.Handle(ctx, req)
	if answer == nil {
		ilog.Error().Str("command", req.Command).Msg("handler returned no response")
	}
	keepFollowUps(ctx, answer) // sent after the answer (followups.go)
	resp = ResponseFrom(req.Kind, answer)
	ilog.Debug().
		Str("command", req.Command).
		Str("subcommand", req.Subcommand).
		Int("kind", int(req.Kind)).
		Int("response_type", int(resp.Type)).
		Dur("took", time.Since(start)).
		Msg("interaction answered")
	return resp, nil
}
