package bot

import (
	"fmt"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The deferred commands in flight (issue 26). A command whose handler has
// not answered when it is deferred (deferred.go) goes on running while its
// user's client shows "thinking", and the client may send the next one
// meanwhile; and at a stop it was waited for without end. So each
// transport keeps the deferred commands still running (inflight):
//
//   - a user's next command (or button press, or form) at the same table
//     while one of theirs is deferred and running is not started: it is
//     answered at once with StillRunning, ephemeral. Autocomplete is not
//     held back (it is answered in time or with no choices). The check is
//     per process: on PostgreSQL each replica holds back what it runs
//     itself (docs/scaling.md says why that suffices);
//   - at a stop (Endpoint.Close, the gateway's Run), the deferred commands
//     are given StopGrace to answer; then the store's writes are stopped
//     (Settler.StopWrites: those begun finish, later ones are refused), and
//     each command still running is told, through its webhook, that it was
//     applied (its interaction's change was saved: AppliedAtStop), that it
//     was cancelled with nothing changed (CancelledAtStop), or, when the
//     writes could not be stopped in time, that it may or may not have been
//     applied (UnknownAtStop). Its own answer, should it come later, is
//     dropped: the player has had theirs.

// StillRunning is the ephemeral answer to a user's command at a table
// where a deferred command of theirs is still running: %s names that one
// ("/undo", "a button press").
const StillRunning = "Your %s here is still running; its answer will come in a moment. Nothing was done with this one: send it again once that answer has come."

// The answers to deferred commands still running when the process stops.
const (
	// CancelledAtStop: its change, if it was to make one, was not saved.
	CancelledAtStop = "The bot was restarting and stopped this command before it changed anything. Nothing was changed: run it again in a moment."
	// AppliedAtStop: its change was saved, event %d.
	AppliedAtStop = "This was applied (#%d in /history), but the bot was restarting and stopped before it could show the result."
	// UnknownAtStop: the writes could not be stopped in time.
	UnknownAtStop = "The bot was restarting while this was being saved: it may or may not have been applied. Look at /history before running it again."
)

// StopGrace is how long a stopping transport waits for the deferred
// commands still running to answer before it settles them; stopWritesWait
// how long it then waits for the store's writes to stop.
const (
	StopGrace      = 5 * time.Second
	stopWritesWait = 2 * time.Second
)

// Settler is what a stopping transport asks of the store about the
// deferred commands still running (*storage.DB): to stop the writes, and
// whether an interaction's change was saved.
type Settler interface {
	StopWrites()
	InteractionApplied(channelID, id string) (storage.Interaction, bool, error)
}

var _ Settler = (*storage.DB)(nil)

// WithSettler makes the Endpoint, when it closes with deferred commands
// still running past StopGrace, stop s's writes and tell each command
// whether s saved its change (inflight.go). Without it they are told that
// they may or may not have been applied.
func WithSettler(s Settler) EndpointOption {
	return func(e *Endpoint) { e.inflight.settler = s }
}

// SettleWith makes the gateway, when it stops with deferred commands
// still running past StopGrace, stop s's writes and tell each command
// whether s saved its change, as WithSettler does for the Endpoint.
func (g *Gateway) SettleWith(s Settler) { g.disp.inflight.settler = s }

// inflight is a transport's deferred commands still running. Its zero
// value holds none; it is safe for concurrent use.
type inflight struct {
	mu      sync.Mutex
	running map[runKey]*run
	// settler is asked at the stop; nil: nothing to stop, and every
	// command still running is told it may or may not have been applied.
	settler Settler
	// settled is closed when the stop's grace has ended and the writes
	// are stopped (stopped: in time) or given up on.
	once    sync.Once
	settled chan struct{}
	stopped bool
}

// runKey is a user at a table.
type runKey struct{ user, channel string }

// run is one command in flight: its user and table, and its kind,
// command and subcommand; what it is called in StillRunning is set when it
// is registered.
type run struct {
	key                 runKey
	kind                commands.Kind
	command, subcommand string
	what                string
	// deferred: registered as running after its deferral; done: its
	// handler has returned.
	deferred, done bool
}

// busy returns what the deferred command of r's user at r's table still
// running is, and whether there is one.
func (f *inflight) busy(r *commands.Request) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ru := f.running[runKey{r.UserID, r.ChannelID}]; ru != nil {
		return ru.what, true
	}
	return "", false
}

// begin returns the run of r, not yet registered. What it is called is
// worked out only if it is deferred (deferredNow): most runs never are.
func (f *inflight) begin(r *commands.Request) *run {
	return &run{key: runKey{r.UserID, r.ChannelID}, kind: r.Kind, command: r.Command, subcommand: r.Subcommand}
}

// name returns what ru is called in StillRunning: "/" and its command
// and subcommand, "form", or "button press".
func (ru *run) name() string {
	switch ru.kind {
	case commands.KindCommand:
		what := "/" + ru.command
		if ru.subcommand != "" {
			what += " " + ru.subcommand
		}
		return what
	case commands.KindModal:
		return "form"
	}
	return "button press"
}

// deferredNow registers ru as running, unless its handler has returned
// already or another run holds its key.
func (f *inflight) deferredNow(ru *run) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ru.done || f.running[ru.key] != nil {
		return
	}
	if f.running == nil {
		f.running = map[runKey]*run{}
	}
	ru.what = ru.name()
	f.running[ru.key], ru.deferred = ru, true
}

// end records that ru's handler has returned.
func (f *inflight) end(ru *run) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ru.done = true
	if ru.deferred && f.running[ru.key] == ru {
		delete(f.running, ru.key)
	}
}

// settledChan returns the channel closed when the stop settles the
// commands still running.
func (f *inflight) settledChan() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.settled == nil {
		f.settled = make(chan struct{})
	}
	return f.settled
}

// settle stops the store's writes (waiting up to stopWritesWait) and then
// tells the deferred answers still awaited to settle (awaitLate). Calls
// after the first do nothing.
func (f *inflight) settle(log zerolog.Logger) {
	f.once.Do(func() {
		f.settledChan()
		stopped := false
		if f.settler != nil {
			done := make(chan struct{})
			go func() {
				defer close(done)
				f.settler.StopWrites()
			}()
			select {
			case <-done:
				stopped = true
			case <-time.After(stopWritesWait):
				log.Error().Dur("after", stopWritesWait).Msg("the database's writes did not stop in time: commands still running are told they may or may not have been applied")
			}
		}
		f.mu.Lock()
		f.stopped = stopped
		n := len(f.running)
		f.mu.Unlock()
		log.Warn().Int("commands", n).Dur("grace", StopGrace).Msg("stopping: deferred commands still running after the grace are told whether they were applied")
		close(f.settled)
	})
}

// notice returns what a deferred command still running at the stop is
// told: whether interaction i changed its table (settle has run).
func (f *inflight) notice(log zerolog.Logger, i *discordgo.Interaction) string {
	f.mu.Lock()
	stopped := f.stopped
	f.mu.Unlock()
	if !stopped {
		return UnknownAtStop
	}
	in, applied, err := f.settler.InteractionApplied(i.ChannelID, i.ID)
	switch {
	case err != nil:
		log.Error().Err(err).Msg("cannot say whether a command still running at the stop was applied")
		return UnknownAtStop
	case applied && in.EventSeq != 0:
		return fmt.Sprintf(AppliedAtStop, in.EventSeq)
	case applied:
		return "This was applied, but the bot was restarting and stopped before it could show the result."
	}
	return CancelledAtStop
}
