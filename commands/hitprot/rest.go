package hitprot

import (
	"errors"
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// rest answers /rest (RULES.md §1.5): turn (spend 1 HD, keep the higher),
// breath (table option catch-breath, fighters only) and the GM's night (the
// whole table: the clock moves 1 day first; every sleeper re-rolls keeping
// the higher and regains 1 HD).
func rest(m *commands.Mutation) (*commands.Response, error) {
	kind := m.Req.Options["kind"]
	switch kind {
	case "turn", "breath":
		if kind == "breath" && m.Table.Options["catch-breath"] != "on" {
			return nil, commands.Errorf(commands.CodeConflict, "Catching breath is off at this table; a GM turns it on with /table option name:catch-breath value:on.")
		}
		targets, err := loadOwnTarget(m)
		if err != nil {
			return nil, err
		}
		now := clock.Time(m.Table.Clock)
		for _, h := range targets {
			m := m.For(h.ch)
			var c rules.Character
			var res rules.RestResult
			if kind == "turn" {
				c, res, err = h.c.Rest(m.Dice(), now)
			} else {
				c, res, err = h.c.CatchBreath(m.Dice(), now)
			}
			if errors.Is(err, rules.ErrNotFighter) {
				return nil, commands.Errorf(commands.CodeConflict, "%s cannot catch its breath: only a fighter may (class %s).", h.name(), commands.Escape(h.c.Class))
			}
			if errors.Is(err, rules.ErrCannotRestore) || errors.Is(err, rules.ErrNoHD) {
				why := reason(err)
				if errors.Is(err, rules.ErrNoHD) {
					why = "no hit dice left; " + why
				}
				return nil, commands.Errorf(commands.CodeConflict, "%s cannot rest to restore HP: %s. Nothing was changed.", h.name(), why)
			}
			if err != nil {
				return nil, ruleError(h, err)
			}
			if err := h.store(m, c); err != nil {
				return nil, err
			}
			what := "rests a turn"
			if kind == "breath" {
				what = "steps out of the fight for a round to catch its breath (not in melee)"
			}
			line := fmt.Sprintf("%s %s, spends a hit die: %s.", h.name(), what, restText(res, c))
			m.Say("%s", line)
			m.Note("%s", commands.Unmarkdown(line))
		}
		return &commands.Response{}, nil
	case "night":
		if err := m.RequireGM("call a night's sleep"); err != nil {
			return nil, err
		}
		var sleepers []*character
		var err error
		if t, ok := m.Req.Options["target"]; ok {
			sleepers, err = loadTargets(m, t, false)
			if err != nil {
				return nil, err
			}
		} else {
			if _, err := m.AdvanceClock(1, clock.Day); err != nil {
				return nil, err
			}
			all, err := m.Characters()
			if err != nil {
				return nil, err
			}
			for _, ch := range all {
				h, err := load(ch)
				if err != nil {
					return nil, err
				}
				sleepers = append(sleepers, h)
			}
		}
		now := clock.Time(m.Table.Clock)
		for _, h := range sleepers {
			m := m.For(h.ch)
			if h.c.Status == rules.Dead {
				if _, ok := m.Req.Options["target"]; ok {
					return nil, ruleError(h, rules.ErrDead)
				}
				continue
			}
			c, res, err := h.c.Night(m.Dice(), now)
			if err != nil {
				return nil, ruleError(h, err)
			}
			if err := h.store(m, c); err != nil {
				return nil, err
			}
			what := "re-rolls " + restText(res, c)
			if res.Skipped != "" {
				what = "no re-roll (" + res.Skipped + ")"
				if hd := commands.Change("HD", res.HDBefore, res.HDAfter, c.Level); hd != "" {
					what += ": " + hd
				}
			}
			line := fmt.Sprintf("%s sleeps the night: %s.", h.name(), what)
			m.Say("%s", line)
			m.Note("%s", commands.Unmarkdown(line))
		}
		if len(sleepers) == 0 {
			m.ForTable().Say("Nobody here to sleep.")
		}
		return &commands.Response{}, nil
	}
	return nil, commands.Errorf(commands.CodeInvalid, "The hit-protection system rests with kind turn, breath (catch-breath) or night; not %s.", commands.Clip(kind, 20))
}

// restText renders a rest's roll and what changed, keeping the higher of
// the roll and the HP before (RULES.md §1.5): "1d4 [3] = 3, keeps the
// higher: HP 1 → 3/4 · HD 3 → 2/3", or "1d4 [2] = 2, not higher than HP
// 3; HD 2 → 3/3" (the HP that stayed is no change, so it does not join
// the changes).
func restText(res rules.RestResult, c rules.Character) string {
	hd := commands.Change("HD", res.HDBefore, res.HDAfter, c.Level)
	if res.HPAfter == res.HPBefore {
		s := fmt.Sprintf("%s, not higher than HP %d", res.Roll, res.HPAfter)
		if hd != "" {
			s += "; " + hd
		}
		return s
	}
	return fmt.Sprintf("%s, keeps the higher: %s", res.Roll, commands.Changes(commands.Change("HP", res.HPBefore, res.HPAfter, c.HitDie), hd))
}
