package hpmpwp

import (
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// AttendDC is the DC of the Heal check that stabilizes a dying character
// (RULES.md §2.4).
const AttendDC = 15

// Strain is a strenuous action (attacking, casting) by a disabled character
// at clock time now, in rounds (RULES.md §2.4): it costs 1 WP (temporary WP
// first) and a Fort save at the DC of the new WP; success or failure →
// dying, failure by 10 or more → dead. With Die Hard the save is the one
// against damage while disabled: success keeps it disabled, failure makes it
// unconscious and stable, failure by 10 or more kills (hpkeeper's reading of
// "a strenuous action still costs 1 WP"). Errors: ErrDead, ErrNotDisabled,
// or the source's error.
func (c Character) Strain(src dice.Source, now int64) (Character, Outcome, error) {
	out := Outcome{Before: c}
	switch {
	case c.State == Dead:
		return c, out, ErrDead
	case c.State != Disabled:
		return c, out, ErrNotDisabled
	}
	out.line("strenuous action while disabled: 1 WP")
	c = c.loseWP(1, &out)
	bonus, fatigue := c.fortBonus()
	s, err := roll(src, "Fort", "strenuous action", bonus, fatigue, NegativeWPDC(c.WP))
	if err != nil {
		return out.Before, out, err
	}
	out.save(&s)
	switch {
	case s.FailedBy10():
		c.State = Dead
		out.line("dies")
	case c.DieHard && s.Success:
		out.line("Die Hard: stays disabled")
	case c.DieHard:
		c.State = Stable
		out.line("Die Hard: falls unconscious, stable")
	default:
		c = c.becomeDying(now, &out)
	}
	c = c.settle(&out)
	out.After = c
	return c, out, nil
}

// StabilizeDC returns the DC of a dying character's save at the new round
// now (RULES.md §2.4): 10 + 1 per round after the first it has spent dying.
func (c Character) StabilizeDC(now int64) int {
	return 10 + int(max(0, now-c.DyingSince-1))
}

// NextRound makes the per-round save of a dying character as the clock
// reaches round now (RULES.md §2.4): success → stable, success by 5 or more
// → conscious and disabled, failure → still dying, failure by 10 or more →
// dead. Endurance adds +4. A character that is not dying is returned
// unchanged with an empty outcome. The error is the source's.
func (c Character) NextRound(src dice.Source, now int64) (Character, Outcome, error) {
	out := Outcome{Before: c, After: c}
	if err := c.nextRound(src, now, &out); err != nil {
		return out.Before, out, err
	}
	out.After = c
	return c, out, nil
}

// nextRound is NextRound in place, recording in out.
func (c *Character) nextRound(src dice.Source, now int64, out *Outcome) error {
	if c.State != Dying {
		return nil
	}
	bonus, fatigue := c.fortBonus()
	s, err := out.roll(src, "Fort", "stabilize", bonus, fatigue, c.StabilizeDC(now))
	if err != nil {
		return err
	}
	out.save(&s)
	switch {
	case s.SucceededBy5():
		c.State = Disabled
		out.event("stabilizes and wakes, disabled", "stabilizes and wakes: conscious and disabled (no WP or HP regained)")
	case s.Success:
		c.State = Stable
		out.event("becomes stable", "is stable: unconscious, not dying (no WP or HP regained)")
	case s.FailedBy10():
		c.State = Dead
		out.event("dies", "dies")
	default:
		out.event("", "is still dying")
	}
	c.settleIn(out)
	return nil
}

// Attend is another character's DC 15 Heal check, d20 + bonus, on a dying
// character (RULES.md §2.4): success makes it stable. A Heal check is a
// skill check: natural 1 and 20 have no special effect. Errors: ErrDead,
// ErrNotDying, or the source's error.
func (c Character) Attend(src dice.Source, bonus int) (Character, Outcome, error) {
	out := Outcome{Before: c}
	switch {
	case c.State == Dead:
		return c, out, ErrDead
	case c.State != Dying:
		return c, out, ErrNotDying
	}
	s, err := roll(src, "Heal", "attend", bonus, 0, AttendDC)
	if err != nil {
		return c, out, err
	}
	out.save(&s)
	if s.Success {
		c.State = Stable
		out.line("is stable: unconscious, not dying")
	} else {
		out.line("is still dying")
	}
	c = c.settle(&out)
	out.After = c
	return c, out, nil
}
