// Package bot connects the transport-agnostic commands.Service to Discord.
//
// It offers two ways to receive interactions, both converting with
// RequestFrom, answering with Handler.Handle and replying with ResponseFrom and
// EncodeResponse:
//   - Endpoint, an http.Handler for Discord's "interactions endpoint URL"
//     (verified Ed25519 signatures, replies written inline), served by Serve;
//   - Gateway (and RunGateway), discordgo gateway sessions, one per shard of
//     a range (shards.go), that answer INTERACTION_CREATE events through the
//     REST callback and refuse those of guilds outside the range.
//
// CommandDefinitions and Register publish the commands of a commands.Registry
// to Discord. Nothing here logs the bot token.
//
// The operator's surface is a room of its own, bot/operator: the
// Prometheus metrics that the endpoint and the gateway (Instrument), the
// gateway's shards (operator.ShardReporter), the tracker (ReportEdits) and
// the database's writer report to, and the routes GET /healthz, GET
// /metrics and POST /admin/backup. Discord's own formulas (the shard of a
// guild, the bucket of an IDENTIFY) are in bot/discord.
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

// reply is one converted answer: resp for Discord, and the follow-up
// messages (commands.Response.FollowUps, e.g. a hidden character's numbers
// for the GM alone) that are posted after it through the interaction's
// webhook (followups.go).
type reply struct {
	resp      *discordgo.InteractionResponse
	followUps []*commands.Response
}

// dispatch converts interaction i, lets h answer it with ilog, the
// interaction's logger (interactionLogger), in ctx (without ctx's
// cancellation: an answer is finished even when the request that brought it
// is gone), and converts the answer. A panic anywhere in that chain is
// logged and answered with an ephemeral apology. The error (wrapping
// ErrUnsupportedInteraction) is for an interaction
// RequestFrom refuses; there is no response then.
//
// When after is positive, h runs on a goroutine of the workers (workers.go)
// and, if it has not answered within after, dispatch returns at once the
// deferred response for the request's kind (see deferral) and a channel on
// which the answer arrives when h is done; the transport sends the deferral
// first and then the answer with deliverLate, and then its follow-ups
// (deferred.go). Otherwise late is nil and first is the answer. fl holds
// the transport's deferred commands still running (inflight.go): a request
// of a user at a table where one of theirs is running is not started, and
// answered with StillRunning.
func dispatch(ctx context.Context, h Handler, ilog zerolog.Logger, i *discordgo.Interaction, now time.Time, after time.Duration, fl *inflight) (first reply, late <-chan reply, err error) {
	ctx = ilog.WithContext(context.WithoutCancel(ctx))
	defer func() {
		if p := recover(); p != nil {
			logPanic(ilog, p)
			first, late, err = reply{resp: apology()}, nil, nil
		}
	}()
	req, err := RequestFrom(i, now)
	if err != nil {
		return reply{}, nil, err
	}
	if req.Kind != commands.KindAutocomplete {
		if what, busy := fl.busy(req); busy { // inflight.go
			ilog.Info().Str("command", req.Command).Str("running", what).Msg("interaction not started: a deferred command of its user at its table is still running")
			return reply{resp: ResponseFrom(req.Kind, &commands.Response{Content: fmt.Sprintf(StillRunning, what), Ephemeral: true})}, nil, nil
		}
	}
	fetchAttachments(ctx, filesClient(ctx), ilog, req) // files.go
	if after <= 0 {
		return answer(ctx, h, ilog, req), nil, nil
	}
	ru := fl.begin(req)
	a := awaitPool.Get().(*awaiting)
	workers.run(handlerCall{ctx: ctx, h: h, ilog: ilog, req: req, fl: fl, ru: ru, answered: a.answered}) // workers.go
	a.timer.Reset(after)
	select {
	case r := <-a.answered:
		if a.timer.Stop() {
			awaitPool.Put(a) // the channel is empty and the timer never fired: reuse both
		}
		return r, nil, nil
	case <-a.timer.C:
		// The answer still to come is the caller's now: a is not reused.
		if req.Kind != commands.KindAutocomplete {
			fl.deferredNow(ru)
		}
		ilog.Info().Str("command", req.Command).Int("kind", int(req.Kind)).Dur("after", after).Msg("interaction deferred")
		return reply{resp: deferral(req.Kind)}, a.answered, nil
	}
}

// answer lets h answer req and converts the answer; a panic is logged and
// answered with an ephemeral apology.
func answer(ctx context.Context, h Handler, ilog zerolog.Logger, req *commands.Request) (r reply) {
	defer func() {
		if p := recover(); p != nil {
			logPanic(ilog, p)
			r = reply{resp: apology()}
		}
	}()
	start := time.Now()
	a := h.Handle(ctx, req)
	if a == nil {
		ilog.Error().Str("command", req.Command).Msg("handler returned no response")
	} else {
		r.followUps = a.FollowUps
	}
	r.resp = ResponseFrom(req.Kind, a)
	ilog.Debug().
		Str("command", req.Command).
		Str("subcommand", req.Subcommand).
		Int("kind", int(req.Kind)).
		Int("response_type", int(r.resp.Type)).
		Int("follow_ups", len(r.followUps)).
		Dur("took", time.Since(start)).
		Msg("interaction answered")
	return r
}

// logPanic logs a recovered panic p with its stack.
func logPanic(ilog zerolog.Logger, p any) {
	ilog.Error().
		Str("panic", fmt.Sprint(p)).
		Str("stack", string(debug.Stack())).
		Msg("interaction handler panicked")
}

// contain recovers a panic in a goroutine of the bot's own (a late answer, a
// follow-up, a gateway event), logging it with what the goroutine was doing:
// neither net/http nor discordgo recovers there, so a panic would end the
// process. Call it deferred, first thing in the goroutine.
func contain(log zerolog.Logger, what string) {
	if p := recover(); p != nil {
		log.Error().
			Str("panic", fmt.Sprint(p)).
			Str("stack", string(debug.Stack())).
			Str("during", what).
			Msg("bot goroutine panicked")
	}
}
