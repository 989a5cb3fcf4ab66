// Package autocomplete is a feature of the commands kernel: it answers
// Discord's autocomplete requests (commands.Autocompleter), suggesting
// while an option is typed the values the table's system gives it, the
// table's options and their values (/table option), or the names of the
// table's characters.
package autocomplete

import (
	"context"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Feature answers autocomplete requests.
type Feature struct{}

var (
	_ commands.Feature       = Feature{}
	_ commands.Autocompleter = Feature{}
)

// Register adds nothing: the options that are autocompleted say so
// themselves (commands.Option.Autocomplete, BySystem).
func (Feature) Register(*commands.Registry) {}

// Complete suggests, for the focused option, the values the table's
// system gives it (an option BySystem, see System.Options), the table
// options and their values (/table option), or character names: those that
// start with what was typed first, then those that contain it. For
// `target`, which lists names separated by commas, it completes the last
// name and keeps the ones before it.
func (Feature) Complete(ctx context.Context, s *commands.Service, r *commands.Request, defs []commands.Option) ([]commands.Choice, error) {
	if values, ok, err := suggestValues(s, r, defs); ok || err != nil {
		return matching(values, r.Options[r.Focused]), err
	}
	typed := r.Options[r.Focused]
	prefix := ""
	if r.Focused == "target" {
		if i := strings.LastIndex(typed, ","); i >= 0 {
			prefix, typed = typed[:i+1]+" ", typed[i+1:]
			prefix = strings.TrimRight(prefix, " ") + " "
		}
	}
	needle := strings.ToLower(strings.TrimSpace(typed))
	listed := map[string]bool{}
	for _, n := range strings.Split(prefix, ",") {
		listed[strings.ToLower(strings.TrimSpace(n))] = true
	}
	var starts, contains []commands.Choice
	err := s.DB().View(func(tx *storage.Tx) error {
		chars, err := tx.Characters(r.ChannelID)
		if err != nil {
			return err
		}
		for _, c := range chars {
			name := strings.ToLower(c.Name)
			if listed[name] {
				continue
			}
			value := strings.TrimLeft(prefix, " ") + c.Name
			if len([]rune(value)) > 100 {
				continue
			}
			ch := commands.Choice{Name: value, Value: value}
			switch {
			case strings.HasPrefix(name, needle):
				starts = append(starts, ch)
			case strings.Contains(name, needle):
				contains = append(contains, ch)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := append(starts, contains...)
	if len(out) > commands.MaxChoices {
		out = out[:commands.MaxChoices]
	}
	return out, nil
}

// suggestValues returns the values to suggest for r's focused option when
// they are not character names (ok): the values of an option BySystem in
// the table's system (none when it does not use the option, or there is no
// table), or the table options and their values for /table option.
func suggestValues(s *commands.Service, r *commands.Request, defs []commands.Option) (values []string, ok bool, err error) {
	i := slices.IndexFunc(defs, func(o commands.Option) bool { return o.Name == r.Focused })
	isTableOption := r.Command == "table" && r.Subcommand == "option"
	if i < 0 || !defs[i].BySystem && !isTableOption {
		return nil, false, nil
	}
	var sys commands.System
	var t *storage.Table
	err = s.DB().View(func(tx *storage.Tx) error {
		var err error
		if t, err = tx.Table(r.ChannelID); err != nil {
			return nil // no table: nothing to suggest
		}
		sys, err = s.System(t.System)
		return err
	})
	if err != nil || sys == nil {
		return nil, true, err
	}
	if isTableOption {
		opts := s.Registry().TableOptions(sys)
		for _, o := range opts {
			switch {
			case r.Focused == "name":
				values = append(values, o.Name)
			case strings.EqualFold(o.Name, strings.TrimSpace(r.Options["name"])):
				values = o.Values
			}
		}
		return values, true, nil
	}
	so := commands.SystemOptionOf(sys, r.Path(), r.Focused)
	if so == nil {
		return nil, true, nil
	}
	if len(so.Values) == 0 {
		return nil, !defs[i].Autocomplete, nil // names, when the option takes them
	}
	return so.Values, true, nil
}

// matching returns the choices among values that start with typed, then
// those that contain it (ignoring case), at most MaxChoices.
func matching(values []string, typed string) []commands.Choice {
	needle := strings.ToLower(strings.TrimSpace(typed))
	var starts, contains []commands.Choice
	for _, v := range values {
		lv := strings.ToLower(v)
		switch {
		case strings.HasPrefix(lv, needle):
			starts = append(starts, commands.Choice{Name: v, Value: v})
		case strings.Contains(lv, needle):
			contains = append(contains, commands.Choice{Name: v, Value: v})
		}
	}
	out := append(starts, contains...)
	if len(out) > commands.MaxChoices {
		out = out[:commands.MaxChoices]
	}
	return out
}
