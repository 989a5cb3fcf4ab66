package hpmpwp

import (
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// View shows an hp-mp-wp character (RULES.md §2): HP, MP and WP bars (WP
// max is the Con score, temporary WP on top); at 0 when disabled or stable
// at negative WP, dying while Dying.
func (System) View(ch *storage.Character, now int64) (commands.CharacterView, error) {
	c, _, err := hmwLoad(ch)
	if err != nil {
		return commands.CharacterView{}, err
	}
	v := commands.CharacterView{Bars: []commands.Bar{{Label: "HP", Current: c.HP, Max: c.HPMax}, {Label: "MP", Current: c.MP, Max: c.MPMax}, {Label: "WP", Current: c.WP, Max: c.WPMax() + c.TempWP}}, State: c.State.String()}
	if c.State != hpmpwp.Fine || c.ChoicePending || c.Activity == hpmpwp.Sleep {
		v.Conditions = append(v.Conditions, hmwStateText(c))
	}
	if cond := c.Condition(); cond != "" {
		v.Conditions = append(v.Conditions, cond)
	}
	if until := hmwSleepUntil(c); until != "" {
		v.Timers = append(v.Timers, strings.Trim(until, " ()"))
	}
	switch c.State {
	case hpmpwp.Dead:
		v.Level = commands.LevelDead
	case hpmpwp.Dying:
		v.Level = commands.LevelDying
	case hpmpwp.Disabled, hpmpwp.Stable:
		v.Level = commands.LevelZero
	default:
		if c.HP < c.HPMax || c.WP < c.WPMax() {
			v.Level = commands.LevelWounded
		}
	}
	return v, nil
}
