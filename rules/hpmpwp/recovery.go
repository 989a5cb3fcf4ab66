package hpmpwp

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Pool names the points /heal restores (RULES.md §2.5).
type Pool int

// The pools healing restores.
const (
	PoolHP Pool = iota
	PoolWP
)

// String returns "HP" or "WP".
func (p Pool) String() string {
	if p == PoolWP {
		return "WP"
	}
	return "HP"
}

// Heal restores amount HP or WP (RULES.md §2.5), capped at the current
// maxima (HP at the lowered maximum of §2.3, WP at the Con score; temporary
// WP are not restored). Any healing of WP makes a dying character stable,
// and WP back at 0 or more end the negative-WP states (RULES.md §2.4).
// Errors: ErrDead, ErrBadAmount for an amount below 1.
func (c Character) Heal(pool Pool, amount int) (Character, Outcome, error) {
	out := Outcome{Before: c}
	switch {
	case c.State == Dead:
		return c, out, ErrDead
	case amount < 1:
		return c, out, fmt.Errorf("%w: healing must be at least 1, not %d", ErrBadAmount, amount)
	}
	if pool == PoolHP {
		// The cap is the maximum as it stands before the healing: fatigue
		// that the healing ends does not raise it (RULES.md §2.3).
		limit, why := c.EffectiveHPMax(), ""
		if limit < c.HPMax {
			why = " while fatigued"
		}
		c.HP = max(c.HP, min(c.HP+amount, limit))
		out.line("heals %d HP (max %d%s)", c.HP-out.Before.HP, limit, why)
	} else {
		limit := c.WPMax()
		c.WP = max(c.WP, min(c.WP+amount, limit))
		out.line("heals %d WP (max %d)", c.WP-out.Before.WP, limit)
		if c.State == Dying && c.WP < 0 {
			c.State = Stable
			out.line("WP healing stabilizes: stable, unconscious")
		}
	}
	c = c.settle(&out)
	if out.Before.State != Fine && out.Before.State != Dead && c.State == Fine {
		out.line("WP back at %d: no longer %s", c.WP, out.Before.State)
	}
	if l := conditionEnded(&out.Before, &c); l != "" {
		out.line("%s", l)
	}
	out.After = c
	return c, out, nil
}

// SpendMP pays n MP for a spell (RULES.md §2.5): refused with
// ErrNotEnoughMP when the character has fewer than n MP (MP never go below 0
// nor spill into WP), with ErrDead or ErrUnconscious when it cannot cast,
// and ErrBadAmount for n below 1.
func (c Character) SpendMP(n int) (Character, Outcome, error) {
	out := Outcome{Before: c}
	switch {
	case c.State == Dead:
		return c, out, ErrDead
	case !c.State.Conscious():
		return c, out, ErrUnconscious
	case n < 1:
		return c, out, fmt.Errorf("%w: spend at least 1 MP, not %d", ErrBadAmount, n)
	case n > c.MP:
		return c, out, fmt.Errorf("%w: %d MP needed, %d left", ErrNotEnoughMP, n, c.MP)
	}
	c.MP -= n
	out.line("spends %d MP", n)
	if c.State == Disabled {
		out.line("casting while disabled is a strenuous action: /strain")
	}
	c = c.settle(&out)
	out.After = c
	return c, out, nil
}

// regenerating reports whether the character regains points with time
// (RULES.md §2.5): not while dying or dead.
func (c Character) regenerating() bool { return c.State != Dying && c.State != Dead }

// PassHour applies one whole hour of the table's clock, ending at clock
// time now in rounds (RULES.md §2.5, §2.6): first the character's activity
// (work, awake or sleep, with any exertion save rolled with src), then +1 HP
// and +1 MP per level, capped at the lowered maxima; nothing is regained
// while dying or dead. An unconscious character (dying or stable) neither
// works nor stays awake: its hours count as sleep (hours awake reset, work
// and exertion failures slept off) but it does not wake while unconscious
// (hpkeeper's reading). The error is the source's.
func (c Character) PassHour(src dice.Source, now int64) (Character, Outcome, error) {
	out := Outcome{Before: c}
	if err := c.passHour(src, now, &out); err != nil {
		return out.Before, out, err
	}
	out.After = c
	return c, out, nil
}

// passHour is PassHour in place, recording in out; on an error c is left
// half-changed.
func (c *Character) passHour(src dice.Source, now int64, out *Outcome) error {
	if c.State == Dead {
		return nil
	}
	if c.State.Conscious() {
		if err := c.activityHour(src, now, out); err != nil {
			return err
		}
	} else {
		c.sleepHour(now, false, out)
	}
	c.settleIn(out)
	if c.regenerating() {
		p := c.penalty()
		hp := max(c.HP, min(c.HP+c.Level, c.effectiveHPMax(p)))
		mp := max(c.MP, min(c.MP+c.Level, c.effectiveMPMax(p)))
		if hp != c.HP || mp != c.MP {
			c.HP, c.MP = hp, mp
			c.settleIn(out)
		}
	}
	return nil
}

// PassDay applies one whole day of the table's clock (RULES.md §2.5): +1 WP
// per level, capped at the WP max (the Con score); nothing while dying or
// dead. WP back at 0 or more end the disabled and stable states.
func (c Character) PassDay() (Character, Outcome) {
	out := Outcome{Before: c}
	c.passDay(&out)
	out.After = c
	return c, out
}

// passDay is PassDay in place, recording in out.
func (c *Character) passDay(out *Outcome) {
	if !c.regenerating() || c.WP >= c.WPMax() {
		return
	}
	before := c.State
	c.WP = min(c.WP+c.Level, c.WPMax())
	c.settleIn(out)
	if before != Fine && c.State == Fine {
		out.event("WP back at 0 or more", "WP back at %d: no longer %s", c.WP, before)
	}
}
