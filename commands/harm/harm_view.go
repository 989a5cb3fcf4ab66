package harm

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

// View shows a harm character (RULES.md §3): its condition (Healthy, Bloody,
// Broken) with the harm counter, and its pool bars; Broken is at 0, taken
// out is dying (the system has no death).
func (System) View(ch *storage.Character, now int64) (commands.CharacterView, error) {
	var s harmSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return commands.CharacterView{}, err
	}
	c, err := s.character()
	if err != nil {
		return commands.CharacterView{}, err
	}
	v := commands.CharacterView{State: c.Condition.String()}
	for _, name := range harm.Pools {
		p := c.PoolNamed(name)
		v.Bars = append(v.Bars, commands.Bar{Label: harmAbilityLabel(name)[:3], Current: p.Current, Max: p.Max})
	}
	v.Conditions = append(v.Conditions, fmt.Sprintf("%s (harm %d)", c.Condition, c.HarmCounter))
	if c.TakenOut {
		v.Conditions = append(v.Conditions, "taken out")
	}
	switch {
	case c.TakenOut:
		v.Level = commands.LevelDying
	case c.Condition == harm.Broken:
		v.Level = commands.LevelZero
	case c.Condition == harm.Bloody || c.HarmCounter > 0:
		v.Level = commands.LevelWounded
	}
	return v, nil
}
