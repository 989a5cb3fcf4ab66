// Package help is /help, a feature of the commands kernel: an overview of
// every registered command, or a few lines on one command (its
// subcommands, and each option's meaning and values in every system that
// gives it one) or one rule system (its stats, table options and
// commands). It reads everything from the registry, so a new command or
// system needs no edit here.
package help

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Feature is /help.
type Feature struct{}

var _ commands.Feature = Feature{}

// Register adds /help; wired last, it comes last in the list of commands.
func (Feature) Register(g *commands.Registry) {
	g.Add(&commands.Command{
		Name: "help", Description: "How to use hpkeeper", Handler: help,
		Options: []commands.Option{{Name: "topic", Description: "A command or a system", Type: commands.OptionString, MaxLength: 32}},
	})
}

// TableNoter is implemented by a feature with a line to say of a table
// in /help's overview there: the GM screen says where the results only GMs
// may read go (commands/gmscreen).
type TableNoter interface {
	HelpAt(t *storage.Table) string
}

// help answers /help: an overview of every command from the registry, or with
// `topic` one command or one rule system in a few lines.
func help(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	topic := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(r.Options["topic"])), "/")
	var current commands.System // the table's, at a table
	var at *storage.Table
	err := s.DB().View(func(tx *storage.Tx) error {
		t, err := tx.Table(r.ChannelID)
		if errors.Is(err, storage.ErrNotFound) || r.ChannelID == "" {
			return nil // no table: the overview says how to start one, a topic speaks of every system
		}
		if err == nil {
			current, at = s.Registry().System(t.System), t
		}
		return err
	})
	if err != nil {
		return nil, err // the database could not be read: say so, not "start a table"
	}
	if topic == "" {
		var b strings.Builder
		b.WriteString("**hpkeeper** tracks hit points, wounds and harm for the whole table.\n")
		if current == nil {
			names := systemNames(s.Registry())
			fmt.Fprintf(&b, "Start with `/table setup system:%s`", names[0])
			if len(names) > 1 {
				fmt.Fprintf(&b, " (or %s)", strings.Join(names[1:], ", "))
			}
			b.WriteString(".\n")
		} else {
			fmt.Fprintf(&b, "This table plays **%s** (`/help topic:%s`).\n", current.Name(), current.Name())
			for _, f := range s.Registry().Features() {
				if n, ok := f.(TableNoter); ok && at != nil {
					b.WriteString(n.HelpAt(at) + "\n")
				}
			}
		}
		for _, c := range s.Registry().Commands() {
			fmt.Fprintf(&b, "`/%s` %s\n", c.Name, c.Description)
		}
		b.WriteString("`/help topic:<command or system>` tells more.")
		return &commands.Response{Content: b.String(), Ephemeral: true}, nil
	}
	if sys := s.Registry().System(topic); sys != nil {
		keys := append([]string(nil), sys.StatKeys()...)
		sort.Strings(keys)
		text := fmt.Sprintf("**%s**\n%s\nStats keys: %s; and a GM's hidden=true hides the character's numbers from players", sys.Name(), sys.Help(), strings.Join(keys, ", "))
		if opts := sys.TableOptions(); len(opts) > 0 {
			var names []string
			for _, o := range opts {
				names = append(names, fmt.Sprintf("%s (%s; %s)", o.Name, strings.Join(o.Values, "/"), o.Help))
			}
			text += "\nTable options: " + strings.Join(names, ", ")
		}
		text += "\n" + systemCommands(s, sys)
		return &commands.Response{Content: text, Ephemeral: true}, nil
	}
	if c := s.Registry().Lookup(topic); c != nil {
		return &commands.Response{Content: commandHelp(s, c, current), Ephemeral: true}, nil
	}
	return nil, commands.Errorf(commands.CodeNotFound, "No help topic %q. Topics: a command name (damage, table, …) or a system (%s).", commands.Clip(topic, 40), strings.Join(systemNames(s.Registry()), ", "))
}

// systemNames lists the names of g's systems in the order /table setup
// offers them.
func systemNames(g *commands.Registry) []string {
	var names []string
	for _, sys := range g.Systems() {
		names = append(names, sys.Name())
	}
	return names
}

// optionSummary renders options as " name:… [optional:…]".
func optionSummary(opts []commands.Option) string {
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
// /table. At a table (at not nil) it speaks of that table's system only:
// the options it does not use are left out.
func commandHelp(s *commands.Service, c *commands.Command, at commands.System) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**/%s**: %s\n", c.Name, c.Description)
	if c.Topic != "" {
		b.WriteString(c.Topic + "\n")
	}
	systems := s.Registry().Systems()
	if at != nil {
		systems = []commands.System{at}
	}
	// used keeps the options of a path that some system of systems uses.
	used := func(path string, opts []commands.Option) []commands.Option {
		var out []commands.Option
		for _, o := range opts {
			if !o.BySystem || at == nil || commands.SystemOptionOf(at, path, o.Name) != nil {
				out = append(out, o)
			}
		}
		return out
	}
	for _, sub := range c.Subcommands {
		fmt.Fprintf(&b, "`/%s %s`%s: %s\n", c.Name, sub.Name, optionSummary(used(c.Name+" "+sub.Name, sub.Options)), sub.Description)
	}
	if c.Name == "table" {
		b.WriteString(tableOptionsHelp(s.Registry(), systems) + "\n")
	}
	for _, sys := range systems {
		if c.HelpFor == nil {
			break
		}
		if text := c.HelpFor(sys); text != "" {
			fmt.Fprintf(&b, "• %s: %s\n", sys.Name(), text)
		}
	}
	var without []string
	for _, sys := range systems {
		if c.BySystem && sys.Action(c.Name) == nil {
			without = append(without, sys.Name())
		}
	}
	if len(without) > 0 {
		fmt.Fprintf(&b, "Not part of %s.\n", strings.Join(without, ", "))
	}
	if opts := used(c.Name, c.Options); len(c.Subcommands) == 0 && len(opts) > 0 {
		fmt.Fprintf(&b, "Options:%s\n", optionSummary(opts))
		for _, o := range opts {
			optionHelp(&b, systems, c.Name, o, without)
		}
	}
	for _, sub := range c.Subcommands {
		for _, o := range used(c.Name+" "+sub.Name, sub.Options) {
			if o.BySystem {
				fmt.Fprintf(&b, "`/%s %s` option:\n", c.Name, sub.Name)
				optionHelp(&b, systems, c.Name+" "+sub.Name, o, without)
			}
		}
	}
	if at != nil {
		fmt.Fprintf(&b, "(This table plays %s: only its options are listed; `/help topic:%s` tells the system.)\n", at.Name(), at.Name())
	}
	return strings.TrimRight(b.String(), "\n")
}

// optionHelp writes option o of the command path (e.g. "heal", "init
// join") as one bullet: its description and, when it is BySystem, what it
// means in each system and the values it takes there (System.Options), then
// the systems that do not use it (those in without have no such command).
func optionHelp(b *strings.Builder, systems []commands.System, path string, o commands.Option, without []string) {
	fmt.Fprintf(b, "• `%s`: %s", o.Name, o.Description)
	if !o.BySystem {
		b.WriteString("\n")
		return
	}
	var unused []string
	for _, sys := range systems {
		so := commands.SystemOptionOf(sys, path, o.Name)
		if so == nil {
			if !slices.Contains(without, sys.Name()) {
				unused = append(unused, sys.Name())
			}
			continue
		}
		if commands.Clip(so.Help, 100) != o.Description { // else the option is the system's own, and said so above
			fmt.Fprintf(b, "\n  %s: %s", sys.Name(), so.Help)
		}
		if len(so.Values) > 0 {
			fmt.Fprintf(b, " — %s", strings.Join(so.Values, ", "))
		}
	}
	if len(unused) > 0 {
		fmt.Fprintf(b, "\n  not used by %s", strings.Join(unused, ", "))
	}
	b.WriteString("\n")
}

// tableOptionsHelp lists the table options of the systems: those of every
// table (the features' and the kernel's), each feature's group with the
// systems it applies to (the turn order's, at the systems with
// initiative), then each system's.
func tableOptionsHelp(g *commands.Registry, systems []commands.System) string {
	list := func(opts []commands.TableOption) string {
		var out []string
		for _, o := range opts {
			out = append(out, fmt.Sprintf("`%s` (%s) — %s", o.Name, strings.Join(o.Values, ", "), o.Help))
		}
		return strings.Join(out, "; ")
	}
	var every []commands.TableOption
	type group struct {
		opts    []commands.TableOption
		systems []string
	}
	var names []string
	groups := map[string]*group{}
	for i, sys := range systems {
		ogs := g.OptionGroups(sys)
		if i == 0 {
			every = ogs[0].Options
		}
		for _, og := range ogs[1:] {
			gr := groups[og.Name]
			if gr == nil {
				gr = &group{opts: og.Options}
				groups[og.Name] = gr
				names = append(names, og.Name)
			}
			gr.systems = append(gr.systems, sys.Name())
		}
	}
	lines := []string{"Table options of every table: " + list(append(every, commands.KernelOptions()...))}
	for _, name := range names {
		lines = append(lines, name+" ("+strings.Join(groups[name].systems, ", ")+"): "+list(groups[name].opts))
	}
	for _, sys := range systems {
		if opts := sys.TableOptions(); len(opts) > 0 {
			lines = append(lines, sys.Name()+": "+list(opts))
		}
	}
	return strings.Join(lines, "\n")
}

// systemCommands lists, from the registry, the commands sys implements, one
// line each with the options it uses (the kernel's, and those sys gives a
// meaning to).
func systemCommands(s *commands.Service, sys commands.System) string {
	var b strings.Builder
	var also []string
	b.WriteString("Commands:")
	for _, c := range s.Registry().Commands() {
		switch {
		case c.BySystem && sys.Action(c.Name) == nil:
			continue
		case !c.BySystem && !(c.Name == "roll" && sys.Roll() != nil):
			also = append(also, "/"+c.Name)
			continue
		}
		var opts []commands.Option
		for _, o := range c.Options {
			if !o.BySystem || commands.SystemOptionOf(sys, c.Name, o.Name) != nil {
				opts = append(opts, o)
			}
		}
		fmt.Fprintf(&b, "\n`/%s%s` %s", c.Name, optionSummary(opts), c.Description)
	}
	fmt.Fprintf(&b, "\nAlso: %s; `/help topic:<command>` lists each option's values.", strings.Join(also, ", "))
	return b.String()
}
