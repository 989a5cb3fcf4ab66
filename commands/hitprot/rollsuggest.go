package hitprot

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

var _ commands.RollSuggester = System{}

// RollSuggestions are the rolls of hit-protection for /roll and /odds expr
// (RULES.md §1): a save, the injury table staying up, on a further hit and
// attended, initiative, then each visible character's hit die.
func (System) RollSuggestions(_ *storage.Table, visible []*storage.Character) []commands.Choice {
	init := initiativeDie.String()
	out := []commands.Choice{
		{Name: "1d20 — a saving throw (at least the save's target)", Value: "1d20"},
		{Name: "2d6 — the injury table, staying up", Value: "2d6"},
		{Name: "1d6 — the injury table on a further hit at 0 HP (+ the damage)", Value: "1d6"},
		{Name: "3d6dh1 — the injury table when attended (advantage)", Value: "3d6dh1"},
		{Name: init + " — initiative (+ init)", Value: init},
	}
	for _, ch := range visible {
		h, err := load(ch)
		if err != nil {
			continue // a sheet that does not read suggests nothing
		}
		d := fmt.Sprintf("1d%d", h.c.HitDie)
		out = append(out, commands.Choice{Name: fmt.Sprintf("%s — %s's hit die (HD %d/%d)", d, ch.Name, h.c.HD, h.c.Level), Value: d})
	}
	return out
}
