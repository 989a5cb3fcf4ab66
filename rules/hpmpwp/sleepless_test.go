package hpmpwp

import (
	"math/rand/v2"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestSleepless: the first hour of an advance that leaves a character
// awake more than 16 hours (RULES.md §2.6), for the awake, the worker, the
// sleeper who sleeps its night and its debts off first, and none for the
// unconscious and the dead.
func TestSleepless(t *testing.T) {
	h := func(n int64) int64 { return n * clock.RoundsPerHour }
	day := h(24)
	tests := []struct {
		name     string
		set      func(*Character)
		from, to int64
		at       int64
		ok       bool
	}{
		{"awake a day", nil, 0, day, h(17), true},
		{"awake 16 hours", nil, 0, h(16), 0, false},
		{"awake since 2 minutes past", nil, 2, day + 2, h(17), true},
		{"awake 10 hours already", func(c *Character) { c.HoursAwake = 10 }, 0, day, h(7), true},
		{"awake 20 hours already", func(c *Character) { c.HoursAwake = 20 }, h(3), day, h(4), true},
		{"working", func(c *Character) { c.Activity = Work }, 0, day, h(17), true},
		{"a night's rest to 08:00", func(c *Character) { c.Activity, c.SleepUntil = Sleep, h(8) }, 0, day, 0, false},
		{"a night's rest, then two days", func(c *Character) { c.Activity, c.SleepUntil = Sleep, h(8) }, 0, 2 * day, h(25), true},
		{"a night's rest from 00:02, then two days", func(c *Character) { c.Activity, c.SleepUntil = Sleep, h(8)+2 }, 2, 2*day + 2, h(25), true},
		{"asleep with 3 failures to sleep off", func(c *Character) { c.Activity, c.ExertionSaves, c.ExertionFailures = Sleep, 3, 3 }, 0, day, h(20), true},
		{"asleep with nothing to sleep off", func(c *Character) { c.Activity = Sleep }, 0, day, h(18), true},
		{"stable", func(c *Character) { c.WP, c.State = -3, Stable }, 0, day, 0, false},
		{"dead", func(c *Character) { c.WP, c.State = -30, Dead }, 0, day, 0, false},
		{"disabled", func(c *Character) { c.WP, c.State = -1, Disabled }, 0, day, h(17), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fighter(20, 15)
			if tt.set != nil {
				tt.set(&c)
			}
			if at, ok := c.Sleepless(tt.from, tt.to); at != tt.at || ok != tt.ok {
				t.Errorf("Sleepless(%d, %d) = %s, %v; want %s, %v", tt.from, tt.to, clock.Time(at), ok, clock.Time(tt.at), tt.ok)
			}
		})
	}
}

// TestSleeplessMatchesAdvance: for random conscious characters and
// advances, Sleepless names the first hour after which Advance leaves the
// character awake more than 16 hours (every save passing, so that no
// failure puts it to sleep on the way), and none when no hour does.
func TestSleeplessMatchesAdvance(t *testing.T) {
	s := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(s), 0))
	always := alwaysSource{}
	const n = 300
	sleepless := 0
	for i := 0; i < n; i++ {
		c := fighter(20, 15)
		c.Fort = MaxSave
		c.Activity = Activity(rng.IntN(3))
		c.HoursAwake = rng.IntN(20)
		if c.Activity == Sleep {
			c.HoursAwake = 0
			c.HoursWorked = rng.IntN(4)
			c.ExertionFailures = rng.IntN(3)
			c.ExertionSaves = c.ExertionFailures
			if rng.IntN(2) == 0 {
				c.SleepUntil = int64(rng.IntN(12 * clock.RoundsPerHour)) // a night's end, at a whole hour or between two
			}
		}
		if c.Activity == Work {
			c.HoursWorked = rng.IntN(8)
		}
		from := int64(rng.IntN(3 * clock.RoundsPerHour))
		to := from + int64(rng.IntN(50*clock.RoundsPerHour))
		want, wantOK := int64(0), false
		for b := (from/clock.RoundsPerHour + 1) * clock.RoundsPerHour; b <= to && !wantOK; b += clock.RoundsPerHour {
			after, _, err := c.Advance(always, from, b)
			if err != nil {
				t.Fatal(err)
			}
			if after.Activity != Sleep && after.HoursAwake > AwakeHours {
				want, wantOK = b, true
			}
		}
		if at, ok := c.Sleepless(from, to); at != want || ok != wantOK {
			t.Fatalf("seed %d, case %d: %+v: Sleepless(%s, %s) = %s, %v; Advance's first hour past 16 awake: %s, %v",
				s, i, c, clock.Time(from), clock.Time(to), clock.Time(at), ok, clock.Time(want), wantOK)
		}
		if wantOK {
			sleepless++
		}
	}
	if sleepless == 0 || sleepless == n {
		t.Errorf("seed %d: %d of %d advances keep the character awake past 16 hours; the test compares only one side", s, sleepless, n)
	}
}

// alwaysSource rolls every die's highest face.
type alwaysSource struct{}

func (alwaysSource) Roll(d dice.Die) (int, error) { return d.Sides, nil }
