package commands

import (
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// View shows an hp-mp-wp character (RULES.md §2): HP, MP and WP bars (WP
// max is the Con score, temporary WP on top); at 0 when disabled or stable
// at negative WP, dying while Dying.
func (hpMpWp) View(ch *storage.Character, now int64) (CharacterView, error) {
	c, _, err := hmwLoad(ch)
	if err != nil {
		return CharacterView{}, err
	}
	v := CharacterView{Bars: []Bar{{"HP", c.HP, c.HPMax}, {"MP", c.MP, c.MPMax}, {"WP", c.WP, c.WPMax() + c.TempWP}}, State: c.State.String()}
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
		v.Level = LevelDead
	case hpmpwp.Dying:
		v.Level = LevelDying
	case hpmpwp.Disabled, hpmpwp.Stable:
		v.Level = LevelZero
	default:
		if c.HP < c.HPMax || c.WP < c.WPMax() {
			v.Level = LevelWounded
		}
	}
	return v, nil
}
