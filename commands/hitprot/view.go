package hitprot

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

var _ commands.Statuser = System{}

// View shows a hit-protection character (RULES.md §1): the HP bar of its hit
// die and its HD bar; at 0 while choosing, staying up or down, dying while a
// wound bleeds out; standing while it still takes its turns (CanAct: all
// but the down and the dead).
func (System) View(ch *storage.Character, now int64) (view.Character, error) {
	h, err := load(ch)
	if err != nil {
		return view.Character{}, err
	}
	c := h.c
	v := view.Character{Bars: []view.Bar{{Label: "HP", Current: c.HP, Max: c.HitDie}, {Label: "HD", Current: c.HD, Max: c.Level}}, State: c.Status.String()}
	v.Conditions, v.Timers = view.SplitTimers(c.Conditions(clock.Time(now)))
	switch {
	case c.Status == rules.Dead:
		v.Level = view.LevelDead
	case len(c.Bleeds) > 0:
		v.Level = view.LevelDying
		v.Standing = c.Status != rules.Down // bleeding, it acts until it goes down (§1.4)
	case c.HP <= 0 || c.Status != rules.Up:
		v.Level = view.LevelZero
		v.Standing = c.Status != rules.Down // choosing or fighting on at 0 HP (§1.3.5)
	case c.HP < c.HitDie || c.Untreated > 0 || len(v.Conditions) > 0:
		v.Level = view.LevelWounded
	}
	return v, nil
}

// Status is Describe's status alone (commands.Statuser): "HP 3/6 · HD
// 1/1" with the conditions.
func (System) Status(ch *storage.Character) (string, error) {
	h, err := load(ch)
	if err != nil {
		return "", err
	}
	return statusLine(h.c), nil
}

// statusLine is a character's one-line status: HP, HD and conditions.
func statusLine(c rules.Character) string {
	status := fmt.Sprintf("HP %d/%d · HD %d/%d", c.HP, c.HitDie, c.HD, c.Level)
	conds := c.Conditions(rules.NoClock) // no clock here: the card's timers say how long
	if len(conds) > 0 {
		status += " · " + strings.Join(conds, ", ")
	}
	return status
}

// Describe renders a character for /char show (RULES.md §1.1, §1.2): the
// status "HP 3/6 · HD 1/1" with its conditions, and the class, hit die,
// save targets and heroic action as fields.
func (System) Describe(ch *storage.Character) (string, []commands.Field, error) {
	h, err := load(ch)
	if err != nil {
		return "", nil, err
	}
	c := h.c
	status := statusLine(c)
	var saves []string
	for _, cat := range rules.SaveCategories {
		t, _ := c.SaveTarget(cat)
		mark := ""
		if _, ok := c.Saves[cat]; ok {
			mark = "*"
		}
		saves = append(saves, fmt.Sprintf("%s %d%s", cat, t, mark))
	}
	note := ""
	if len(c.Saves) > 0 {
		note = " (* set on the sheet)"
	}
	fields := []commands.Field{
		{Name: "Class", Value: fmt.Sprintf("%s %d", commands.Escape(c.Class), c.Level), Inline: true},
		{Name: "Hit die", Value: fmt.Sprintf("d%d", c.HitDie), Inline: true},
		{Name: "Saves (d20 ≥)", Value: strings.Join(saves, ", ") + note},
	}
	if c.HeroicAction != "" {
		fields = append(fields, commands.Field{Name: "Heroic action", Value: commands.Escape(c.HeroicAction)})
	}
	if c.Init != 0 {
		fields = append(fields, commands.Field{Name: "Initiative", Value: fmt.Sprintf("1d6 %+d (init)", c.Init), Inline: true})
	}
	return status, fields, nil
}
