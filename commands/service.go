package commands

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Service answers requests: it routes each one through the Registry to its
// handler, runs the handler against the database, and turns errors into
// replies. It is safe for concurrent use.
type Service struct {
	db       *storage.DB
	dice     dice.Source
	registry *Registry
	now      func() time.Time
	// limiter bounds each user's expensive work (ratelimit.go).
	limiter *workLimiter
	// tracking holds the tracker poster and change listeners (tracker.go).
	tracking trackerHooks
	// pendingFaces holds the requests waiting for physical dice (manualdice.go).
	pendingFaces pendingRolls
}

// New returns a Service over db that rolls with src (dice.Random() in
// production, a scripted source in tests) and plays the rule systems given,
// which /table setup offers in that order (see NewRegistry). The core knows
// a system only through the System interface: main passes the list, and a
// new system is one more package in it.
func New(db *storage.DB, src dice.Source, systems ...System) *Service {
	return &Service{db: db, dice: src, registry: NewRegistry(systems...), now: time.Now,
		limiter: newWorkLimiter(WorkBurst, WorkPerMinute)}
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
	switch r.Kind {
	case KindCommand:
		resp, err = s.command(ctx, r)
	case KindAutocomplete:
		resp, err = s.autocomplete(ctx, r)
	case KindComponent, KindModal:
		resp, err = s.component(ctx, r)
	default:
		err = Errorf(CodeInvalid, "This kind of interaction is not supported.")
	}
	if err == nil && resp == nil {
		err = errors.New("handler returned no response")
	}
	if err != nil && r.Kind != KindAutocomplete {
		// A dice=manual table asks for physical dice (manualdice.go).
		if prompt, perr := s.askForFaces(r, err); perr == nil {
			resp, err = prompt, nil
		}
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
		fitLimits(resp) // a refusal may quote a long input
		return resp
	}
	fitLimits(resp)
	resp.Outcome = OutcomeOK
	for _, f := range resp.FollowUps {
		fitLimits(f)
	}
	s.changed(r)
	return resp
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
	if err := s.limitWork(r, rt.workCost(r)); err != nil {
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

// system returns the adapter of a table's rule system.
func (s *Service) system(name string) (System, error) {
	sys := s.registry.systemNamed(name)
	if sys == nil {
		return nil, fmt.Errorf("table has unknown system %q", name)
	}
	return sys, nil
}

// view runs fn in a read-only transaction on the request's table.
func (s *Service) view(r *Request, fn func(tx *storage.Tx, t *storage.Table) error) error {
	return s.db.View(func(tx *storage.Tx) error {
		t, err := loadTable(tx, r.ChannelID)
		if err != nil {
			return err
		}
		return fn(tx, t)
	})
}

// loadTable returns the channel's table or a user error saying how to set one up.
func loadTable(tx *storage.Tx, channelID string) (*storage.Table, error) {
	t, err := tx.Table(channelID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, Errorf(CodeNotFound, "There is no table in this channel yet. A GM starts one with /table setup.")
	}
	return t, err
}

// characterByName finds a character at the channel's table by name
// (case-insensitive), or returns the CodeNotFound error players see.
func characterByName(tx *storage.Tx, channelID, name string) (*storage.Character, error) {
	name = strings.TrimSpace(name)
	c, err := tx.CharacterByName(channelID, name)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, Errorf(CodeNotFound, "No character named %q at this table. /char list shows them.", Clip(name, 40))
	}
	return c, err
}

// isGM reports whether the user of r is a GM at table t (RULES.md §0.1): one
// of the table's GMs (the set-up user is the first, until removed) or a member
// with Manage Channels. SetupBy only records who set the table up.
func isGM(r *Request, t *storage.Table) bool {
	if r.hasManageChannels() {
		return true
	}
	if t == nil {
		return false
	}
	for _, id := range t.GMs {
		if id == r.UserID {
			return true
		}
	}
	return false
}

func requireGM(r *Request, t *storage.Table, what string) error {
	if !isGM(r, t) {
		return Errorf(CodeForbidden, "Only a GM can %s.", what)
	}
	return nil
}
