package hitprot

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// View shows a hit-protection character (RULES.md §1): the HP bar of its hit
// die and its HD bar; at 0 while choosing, staying up or down, dying while a
// wound bleeds out.
func (System) View(ch *storage.Character, now int64) (commands.CharacterView, error) {
	var s hpSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return commands.CharacterView{}, err
	}
	c := s.character()
	v := commands.CharacterView{Bars: []commands.Bar{{Label: "HP", Current: c.HP, Max: c.HitDie}, {Label: "HD", Current: c.HD, Max: c.Level}}, State: c.Status.String()}
	v.Conditions, v.Timers = commands.SplitTimers(c.Conditions(clock.Time(now)))
	switch {
	case c.Status == hitprot.Dead:
		v.Level = commands.LevelDead
	case len(c.Bleeds) > 0:
		v.Level = commands.LevelDying
	case c.HP <= 0 || c.Status != hitprot.Up:
		v.Level = commands.LevelZero
	case c.HP < c.HitDie || c.Untreated > 0 || len(v.Conditions) > 0:
		v.Level = commands.LevelWounded
	}
	return v, nil
}
