package help_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

func newTable(t *testing.T) *commandstest.Table {
	return commandstest.New(t, commandstest.Systems()...)
}

func TestHelp(t *testing.T) {
	tb := newTable(t)
	out := tb.Do("ann", "/help")
	if !strings.Contains(out.Content, "/damage") || !strings.Contains(out.Content, "/table setup") {
		t.Errorf("help = %q", out.Content)
	}
	// The command to start with works as printed.
	if !strings.Contains(out.Content, "Start with `/table setup system:hit-protection` (or hp-mp-wp, harm).") {
		t.Errorf("help = %q; want a /table setup that works as printed", out.Content)
	}
	if out := tb.Do("ann", "/help topic:hit-protection"); !strings.Contains(out.Content, "Stats keys") || !strings.Contains(out.Content, "catch-breath") {
		t.Errorf("help hit-protection = %q", out.Content)
	}
	if out := tb.Do("ann", "/help topic:/roll"); !strings.Contains(out.Content, "keep/drop") {
		t.Errorf("help roll = %q", out.Content)
	}
	tb.Refused(tb.Do("ann", "/help topic:nonsense"), "No help topic")
}

// TestHelpTemplatesHaveRequiredOptions: a command template in backticks in
// a system's help or in /help topic:<command> (`/heal target:NAME …`) gives
// every option the command requires, so that it works when typed as
// printed with the placeholders filled in.
func TestHelpTemplatesHaveRequiredOptions(t *testing.T) {
	tb := newTable(t)
	reg := tb.Svc.Registry()
	texts := map[string]string{}
	for _, sys := range commandstest.Systems() {
		texts[sys.Name()] = sys.Help()
	}
	for _, c := range reg.Commands() {
		texts["/help topic:"+c.Name] = tb.Do("ann", "/help topic:"+c.Name).Content
	}
	span := regexp.MustCompile("`(/[a-z]+)( [a-z]+)?((?: [a-z-]+:[^` ]*)+)`")
	for where, text := range texts {
		for _, m := range span.FindAllStringSubmatch(text, -1) {
			c := reg.Lookup(strings.TrimPrefix(m[1], "/"))
			if c == nil {
				t.Errorf("%s: %q names no command", where, m[0])
				continue
			}
			opts := c.Options
			if sub := strings.TrimSpace(m[2]); sub != "" {
				if s := c.Sub(sub); s != nil {
					opts = s.Options
				}
			}
			for _, o := range opts {
				if o.Required && !strings.Contains(m[3], " "+o.Name+":") {
					t.Errorf("%s: %q lacks the required option %s:", where, m[0], o.Name)
				}
			}
		}
	}
}

func TestHelpSystemCommands(t *testing.T) {
	tb := newTable(t)
	out := commandstest.Text(tb.Do("ann", "/help topic:harm"))
	commandstest.WantIn(t, "harm help", out, "Commands:", "`/damage target:… amount:… [kind:…] [pool:…]`", "`/heal")
	for _, not := range []string{"/strain", "/wake", "soak", "crit"} {
		if strings.Contains(out, not) {
			t.Errorf("harm help mentions %s: %q", not, out)
		}
	}
	out = commandstest.Text(tb.Do("ann", "/help topic:hp-mp-wp"))
	commandstest.WantIn(t, "hp-mp-wp help", out, "`/strain", "`/activity", "`/wake target:… listen-dc:… [stay-asleep:…]`", "[crit:…]", "[nonlethal:…]")
	// Every other command of the registry is named too: hp-mp-wp's help
	// named neither /roll nor /init nor /odds.
	commandstest.WantIn(t, "hp-mp-wp help", out, "Also: /table, /char, /roll, /clock, /init, /history, /undo, /odds, /help;")
}

// TestHelpAtATableSpeaksOfItsSystem: /help topic:heal at an hp-mp-wp table
// lists hp-mp-wp's options of /heal only (it listed harm's five, 25 lines
// in all); outside a table, every system's.
func TestHelpAtATableSpeaksOfItsSystem(t *testing.T) {
	tb := newTable(t)
	every := commandstest.Text(tb.Do("ann", "/help topic:heal"))
	commandstest.WantIn(t, "outside a table", every, "harm:", "healer-pool", "hp-mp-wp:")
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	out := commandstest.Text(tb.Do("ann", "/help topic:heal"))
	commandstest.WantIn(t, "at hp-mp-wp", out, "[pool:…]", "hp-mp-wp: which points heal", "This table plays hp-mp-wp")
	for _, not := range []string{"harm", "healer-pool", "trigger", "not used by", "Not part of"} {
		if strings.Contains(out, not) {
			t.Errorf("/help topic:heal at hp-mp-wp mentions %q:\n%s", not, out)
		}
	}
	if n := strings.Count(out, "\n") + 1; n > 8 {
		t.Errorf("/help topic:heal at hp-mp-wp is %d lines; want at most 8:\n%s", n, out)
	}
	table := commandstest.Text(tb.Do("ann", "/help topic:table"))
	for _, not := range []string{"catch-breath", "fudge-dice"} {
		if strings.Contains(table, not) {
			t.Errorf("/help topic:table at hp-mp-wp names %s:\n%s", not, table)
		}
	}
	commandstest.WantIn(t, "init at hp-mp-wp", commandstest.Text(tb.Do("ann", "/help topic:init")), "roll")
}

// TestHelpTeachesHiding: /help names the stats key that hides an NPC, at
// every system, and /help topic:char says how, in one step.
func TestHelpTeachesHiding(t *testing.T) {
	tb := newTable(t)
	for _, sys := range []string{"hit-protection", "hp-mp-wp", "harm"} {
		commandstest.WantIn(t, "/help topic:"+sys, tb.Do("ann", "/help topic:"+sys).Content, "; and a GM's hidden=true hides the character's numbers from players")
	}
	commandstest.WantIn(t, "/help topic:char", tb.Do("ann", "/help topic:char").Content, "`hidden=true` among the stats, at creation (answered to that GM alone)")
}

// unreachable is a store whose reads fail as a PostgreSQL server that
// does not answer makes them fail.
type unreachable struct{ commands.Store }

func (unreachable) View(func(*storage.Tx) error) error {
	return fmt.Errorf("view: %w", storage.ErrUnavailable)
}

// TestHelpSaysTheDatabaseIsUnreachable: the overview reads the channel's
// table to name its system; when the database cannot be read, /help says
// so instead of telling a table that plays to set one up.
func TestHelpSaysTheDatabaseIsUnreachable(t *testing.T) {
	svc := commands.New(unreachable{commandstest.OpenDB(t)}, dice.NewScripted(), commandstest.Systems(), commandstest.Features()...)
	resp := svc.Handle(context.Background(), &commands.Request{Kind: commands.KindCommand, Command: "help", ChannelID: "chan-1", UserID: "ann"})
	if resp.Content != commands.Unavailable || !resp.Ephemeral {
		t.Errorf("/help with the database unreachable = %q; want %q", resp.Content, commands.Unavailable)
	}
}
