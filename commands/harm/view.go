package harm

import (
	"fmt"
	"strings"

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

func (System) Describe(ch *storage.Character) (string, []commands.Field, error) {
	var s harmSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return "", nil, err
	}
	c, err := s.character()
	if err != nil {
		return "", nil, err
	}
	status := harmStatus(c)
	byPool := map[string][]string{}
	for _, name := range c.AbilityNames() {
		a := c.Abilities[name]
		byPool[a.Pool] = append(byPool[a.Pool], fmt.Sprintf("%s %d (%s)", harmAbilityLabel(name), a.Rank, harm.RankLabel(a.Rank)))
	}
	var fields []commands.Field
	for _, name := range harm.Pools {
		fields = append(fields, commands.Field{Name: harmAbilityLabel(name) + " abilities", Value: strings.Join(byPool[name], "\n"), Inline: true})
	}
	return status, fields, nil
}

// harmStatus is a character's one-line status: condition, harm counter,
// pools and taken out.
func harmStatus(c harm.Character) string {
	status := fmt.Sprintf("%s · harm %d", c.Condition, c.HarmCounter)
	for _, name := range harm.Pools {
		p := c.PoolNamed(name)
		status += fmt.Sprintf(" · %s %d/%d", harmAbilityLabel(name), p.Current, p.Max)
	}
	if c.TakenOut {
		status += " · taken out"
	}
	return status
}

// harmAbilityLabel shows an ability name as a title: "first-aid" → "First Aid".
func harmAbilityLabel(name string) string {
	words := strings.Split(name, "-")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
