package commands

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// help answers /help: an overview of every command from the registry, or with
// `topic` one command or one rule system in a few lines.
func help(ctx context.Context, s *Service, r *Request) (*Response, error) {
	topic := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(r.Options["topic"])), "/")
	if topic == "" {
		var b strings.Builder
		b.WriteString("**hpkeeper** tracks hit points, wounds and harm for the whole table.\n")
		current := ""
		_ = s.db.View(func(tx *storage.Tx) error {
			if t, err := tx.Table(r.ChannelID); err == nil {
				current = t.System
			}
			return nil
		})
		if current == "" {
			names := s.registry.systemNames()
			fmt.Fprintf(&b, "Start with `/table setup system:%s`", names[0])
			if len(names) > 1 {
				fmt.Fprintf(&b, " (or %s)", strings.Join(names[1:], ", "))
			}
			b.WriteString(".\n")
		} else {
			fmt.Fprintf(&b, "This table plays **%s** (`/help topic:%s`).\n", current, current)
		}
		for _, c := range s.registry.Commands() {
			fmt.Fprintf(&b, "`/%s` %s\n", c.Name, c.Description)
		}
		b.WriteString("`/help topic:<command or system>` tells more.")
		return &Response{Content: b.String(), Ephemeral: true}, nil
	}
	if sys := s.registry.systemNamed(topic); sys != nil {
		keys := append([]string(nil), sys.StatKeys()...)
		sort.Strings(keys)
		text := fmt.Sprintf("**%s**\n%s\nStats keys: %s", sys.Name(), sys.Help(), strings.Join(keys, ", "))
		if opts := sys.TableOptions(); len(opts) > 0 {
			var names []string
			for _, o := range opts {
				names = append(names, fmt.Sprintf("%s (%s; %s)", o.Name, strings.Join(o.Values, "/"), o.Help))
			}
			text += "\nTable options: " + strings.Join(names, ", ")
		}
		text += "\n" + systemCommands(s, sys)
		return &Response{Content: text, Ephemeral: true}, nil
	}
	if c := s.registry.Lookup(topic); c != nil {
		return &Response{Content: commandHelp(s, c), Ephemeral: true}, nil
	}
	return nil, Errorf(CodeNotFound, "No help topic %q. Topics: a command name (damage, table, …) or a system (%s).", Clip(topic, 40), strings.Join(s.registry.systemNames(), ", "))
}

// optionSummary renders options as " name:… [optional:…]".
func optionSummary(opts []Option) string {
	var b strings.Builder
	for _, o := range opts {
		if o.Required {
			fmt.Fprintf(&b, " %s:…", o.Name)
		} else {
			fmt.Fprintf(&b, " [%s:…]", o.Name)
		}
	}
	return b.String()
}

// commandHelp explains command c: its subcommands, or its options, each
// with what it means in every system that gives it a meaning and the
// values it takes there (System.Options); the table options per system for
// /table.
func commandHelp(s *Service, c *Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**/%s**: %s\n", c.Name, c.Description)
	if c.Topic != "" {
		b.WriteString(c.Topic + "\n")
	}
	for _, sub := range c.Subcommands {
		fmt.Fprintf(&b, "`/%s %s`%s: %s\n", c.Name, sub.Name, optionSummary(sub.Options), sub.Description)
	}
	if c.Name == "table" {
		b.WriteString(tableOptionsHelp(s.registry.systems) + "\n")
	}
	for _, sys := range s.registry.systems {
		if ch, ok := sys.(Charter); ok && c.Name == "odds" {
			fmt.Fprintf(&b, "• %s: %s\n", sys.Name(), ch.ChartHelp())
		}
		if ce, ok := sys.(CombatEnder); ok && c.Name == "init" {
			fmt.Fprintf(&b, "• %s: `/init end` also ends %s\n", sys.Name(), ce.EndCombatHelp())
		}
	}
	var without []string
	for _, sys := range s.registry.systems {
		if slices.Contains(systemActions, c.Name) && sys.Action(c.Name) == nil {
			without = append(without, sys.Name())
		}
	}
	if len(without) > 0 {
		fmt.Fprintf(&b, "Not part of %s.\n", strings.Join(without, ", "))
	}
	if len(c.Subcommands) == 0 && len(c.Options) > 0 {
		fmt.Fprintf(&b, "Options:%s\n", optionSummary(c.Options))
		for _, o := range c.Options {
			optionHelp(&b, s.registry.systems, c.Name, o, without)
		}
	}
	for _, sub := range c.Subcommands {
		for _, o := range sub.Options {
			if o.BySystem {
				fmt.Fprintf(&b, "`/%s %s` option:\n", c.Name, sub.Name)
				optionHelp(&b, s.registry.systems, c.Name+" "+sub.Name, o, without)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// optionHelp writes option o of the command path (e.g. "heal", "init
// join") as one bullet: its description and, when it is BySystem, what it
// means in each system and the values it takes there (System.Options), then
// the systems that do not use it (those in without have no such command).
func optionHelp(b *strings.Builder, systems []System, path string, o Option, without []string) {
	fmt.Fprintf(b, "• `%s`: %s", o.Name, o.Description)
	if !o.BySystem {
		b.WriteString("\n")
		return
	}
	var unused []string
	for _, sys := range systems {
		so := systemOption(sys, path, o.Name)
		if so == nil {
			if !slices.Contains(without, sys.Name()) {
				unused = append(unused, sys.Name())
			}
			continue
		}
		fmt.Fprintf(b, "\n  %s: %s", sys.Name(), so.Help)
		if len(so.Values) > 0 {
			fmt.Fprintf(b, " — %s", strings.Join(so.Values, ", "))
		}
	}
	if len(unused) > 0 {
		fmt.Fprintf(b, "\n  not used by %s", strings.Join(unused, ", "))
	}
	b.WriteString("\n")
}

// tableOptionsHelp lists the table options: those of every table, the turn
// order's (at the systems with initiative), then each system's.
func tableOptionsHelp(systems []System) string {
	list := func(opts []TableOption) string {
		var out []string
		for _, o := range opts {
			out = append(out, fmt.Sprintf("`%s` (%s) — %s", o.Name, strings.Join(o.Values, ", "), o.Help))
		}
		return strings.Join(out, "; ")
	}
	lines := []string{"Table options of every table: " + list(PlatformOptions())}
	var with []string
	for _, sys := range systems {
		if _, ok := sys.(Initiator); ok {
			with = append(with, sys.Name())
		}
	}
	if len(with) > 0 {
		lines = append(lines, "Turn order options ("+strings.Join(with, ", ")+"): "+list(initiativeOptions()))
	}
	for _, sys := range systems {
		if opts := sys.TableOptions(); len(opts) > 0 {
			lines = append(lines, sys.Name()+": "+list(opts))
		}
	}
	return strings.Join(lines, "\n")
}

// systemActions are the commands whose meaning belongs to the table's system
// (System.Action); the command name is the action name.
var systemActions = []string{"damage", "heal", "rest", "save", "attend", "treat", "strain", "spend", "activity", "wake"}

// systemCommands lists, from the registry, the commands sys implements, one
// line each with the options it uses (the core's, and those sys gives a
// meaning to).
func systemCommands(s *Service, sys System) string {
	var b strings.Builder
	var also []string
	b.WriteString("Commands:")
	for _, c := range s.registry.Commands() {
		isAction := slices.Contains(systemActions, c.Name)
		switch {
		case isAction && sys.Action(c.Name) == nil:
			continue
		case !isAction && !(c.Name == "roll" && sys.Roll() != nil):
			also = append(also, "/"+c.Name)
			continue
		}
		var opts []Option
		for _, o := range c.Options {
			if !o.BySystem || systemOption(sys, c.Name, o.Name) != nil {
				opts = append(opts, o)
			}
		}
		fmt.Fprintf(&b, "\n`/%s%s` %s", c.Name, optionSummary(opts), c.Description)
	}
	fmt.Fprintf(&b, "\nAlso: %s; `/help topic:<command>` lists each option's values.", strings.Join(also, ", "))
	return b.String()
}
