package hpmpwp

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// randomCharacter returns a character with random sheet values, points,
// activity, counters and state, settled.
func randomCharacter(rng *rand.Rand) Character {
	c := New([]string{"fighter", "wizard", "sorcerer"}[rng.IntN(3)], 1+rng.IntN(20), 1+rng.IntN(80))
	c.Con, c.Wis, c.Str = 3+rng.IntN(20), 3+rng.IntN(20), 1+rng.IntN(20)
	c.MPMax = rng.IntN(30)
	c.HP, c.MP = rng.IntN(c.HPMax+1), rng.IntN(c.MPMax+1)
	c.WP = c.Con - rng.IntN(c.Con+8)
	if rng.IntN(3) == 0 {
		c.HP, c.MP, c.WP = c.HPMax, c.MPMax, c.Con
	}
	c.Fort, c.Will = rng.IntN(30)-5, rng.IntN(10)
	c.Endurance = rng.IntN(3) == 0
	c.Activity = Activity(rng.IntN(3))
	c.HoursWorked, c.HoursAwake = rng.IntN(14), rng.IntN(20)
	c.ExertionSaves = rng.IntN(4)
	c.ExertionFailures = rng.IntN(c.ExertionSaves + 1)
	if c.Activity == Sleep && rng.IntN(2) == 0 {
		c.SleepUntil = int64(rng.IntN(20)) * clock.RoundsPerHour
		if rng.IntN(2) == 0 {
			c.SleepUntil += int64(rng.IntN(clock.RoundsPerHour)) // a night's rest called between two whole hours
		}
	}
	if c.WP < 0 {
		c.State = []State{Disabled, Dying, Stable}[rng.IntN(3)]
	}
	return c.Settle()
}

// TestQuietStretchesChangeNothing: passing quiet hours in one step
// (quietHours, passQuietHours) gives exactly what the walk hour by hour
// gives, with the same dice: the character, every die consumed, the
// summary's saves, events and sleep. And AdvanceSummary gives what Advance
// gives. Replay a failure with -seed.
func TestQuietStretchesChangeNothing(t *testing.T) {
	s := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(s), 2))
	defer func(old int64) { minSkip = old }(minSkip)
	var skipped int64
	for run := range 300 {
		c := randomCharacter(rng)
		// fatigue() is Causes() without the texts.
		exhausting := false
		for _, k := range c.Causes() {
			exhausting = exhausting || k.Exhausting
		}
		if f, e := c.fatigue(); f != (len(c.Causes()) > 0) || e != exhausting {
			t.Fatalf("seed %d run %d: fatigue() = %v, %v; Causes() = %+v", s, run, f, e, c.Causes())
		}
		from := int64(rng.IntN(3 * clock.RoundsPerDay))
		to := from + int64(rng.IntN(20*clock.RoundsPerDay))
		faces := uint64(rng.Int64())
		walk := func(skip bool, summary bool) (Character, *Summary, int) {
			minSkip = 2
			if !skip {
				minSkip = math.MaxInt64
			}
			src := &countingSource{src: dice.NewRandom(faces)}
			var got Character
			var out Outcome
			var err error
			if summary {
				got, out, err = c.AdvanceSummary(src, from, to)
			} else {
				got, out, err = c.Advance(src, from, to)
			}
			if err != nil {
				t.Fatalf("seed %d run %d: %v", s, run, err)
			}
			return got, out.Summary, src.n
		}
		slow, slowSum, slowDice := walk(false, false)
		for _, summary := range []bool{false, true} {
			fast, fastSum, fastDice := walk(true, summary)
			skipped += fastSum.Skipped
			if fast != slow || fastDice != slowDice {
				t.Fatalf("seed %d run %d (summary %v): from %+v\nquiet stretches: %+v (%d dice)\nhour by hour:    %+v (%d dice)", s, run, summary, c, fast, fastDice, slow, slowDice)
			}
			if !reflect.DeepEqual(fastSum.Saves, slowSum.Saves) || !reflect.DeepEqual(fastSum.Events, slowSum.Events) ||
				fastSum.sleep != slowSum.sleep || fastSum.Hours != slowSum.Hours {
				t.Fatalf("seed %d run %d (summary %v): summaries differ:\n%+v\n%+v", s, run, summary, fastSum, slowSum)
			}
		}
	}
	if skipped == 0 {
		t.Errorf("seed %d: no run passed a quiet stretch; the test compares nothing", s)
	}
	t.Logf("%d hours passed in quiet stretches", skipped/2)
}

// countingSource counts the dice it hands out.
type countingSource struct {
	src dice.Source
	n   int
}

func (s *countingSource) Roll(d dice.Die) (int, error) {
	s.n++
	return s.src.Roll(d)
}

// TestAdvanceWorkIsLinear: the walk's steps (Summary.Steps) never pass the
// hours and dying rounds advanced, a year of the worst case (awake, a save
// every hour past the 16th awake) is at most 8,760 steps, and the quiet
// cases take far fewer: a dead character none, a stable sleeper at full
// points a couple a day. Steps are counted, not timed.
func TestAdvanceWorkIsLinear(t *testing.T) {
	year := int64(365 * clock.RoundsPerDay)
	hours := year / clock.RoundsPerHour
	src := dice.NewRandom(1)

	tireless := fighter(20, 20) // Fort +40: nearly every save passes
	tireless.Fort = MaxSave
	_, out, err := tireless.AdvanceSummary(src, 0, year)
	if err != nil {
		t.Fatal(err)
	}
	sum := out.Summary
	if sum.Hours != hours || sum.Steps > hours {
		t.Errorf("a tireless waker's year: %d hours in %d steps; want %d hours in at most as many steps", sum.Hours, sum.Steps, hours)
	}
	if len(sum.Saves) == 0 || sum.Saves[0].Count < int(hours)/2 {
		t.Errorf("a tireless waker's year: saves %+v; want one almost every hour", sum.Saves)
	}

	dead := fighter(10, 10)
	dead.State, dead.WP = Dead, -20
	if _, out, _ := dead.AdvanceSummary(src, 0, year); out.Summary.Steps != 0 {
		t.Errorf("a dead character's year: %d steps; want 0", out.Summary.Steps)
	}

	// Stable at WP −5 with full HP and MP, Con 40, level 1: WP +1 a day
	// for 5 days, then fine and awake; afterwards the awake and sleep cycle.
	// While stable each day is one quiet stretch and one step at midnight.
	stable := New(DefaultClass, 1, 10)
	stable.Con, stable.WP, stable.State = 40, -5, Stable
	stable = stable.Settle()
	stable.HP, stable.MP = stable.EffectiveHPMax(), stable.EffectiveMPMax()
	next, out, err := stable.AdvanceSummary(src, 0, 4*clock.RoundsPerDay)
	if err != nil {
		t.Fatal(err)
	}
	if next.State != Stable || next.WP != -1 || out.Summary.Steps > 8 || out.Summary.Hours != 96 {
		t.Errorf("4 days stable: %s, WP %d, %d hours in %d steps; want stable, WP -1, 96 hours in at most 8 steps", next.State, next.WP, out.Summary.Hours, out.Summary.Steps)
	}

	// A night's rest at full points: 8 hours in 2 steps (7 quiet hours,
	// then the hour that wakes).
	sleeper := fighter(10, 10)
	sleeper, _, _ = sleeper.NightRest(8 * clock.RoundsPerHour)
	next, out, err = sleeper.AdvanceSummary(src, 0, 8*clock.RoundsPerHour)
	if err != nil {
		t.Fatal(err)
	}
	if next.Activity != Awake || out.Summary.Steps != 2 || len(out.Summary.Events) != 1 || out.Summary.Events[0].What != "wakes" {
		t.Errorf("a night at full points: %s in %d steps, events %+v; want awake in 2 steps, one wake", next.Activity, out.Summary.Steps, out.Summary.Events)
	}
}

// TestAdvanceSummaryCounts: the summary of a long advance counts every save
// with its outcomes and DCs and what happened, and holds no lines.
func TestAdvanceSummaryCounts(t *testing.T) {
	c := fighter(10, 10)
	c.HoursAwake = 16
	// Hours 17–19 awake, Fort +0: DC 10 passes by 5 (15), DC 12 fails (3),
	// DC 14 fails by 10 or more (1 ≤ 14 − 10).
	src := dice.NewScripted(15, 3, 1)
	next, out, err := c.AdvanceSummary(src, 0, 3*clock.RoundsPerHour)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Lines) != 0 || len(out.Saves) != 0 {
		t.Errorf("AdvanceSummary lines %q, saves %v; want none (the summary only)", out.Lines, out.Saves)
	}
	want := []SaveCount{{Kind: "Fort", For: "exertion, hours awake", Count: 3, Succeeded: 1, Failed: 2, SucceededBy5: 1, FailedBy10: 1, MinDC: 10, MaxDC: 14}}
	if !reflect.DeepEqual(out.Summary.Saves, want) {
		t.Errorf("saves %+v; want %+v", out.Summary.Saves, want)
	}
	if next.ExertionFailures != 2 || next.Condition() != "fatigued" {
		t.Errorf("after: %d failures, %q; want 2, fatigued", next.ExertionFailures, next.Condition())
	}
}
