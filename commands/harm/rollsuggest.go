package harm

import (
	"fmt"
	"slices"

	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

var _ commands.RollSuggester = System{}

// RollSuggestions are the rolls of harm for /roll and /odds expr (RULES.md
// §3.1): a check's Fudge dice (3dF, or 4dF with the table option
// fudge-dice 4), with a bonus or a penalty die, then each visible
// character's checks, the Fudge dice plus the ability's rank.
func (System) RollSuggestions(t *storage.Table, visible []*storage.Character) []commands.Choice {
	n := rules.DefaultFudgeDice
	if t.Options["fudge-dice"] == "4" {
		n = rules.AltFudgeDice
	}
	base := fmt.Sprintf("%ddF", n)
	bonus := fmt.Sprintf("%ddFkh%d", n+1, n)
	penalty := fmt.Sprintf("%ddFkl%d", n+1, n)
	out := []commands.Choice{
		{Name: base + " — a check (+ the ability's rank), or initiative (React)", Value: base},
		{Name: bonus + " — a check with a bonus die (+ rank)", Value: bonus},
		{Name: penalty + " — a check with a penalty die (+ rank)", Value: penalty},
	}
	for _, ch := range visible {
		char, err := load(ch)
		if err != nil {
			continue // a sheet that does not read suggests nothing
		}
		c := char.c
		names := make([]string, 0, len(c.Abilities))
		for name := range c.Abilities {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			v := base
			if r := c.Abilities[name].Rank; r != 0 {
				v = fmt.Sprintf("%s%+d", base, r)
			}
			out = append(out, commands.Choice{Name: fmt.Sprintf("%s — %s's %s check", v, ch.Name, name), Value: v})
		}
	}
	return out
}
