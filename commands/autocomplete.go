package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// maxChoices is Discord's limit on autocomplete choices.
const maxChoices = 25

// autocomplete suggests, for the focused option, the values the table's
// system gives it (an option BySystem, see System.Options), the table
// options and their values (/table option), or character names: those that
// start with what was typed first, then those that contain it. For
// `target`, which lists names separated by commas, it completes the last
// name and keeps the ones before it.
func (s *Service) autocomplete(ctx context.Context, r *Request) (*Response, error) {
	_, defs, err := s.registry.route(r)
	if err != nil {
		return nil, err
	}
	if r.Focused == "expr" {
		choices, err := s.exprChoices(r)
		return &Response{Choices: choices}, err
	}
	if values, ok, err := s.suggestValues(r, defs); ok || err != nil {
		return &Response{Choices: matching(values, r.Options[r.Focused])}, err
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
	var starts, contains []Choice
	err = s.db.View(func(tx *storage.Tx) error {
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
			ch := Choice{Name: value, Value: value}
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
	if len(out) > maxChoices {
		out = out[:maxChoices]
	}
	if out == nil {
		out = []Choice{}
	}
	return &Response{Choices: out}, nil
}

// suggestValues returns the values to suggest for r's focused option when
// they are not character names (ok): the values of an option BySystem in
// the table's system (none when it does not use the option, or there is no
// table), or the table options and their values for /table option.
func (s *Service) suggestValues(r *Request, defs []Option) (values []string, ok bool, err error) {
	i := slices.IndexFunc(defs, func(o Option) bool { return o.Name == r.Focused })
	isTableOption := r.Command == "table" && r.Subcommand == "option"
	if i < 0 || !defs[i].BySystem && !isTableOption {
		return nil, false, nil
	}
	var sys System
	var t *storage.Table
	err = s.db.View(func(tx *storage.Tx) error {
		var err error
		if t, err = tx.Table(r.ChannelID); err != nil {
			return nil // no table: nothing to suggest
		}
		sys, err = s.system(t.System)
		return err
	})
	if err != nil || sys == nil {
		return nil, true, err
	}
	if isTableOption {
		opts := tableOptions(sys)
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
	so := systemOption(sys, r.path(), r.Focused)
	if so == nil {
		return nil, true, nil
	}
	if len(so.Values) == 0 {
		return nil, !defs[i].Autocomplete, nil // names, when the option takes them
	}
	return so.Values, true, nil
}

// matching returns the choices among values that start with typed, then
// those that contain it (ignoring case), at most maxChoices.
func matching(values []string, typed string) []Choice {
	choices := make([]Choice, len(values))
	for i, v := range values {
		choices[i] = Choice{Name: v, Value: v}
	}
	return matchingChoices(choices, typed)
}

// matchingChoices returns the choices whose name starts with typed, then
// those whose name contains it (ignoring case), at most maxChoices.
func matchingChoices(choices []Choice, typed string) []Choice {
	needle := strings.ToLower(strings.TrimSpace(typed))
	var starts, contains []Choice
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
	if len(out) > maxChoices {
		out = out[:maxChoices]
	}
	if out == nil {
		out = []Choice{}
	}
	return out
}

// RollSuggester is implemented by a system that suggests the rolls of its
// rules for the `expr` of /roll and /odds (autocomplete): each a Choice
// whose Value is a dice expression and whose Name starts with it and says
// what it is for, e.g. "3d6dh1 — the injury table when attended
// (advantage)" or "1d8 — Lister's hit die". They come from the rules, the
// table t's options and the characters the caller may see (visible: every
// character for a GM, those not hidden for a player), so that no hidden
// character's numbers reach a player. A suggestion that names a character
// comes after those that do not.
type RollSuggester interface {
	RollSuggestions(t *storage.Table, visible []*storage.Character) []Choice
}

// exprChoices answers the autocomplete of a dice expression: what was
// typed, with how it reads ("4d6k3 — keeps the dice showing 3, …", its
// totals, or why it is refused), then the rolls of the table's system
// (RollSuggester) and its init-dice that match what was typed, those that
// start with it first.
func (s *Service) exprChoices(r *Request) ([]Choice, error) {
	typed := strings.TrimSpace(r.Options[r.Focused])
	var suggested []Choice
	err := s.db.View(func(tx *storage.Tx) error {
		t, err := tx.Table(r.ChannelID)
		if err != nil {
			return nil // no table: no system to suggest from
		}
		sys, err := s.system(t.System)
		if err != nil {
			return err
		}
		if rs, ok := sys.(RollSuggester); ok {
			chars, err := tx.Characters(r.ChannelID)
			if err != nil {
				return err
			}
			gm := isGM(r, t)
			visible := slices.DeleteFunc(chars, func(c *storage.Character) bool { return c.Hidden && !gm })
			suggested = rs.RollSuggestions(t, visible)
		}
		if v, ok := t.Options[InitDiceOption]; ok && v != InitDiceDefault {
			suggested = append(suggested, Choice{Name: v + " — initiative (the table's init-dice)", Value: v})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := matchingChoices(suggested, typed)
	// What was typed comes first, read, unless a suggestion already says
	// what it is.
	if typed != "" && !slices.ContainsFunc(out, func(c Choice) bool { return c.Value == typed }) {
		out = append([]Choice{{Name: typed + " — " + exprSummary(typed), Value: typed}}, out...)
		if len(out) > maxChoices {
			out = out[:maxChoices]
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
