package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discord"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// callbackTimeout bounds one interaction callback request to Discord.
const callbackTimeout = 10 * time.Second

// SessionOption configures the discordgo session made by NewSession and
// RunGateway.
type SessionOption func(*discordgo.Session)

// WithHTTPClient makes the session send every REST request, including the
// gateway URL lookup (GET /gateway), with c. Tests pass a client whose
// Transport sends everything to a loopback server.
func WithHTTPClient(c *http.Client) SessionOption {
	return func(s *discordgo.Session) {
		if c != nil {
			s.Client = c
		}
	}
}

// WithDialer makes the session dial the gateway websocket with d.
func WithDialer(d *websocket.Dialer) SessionOption {
	return func(s *discordgo.Session) {
		if d != nil {
			s.Dialer = d
		}
	}
}

// NewSession returns a discordgo session for the bot token (with or without
// its "Bot " prefix) that asks for no privileged intents (IntentsGuilds only),
// keeps no state cache (hpkeeper reads nothing from it, and it would hold
// about 16 KB for every guild of a shard: BenchmarkShardGuildMemory), and
// whose logging goes to log, with the token and interaction tokens redacted.
// It does not connect. It returns an error when token is empty.
func NewSession(token string, log zerolog.Logger, opts ...SessionOption) (*discordgo.Session, error) {
	token = strings.TrimSpace(token)
	if rest, ok := strings.CutPrefix(token, "Bot "); ok {
		token = strings.TrimSpace(rest)
	} else if token == "Bot" {
		token = ""
	}
	if token == "" {
		return nil, errors.New("new session: empty bot token")
	}
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	s.Identify.Intents = discordgo.IntentsGuilds
	s.StateEnabled = false
	s.LogLevel = discordgoLevel(log.GetLevel())
	routeDiscordgoLog(log, token)
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// RunGateway connects to Discord's gateway with the bot token and answers
// every interaction it receives with h until ctx is cancelled: it runs
// every shard of Discord's recommended count in this process, as a Gateway
// (shards.go) does, and returns as Gateway.Run returns.
func RunGateway(ctx context.Context, token string, h Handler, log zerolog.Logger, opts ...SessionOption) error {
	g, err := NewGateway(token, h, log, storage.ShardRange{}, opts...)
	if err != nil {
		return err
	}
	return g.Run(ctx)
}

// answerer answers the INTERACTION_CREATE events of a Gateway's sessions:
// through the interaction callback, a deferred response first when h takes
// longer than deferAfter and then the answer through the interaction's
// webhook (deferred.go). Handler panics are recovered, logged and answered
// with an ephemeral apology.
type answerer struct {
	h    Handler
	log  zerolog.Logger
	base context.Context
	// deferAfter is how long a handler may take before a deferred answer.
	deferAfter time.Duration
	// shards are the process's: an interaction for a guild outside them is
	// refused (the zero ShardRange: every guild). refused, when set, counts
	// one refused on the shard of the session it arrived on.
	shards  storage.ShardRange
	refused func(shard int)
	// fence, when set, says whether the process may answer on a session's
	// shard now (it holds the shard's lease: leases.go); an interaction on
	// another is dropped unanswered.
	fence func(shard int) bool
	// inflight holds the deferred commands still running (inflight.go).
	inflight inflight

	mu      sync.Mutex
	stopped bool
	wg      sync.WaitGroup
}

// enter counts one interaction in flight; false once stopping.
func (g *answerer) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return false
	}
	g.wg.Add(1)
	return true
}

// stop refuses interactions that arrive from now on.
func (g *answerer) stop() {
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
}

// interactionCreate is the gateway event that carries an interaction.
const interactionCreate = "INTERACTION_CREATE"

// onEvent answers the interaction of an INTERACTION_CREATE event, decoding
// its raw data with decodeInteraction, as the HTTP endpoint does: discordgo's
// own decoding of the event fails on shapes Discord sends today (a modal
// submitted in Labels; see decode.go) and leaves the interaction without its
// data. An interaction for a guild outside the process's shards is refused
// (refuse). Other events are ignored.
func (g *answerer) onEvent(s *discordgo.Session, e *discordgo.Event) {
	if e == nil || e.Type != interactionCreate {
		return
	}
	defer contain(g.log, "gateway event")
	i, err := decodeInteraction(e.RawData)
	if err != nil {
		g.log.Warn().Err(err).Msg("undecodable interaction")
		return
	}
	if g.fence != nil && !g.fence(s.ShardID) {
		ilog := interactionLogger(g.log, i)
		ilog.Warn().Int("session_shard", s.ShardID).
			Msg("interaction not answered: this process no longer holds its shard's lease (another process answers it)")
		return
	}
	if g.refuse(s, i) {
		return
	}
	g.onInteraction(s, i)
}

// NotServedHere is the ephemeral answer to an interaction that reached a
// process that does not serve its guild's shard.
const NotServedHere = "Sorry, this server's tables are kept by another hpkeeper process, and this one received the command by mistake. Nothing was changed: please tell the bot's operator."

// refuse reports whether i must not be handled here: its guild id is
// malformed, or its shard (discord.ShardOf; a DM's is 0) is not one of the
// process's, so its table is in another process's file. Discord sends a
// guild's events only on its own shard, so this means processes started with
// different shard counts or overlapping ranges. It logs the refusal at error
// level, counts it, and answers with NotServedHere (no choices for an
// autocomplete) without touching the database.
func (g *answerer) refuse(s *discordgo.Session, i *discordgo.Interaction) bool {
	shard, owned, err := discord.Owns(g.shards, i.GuildID)
	if err == nil && owned {
		return false
	}
	ilog := interactionLogger(g.log, i)
	ev := ilog.Error().Int("session_shard", s.ShardID).Str("shards", g.shards.String())
	if err != nil {
		ev.Err(err).Msg("interaction refused: its guild id is not a snowflake")
	} else {
		ev.Int("guild_shard", shard).Msg("interaction refused: its guild is on a shard this process does not serve (check --shards and --shard-ids of every process)")
	}
	if g.refused != nil {
		g.refused(s.ShardID)
	}
	if !g.enter() {
		return true
	}
	defer g.wg.Done()
	kind := commands.KindCommand
	if i.Type == discordgo.InteractionApplicationCommandAutocomplete {
		kind = commands.KindAutocomplete
	}
	resp := ResponseFrom(kind, &commands.Response{Content: NotServedHere, Ephemeral: true})
	if err := respond(g.base, s, i, resp); err != nil {
		ilog.Warn().Err(err).Msg("cannot answer the refused interaction")
	}
	return true
}

// onInteraction answers one interaction. discordgo runs it on its own
// goroutine and has no recover: a panic here must not escape.
func (g *answerer) onInteraction(s *discordgo.Session, i *discordgo.Interaction) {
	if i == nil {
		return
	}
	if !g.enter() {
		return
	}
	defer g.wg.Done()
	ilog := interactionLogger(g.log, i)
	defer func() {
		if p := recover(); p != nil {
			ilog.Error().Str("panic", fmt.Sprint(p)).Str("stack", string(debug.Stack())).Msg("gateway interaction panicked")
		}
	}()
	received := time.Now()
	d := new(delivery) // finished once the answer and its follow-ups are sent (delivery.go)
	first, late, err := dispatch(withDelivery(withFilesClient(g.base, s.Client), d), g.h, ilog, i, received, g.deferAfter, &g.inflight)
	if err != nil {
		ilog.Warn().Err(err).Msg("interaction not handled")
		return
	}
	if err := respond(g.base, s, i, first.resp); err != nil {
		ilog.Error().Err(err).Msg("cannot answer interaction")
		if late != nil {
			<-late // the handler goes on: wait for it before the database may close
		}
		d.finish(err)
		return
	}
	if late != nil {
		d.finish(awaitLate(s.Client, g.log, i, received, first.resp, late, &g.inflight)) // deferred.go
		return
	}
	if len(first.followUps) > 0 {
		fctx, cancel := context.WithTimeout(g.base, followUpTimeout)
		defer cancel()
		d.finish(sendFollowUps(fctx, s.Client, ilog, i, first.followUps)) // followups.go
		return
	}
	d.finish(nil)
}

// respond posts resp to the interaction's callback URL. It sends the bytes
// of EncodeResponse (not Session.InteractionRespond, whose encoding of
// allowed_mentions differs from the HTTP endpoint's) with the session's
// HTTP client directly: interaction callbacks are outside the bot's rate
// limits, and discordgo's rate limiter keeps a bucket per distinct key for
// ever, which for callback URLs would keep every interaction token in memory.
// The interaction token in the URL authorises the callback; the bot token is
// not sent.
func respond(ctx context.Context, s *discordgo.Session, i *discordgo.Interaction, resp *discordgo.InteractionResponse) error {
	contentType, body, err := callbackBody(resp) // JSON, or multipart with files (files.go)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callbackTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, discordgo.EndpointInteractionResponse(i.ID, i.Token), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("interaction callback: %w", redactErr(err))
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", s.UserAgent)
	res, err := s.Client.Do(req)
	if err != nil {
		return fmt.Errorf("interaction callback: %w", redactErr(err))
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return fmt.Errorf("interaction callback: HTTP %d: %s", res.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}

// redactErr drops the URL from a *url.Error: an interaction callback URL
// carries the interaction token.
func redactErr(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return fmt.Errorf("%s: %w", uerr.Op, uerr.Err)
	}
	return err
}

// discordgoLevel maps a zerolog level to the most verbose discordgo log level
// worth producing at it.
func discordgoLevel(l zerolog.Level) int {
	switch {
	case l <= zerolog.TraceLevel:
		return discordgo.LogDebug
	case l <= zerolog.DebugLevel:
		return discordgo.LogInformational
	default:
		return discordgo.LogWarning
	}
}

// discordgo's logger is one package variable: it is installed once and
// forwards to the logger of the latest session, redacting the tokens of every
// session made so far.
var (
	dgInstall sync.Once
	dgLog     atomic.Pointer[zerolog.Logger]
	dgSecrets sync.Map // bot token → struct{}
)

// routeDiscordgoLog sends discordgo's own log lines to log, without token.
func routeDiscordgoLog(log zerolog.Logger, token string) {
	dgSecrets.Store(token, struct{}{})
	l := log.With().Str("component", "discordgo").Logger()
	dgLog.Store(&l)
	dgInstall.Do(func() { discordgo.Logger = discordgoLog })
}

// discordgoLog is installed as discordgo.Logger. caller counts frames from
// discordgo's msglog, one frame above this function.
func discordgoLog(level, caller int, format string, args ...any) {
	l := dgLog.Load()
	if l == nil {
		return
	}
	var ev *zerolog.Event
	switch level {
	case discordgo.LogError:
		ev = l.Error()
	case discordgo.LogWarning:
		ev = l.Warn()
	case discordgo.LogInformational:
		ev = l.Debug()
	default:
		ev = l.Trace()
	}
	if level == discordgo.LogError && strings.HasPrefix(format, "error unmarshalling %s event") &&
		len(args) > 0 && args[0] == interactionCreate {
		// onEvent decodes interactions itself, including the shapes
		// discordgo cannot (a modal submitted in Labels).
		ev = l.Debug()
	}
	if ev == nil { // level disabled
		return
	}
	if pc, _, _, ok := runtime.Caller(caller + 1); ok {
		if f := runtime.FuncForPC(pc); f != nil {
			ev = ev.Str("func", strings.TrimPrefix(f.Name(), "github.com/bwmarrin/discordgo."))
		}
	}
	ev.Msg(redact(fmt.Sprintf(format, args...)))
}

var (
	// tokenField matches a token in JSON ("token":"…") or in Go's %#v
	// (Token:"…").
	tokenField = regexp.MustCompile(`("token"\s*:\s*|Token:\s*)"[^"]*"`)
	// tokenPath matches the token in an interaction or webhook URL path.
	tokenPath = regexp.MustCompile(`(/(?:interactions|webhooks)/[0-9]+/)[^/\s?"']+`)
)

// redact removes every bot token seen by NewSession and every interaction or
// webhook token from a log message.
func redact(msg string) string {
	msg = tokenField.ReplaceAllString(msg, `$1"[redacted]"`)
	msg = tokenPath.ReplaceAllString(msg, `${1}[redacted]`)
	dgSecrets.Range(func(k, _ any) bool {
		if t, ok := k.(string); ok && len(t) >= minSecretLen {
			msg = strings.ReplaceAll(msg, t, "[redacted]")
		}
		return true
	})
	return msg
}

// minSecretLen is the shortest bot token redact replaces wherever it occurs;
// real tokens are about 70 characters, and a short made-up one would mangle
// ordinary words.
const minSecretLen = 8
