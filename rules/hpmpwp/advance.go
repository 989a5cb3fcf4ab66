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
// character is not dying the walk jumps from hour to hour, so a month costs
// 720 steps. Each line of the outcome is prefixed with the clock time it
// happened at; fatigue or exhaustion ending is reported when it happens,
// and a last unstamped line sums up the hours slept (or spent unconscious,
// which count as sleep) and what they slept off. The error is the source's.
func (c Character) Advance(src dice.Source, from, to int64) (Character, Outcome, error) {
	out := Outcome{Before: c}
	var sleep sleepTally
	t := from
	for t < to && c.State != Dead {
		next := (floorDiv(t, clock.RoundsPerHour) + 1) * clock.RoundsPerHour
		if c.State == Dying {
			next = t + 1
		}
		if next > to {
			break
		}
		t = next
		stamp := clock.Time(t).String()
		prev := c
		var step Outcome
		var err error
		if c.State == Dying {
			if c, step, err = c.NextRound(src, t); err != nil {
				return out.Before, out, err
			}
			out.add(stamp, step)
		}
		if t%clock.RoundsPerHour == 0 {
			hour := c
			if c, step, err = c.PassHour(src, t); err != nil {
				return out.Before, out, err
			}
			sleep.count(hour, c)
			out.add(stamp, step)
		}
		if t%clock.RoundsPerDay == 0 {
			c, step = c.PassDay()
			out.add(stamp, step)
		}
		if l := conditionEnded(prev, c); l != "" {
			out.Lines = append(out.Lines, fmt.Sprintf("%s: %s", stamp, l))
		}
	}
	if l := sleep.String(); l != "" {
		out.Lines = append(out.Lines, l)
	}
	out.After = c
	return c, out, nil
}

// sleepTally sums up the hours of an advance that counted as sleep (RULES.md
// §2.6) and what they slept off.
type sleepTally struct {
	asleep, unconscious, worked, failures int
	awakeReset                            bool
}

// count adds one hour that took the character from before to after.
func (s *sleepTally) count(before, after Character) {
	switch {
	case before.State == Dead:
		return
	case !before.State.Conscious():
		s.unconscious++
	case before.Activity == Sleep:
		s.asleep++
	default:
		return
	}
	s.worked += max(0, before.HoursWorked-after.HoursWorked)
	s.failures += max(0, before.ExertionFailures-after.ExertionFailures)
	s.awakeReset = s.awakeReset || before.HoursAwake > 0
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

// add appends p's saves and lines to o, each line prefixed with stamp, and
// carries p's capping flags over.
func (o *Outcome) add(stamp string, p Outcome) {
	o.Saves = append(o.Saves, p.Saves...)
	for _, l := range p.Lines {
		o.Lines = append(o.Lines, fmt.Sprintf("%s: %s", stamp, l))
	}
	o.CappedHP = o.CappedHP || p.CappedHP
	o.CappedMP = o.CappedMP || p.CappedMP
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
