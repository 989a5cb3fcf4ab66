package hpmpwp

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

var _ commands.RollSuggester = System{}

// RollSuggestions are the rolls of hp-mp-wp for /roll and /odds expr
// (RULES.md §0.4, §0.6, §2): a d20 for a save or a check, with advantage
// or disadvantage, then each visible character's initiative.
func (System) RollSuggestions(_ *storage.Table, visible []*storage.Character) []commands.Choice {
	d20 := initiativeDie.String()
	out := []commands.Choice{
		{Name: d20 + " — a saving throw or check (+ the bonus, against a DC)", Value: d20},
		{Name: "2d20kh1 — a check with advantage", Value: "2d20kh1"},
		{Name: "2d20kl1 — a check with disadvantage", Value: "2d20kl1"},
	}
	for _, ch := range visible {
		char, err := load(ch)
		if err != nil {
			continue // a sheet that does not read suggests nothing
		}
		bonus, why := initiativeBonus(char.c)
		v := d20
		if bonus != 0 {
			v = fmt.Sprintf("%s%+d", d20, bonus)
		}
		out = append(out, commands.Choice{Name: fmt.Sprintf("%s — %s's initiative (%s)", v, ch.Name, why), Value: v})
	}
	return out
}
