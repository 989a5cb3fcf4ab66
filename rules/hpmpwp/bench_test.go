package hpmpwp

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// BenchmarkAdvanceYear is one character's year (8,760 hours) through
// AdvanceSummary, the walk of a long /clock advance, and through Advance
// (every line): the worst case, a character that stays awake and makes an
// exertion save almost every hour (Fort +40, so that it rarely fails and
// falls asleep); a character that works and sleeps; and a stable sleeper
// at full points, whose quiet stretches pass in one step. ns/step is per
// step of the walk.
func BenchmarkAdvanceYear(b *testing.B) {
	year := int64(365 * clock.RoundsPerDay)
	tireless := fighter(20, 20)
	tireless.Fort = MaxSave
	ordinary := fighter(20, 12)
	ordinary.Fort, ordinary.Activity = 2, Work
	resting := New(DefaultClass, 1, 10)
	resting.Con, resting.WP, resting.State = 40, -30, Stable
	resting = resting.Settle()
	for _, c := range []struct {
		name string
		c    Character
		walk func(Character, dice.Source, int64, int64) (Character, Outcome, error)
	}{
		{"awake-summary", tireless, Character.AdvanceSummary},
		{"awake-lines", tireless, Character.Advance},
		{"worker-summary", ordinary, Character.AdvanceSummary},
		{"stable-summary", resting, Character.AdvanceSummary},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := dice.NewRandom(1)
			var steps int64
			b.ReportAllocs()
			for b.Loop() {
				_, out, err := c.walk(c.c, src, 0, year)
				if err != nil {
					b.Fatal(err)
				}
				steps += out.Summary.Steps
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
		})
	}
}
