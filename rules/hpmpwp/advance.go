package hpmpwp

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Advance passes the table's clock from round from to round to (RULES.md
// §0.2, §2.4–§2.6), in time order: while the character is dying, every
// round boundary brings its stabilization save (NextRound); every whole hour
// crossed applies PassHour and every whole day PassDay after it. Once the
// character is not dying the walk jumps from hour to hour, and it passes a
// stretch of hours in which nothing but its hours awake, worked or slept
// can change (see Summary.Skipped) in one step. Each line of the outcome is
// prefixed with the clock time it happened at; fatigue or exhaustion ending
// is reported when it happens, and a last unstamped line sums up the hours
// slept (or spent unconscious, which count as sleep) and what they slept
// off. The outcome's Summary counts it all as well. The error is the
// source's. The work is linear in the hours and dying rounds passed: a year
// is at most 8,760 steps.
func (c Character) Advance(src dice.Source, from, to int64) (Character, Outcome, error) {
	return c.walk(src, from, to, false)
}

// AdvanceSummary is Advance for a long advance, whose reply sums up instead
// of listing: the same rules and dice, but the outcome has no Lines and no
// Saves, only its Summary, so that no step builds a text.
func (c Character) AdvanceSummary(src dice.Source, from, to int64) (Character, Outcome, error) {
	return c.walk(src, from, to, true)
}

// minSkip is the shortest stretch of quiet hours walked in one step (a
// test sets it past any stretch to compare with the walk hour by hour).
var minSkip int64 = 2

// walk is Advance (quiet false) and AdvanceSummary (quiet true).
func (c Character) walk(src dice.Source, from, to int64, quiet bool) (Character, Outcome, error) {
	out := Outcome{Before: c, Summary: &Summary{}, quiet: quiet}
	sum := out.Summary
	t := from
	for t < to && c.State != Dead {
		next := (floorDiv(t, clock.RoundsPerHour) + 1) * clock.RoundsPerHour
		if c.State == Dying {
			next = t + 1
		}
		// A night's rest that ends between two whole hours ends there.
		nightEnds := c.Activity == Sleep && c.SleepUntil > t && c.SleepUntil < next
		if nightEnds {
			next = c.SleepUntil
		}
		if next > to {
			break
		}
		if c.State != Dying && !nightEnds {
			if k := c.quietHours(next, to); k >= minSkip {
				c.passQuietHours(k, &sum.sleep)
				t = next + (k-1)*clock.RoundsPerHour
				sum.Hours += k
				sum.Skipped += k
				sum.Steps++
				continue
			}
		}
		t = next
		sum.Steps++
		out.at = t
		mark := len(out.Lines)
		wasFatigued, wasExhausted := c.fatigue()
		if c.State == Dying {
			if err := c.nextRound(src, t, &out); err != nil {
				return out.Before, out, err
			}
		}
		if t%clock.RoundsPerHour == 0 {
			hour := sleepCounts(&c)
			if err := c.passHour(src, t, &out); err != nil {
				return out.Before, out, err
			}
			sum.sleep.count(hour, &c)
			sum.Hours++
		}
		if t%clock.RoundsPerDay == 0 {
			c.passDay(&out)
		}
		if nightEnds {
			c.endNight(&out)
		}
		if l := fatigueEnded(wasFatigued, wasExhausted, &c); l != "" {
			out.event(l, "%s", l)
		}
		if len(out.Lines) > mark {
			stamp := clock.Time(t).String() + ": "
			for i := mark; i < len(out.Lines); i++ {
				out.Lines[i] = stamp + out.Lines[i]
			}
		}
	}
	if l := sum.sleep.String(); l != "" && !quiet {
		out.Lines = append(out.Lines, l)
	}
	out.After = c
	return c, out, nil
}

// quietHours returns how many of the whole hours ending at next, next + 1
// hour, … up to to change nothing but the character's hours awake, worked
// or slept, in ways passQuietHours applies without a roll (RULES.md §2.5,
// §2.6): HP and MP at their (lowered) maxima, so nothing regenerates; WP at
// the maximum, or no day boundary on the way; every ability above 0; and
// no hour that makes a save, sleeps off an exertion failure, wakes or
// resets the save count. 0 when the next hour is not quiet. A dying or dead
// character has none.
func (c *Character) quietHours(next, to int64) int64 {
	if c.State == Dying || c.State == Dead || next > to {
		return 0
	}
	k := (to-next)/clock.RoundsPerHour + 1
	awake := c.State.Conscious() && c.Activity != Sleep
	switch {
	case awake:
		k = min(k, int64(AwakeHours-c.HoursAwake))
		if c.Activity == Work {
			k = min(k, int64(WorkHours-c.HoursWorked))
		}
	case c.HoursWorked >= 2:
		// sleepHour: hours awake reset, one hour worked slept off a step;
		// the hour that takes the last one off may wake the character or
		// reset its saves.
		k = min(k, int64(c.HoursWorked-1))
	case c.HoursWorked > 0 || c.ExertionFailures > 0 || c.ExertionSaves > 0:
		return 0
	case c.State.Conscious():
		// Asleep with nothing to sleep off: it wakes at the first hour
		// that ends at or after SleepUntil.
		k = min(k, (c.SleepUntil-next+clock.RoundsPerHour-1)/clock.RoundsPerHour)
	}
	// (Unconscious with nothing to sleep off: its hours count as sleep, and
	// it does not wake.)
	if c.WP < c.WPMax() {
		// PassDay would regain WP: stop before the hour that ends a day.
		day := (floorDiv(next-1, clock.RoundsPerDay) + 1) * clock.RoundsPerDay
		k = min(k, (day-next)/clock.RoundsPerHour)
	}
	if k < minSkip {
		return 0
	}
	p := c.penalty()
	if c.HP != c.effectiveHPMax(p) || c.MP != c.effectiveMPMax(p) {
		return 0
	}
	if awake && c.lowestAbility() <= 0 {
		return 0 // the next awake hour puts it to sleep
	}
	return k
}

// passQuietHours passes k hours that quietHours found quiet: what k steps of
// PassHour would do, with the sleep counted in s.
func (c *Character) passQuietHours(k int64, s *sleepTally) {
	n := int(k)
	switch {
	case !c.State.Conscious() || c.Activity == Sleep:
		if c.State.Conscious() {
			s.asleep += n
		} else {
			s.unconscious += n
		}
		s.awakeReset = s.awakeReset || c.HoursAwake > 0
		worked := min(n, c.HoursWorked)
		s.worked += worked
		c.HoursWorked -= worked
		c.HoursAwake = 0
	case c.Activity == Work:
		c.HoursWorked += n
		c.HoursAwake += n
	default:
		c.HoursAwake += n
	}
}

// Summary sums up an advance per character (RULES.md §0.2): every save
// counted by kind and purpose with its outcomes, everything that happened
// counted with the first and last time it did, and the hours slept. It is
// what a long advance reports instead of a line per hour, and its size does
// not grow with the advance.
type Summary struct {
	// Saves counts the saves by kind and purpose, in the order first made.
	Saves []SaveCount
	// Events counts what happened (e.g. "wakes", "no longer fatigued"), in
	// the order first seen.
	Events []EventCount
	// Hours is the whole hours passed while the character was alive;
	// Skipped the hours of them passed in quiet stretches (see
	// Character.Advance); Steps the steps the walk took: hours one by one,
	// quiet stretches and dying rounds.
	Hours, Skipped, Steps int64

	sleep sleepTally
}

// SaveCount is how many saves of one kind and purpose an advance made (e.g.
// Fort, "exertion, hours awake") and how they came out.
type SaveCount struct {
	Kind, For string
	// Count is the saves made; Succeeded and Failed split them;
	// SucceededBy5 and FailedBy10 are among those (RULES.md §0.4, §2.4).
	Count, Succeeded, Failed, SucceededBy5, FailedBy10 int
	// MinDC and MaxDC are the lowest and highest DC met.
	MinDC, MaxDC int
}

// EventCount is how many times one thing happened during an advance, and
// when first and last (clock values in rounds).
type EventCount struct {
	What        string
	Count       int
	First, Last int64
}

// Sleep returns the line that sums up the hours slept, e.g. "slept 8 h: 3 h
// worked and 1 exertion failure slept off", or "" (see Advance).
func (s *Summary) Sleep() string { return s.sleep.String() }

func (s *Summary) countSave(v *Save) {
	i := 0
	for i < len(s.Saves) && (s.Saves[i].Kind != v.Kind || s.Saves[i].For != v.For) {
		i++
	}
	if i == len(s.Saves) {
		s.Saves = append(s.Saves, SaveCount{Kind: v.Kind, For: v.For, MinDC: v.DC, MaxDC: v.DC})
	}
	sc := &s.Saves[i]
	sc.Count++
	sc.MinDC, sc.MaxDC = min(sc.MinDC, v.DC), max(sc.MaxDC, v.DC)
	switch {
	case v.Success:
		sc.Succeeded++
		if v.SucceededBy5() {
			sc.SucceededBy5++
		}
	default:
		sc.Failed++
		if v.FailedBy10() {
			sc.FailedBy10++
		}
	}
}

func (s *Summary) countEvent(what string, at int64) {
	for i := range s.Events {
		if e := &s.Events[i]; e.What == what {
			e.Count++
			e.Last = at
			return
		}
	}
	s.Events = append(s.Events, EventCount{What: what, Count: 1, First: at, Last: at})
}

// sleepTally sums up the hours of an advance that counted as sleep (RULES.md
// §2.6) and what they slept off.
type sleepTally struct {
	asleep, unconscious, worked, failures int
	awakeReset                            bool
}

// sleepCount is what sleepTally.count needs of a character before an hour.
type sleepCount struct {
	state            State
	activity         Activity
	worked, failures int
	awake            bool
}

func sleepCounts(c *Character) sleepCount {
	return sleepCount{c.State, c.Activity, c.HoursWorked, c.ExertionFailures, c.HoursAwake > 0}
}

// count adds one hour that took the character from before to after.
func (s *sleepTally) count(before sleepCount, after *Character) {
	switch {
	case before.state == Dead:
		return
	case !before.state.Conscious():
		s.unconscious++
	case before.activity == Sleep:
		s.asleep++
	default:
		return
	}
	s.worked += max(0, before.worked-after.HoursWorked)
	s.failures += max(0, before.failures-after.ExertionFailures)
	s.awakeReset = s.awakeReset || before.awake
}

// String renders the tally, e.g. "slept 8 h: 3 h worked and 1 exertion
// failure slept off"; "" when there is nothing worth saying (no sleep, or
// only unconscious hours that changed nothing).
func (s sleepTally) String() string {
	paid := s.worked > 0 || s.failures > 0
	if s.asleep == 0 && !paid && !s.awakeReset {
		return ""
	}
	var parts []string
	if s.asleep > 0 {
		parts = append(parts, fmt.Sprintf("slept %d h", s.asleep))
	}
	if s.unconscious > 0 {
		parts = append(parts, fmt.Sprintf("unconscious %d h (counts as sleep)", s.unconscious))
	}
	line := strings.Join(parts, ", ")
	var off []string
	if s.worked > 0 {
		off = append(off, fmt.Sprintf("%d h worked", s.worked))
	}
	if s.failures > 0 {
		off = append(off, fmt.Sprintf("%d exertion failure%s", s.failures, plural(s.failures)))
	}
	switch {
	case len(off) > 0:
		line += ": " + strings.Join(off, " and ") + " slept off"
	case s.awakeReset:
		line += ": hours awake back to 0"
	}
	return line
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
