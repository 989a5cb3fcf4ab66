package hitprot

import "testing"

// BenchmarkOdds is the exact odds shown with the 0-HP choice (RULES.md §1.3,
// §1.4): the injury band chances of Stay Up (2d6) and Go Down (3d6dh1),
// computed from the exact dice distribution every time.
func BenchmarkOdds(b *testing.B) {
	for _, expr := range []string{StayUpRoll, GoDownRoll, "2d6+3d6"} {
		b.Run(expr, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Odds(expr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
