package commands

import (
	"context"
	"fmt"
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
			fmt.Fprintf(&b, "Start with `/table setup system:` %s.\n", strings.Join(s.registry.systemNames(), ", "))
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
		var b strings.Builder
		fmt.Fprintf(&b, "**/%s**: %s\n", c.Name, c.Description)
		if c.Topic != "" {
			b.WriteString(c.Topic + "\n")
		}
		for _, sub := range c.Subcommands {
			fmt.Fprintf(&b, "`/%s %s`%s: %s\n", c.Name, sub.Name, optionSummary(sub.Options), sub.Description)
		}
		if len(c.Subcommands) == 0 && len(c.Options) > 0 {
			fmt.Fprintf(&b, "Options:%s\n", optionSummary(c.Options))
			for _, o := range c.Options {
				fmt.Fprintf(&b, "• `%s`: %s\n", o.Name, o.Description)
			}
		}
		return &Response{Content: strings.TrimRight(b.String(), "\n"), Ephemeral: true}, nil
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

// systemActions are the commands whose meaning belongs to the table's system
// (System.Action); the command name is the action name.
var systemActions = []string{"damage", "heal", "rest", "save", "attend", "treat", "strain", "spend", "activity"}

// systemCommands lists, from the registry, the commands sys implements, one
// line each with the options it uses (options marked for another system are
// left out).
func systemCommands(s *Service, sys System) string {
	var b strings.Builder
	b.WriteString("Commands:")
	for _, c := range s.registry.Commands() {
		isAction := false
		for _, a := range systemActions {
			if a == c.Name {
				isAction = true
			}
		}
		switch {
		case isAction && sys.Action(c.Name) == nil:
			continue
		case !isAction && !(c.Name == "roll" && sys.Roll() != nil):
			continue
		}
		var opts []Option
		for _, o := range c.Options {
			if forOtherSystem(o.Description, sys.Name(), s.registry.systemNames()) {
				continue
			}
			opts = append(opts, o)
		}
		fmt.Fprintf(&b, "\n`/%s%s` %s", c.Name, optionSummary(opts), c.Description)
	}
	b.WriteString("\nAlso: /char, /table, /clock, /history, /undo, /help.")
	return b.String()
}

// forOtherSystem reports whether an option's description ends with a system
// tag, e.g. "(hp-mp-wp)", naming one of systems other than name.
func forOtherSystem(desc, name string, systems []string) bool {
	for _, sys := range systems {
		if strings.HasSuffix(desc, "("+sys+")") {
			return sys != name
		}
	}
	return false
}
