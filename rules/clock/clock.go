// Package clock is a table's game clock (RULES.md §0.2): rounds, turns (10
// minutes), hours and days, kept as one count of rounds so that every timed
// effect is stored as the round at which it ends.
package clock

import (
	"fmt"
	"strings"
)

// Rounds in each larger unit. A round is one minute of game time (RULES.md
// §0.2 Reading: 10 rounds a turn, 60 an hour, as in the older editions the
// hit-protection post builds on), so a turn passes more rounds than any
// round timer lasts (the longest is 8 rounds).
const (
	RoundsPerTurn = 10
	TurnsPerHour  = 6
	HoursPerDay   = 24
	RoundsPerHour = RoundsPerTurn * TurnsPerHour
	RoundsPerDay  = RoundsPerHour * HoursPerDay
	DaysPerWeek   = 7
)

// Unit is a unit of game time.
type Unit int

// The units of the clock, smallest first.
const (
	Round Unit = iota + 1
	Turn
	Hour
	Day
)

// ParseUnit reads "rounds", "turns", "hours" or "days" (singular too, any
// case). It returns an error naming the word for anything else.
func ParseUnit(s string) (Unit, error) {
	switch strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "s") {
	case "round":
		return Round, nil
	case "turn":
		return Turn, nil
	case "hour":
		return Hour, nil
	case "day":
		return Day, nil
	}
	return 0, fmt.Errorf("unknown time unit %q: use rounds, turns, hours or days", s)
}

// Rounds is the length of one unit in rounds.
func (u Unit) Rounds() int64 {
	switch u {
	case Turn:
		return RoundsPerTurn
	case Hour:
		return RoundsPerHour
	case Day:
		return RoundsPerDay
	}
	return 1
}

// String names the unit in the plural ("rounds").
func (u Unit) String() string {
	switch u {
	case Round:
		return "rounds"
	case Turn:
		return "turns"
	case Hour:
		return "hours"
	case Day:
		return "days"
	}
	return fmt.Sprintf("unit(%d)", int(u))
}

// Time is a point on a table's clock: rounds since the table started.
type Time int64

// Add returns t moved n units forward.
func (t Time) Add(n int64, u Unit) Time { return t + Time(n*u.Rounds()) }

// Day is the day number, starting at 1.
func (t Time) Day() int64 { return int64(t)/RoundsPerDay + 1 }

// String renders t as "day 1, 00:25": the day and the time of day, a round
// being one minute.
func (t Time) String() string {
	inDay := int64(t) % RoundsPerDay
	return fmt.Sprintf("day %d, %02d:%02d", t.Day(), inDay/RoundsPerHour, inDay%RoundsPerHour)
}

// Passed counts the whole units u that end in the interval (from, to]: how
// many hour (or day) boundaries the clock crosses when it moves from `from`
// to `to`. It is 0 when to <= from.
func Passed(from, to Time, u Unit) int64 {
	if to <= from {
		return 0
	}
	n := u.Rounds()
	return floorDiv(int64(to), n) - floorDiv(int64(from), n)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Duration renders a number of rounds in the largest whole units, e.g.
// "2 days 3 hours", "5 rounds".
func Duration(rounds int64) string {
	if rounds <= 0 {
		return "0 rounds"
	}
	parts := []string{}
	for _, u := range []Unit{Day, Hour, Turn, Round} {
		if n := rounds / u.Rounds(); n > 0 {
			name := strings.TrimSuffix(u.String(), "s")
			if n != 1 {
				name += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
			rounds -= n * u.Rounds()
		}
	}
	return strings.Join(parts, " ")
}
