package commands

import (
	"context"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// maxChoices is Discord's limit on autocomplete choices.
const maxChoices = 25

// autocomplete suggests character names for the focused option: names that
// start with what was typed first, then names that contain it. For `target`,
// which lists names separated by commas, it completes the last name and keeps
// the ones before it.
func (s *Service) autocomplete(ctx context.Context, r *Request) (*Response, error) {
	if _, _, err := s.registry.route(r); err != nil {
		return nil, err
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
	err := s.db.View(func(tx *storage.Tx) error {
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
