package hpmpwp

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Advance passes the table's clock from round from to round to (RULES.md
// §0.2, §2.4–§2.6), in time order: while the character is dying, every
// round boundary brings its stabilization save (NextRound); every whole hour
// crossed applies PassHour and every whole day PassDay after it. Once the
// character is not dying the walk jumps from hour to hour, so a month costs
// 720 steps. Each line of the outcome is prefixed with the clock time it
// happened at. The error is the source's.
func (c Character) Advance(src dice.Source, from, to int64) (Character, Outcome, error) {
	out := Outcome{Before: c}
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
		var step Outcome
		var err error
		if c.State == Dying {
			if c, step, err = c.NextRound(src, t); err != nil {
				return out.Before, out, err
			}
			out.add(stamp, step)
		}
		if t%clock.RoundsPerHour == 0 {
			if c, step, err = c.PassHour(src); err != nil {
				return out.Before, out, err
			}
			out.add(stamp, step)
		}
		if t%clock.RoundsPerDay == 0 {
			c, step = c.PassDay()
			out.add(stamp, step)
		}
	}
	out.After = c
	return c, out, nil
}

// add appends p's saves and lines to o, each line prefixed with stamp.
func (o *Outcome) add(stamp string, p Outcome) {
	o.Saves = append(o.Saves, p.Saves...)
	for _, l := range p.Lines {
		o.Lines = append(o.Lines, fmt.Sprintf("%s: %s", stamp, l))
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
