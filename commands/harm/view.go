package harm

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/view"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

var _ commands.Statuser = System{}

// View shows a harm character (RULES.md §3): its condition (Healthy, Bloody,
// Broken) with the harm counter, and its pool bars; Broken is at 0, taken
// out is dying (the system has no death).
func (System) View(ch *storage.Character, now int64) (view.Character, error) {
	char, err := load(ch)
	if err != nil {
		return view.Character{}, err
	}
	c := char.c
	v := view.Character{State: c.Condition.String()}
	for _, name := range rules.Pools {
		p := c.PoolNamed(name)
		v.Bars = append(v.Bars, view.Bar{Label: abilityLabel(name)[:3], Current: p.Current, Max: p.Max})
	}
	v.Conditions = append(v.Conditions, fmt.Sprintf("%s (harm counter %d)", c.Condition, c.HarmCounter))
	if c.TakenOut {
		v.Conditions = append(v.Conditions, "taken out")
	}
	// Players read a hidden character's condition (§3.2), never its harm
	// counter: a Healthy one with harm on it reads Healthy.
	v.Word = view.Word{Text: c.Condition.String(), Level: view.LevelFine}
	switch {
	case c.TakenOut:
		v.Level = view.LevelDying
		v.Word = view.Word{Text: "Taken out", Level: view.LevelDying}
	case c.Condition == rules.Broken:
		v.Level = view.LevelZero
		v.Standing = true // acts, at a cost (§3.2.2)
		v.Word.Level = view.LevelZero
	case c.Condition == rules.Bloody || c.HarmCounter > 0:
		v.Level = view.LevelWounded
		if c.Condition == rules.Bloody {
			v.Word.Level = view.LevelWounded
		}
	}
	return v, nil
}

// Status is Describe's status alone (commands.Statuser): condition, harm
// counter, pools and taken out.
func (System) Status(ch *storage.Character) (string, error) {
	char, err := load(ch)
	if err != nil {
		return "", err
	}
	return statusLine(char.c), nil
}

// Describe renders a character for /char show (RULES.md §3.1): the status
// "Healthy · harm counter 0 · Vigor 3/3 · …", what its condition does
// (§3.2), and the abilities with their ranks, one field per pool they draw
// on.
func (System) Describe(ch *storage.Character) (string, []commands.Field, error) {
	char, err := load(ch)
	if err != nil {
		return "", nil, err
	}
	c := char.c
	status := statusLine(c)
	byPool := map[string][]string{}
	for _, name := range c.AbilityNames() {
		a := c.Abilities[name]
		byPool[a.Pool] = append(byPool[a.Pool], fmt.Sprintf("%s %d (%s)", abilityLabel(name), a.Rank, rules.RankLabel(a.Rank)))
	}
	var fields []commands.Field
	if what := conditionText(c.Condition); what != "" {
		fields = append(fields, commands.Field{Name: c.Condition.String(), Value: what})
	}
	for _, name := range rules.Pools {
		fields = append(fields, commands.Field{Name: abilityLabel(name) + " abilities", Value: strings.Join(byPool[name], "\n"), Inline: true})
	}
	return status, fields, nil
}

// statusLine is a character's one-line status: condition, harm counter,
// pools and taken out.
func statusLine(c rules.Character) string {
	status := fmt.Sprintf("%s · harm counter %d", c.Condition, c.HarmCounter)
	for _, name := range rules.Pools {
		p := c.PoolNamed(name)
		status += fmt.Sprintf(" · %s %d/%d", abilityLabel(name), p.Current, p.Max)
	}
	if c.TakenOut {
		status += " · taken out"
	}
	return status
}

// abilityLabel shows an ability name as a title: "first-aid" → "First Aid".
func abilityLabel(name string) string {
	words := strings.Split(name, "-")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
