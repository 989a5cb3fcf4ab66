package commands_test

// A feature that lives in these tests only. It plugs into the kernel
// exactly as a package under commands/ would: through commands.Feature and
// the hook interfaces of feature.go, passed to commands.New with the
// others, with no edit to the kernel (as tally_test.go does for a system).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// lantern is the test feature: /lantern lights the table's lantern (a
// table option of its own), which burns out after lanternHours hours of
// the clock; the tracker shows it; a deleted character leaves its light;
// and it counts the requests and the write transactions it sees.
type lantern struct {
	requests, mutations int
}

var (
	_ commands.Feature         = (*lantern)(nil)
	_ commands.Wrapper         = (*lantern)(nil)
	_ commands.MutationWrapper = (*lantern)(nil)
	_ commands.ClockFollower   = (*lantern)(nil)
	_ commands.DeleteFollower  = (*lantern)(nil)
	_ commands.TableOptioner   = (*lantern)(nil)
	_ commands.Summarizer      = (*lantern)(nil)
)

const (
	lanternOption = "lantern"
	lanternHours  = 4
	lanternCost   = 600
)

func (f *lantern) Register(g *commands.Registry) {
	g.Add(&commands.Command{
		Name: "lantern", Description: "Light the table's lantern", Cost: commands.FixedCost(lanternCost),
		Handler: func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
			return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
				if err := m.RequireGM("light the lantern"); err != nil {
					return nil, err
				}
				opts := map[string]string{lanternOption: fmt.Sprint(m.Table.Clock)}
				for k, v := range m.Table.Options {
					if k != lanternOption {
						opts[k] = v
					}
				}
				m.Table.Options = opts
				m.ForTable().Say("The lantern is lit.")
				m.ForTable().Note("Lit the lantern.")
				return &commands.Response{}, nil
			})
		},
	})
}

func (f *lantern) Wrap(next commands.HandlerFunc) commands.HandlerFunc {
	return func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
		f.requests++
		return next(ctx, s, r)
	}
}

func (f *lantern) WrapMutation(next commands.ActionFunc) commands.ActionFunc {
	return func(m *commands.Mutation) (*commands.Response, error) {
		f.mutations++
		return next(m)
	}
}

// lit returns the clock round the lantern was lit at, false when it is out.
func lit(t *storage.Table) (int64, bool) {
	var at int64
	v, ok := t.Options[lanternOption]
	if !ok || v == "out" {
		return 0, false
	}
	_, err := fmt.Sscan(v, &at)
	return at, err == nil
}

func (f *lantern) ClockMoved(m *commands.Mutation, unit clock.Unit) error {
	at, ok := lit(m.Table)
	if !ok || m.Table.Clock-at < lanternHours*clock.RoundsPerHour {
		return nil
	}
	opts := map[string]string{}
	for k, v := range m.Table.Options {
		opts[k] = v
	}
	delete(opts, lanternOption)
	m.Table.Options = opts
	m.ForTable().Say("The lantern burns out.")
	return nil
}

func (f *lantern) CharacterDeleted(m *commands.Mutation, c *storage.Character) ([]string, error) {
	if _, ok := lit(m.Table); !ok {
		return nil, nil
	}
	line := c.Name + " leaves the lantern's light."
	m.ForTable().Note("%s", line)
	return []string{line}, nil
}

func (f *lantern) TableOptions(commands.System) (string, []commands.TableOption) {
	return "Lantern options", []commands.TableOption{{Name: lanternOption, Help: "the round the lantern was lit at", Default: "out", Values: []string{"out"}, Sparse: true}}
}

func (f *lantern) Summary(tx *storage.Tx, t *storage.Table, sys commands.System) (commands.Field, bool, error) {
	if _, ok := lit(t); !ok {
		return commands.Field{}, false, nil
	}
	return commands.Field{Name: "Lantern", Value: "lit"}, true, nil
}

// TestFeaturePlugsIn: a feature the kernel has never heard of adds a
// command with its cost, a table option, steps in the request and
// mutation chains, and follows the clock, deletions and the tracker, all
// through the hooks of feature.go.
func TestFeaturePlugsIn(t *testing.T) {
	f := &lantern{}
	tb := &commandstest.Table{T: t, DB: commandstest.OpenDB(t), Dice: dice.NewScripted(), Channel: "chan-1"}
	tb.Svc = commands.New(tb.DB, tb.Dice, allSystems, append(commandstest.Features(), f)...)
	at := time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC)
	tb.Svc.SetClock(func() time.Time { return at }) // no refill of the work allowance
	tracker.Of(tb.Svc.Registry()).SetPoster(&fakePoster{}, "")

	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	tb.OK(tb.Do("gm", `/char create name:Vala stats:"endure=2 vigor=3"`))
	commandstest.WantIn(t, "help", commandstest.Text(tb.Do("ann", "/help")), "`/lantern` Light the table's lantern")
	commandstest.WantIn(t, "help topic:table", commandstest.Text(tb.Do("ann", "/help topic:table")), "Lantern options (harm): `lantern`")
	tb.Channel = "chan-no-table" // /help outside a table speaks of every system
	commandstest.WantIn(t, "help topic:table", commandstest.Text(tb.Do("ann", "/help topic:table")), "Lantern options (hit-protection, hp-mp-wp, harm): `lantern`")
	tb.Channel = "chan-1"
	tb.Refused(tb.Do("ann", "/lantern"), "Only a GM can light the lantern.")
	commandstest.WantIn(t, "lantern", tb.OK(tb.Do("gm", "/lantern")), "The lantern is lit.")
	commandstest.WantIn(t, "table show", tb.OK(tb.Do("ann", "/table show")), "lantern=0")
	commandstest.WantIn(t, "tracker", commandstest.Text(tb.Do("gm", "/table tracker")), "Posted the tracker")
	_, tr, err := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel)
	if err != nil || !strings.Contains(commandstest.Text(tr), "Lantern: lit") {
		t.Errorf("tracker = %q, %v; want the lantern's field", commandstest.Text(tr), err)
	}

	del := tb.Do("gm", "/char delete name:Vala")
	commandstest.WantIn(t, "delete", tb.OK(tb.Press("gm", del, "Delete")), "Deleted **Vala**", "Vala leaves the lantern's light.")
	commandstest.WantIn(t, "history", tb.OK(tb.Do("gm", "/history")), "Vala leaves the lantern's light.")

	commandstest.WantIn(t, "clock", tb.OK(tb.Do("gm", "/clock action:advance amount:3 unit:hours")), "Nothing ended or fired.")
	commandstest.WantIn(t, "clock", tb.OK(tb.Do("gm", "/clock action:advance amount:1 unit:hours")), "The lantern burns out.")
	commandstest.WantIn(t, "undo", tb.OK(tb.Do("gm", "/undo")), "/clock action:advance")
	commandstest.WantIn(t, "table show after undo", tb.OK(tb.Do("ann", "/table show")), "lantern=0")

	// Its cost is its own: a second /lantern at once does not fit.
	tb.Refused(tb.Do("gm", "/lantern"), "Slow down")
	if f.requests == 0 || f.mutations == 0 || f.mutations >= f.requests {
		t.Errorf("the feature saw %d requests and %d write transactions; want some of each, fewer transactions", f.requests, f.mutations)
	}
}
