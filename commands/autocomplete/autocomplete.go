// Package autocomplete is a feature of the commands kernel: it answers
// Discord's autocomplete requests (commands.Autocompleter), suggesting
// while an option is typed the values the table's system gives it, the
// table's options and their values (/table option), the names of the
// table's characters, or, for a dice expression, how what was typed reads
// and the rolls the table's system and the features suggest.
package autocomplete

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
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
	if r.Focused == "expr" {
		return exprChoices(s, r)
	}
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
	choices := make([]commands.Choice, len(values))
	for i, v := range values {
		choices[i] = commands.Choice{Name: v, Value: v}
	}
	return matchingChoices(choices, typed)
}

// matchingChoices returns the choices whose name starts with typed, then
// those whose name contains it (ignoring case), at most MaxChoices.
func matchingChoices(choices []commands.Choice, typed string) []commands.Choice {
	needle := strings.ToLower(strings.TrimSpace(typed))
	var starts, contains []commands.Choice
	for _, c := range choices {
		name := strings.ToLower(c.Name)
		switch {
		case strings.HasPrefix(name, needle):
			starts = append(starts, c)
		case strings.Contains(name, needle):
			contains = append(contains, c)
		}
	}
	out := append(starts, contains...)
	if len(out) > commands.MaxChoices {
		out = out[:commands.MaxChoices]
	}
	return out
}

// exprChoices answers the autocomplete of a dice expression: what was
// typed, with how it reads ("4d6k3 — keeps the dice showing 3, …", its
// totals, or why it is refused), then the rolls the table's system and the
// features suggest (commands.RollSuggester: a system's rules, the turn
// order's init-dice) that match what was typed, those that start with it
// first.
func exprChoices(s *commands.Service, r *commands.Request) ([]commands.Choice, error) {
	typed := strings.TrimSpace(r.Options[r.Focused])
	var suggested []commands.Choice
	err := s.DB().View(func(tx *storage.Tx) error {
		t, err := tx.Table(r.ChannelID)
		if err != nil {
			return nil // no table: no system to suggest from
		}
		sys, err := s.System(t.System)
		if err != nil {
			return err
		}
		chars, err := tx.Characters(r.ChannelID)
		if err != nil {
			return err
		}
		reader := commands.Audience(r, t) // a hidden character's numbers: its owner's and the GMs'
		visible := slices.DeleteFunc(chars, func(c *storage.Character) bool { return !reader.Sees(c) })
		suggesters := []any{sys}
		for _, f := range s.Registry().Features() {
			suggesters = append(suggesters, f)
		}
		for _, x := range suggesters {
			if rs, ok := x.(commands.RollSuggester); ok {
				suggested = append(suggested, rs.RollSuggestions(t, visible)...)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := matchingChoices(suggested, typed)
	// What was typed comes first, read, unless a suggestion already says
	// what it is.
	if typed != "" && !slices.ContainsFunc(out, func(c commands.Choice) bool { return c.Value == typed }) {
		out = append([]commands.Choice{{Name: typed + " — " + exprSummary(typed), Value: typed}}, out...)
		if len(out) > commands.MaxChoices {
			out = out[:commands.MaxChoices]
		}
	}
	return out, nil
}

// exprSummary says in a few words how a typed expression reads: its first
// reading note (docs/dice.md, "Where the bots differ"), else its totals, or
// why it is refused.
func exprSummary(typed string) string {
	e, err := dice.Parse(typed)
	if err != nil {
		return "refused: " + err.Error()
	}
	if notes := e.Notes(); len(notes) > 0 {
		return strings.ReplaceAll(notes[0], "`", "")
	}
	if _, err := e.DistributionLimit(0); errors.Is(err, dice.ErrNoExactOdds) {
		return fmt.Sprintf("totals %d or more, exploding", e.Min())
	}
	switch {
	case e.Min() == e.Max():
		return fmt.Sprintf("totals %d", e.Min())
	case len(e.Terms) == 0:
		return fmt.Sprintf("totals within %d to %d", e.Min(), e.Max()) // a bound, for the full notation
	}
	return fmt.Sprintf("totals %d to %d", e.Min(), e.Max())
}
