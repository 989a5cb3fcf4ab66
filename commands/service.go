package commands

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands/memo"
	"github.com/hpkeeper/hpkeeper/commands/worklimit"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Service answers requests: it routes each one through the Registry to its
// handler, runs the handler against the database, and turns errors into
// replies. It is safe for concurrent use.
type Service struct {
	db       Store
	dice     dice.Source
	registry *Registry
	now      func() time.Time
	// limiter bounds each user's expensive work (ratelimit.go).
	limiter *worklimit.Limiter
	// listeners are told of every request answered (OnChange).
	listeners listeners
	// memo keeps the replies of read-only commands ready (ready.go).
	memo *memo.Memo[Ready]
}

// New returns a Service over db that rolls with src (dice.Random() in
// production, a scripted source in tests), plays the rule systems given,
// which /table setup offers in that order, and has the features given
// (feature.go), whose hooks run in that order (see NewRegistry). The
// kernel knows a system only through the System interface and a feature
// only through Feature: main passes the lists, and a new system or feature
// is one more package in them. A feature that implements Starter is
// started with the service.
func New(db Store, src dice.Source, systems []System, features ...Feature) *Service {
	s := &Service{db: db, dice: src, registry: NewRegistry(systems, features...), now: time.Now,
		limiter: worklimit.New(WorkBurst, WorkPerMinute), memo: memoFor(db)}
	if ss, ok := db.(worklimit.Shared); ok {
		s.limiter.Share(ss) // each user's allowance kept for every replica
	}
	for _, f := range features {
		if st, ok := f.(Starter); ok {
			st.Start(s)
		}
	}
	return s
}

// Registry returns the registry of commands the service answers.
func (s *Service) Registry() *Registry { return s.registry }

// SetClock replaces the wall clock used to time-stamp events (tests).
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// Handle answers one request. It never returns nil and never panics: a user
// error becomes an ephemeral message, an internal error or a panic is logged
// (with the logger in ctx, see zerolog.Ctx) and answered with an ephemeral
// apology.
func (s *Service) Handle(ctx context.Context, r *Request) (resp *Response) {
	defer func() {
		if p := recover(); p != nil {
			zerolog.Ctx(ctx).Error().
				Str("interaction_id", r.InteractionID).
				Str("panic", fmt.Sprint(p)).
				Str("stack", string(debug.Stack())).
				Msg("handler panicked")
			resp = &Response{Content: Apology, Ephemeral: true, Outcome: OutcomeInternal}
		}
	}()
	if r.Options == nil {
		r.Options = map[string]string{}
	}
	if r.Now.IsZero() {
		r.Now = s.now()
	}
	var err error
	if r.Kind == KindAutocomplete {
		resp, err = s.complete(ctx, r)
	} else {
		resp, err = s.Dispatch(ctx, r)
	}
	if err == nil && resp == nil {
		err = errors.New("handler returned no response")
	}
	if err != nil {
		if r.Kind == KindAutocomplete {
			// Autocomplete cannot show a message: offer nothing.
			if ErrorCode(err) == CodeInternal {
				zerolog.Ctx(ctx).Error().Err(err).Str("interaction_id", r.InteractionID).Msg("autocomplete failed")
			}
			return &Response{Choices: []Choice{}, Outcome: outcomeOf(err)}
		}
		if ErrorCode(err) == CodeInternal {
			zerolog.Ctx(ctx).Error().Err(err).Str("interaction_id", r.InteractionID).Str("command", r.Line()).Msg("internal error")
		}
		resp = &Response{Content: literalText(ErrorMessage(err)), Ephemeral: true, Outcome: outcomeOf(err)}
		layOut(resp) // a refusal may quote a long input
		return resp
	}
	leaveOutUndrawn(resp)
	layOut(resp)
	resp.Outcome = OutcomeOK
	s.changed(r)
	return resp
}

// Dispatch answers a command, button or modal request: it routes r to its
// handler, checks its options, and runs the handler through the steps of
// its chain (Middleware). It returns the error that Handle turns into a
// refusal. A feature that runs a request again (physical dice, once their
// faces are entered) calls it.
func (s *Service) Dispatch(ctx context.Context, r *Request) (*Response, error) {
	switch r.Kind {
	case KindCommand:
		return s.command(ctx, r)
	case KindComponent, KindModal:
		return s.component(ctx, r)
	}
	return nil, Errorf(CodeInvalid, "This kind of interaction is not supported.")
}

// complete answers an autocomplete request: the kernel routes it, and the
// first feature that completes options (Autocompleter) suggests the
// choices; without one, there are none.
func (s *Service) complete(ctx context.Context, r *Request) (*Response, error) {
	rt, err := s.registry.route(r)
	if err != nil {
		return nil, err
	}
	var choices []Choice
	for _, f := range s.registry.features {
		if a, ok := f.(Autocompleter); ok {
			if choices, err = a.Complete(ctx, s, r, rt.options); err != nil {
				return nil, err
			}
			break
		}
	}
	if choices == nil {
		choices = []Choice{}
	}
	return &Response{Choices: choices}, nil
}

// outcomeOf classifies the error a request ended with.
func outcomeOf(err error) Outcome {
	if ErrorCode(err) == CodeInternal {
		return OutcomeInternal
	}
	return OutcomeUserError
}

// RouteName names what r asks for, for metrics and logs, from a bounded set:
// the command's name for a KindCommand or KindAutocomplete request of a
// registered command, the custom_id prefix (before the first ':') of a
// KindComponent or KindModal request that a registered handler answers, and
// "" for anything else (an unknown command or a forged custom_id), so user
// input never becomes a name of its own.
func (s *Service) RouteName(r *Request) string {
	switch r.Kind {
	case KindCommand, KindAutocomplete:
		if s.registry.Lookup(r.Command) != nil {
			return r.Command
		}
	case KindComponent, KindModal:
		prefix, _, _ := strings.Cut(r.CustomID, ":")
		if s.registry.components[prefix] != nil {
			return prefix
		}
	}
	return ""
}

func (s *Service) command(ctx context.Context, r *Request) (*Response, error) {
	rt, err := s.registry.route(r)
	if err != nil {
		return nil, err
	}
	if err := validate(r, rt.options); err != nil {
		return nil, err
	}
	return rt.handle(ctx, s, r)
}

func (s *Service) component(ctx context.Context, r *Request) (*Response, error) {
	prefix, _, _ := strings.Cut(r.CustomID, ":")
	h := s.registry.components[prefix]
	if h == nil {
		return nil, Errorf(CodeConflict, "This button or form is no longer handled; nothing was changed.")
	}
	if err := checkModalValues(r); err != nil {
		return nil, err
	}
	return h(ctx, s, r)
}

// System returns the rule system named name (a table's System), or an
// internal error for a name no registered system has.
func (s *Service) System(name string) (System, error) {
	sys := s.registry.System(name)
	if sys == nil {
		return nil, fmt.Errorf("table has unknown system %q", name)
	}
	return sys, nil
}

// DB returns the database the service answers from, for a feature that
// runs transactions of its own (/undo, /table import, the tracker).
func (s *Service) DB() Store { return s.db }

// Dice returns the service's dice, for a roll that changes no table (a
// plain /roll); a change rolls with its Mutation's (Mutation.Dice).
func (s *Service) Dice() dice.Source { return s.dice }

// CheckSystemOptions is Mutation.CheckSystemOptions for a request answered
// outside a write transaction, at a table of sys: it refuses r's options
// that mean what sys says (Option.BySystem) when sys does not use them or
// their value.
func (s *Service) CheckSystemOptions(r *Request, sys System) error {
	opts := s.registry.optionsOf(r.Path())
	if opts == nil {
		return nil
	}
	return checkSystemOptions(r, sys, *opts)
}

// View runs fn in a read-only transaction on the request's table, or
// returns LoadTable's error when the channel has none.
func (s *Service) View(r *Request, fn func(tx *storage.Tx, t *storage.Table) error) error {
	return s.db.View(func(tx *storage.Tx) error {
		t, err := LoadTable(tx, r.ChannelID)
		if err != nil {
			return err
		}
		return fn(tx, t)
	})
}

// LoadTable returns the channel's table, or the CodeNotFound error saying
// how to set one up.
func LoadTable(tx *storage.Tx, channelID string) (*storage.Table, error) {
	t, err := tx.Table(channelID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, Errorf(CodeNotFound, "There is no table in this channel yet. A GM starts one with /table setup.")
	}
	return t, err
}

// listeners are the functions OnChange registered; the zero value has none.
type listeners struct {
	mu  sync.Mutex
	fns []func(channelID string)
}

// OnChange registers fn to be called, after every request that succeeded,
// with the request's channel id; fn must not block (the bot's tracker
// updater only schedules an edit). Requests that changed nothing call it
// too: the listener compares what it renders.
func (s *Service) OnChange(fn func(channelID string)) {
	s.listeners.mu.Lock()
	defer s.listeners.mu.Unlock()
	s.listeners.fns = append(s.listeners.fns, fn)
}

// changed tells the change listeners about a handled request.
func (s *Service) changed(r *Request) {
	if r.Kind == KindAutocomplete || r.ChannelID == "" {
		return
	}
	s.listeners.mu.Lock()
	fns := append([]func(string){}, s.listeners.fns...)
	s.listeners.mu.Unlock()
	for _, fn := range fns {
		fn(r.ChannelID)
	}
}
