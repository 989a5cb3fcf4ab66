package hitprot

import (
	"errors"
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// ErrCannotRestore: something blocks restoring HP — an untreated wound, a
// running no-restoring period, a bleed-out, a pending 0-HP choice or a hidden
// fate (RULES.md §1.4, §1.5). The wrapping error names the reason.
var ErrCannotRestore = errors.New("cannot restore HP")

// ErrNotFighter: only a fighter may catch its breath (RULES.md §1.5).
var ErrNotFighter = errors.New("only a fighter may catch its breath")

// RestoreBlock returns why the character cannot restore HP at clock round
// now, or "" when nothing blocks it (RULES.md §1.4, §1.5). Having no hit
// dice is not a block here: the night's sleep re-rolls without them.
func (c Character) RestoreBlock(now clock.Time) string {
	switch {
	case c.Status == Dead:
		return "dead"
	case c.Status == Choosing:
		return "the 0-HP choice is pending"
	case c.Status == Down && !c.FateRevealed:
		return "down, its fate hidden until someone attends it"
	case len(c.Bleeds) > 0:
		return fmt.Sprintf("bleeding out (%s, %s)", c.Bleeds[0].Wound, c.Bleeds[0].DiesIn(now))
	case c.Untreated > 0:
		return plural(c.Untreated, "untreated wound") + " (/treat first)"
	case c.NoRestoreUntil > now:
		return fmt.Sprintf("no HP restoring until %s", c.NoRestoreUntil)
	}
	return ""
}

// RestResult is what a rest or a night's sleep did.
type RestResult struct {
	// Roll is the hit-die roll (zero Result when skipped).
	Roll dice.Result
	// HPBefore, HPAfter, HDBefore, HDAfter are the numbers around the rest.
	HPBefore, HPAfter, HDBefore, HDAfter int
	// Skipped says why a night's re-roll was skipped ("" when rolled).
	Skipped string
}

// Rest is a rest of 1 turn at clock round now (RULES.md §1.5): a character
// that nothing blocks (see RestoreBlock) and with at least 1 hit die spends
// it and rolls the hit die; its HP become the higher of the roll and its
// current HP. HP above 0 end the 0-HP rules for it (back to normal play). It
// returns ErrCannotRestore (wrapping the reason) or ErrNoHD.
func (c Character) Rest(src dice.Source, now clock.Time) (Character, RestResult, error) {
	res := RestResult{HPBefore: c.HP, HDBefore: c.HD, HPAfter: c.HP, HDAfter: c.HD}
	if why := c.RestoreBlock(now); why != "" {
		return c, res, refuse(ErrCannotRestore, "%s", why)
	}
	if c.HD < 1 {
		return c, res, refuse(ErrNoHD, "only a night's sleep re-rolls HP")
	}
	r, err := dice.MustParse(fmt.Sprintf("1d%d", c.HitDie)).Roll(src)
	if err != nil {
		return c, res, err
	}
	c = c.clone()
	c.HD--
	c.HP = max(c.HP, r.Total)
	c.recover()
	res.Roll, res.HPAfter, res.HDAfter = r, c.HP, c.HD
	return c, res, nil
}

// CatchBreath is the table option catch-breath (RULES.md §1.5): a fighter
// not in melee steps out for a round, spends 1 hit die and re-rolls HP as a
// Rest. It returns ErrNotFighter, or Rest's errors.
func (c Character) CatchBreath(src dice.Source, now clock.Time) (Character, RestResult, error) {
	if c.Class != Fighter {
		return c, RestResult{HPBefore: c.HP, HPAfter: c.HP, HDBefore: c.HD, HDAfter: c.HD}, ErrNotFighter
	}
	return c.Rest(src, now)
}

// Night is a night's sleep ending at clock round now (RULES.md §1.5): the
// character re-rolls its hit die without spending hit dice and keeps the
// higher of the roll and its HP, unless RestoreBlock forbids it (then the
// re-roll is skipped); either way it regains 1 hit die, up to its level. A
// dead character does not sleep: it returns ErrDead.
func (c Character) Night(src dice.Source, now clock.Time) (Character, RestResult, error) {
	res := RestResult{HPBefore: c.HP, HDBefore: c.HD, HPAfter: c.HP, HDAfter: c.HD}
	if c.Status == Dead {
		return c, res, ErrDead
	}
	c = c.clone()
	if why := c.RestoreBlock(now); why != "" {
		res.Skipped = why
	} else {
		r, err := dice.MustParse(fmt.Sprintf("1d%d", c.HitDie)).Roll(src)
		if err != nil {
			return c, res, err
		}
		res.Roll = r
		c.HP = max(c.HP, r.Total)
		c.recover()
	}
	c.HD = min(c.HD+1, c.Level)
	res.HPAfter, res.HDAfter = c.HP, c.HD
	return c, res, nil
}

// Recover returns the character back in normal play when its HP are above 0
// and it stayed up, went down or still had its 0-HP choice pending (RULES.md
// §1.5: "back to normal play once its HP is above 0 again"); otherwise c
// unchanged. Wounds, bleed-outs, periods and limbs stay. A sheet edit that
// sets HP uses it, as rests and the night's sleep do.
func (c Character) Recover() Character {
	c = c.clone()
	c.recover()
	return c
}

// recover is Recover in place. A pending choice can only meet HP above 0
// through a sheet edit: rests are blocked while it is pending.
func (c *Character) recover() {
	if c.HP > 0 && (c.Status == StayingUp || c.Status == Down || c.Status == Choosing) {
		c.Status = Up
		c.FateRevealed = false
		c.ZeroType = ""
	}
}
