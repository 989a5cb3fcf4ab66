package commands

import (
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// View shows a hit-protection character (RULES.md §1): the HP bar of its hit
// die and its HD bar; at 0 while choosing, staying up or down, dying while a
// wound bleeds out.
func (hitProtection) View(ch *storage.Character, now int64) (CharacterView, error) {
	var s hpSheet
	if err := DecodeSheet(ch.Sheet, &s); err != nil {
		return CharacterView{}, err
	}
	c := s.character()
	v := CharacterView{Bars: []Bar{{"HP", c.HP, c.HitDie}, {"HD", c.HD, c.Level}}, State: c.Status.String()}
	v.Conditions, v.Timers = SplitTimers(c.Conditions(clock.Time(now)))
	switch {
	case c.Status == hitprot.Dead:
		v.Level = LevelDead
	case len(c.Bleeds) > 0:
		v.Level = LevelDying
	case c.HP <= 0 || c.Status != hitprot.Up:
		v.Level = LevelZero
	case c.HP < c.HitDie || c.Untreated > 0 || len(v.Conditions) > 0:
		v.Level = LevelWounded
	}
	return v, nil
}
