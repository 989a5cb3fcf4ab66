package hpmpwp

import (
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Limits of work and wakefulness before exertion saves (RULES.md §2.6), in
// hours.
const (
	WorkHours  = 8
	AwakeHours = 16
)

// ExertionDC returns the DC of the next exertion save (RULES.md §2.6): 10 +
// 2 × the exertion saves already made since the character last slept it
// off.
func (c Character) ExertionDC() int { return 10 + 2*c.ExertionSaves }

// WakeDC returns the DC of the Will save to wake early (RULES.md §2.6): 10 +
// 1 per hour worked not yet slept off + 2 per exertion failure.
func (c Character) WakeDC() int { return 10 + c.HoursWorked + 2*c.ExertionFailures }

// Sleepless returns the first whole hour of the clock after from, at or
// before to (a clock value in rounds), that would leave the character
// awake more than AwakeHours and so cost it an exertion save for hours
// awake (RULES.md §2.6), and true; 0 and false when no hour up to to
// would. It follows the character's activity as Advance does, without a
// roll: a sleeper first sleeps off its hours worked and exertion failures
// and sleeps to its SleepUntil, then wakes with 0 hours awake; the dead and
// the unconscious make no such save (their hours count as sleep). An
// advance asks with it before it keeps a character from its sleep.
func (c Character) Sleepless(from, to int64) (int64, bool) {
	if c.State == Dead || !c.State.Conscious() {
		return 0, false
	}
	const hour = clock.RoundsPerHour
	first := (floorDiv(from, hour) + 1) * hour // the first whole hour crossed
	at := first + int64(max(AwakeHours-c.HoursAwake, 0))*hour
	if c.Activity == Sleep {
		// It wakes at the whole hour that sleeps its last debt off, or
		// where its night ends when that is later (at a whole hour, or
		// between two); the first whole hour after it wakes is its first
		// awake.
		owed := c.HoursWorked + c.ExertionFailures
		wakes := first + int64(max(owed, 1)-1)*hour
		awake := wakes + hour
		if c.SleepUntil > from && (owed == 0 || c.SleepUntil > wakes) {
			awake = (floorDiv(c.SleepUntil, hour) + 1) * hour
		}
		at = awake + AwakeHours*hour
	}
	if at > to {
		return 0, false
	}
	return at, true
}

// SetActivity sets what the character does as hours pass (RULES.md §2.6)
// at clock time now (in rounds). Any activity other than sleep set on a
// sleeping character is an attempt to wake early: a Will save against
// WakeDC rolled with src; on a failure it sleeps on, on a success it wakes
// and takes up the new activity. A character sent to sleep with nothing to
// sleep off (no hour worked, no exertion failure) sleeps one hour, the
// first whole hour of the clock, and wakes; the outcome says so (RULES.md
// §2.6 Reading: sleep is never refused). Errors: ErrDead, or the source's
// error.
func (c Character) SetActivity(src dice.Source, a Activity, now int64) (Character, Outcome, error) {
	out := Outcome{Before: c}
	if c.State == Dead {
		return c, out, ErrDead
	}
	if a != Sleep && c.Activity == Sleep {
		bonus, fatigue := c.willBonus()
		s, err := roll(src, "Will", "wake early", bonus, fatigue, c.WakeDC())
		if err != nil {
			return c, out, err
		}
		out.save(&s)
		if !s.Success {
			out.line("sleeps on")
			out.After = c
			return c, out, nil
		}
		out.line("wakes early")
		c.SleepUntil = 0
	}
	c.Activity = a
	if a == Sleep && out.Before.Activity != Sleep {
		if c.HoursWorked == 0 && c.ExertionFailures == 0 {
			wake := (floorDiv(now, clock.RoundsPerHour) + 1) * clock.RoundsPerHour
			out.line("goes to sleep with nothing to sleep off (no hour worked, no exertion failure): sleeps one hour and wakes at %s", clock.Time(wake))
		} else {
			out.line("goes to sleep")
		}
	}
	c = c.settle(&out)
	out.After = c
	return c, out, nil
}

// WakeByNoise is a noise reaching a sleeper whose player succeeded at a
// Listen check against listenDC (RULES.md §2.6, "woken by a noise"): the
// character wakes unless it succeeds at a Will save against that DC, rolled
// with src (Will lowered by the penalties of the moment, RULES.md §2.3
// Reading). With stayAsleep false the owner fails the save on purpose: the
// character wakes at once and nothing is rolled. Waking ends a night's rest
// and leaves the hours worked and the exertion failures not yet slept off.
// Errors: ErrDead, ErrNotAsleep, ErrUnconscious (a dying or stable sleeper:
// no noise wakes it), or the source's error.
func (c Character) WakeByNoise(src dice.Source, listenDC int, stayAsleep bool) (Character, Outcome, error) {
	out := Outcome{Before: c}
	switch {
	case c.State == Dead:
		return c, out, ErrDead
	case c.Activity != Sleep:
		return c, out, ErrNotAsleep
	case !c.State.Conscious():
		return c, out, ErrUnconscious
	}
	if stayAsleep {
		bonus, fatigue := c.willBonus()
		s, err := roll(src, "Will", "woken by a noise, the Listen DC", bonus, fatigue, listenDC)
		if err != nil {
			return c, out, err
		}
		out.save(&s)
		if s.Success {
			out.line("sleeps on through the noise")
			out.After = c
			return c, out, nil
		}
		out.line("wakes to the noise")
	} else {
		out.line("a noise (Listen DC %d): fails the Will save on purpose and wakes", listenDC)
	}
	c.Activity, c.SleepUntil = Awake, 0
	c = c.settle(&out)
	out.After = c
	return c, out, nil
}

// NightRest puts the character to sleep until the clock value until (in
// rounds; RULES.md §2.6): the GM puts the whole table to sleep for 8 hours,
// and the character does not wake on its own before until, even with
// nothing left to sleep off (hpkeeper's reading). Hours apply on whole
// hours of the clock: a night from 00:02 to 08:02 sleeps the 8 whole hours
// it crosses (01:00 to 08:00) and ends at 08:02, where the sleeper wakes
// (Advance), as the reply's "until 08:02" says. A character already asleep
// sleeps at least until then. Errors: ErrDead, ErrUnconscious (the
// unconscious do not go to bed; their hours count as sleep anyway).
func (c Character) NightRest(until int64) (Character, Outcome, error) {
	out := Outcome{Before: c}
	switch {
	case c.State == Dead:
		return c, out, ErrDead
	case !c.State.Conscious():
		return c, out, ErrUnconscious
	}
	if c.Activity != Sleep {
		out.line("goes to sleep")
	}
	c.Activity, c.SleepUntil = Sleep, max(c.SleepUntil, until)
	out.After = c
	return c, out, nil
}

// sleepHour applies one hour of sleep at clock time now (RULES.md §2.6):
// hours awake reset to 0, then one hour worked is slept off, or, when none
// is left, one exertion failure; when both are gone the save count resets
// and, if wake is set and now has reached SleepUntil, the character wakes.
// An unconscious character's hours count as sleep but it does not wake
// (wake false; hpkeeper's reading).
func (c *Character) sleepHour(now int64, wake bool, out *Outcome) {
	c.HoursAwake = 0
	owed := c.HoursWorked > 0 || c.ExertionFailures > 0
	switch {
	case c.HoursWorked > 0:
		c.HoursWorked--
	case c.ExertionFailures > 0:
		c.ExertionFailures--
	}
	if c.HoursWorked > 0 || c.ExertionFailures > 0 {
		return
	}
	c.ExertionSaves = 0
	if !wake || c.Activity != Sleep || now < c.SleepUntil {
		return
	}
	if owed {
		out.event("wakes", "has slept it all off and wakes")
	} else if c.SleepUntil != 0 {
		out.event("wakes", "wakes: the night's rest is over")
	} else {
		out.event("wakes", "wakes after an hour's sleep (nothing to sleep off)")
	}
	c.Activity, c.SleepUntil = Awake, 0
}

// endNight ends a night's rest at its SleepUntil between two whole hours
// (RULES.md §2.6; the walk of Advance steps there): a conscious sleeper with
// nothing left to sleep off wakes; one still owing hours worked or
// exertion failures sleeps on, and wakes at the whole hour that sleeps the
// last of them off (sleepHour).
func (c *Character) endNight(out *Outcome) {
	if !c.State.Conscious() || c.HoursWorked > 0 || c.ExertionFailures > 0 {
		return
	}
	out.event("wakes", "wakes: the night's rest is over")
	c.Activity, c.SleepUntil = Awake, 0
}

// activityHour applies one hour of the activity at clock time now (RULES.md
// §2.6). Work adds an hour worked and an hour awake, awake an hour awake;
// then an exertion save (Fort, +4 with Endurance) against ExertionDC, a
// failure adding an exertion failure, after an hour of work that leaves
// more than 8 hours worked or any hour that leaves more than 16 awake: an
// awake hour after a long workday costs no save until hours awake pass 16.
// A penalty that brings an ability to 0 or below puts the character to
// sleep. Sleep is sleepHour.
func (c *Character) activityHour(src dice.Source, now int64, out *Outcome) error {
	overworked := false
	switch c.Activity {
	case Sleep:
		c.sleepHour(now, true, out)
		return nil
	case Work:
		c.HoursWorked++
		c.HoursAwake++
		overworked = c.HoursWorked > WorkHours
	default:
		c.HoursAwake++
	}
	if overworked || c.HoursAwake > AwakeHours {
		why := "exertion, hours awake"
		if overworked {
			why = "exertion, hours worked"
		}
		bonus, fatigue := c.fortBonus()
		s, err := out.roll(src, "Fort", why, bonus, fatigue, c.ExertionDC())
		if err != nil {
			return err
		}
		c.ExertionSaves++
		out.save(&s)
		if !s.Success {
			c.ExertionFailures++
			out.event("", "exertion failure %d: −%d to all abilities", c.ExertionFailures, 2*c.ExertionFailures)
		}
	}
	if c.lowestAbility() <= 0 {
		c.Activity = Sleep
		out.event("falls asleep (an ability at 0 or below)", "an ability at 0 or below: falls asleep")
	}
	return nil
}
