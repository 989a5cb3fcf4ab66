package commands

import (
	"context"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The kernel's extension points for features. A feature is a package
// beside the rule systems (commands/turnorder, commands/history,
// commands/export, commands/odds, commands/tracker, commands/manualdice)
// that adds commands and takes part in what the kernel does through the
// small interfaces of this file, as a driver implements database/sql/driver
// and never imports database/sql's callers. main passes every feature to
// New after the systems; the kernel knows a feature only through these
// interfaces, never by name, and imports none.
//
// Every hook below is optional: a feature implements Feature and, for each
// thing it takes part in, the one-method interface that says so. The kernel
// calls the hooks of the features in the order main gave them.

// Feature is a plug-in of the kernel: it adds its commands, subcommands and
// component handlers to the registry (Registry.Add, AddSubcommand,
// Component), and may implement any of the hook interfaces of this file.
type Feature interface {
	Register(g *Registry)
}

// Middleware is a step that every command, button and modal request passes
// through on its way to its handler, as net/http's middleware wraps an
// http.Handler: it calls next (or answers instead of it) and may change
// what next answers. The kernel's own steps (the work limit of ratelimit.go)
// run closest to the handler; the features' steps wrap them, the first
// feature's outermost.
type Middleware func(next HandlerFunc) HandlerFunc

// Wrapper is implemented by a feature with a step in every request's chain
// (Middleware): physical dice turn a run that needs dice into a prompt, the
// history tells the presser of a stale button that /undo undid its event,
// the odds draw the charts a reply carries.
type Wrapper interface {
	Wrap(next HandlerFunc) HandlerFunc
}

// MutationWrapper is implemented by a feature with a step inside every
// write transaction (Service.Mutate), around the change: physical dice
// hand out the faces the players entered. The kernel's own step (the veil
// that keeps a refusal from telling a player a hidden character's state)
// wraps the features' steps.
type MutationWrapper interface {
	WrapMutation(next ActionFunc) ActionFunc
}

// ClockFollower is implemented by a feature with something that moves with
// the clock (the turn order's rounds). ClockMoved is called on every move
// of the clock (/clock, a rest that passes time, the round end of /init
// next), after the system resolved its timers and m.Table.Clock holds the
// new time; unit is the unit the clock moved by. What it says through m is
// part of the reply.
type ClockFollower interface {
	ClockMoved(m *Mutation, unit clock.Unit) error
}

// DeleteFollower is implemented by a feature that keeps something about a
// character (the turn order's combatants). CharacterDeleted is called
// after c is deleted from the table (/char delete) and returns the lines
// to add to the deletion's reply, each already noted for /history.
type DeleteFollower interface {
	CharacterDeleted(m *Mutation, c *storage.Character) (lines []string, err error)
}

// TableOptioner is implemented by a feature with table options
// (/table option). TableOptions returns those it offers at a table of sys
// (none: nil) and the name of their group for /help topic:table, e.g.
// "Turn order options"; group "" puts them with the options of every
// table, before the kernel's own (sheet-edit).
type TableOptioner interface {
	TableOptions(sys System) (group string, opts []TableOption)
}

// EventHider is implemented by a feature whose state in an event may be a
// hidden character's numbers (the turn order's entry of a hidden
// combatant). HidesEvent reports whether e shows such state, so that
// /history and /undo show players e as an event about a hidden character.
type EventHider interface {
	HidesEvent(e *storage.Event) bool
}

// Summarizer is implemented by a feature with a part in the summary of a
// whole table (the open turn order in the tracker). Summary returns that
// part as players see it, and false when it has none at table t.
type Summarizer interface {
	Summary(tx *storage.Tx, t *storage.Table, sys System) (Field, bool, error)
}

// Autocompleter is implemented by a feature that answers autocomplete
// requests (KindAutocomplete: Discord asks for suggestions while an
// option marked Autocomplete is typed). Complete returns the choices for
// r's focused option (Request.Focused), defs being the definitions of the
// options of r's command, which the kernel has routed. The first feature
// that implements it answers; without one, no choices are offered.
type Autocompleter interface {
	Complete(ctx context.Context, s *Service, r *Request, defs []Option) ([]Choice, error)
}

// GMDeliverer is implemented by a feature that brings every GM of a
// table the results only GMs may read, whoever triggered them
// (commands/gmscreen). DeliverToGMs is called in the write transaction of
// every change, once its reply is rendered, with what the reply kept from
// players as one message, gm (nil when it kept nothing; the caller reads
// it too when they may, in a follow-up of the reply); what it changes of
// m.Table is saved with the change, and no event records it
// (storage.Table.GMInbox).
type GMDeliverer interface {
	DeliverToGMs(m *Mutation, gm *Response) error
}

// Starter is implemented by a feature that works outside requests too (the
// tracker renders for the bot's updater): New calls Start once with the
// service the feature serves, before the service answers anything. A
// feature that implements it serves one Service.
type Starter interface {
	Start(s *Service)
}
