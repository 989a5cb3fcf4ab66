package commands_test

// A fourth rule system that lives in these tests only. It plugs into the
// kernel exactly as a package under commands/ would: through commands.System
// and the optional interfaces, passed to commands.New, with no edit to the
// kernel.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/odds"
	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// tally is the test system: a character has points (stats points=N, default
// 5); /damage takes them away and /heal gives them back, never past N; at 0
// the owner may press Rally once for 1 point; every day on the clock gives 1
// back; /odds charts the d6 of a rally that never came.
type tally struct{}

var (
	_ commands.System  = tally{}
	_ commands.Viewer  = tally{}
	_ commands.Chooser = tally{}
	_ commands.Charter = tally{}
)

// tallySheet is the stored form of a tally character.
type tallySheet struct {
	Points int `json:"points"`
	Max    int `json:"max"`
	// RallySeq is the event whose message offers Rally (0: none).
	RallySeq uint64 `json:"rally_seq,omitempty"`
}

// rallyPrefix starts the custom_id of the Rally button.
const rallyPrefix = "tly"

func (tally) Name() string { return "tally" }

func (tally) Help() string { return "Tally: points that damage takes away and healing gives back." }

func (tally) TableOptions() []commands.TableOption { return nil }

func (tally) StatKeys() []string { return []string{"points"} }

// Options: /heal takes the points healed; /rest takes a kind of its own.
func (tally) Options() []commands.SystemOption {
	return []commands.SystemOption{
		{Command: "heal", Name: "amount", Help: "points back"},
		{Command: "rest", Name: "kind", Help: "a nap", Values: []string{"nap"}},
	}
}

func (sys tally) NewSheet(m *commands.Mutation, stats []commands.Stat) (json.RawMessage, error) {
	return sys.SetSheet(m, json.RawMessage(`{"points":5,"max":5}`), stats)
}

func (sys tally) SetSheet(m *commands.Mutation, raw json.RawMessage, stats []commands.Stat) (json.RawMessage, error) {
	var s tallySheet
	if err := commands.DecodeSheet(raw, &s); err != nil {
		return nil, err
	}
	for _, st := range stats {
		if st.Key != "points" {
			return nil, commands.UnknownStat(sys, st.Key)
		}
		n, err := commands.StatInt(st, 1, 100)
		if err != nil {
			return nil, err
		}
		s.Points, s.Max = n, n
	}
	return commands.EncodeSheet(s)
}

func (tally) Describe(c *storage.Character) (string, []commands.Field, error) {
	s, err := loadTally(c)
	return fmt.Sprintf("points %d/%d", s.Points, s.Max), nil, err
}

func (tally) View(c *storage.Character, now int64) (view.Character, error) {
	s, err := loadTally(c)
	v := view.Character{Bars: []view.Bar{{Label: "PT", Current: s.Points, Max: s.Max}}}
	switch {
	case s.Points == 0:
		v.Level = view.LevelZero
	case s.Points < s.Max:
		v.Level = view.LevelWounded
	}
	return v, err
}

func (tally) Action(name string) commands.ActionFunc {
	switch name {
	case "damage":
		return func(m *commands.Mutation) (*commands.Response, error) { return changePoints(m, -1) }
	case "heal":
		return func(m *commands.Mutation) (*commands.Response, error) { return changePoints(m, +1) }
	}
	return nil
}

func (tally) Roll() commands.ActionFunc { return nil }

func (tally) Components() map[string]commands.HandlerFunc {
	return map[string]commands.HandlerFunc{rallyPrefix: rally}
}

func (tally) PendingChoice(c *storage.Character) (string, [][]commands.Button, error) {
	s, err := loadTally(c)
	if err != nil || s.RallySeq == 0 {
		return "", nil, err
	}
	return "Rally is pending.", rallyButton(c, s.RallySeq), nil
}

func (tally) ChartHelp() string { return "the odds of a tally's 1d6" }

func (tally) Chart(*storage.Table) (*commands.Response, error) {
	totals, values, err := odds.DiceOdds(dice.MustParse("1d6"))
	if err != nil {
		return nil, err
	}
	chart := commands.Chart{Title: "Rally", Categories: totals, Series: []commands.ChartSeries{{Name: "1d6", Values: values}}}
	return &commands.Response{Content: "Rally odds", Files: []commands.File{commands.ChartFile("rally.png", chart)}}, nil
}

func (tally) AdvanceClock(m *commands.Mutation, from, to int64) error {
	days := clock.Passed(clock.Time(from), clock.Time(to), clock.Day)
	all, err := m.Characters()
	if err != nil || days == 0 {
		return err
	}
	for _, c := range all {
		s, err := loadTally(c)
		if err != nil {
			return err
		}
		if s.Points == s.Max {
			continue
		}
		before := s.Points
		s.Points = min(s.Max, s.Points+int(days))
		if err := m.SaveSheet(c, s); err != nil {
			return err
		}
		m.For(c).Say("%s rests: points %d → %d", c.Name, before, s.Points)
	}
	return nil
}

func loadTally(c *storage.Character) (tallySheet, error) {
	var s tallySheet
	err := commands.DecodeSheet(c.Sheet, &s)
	return s, err
}

func rallyButton(c *storage.Character, seq uint64) [][]commands.Button {
	id := commands.ChoiceID{Prefix: rallyPrefix, Character: c.ID, Event: seq}
	return [][]commands.Button{{{Label: "Rally", CustomID: id.With("rally"), Style: commands.StylePrimary}}}
}

// changePoints answers /damage (sign -1) and /heal (+1) with a number or
// dice; a character brought to 0 is offered Rally.
func changePoints(m *commands.Mutation, sign int) (*commands.Response, error) {
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	n, _, err := m.Amount(0, commands.MaxAmount, "of points")
	if err != nil {
		return nil, err
	}
	resp := &commands.Response{}
	var lines []string
	for _, c := range targets {
		s, err := loadTally(c)
		if err != nil {
			return nil, err
		}
		before := s.Points
		s.Points = max(0, min(s.Max, s.Points+sign*n))
		if s.Points == 0 && before > 0 {
			if s.RallySeq, err = m.NextEventSeq(); err != nil {
				return nil, err
			}
			resp.Components = append(resp.Components, rallyButton(c, s.RallySeq)...)
		}
		if err := m.SaveSheet(c, s); err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("%s: points %d → %d", commands.Escape(c.Name), before, s.Points))
	}
	resp.Content = strings.Join(lines, "\n") + m.RollsLine()
	return resp, nil
}

// rally answers the Rally button: 1 point back, once, for the event that
// brought the character to 0.
func rally(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	id, err := commands.ParseChoiceID(r.CustomID)
	if err != nil {
		return nil, err
	}
	r.Command, r.Subcommand, r.Options = "rally", "", map[string]string{}
	return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
		c, err := m.CharacterByID(id.Character)
		if err != nil {
			return nil, err
		}
		if err := m.CanChange(c); err != nil {
			return nil, err
		}
		st, err := loadTally(c)
		if err != nil {
			return nil, err
		}
		if st.RallySeq != id.Event {
			return nil, commands.Errorf(commands.CodeConflict, "%s has no rally pending; nothing was changed.", commands.Escape(c.Name))
		}
		st.Points, st.RallySeq = 1, 0
		if err := m.SaveSheet(c, st); err != nil {
			return nil, err
		}
		return &commands.Response{Content: commands.Escape(c.Name) + " rallies: points 0 → 1", UpdateMessage: true}, nil
	})
}

// TestFourthSystemPlugsIn: a system the kernel has never heard of is offered
// by /table setup, explained by /help, creates and shows characters, answers
// the shared commands it implements (and only those), routes its own button,
// offers its pending choice again on /char show, charts its /odds, resolves
// the clock and is undone like the built-in three.
func TestFourthSystemPlugsIn(t *testing.T) {
	systems := append(slices.Clone(allSystems), tally{})
	tb := commandstest.New(t, systems...)
	setup := tb.Svc.Registry().Lookup("table").Sub("setup").Options[0]
	if want := []string{"hit-protection", "hp-mp-wp", "harm", "tally"}; !slices.Equal(setup.Choices, want) {
		t.Fatalf("/table setup system choices = %q; want %q", setup.Choices, want)
	}
	commandstest.WantIn(t, "help", tb.Do("ann", "/help").Content, "`/table setup system:hit-protection` (or hp-mp-wp, harm, tally)")
	help := tb.Do("ann", "/help topic:tally").Content
	commandstest.WantIn(t, "help tally", help, "Tally: points", "Stats keys: points", "`/damage target:… amount:…", "`/heal target:…")
	for _, not := range []string{"/strain", "/attend", "soak"} {
		if strings.Contains(help, not) {
			t.Errorf("help tally mentions %s: %q", not, help)
		}
	}

	tb.OK(tb.Do("ann", "/table setup system:tally"))
	commandstest.WantIn(t, "create", tb.OK(tb.Do("bob", "/char create name:Lister stats:points=3")), "Created **Lister** for bob.", "PT ██████████ 3/3")
	tb.Refused(tb.Do("bob", "/char set name:Lister stats:hp=4"), `Unknown stat "hp" for tally. Valid keys: points.`)
	tb.Refused(tb.Do("bob", "/strain target:Lister"), "/strain is not part of the tally system")

	tb.Dice.Push(2)
	zero := tb.Do("ann", "/damage target:Lister amount:1d6+1")
	commandstest.WantIn(t, "damage", tb.OK(zero), "Lister: points 3 → 0", "Rolled 1d6+1 [2] + 1 = 3")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("bob", "/char show name:Lister")), "Rally is pending.", "PT ░░░░░░░░░░ 0/3")
	tb.Refused(tb.Press("meg", zero, "Rally"), "only its owner or a GM")
	commandstest.WantIn(t, "rally", tb.OK(tb.Press("bob", zero, "Rally")), "Lister rallies: points 0 → 1")
	tb.Refused(tb.Press("bob", zero, "Rally"), "no rally pending")

	commandstest.WantIn(t, "help odds", tb.Do("ann", "/help topic:odds").Content, "• tally: the odds of a tally's 1d6")
	tb.Channel = "chan-no-table" // /help outside a table speaks of every system
	commandstest.WantIn(t, "help odds", tb.Do("ann", "/help topic:odds").Content,
		"• tally: the odds of a tally's 1d6", "• hit-protection: the injury-band chances", "• harm: the check dice")
	tb.Channel = "chan-1"
	odds := tb.Do("ann", "/odds")
	commandstest.WantIn(t, "odds", tb.OK(odds), "Rally odds")
	commandstest.CheckPNG(t, odds.Files[0])

	commandstest.WantIn(t, "clock", tb.OK(tb.Do("ann", "/clock action:advance amount:1 unit:days")), "Lister rests: points 1 → 2")
	commandstest.WantIn(t, "heal", tb.OK(tb.Do("bob", "/heal target:Lister amount:5")), "Lister: points 2 → 3")
	commandstest.WantIn(t, "undo", tb.OK(tb.Do("ann", "/undo")), "/heal")
	commandstest.WantIn(t, "after undo", tb.OK(tb.Do("bob", "/char show name:Lister")), "PT ███████░░░ 2/3")
	commandstest.WantIn(t, "history", tb.OK(tb.Do("ann", "/history target:Lister")), "/rally", "dice: 1d6+1 [2] + 1 = 3")
}

// TestTallyHasNoInitiative: the turn order refuses /init at a table of a
// system without initiative, and offers it no turn order options.
func TestTallyHasNoInitiative(t *testing.T) {
	tally := commandstest.New(t, tally{})
	tally.OK(tally.Do("gm", "/table setup system:tally"))
	tally.Refused(tally.Do("gm", "/init start"), "The tally system has no initiative")
	tally.Refused(tally.Do("gm", "/table option name:init-ping value:on"), `Unknown table option "init-ping"; this tally table has dice, gm-channel, sheet-edit`)
}
