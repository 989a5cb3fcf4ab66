package commands_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// TestSystemValues: every value list a system gives an option of a shared
// command (System.Options) is what that system's tables suggest for it, the
// only list a wrong value is refused with, and what /help topic:<command>
// lists for the system; an option a system does not use is refused there
// and suggests nothing. Static choices cannot do this: Discord shows them
// at every table.
func TestSystemValues(t *testing.T) {
	tb := newTable(t)
	reg := tb.Svc.Registry()
	for _, sys := range allSystems {
		tb.Channel = "chan-" + sys.Name()
		tb.OK(tb.Do("!gm", "/table setup system:"+sys.Name()))
		for _, c := range reg.Commands() {
			for _, o := range c.Options {
				if !o.BySystem {
					continue
				}
				so := systemOptionOf(sys, c.Name, o.Name)
				at := fmt.Sprintf("%s table, /%s %s:", sys.Name(), c.Name, o.Name)
				got := suggestions(tb, c.Name, o.Name, "")
				switch {
				case so == nil:
					if len(got) > 0 && !o.Autocomplete {
						t.Errorf("%s suggests %v; want nothing (the system does not use it)", at, got)
					}
					v := map[commands.OptionType]string{commands.OptionBoolean: "true", commands.OptionInteger: "1"}[o.Type]
					if v == "" {
						v = "x"
					}
					want := fmt.Sprintf("/%s %s: is not used by the %s system", c.Name, o.Name, sys.Name())
					if !extended[c.Name] && sys.Action(c.Name) == nil {
						want = fmt.Sprintf("/%s is not part of the %s system", c.Name, sys.Name())
					}
					tb.Refused(tb.Do("!gm", requestLine(c, o.Name, v, sys)), want)
				case len(so.Values) > 0:
					if !slices.Equal(got, so.Values) {
						t.Errorf("%s suggests %v; want %v", at, got, so.Values)
					}
					want := "one of " + strings.Join(so.Values, ", ")
					if len(so.Values) == 1 {
						want = so.Values[0]
					}
					tb.Refused(tb.Do("!gm", requestLine(c, o.Name, "zzz", sys)),
						fmt.Sprintf("Option %s must be %s at this %s table (got \"zzz\")", o.Name, want, sys.Name()))
					if prefix := so.Values[0][:1]; !slices.ContainsFunc(suggestions(tb, c.Name, o.Name, prefix), func(v string) bool { return v == so.Values[0] }) {
						t.Errorf("%s typed %q does not suggest %q", at, prefix, so.Values[0])
					}
				}
				if so != nil {
					help := commandstest.Text(tb.Do("ann", "/help topic:"+c.Name))
					line := sys.Name() + ": " + so.Help
					if o.Description == commands.Clip(so.Help, 100) {
						line = "`" + o.Name + "`: " + so.Help // the system's own option: its help is the description, said once
					}
					if len(so.Values) > 0 {
						line += " — " + strings.Join(so.Values, ", ")
					}
					commandstest.WantIn(t, "/help topic:"+c.Name, help, line)
				}
			}
		}
	}
}

// TestSystemValuesOfTheIssue: the examples of issue 15, each refused with
// its own system's values only, and /rest kind: suggested.
func TestSystemValuesOfTheIssue(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("!gm", `/char create name:Vala stats:"hp-max=20"`))
	tb.Refused(tb.Do("!gm", "/heal target:Vala amount:1 pool:mp"), `Option pool must be one of hp, wp at this hp-mp-wp table (got "mp")`)
	tb.Refused(tb.Do("!gm", "/spend target:Vala resource:hp amount:1"), `Option resource must be mp at this hp-mp-wp table (got "hp")`)
	tb.Refused(tb.Do("!gm", "/rest kind:turn"), `Option kind must be night at this hp-mp-wp table (got "turn")`)
	tb.Channel = "chan-2"
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.Refused(tb.Do("!gm", "/save target:Vala type:deth"), `Option type must be one of death, wands, paralysis, breath, spells at this hit-protection table (got "deth")`)
	tb.Refused(tb.Do("!gm", "/rest kind:short"), `Option kind must be one of turn, breath, night at this hit-protection table (got "short")`)
	if got := suggestions(tb, "rest", "kind", ""); !slices.Equal(got, []string{"turn", "breath", "night"}) {
		t.Errorf("?/rest kind: at a hit-protection table = %v; want turn, breath, night", got)
	}
	if got := suggestions(tb, "table", "name", ""); !slices.Contains(got, "catch-breath") || slices.Contains(got, "fudge-dice") {
		t.Errorf("?/table option name: at a hit-protection table = %v; want its options only", got)
	}
	commandstest.WantIn(t, "/help topic:rest", commandstest.Text(tb.Do("ann", "/help topic:rest")), "hit-protection: turn: spend a hit die", "— turn, breath, night")
	commandstest.WantIn(t, "/help topic:table", commandstest.Text(tb.Do("ann", "/help topic:table")), "`dice` (bot, manual) — who rolls", "hit-protection: `catch-breath` (off, on) — fighters",
		"Turn order options (hit-protection): `init-reroll` (never, each-round) — ")
	tb.Channel = "chan-no-table" // /help outside a table speaks of every system
	help := commandstest.Text(tb.Do("ann", "/help topic:rest"))
	commandstest.WantIn(t, "/help topic:rest", help, "hit-protection: turn: spend a hit die", "— turn, breath, night", "hp-mp-wp: night:", "harm: day:", "— day")
	commandstest.WantIn(t, "/help topic:table", commandstest.Text(tb.Do("ann", "/help topic:table")), "`dice` (bot, manual) — who rolls", "hit-protection: `catch-breath` (off, on) — fighters", "harm: `fudge-dice` (3, 4) — Fudge dice",
		"Turn order options (hit-protection, hp-mp-wp, harm): `init-reroll` (never, each-round) — ")
}

// TestRollOptionsWithoutAs: a /roll option of a system without as: asks
// for as: only where the table's system takes it; where it does not, the
// refusal says so, as it does with as: (a suggested as: would only fail
// next). Without a table, a plain /roll cannot tell and asks for as:.
func TestRollOptionsWithoutAs(t *testing.T) {
	tb := newTable(t)
	tb.Refused(tb.Do("ann", "/roll expr:d20 ability:endure"), "give as:<character> too")
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.Refused(tb.Do("ann", "/roll expr:d20 ability:endure"), "/roll ability: is not used by the hit-protection system")
	tb.Refused(tb.Do("ann", "/roll expr:d20 pool:vigor"), "/roll pool: is not used by the hit-protection system")
	tb.Refused(tb.Do("ann", "/roll expr:d20 purpose:attack"), "/roll purpose: is for a character's roll: give as:<character> too")
	tb.Refused(tb.Do("ann", "/roll expr:d20 hd:1"), "hd needs as:<character>")
	tb.Channel = "chan-harm"
	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	tb.Refused(tb.Do("ann", "/roll expr:d20 hd:1"), "/roll hd: is not used by the harm system")
	tb.Refused(tb.Do("ann", "/roll expr:d20 ability:endure"), "/roll ability: is for a character's roll: give as:<character> too")
}

// systemOptionOf returns what option name of command means in sys, or nil.
func systemOptionOf(sys commands.System, command, name string) *commands.SystemOption {
	for _, so := range sys.Options() {
		if so.Command == command && so.Name == name {
			return &so
		}
	}
	return nil
}

// suggestions asks, as ann, for the suggestions of option opt of command
// (or of /table option's opt) typed so far.
func suggestions(tb *table, command, opt, typed string) []string {
	req := &commands.Request{Kind: commands.KindAutocomplete, ChannelID: tb.Channel, GuildID: "g1", UserID: "ann", UserName: "ann",
		Command: command, Options: map[string]string{opt: typed}, Focused: opt}
	if command == "table" {
		req.Subcommand = "option"
	}
	var out []string
	for _, c := range tb.Svc.Handle(context.Background(), req).Choices {
		out = append(out, c.Value)
	}
	return out
}

// requestLine is a line of command c with option name set to value and
// every other required option given a value the system takes.
// extended are the commands of the kernel or a feature that systems give
// options to (every other command with options BySystem is a system's
// action): /roll (as:) and /clock (hp-mp-wp's awake:).
var extended = map[string]bool{"roll": true, "clock": true}

func requestLine(c *commands.Command, name, value string, sys commands.System) string {
	line := "/" + c.Name + " " + name + ":" + value
	switch c.Name {
	case "roll":
		line += " as:Nobody"
	case "clock":
		line += " action:advance amount:1 unit:days" // show takes no options
	}
	for _, o := range c.Options {
		if !o.Required || o.Name == name {
			continue
		}
		v := "Nobody"
		if o.Type == commands.OptionInteger {
			v = "1"
		}
		if so := systemOptionOf(sys, c.Name, o.Name); so != nil && len(so.Values) > 0 {
			v = so.Values[0]
		}
		line += " " + o.Name + ":" + v
	}
	return line
}
