package hpmpwp

import (
	"math/rand/v2"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestMPDice: the MP roll shows its sum with its parts (issue 24: an MP
// max of 29 beside "Rolled 2d10 [9, 4] = 13"), and its total is the MP max
// of RULES.md §2.1 for every class, Wis score and level, the floor of 1 a
// level included.
func TestMPDice(t *testing.T) {
	tests := []struct {
		class   string
		wis, n  int
		first   bool
		faces   []int
		want    string
		wantSum int
	}{
		{"wizard", 14, 2, true, []int{9, 4}, "2d10+16 [9, 4] + 16 [d10 max at level 1, Wis +2 a level] = 29", 29},
		{"sorcerer", 10, 2, true, []int{4, 9}, "2d12+12 [4, 9] + 12 [d12 max at level 1] = 25", 25},
		{"wizard", 14, 2, false, []int{9, 4}, "2d10+4 [9, 4] + 4 [Wis +2 a level] = 17", 17},
		{"wizard", 10, 1, false, []int{7}, "1d10 [7] = 7", 7},
		{"fighter", 6, 2, true, []int{1, 4}, "2d4mi3-2 [1→3, 4] - 2 [d4 max at level 1, Wis -2 a level] = 5", 5},
	}
	for _, tt := range tests {
		e, err := MPDice(tt.class, tt.wis, tt.n, tt.first)
		if err != nil {
			t.Fatalf("MPDice(%s, Wis %d, %d, %v): %v", tt.class, tt.wis, tt.n, tt.first, err)
		}
		r, err := e.Roll(dice.NewScripted(tt.faces...))
		if err != nil || r.String() != tt.want || r.Total != tt.wantSum {
			t.Errorf("MPDice(%s, Wis %d, %d, %v) rolling %v = %q (%d), %v; want %q (%d)", tt.class, tt.wis, tt.n, tt.first, tt.faces, r, r.Total, err, tt.want, tt.wantSum)
		}
	}

	s := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(s), 3))
	for _, class := range []string{"fighter", "paladin", "bard", "wizard", "sorcerer"} {
		for wis := MinScore; wis <= MaxScore; wis++ {
			for n := 1; n < MaxLevel; n++ {
				faces := make([]int, n)
				for i := range faces {
					faces[i] = 1 + rng.IntN(ManaDie(class))
				}
				for _, first := range []bool{true, false} {
					e, err := MPDice(class, wis, n, first)
					if err != nil {
						t.Fatalf("MPDice(%s, Wis %d, %d, %v): %v", class, wis, n, first, err)
					}
					r, err := e.Roll(dice.NewScripted(faces...))
					if err != nil {
						t.Fatal(err)
					}
					want := MPGain(wis, faces...)
					if first {
						want = MPMax(class, wis, faces)
					}
					if r.Total != want {
						t.Fatalf("seed %d: MPDice(%s, Wis %d, %d, %v) rolling %v = %s; want a total of %d", s, class, wis, n, first, faces, r, want)
					}
				}
			}
		}
	}
}
