package hpmpwp

import (
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

// SetActivity sets what the character does as hours pass (RULES.md §2.6).
// Setting awake on a sleeping character is an attempt to wake early: a Will
// save against WakeDC rolled with src; on a failure it sleeps on. Errors:
// ErrDead, or the source's error.
func (c Character) SetActivity(src dice.Source, a Activity) (Character, Outcome, error) {
	out := Outcome{Before: c}
	if c.State == Dead {
		return c, out, ErrDead
	}
	if a == Awake && c.Activity == Sleep {
		s, err := roll(src, "Will", "wake early", c.Will, c.WakeDC())
		if err != nil {
			return c, out, err
		}
		out.save(s)
		if !s.Success {
			out.line("sleeps on")
			out.After = c
			return c, out, nil
		}
		out.line("wakes early")
	}
	c.Activity = a
	if a == Sleep && out.Before.Activity != Sleep {
		out.line("goes to sleep")
	}
	c = c.Settle()
	out.After = c
	return c, out, nil
}

// activityHour applies one hour of the activity (RULES.md §2.6). Work adds
// an hour worked and an hour awake, awake an hour awake; then, past 8 hours
// worked or 16 awake, an exertion save (Fort, +4 with Endurance) against
// ExertionDC, a failure adding an exertion failure. A penalty that brings an
// ability to 0 or below puts the character to sleep. Sleep resets the hours
// awake and removes one hour worked, or, when none is left, one exertion
// failure; when both are gone the save count resets and the character
// wakes.
func (c Character) activityHour(src dice.Source, out *Outcome) (Character, error) {
	switch c.Activity {
	case Sleep:
		c.HoursAwake = 0
		switch {
		case c.HoursWorked > 0:
			c.HoursWorked--
		case c.ExertionFailures > 0:
			c.ExertionFailures--
			out.line("sleep removes an exertion failure (%d left)", c.ExertionFailures)
		}
		if c.HoursWorked == 0 && c.ExertionFailures == 0 {
			c.ExertionSaves = 0
			c.Activity = Awake
			out.line("has slept it all off and wakes")
		}
		return c, nil
	case Work:
		c.HoursWorked++
		c.HoursAwake++
	default:
		c.HoursAwake++
	}
	if c.HoursWorked > WorkHours || c.HoursAwake > AwakeHours {
		why := "hours awake"
		if c.HoursWorked > WorkHours {
			why = "hours worked"
		}
		s, err := roll(src, "Fort", "exertion, "+why, c.fortBonus(), c.ExertionDC())
		if err != nil {
			return c, err
		}
		c.ExertionSaves++
		out.save(s)
		if !s.Success {
			c.ExertionFailures++
			out.line("exertion failure %d: −%d to all abilities", c.ExertionFailures, 2*c.ExertionFailures)
		}
	}
	for _, a := range c.Abilities() {
		if a <= 0 {
			c.Activity = Sleep
			out.line("an ability at 0 or below: falls asleep")
			break
		}
	}
	return c, nil
}
