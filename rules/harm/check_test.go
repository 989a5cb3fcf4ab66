package harm

import (
	"errors"
	"math/big"
	"reflect"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// scripted returns a dice source handing out the Fudge faces given (-1, 0, 1).
func scripted(faces ...int) dice.Source { return dice.NewScripted(faces...) }

// TestCheckExpr pins the expression of a check (RULES.md §3.1): 3dF + rank,
// 4dF with the table option, bonus dice keep the highest, penalty dice the
// lowest, and they cancel one for one.
func TestCheckExpr(t *testing.T) {
	tests := []struct {
		name string
		k    Check
		want string
	}{
		{"plain", Check{Rank: 2}, "3dF+2"},
		{"unskilled", Check{Rank: 0}, "3dF"},
		{"fudge-dice 4", Check{Rank: 1, FudgeDice: 4}, "4dF+1"},
		{"one bonus die", Check{Rank: 1, Mods: []Mod{{1, "Vigor point"}}}, "4dFkh3+1"},
		{"one penalty die", Check{Rank: 3, Mods: []Mod{{-1, "Bloody"}}}, "4dFkl3+3"},
		{"two bonus dice with 4dF", Check{Rank: 0, FudgeDice: 4, Mods: []Mod{{2, "First Aid SL 2"}}}, "6dFkh4"},
		{"bonus and penalty cancel", Check{Rank: 2, Mods: []Mod{{-1, "Broken"}, {1, "Vigor point"}}}, "3dF+2"},
		{"two bonus, one penalty", Check{Rank: 2, Mods: []Mod{{-1, "Broken"}, {2, "First Aid SL 2"}}}, "4dFkh3+2"},
		{"one bonus, two penalty", Check{Rank: 2, Mods: []Mod{{-1, "Broken"}, {-1, "GM"}, {1, "point"}}}, "4dFkl3+2"},
	}
	for _, tt := range tests {
		e, err := tt.k.Expr()
		if err != nil || e.String() != tt.want {
			t.Errorf("%s: Expr(%+v) = %v, %v; want %s", tt.name, tt.k, e, err, tt.want)
		}
	}
	if _, err := (Check{FudgeDice: 5}).Expr(); !errors.Is(err, ErrBadFudgeDice) {
		t.Errorf("Expr with 5 Fudge dice: err = %v; want ErrBadFudgeDice", err)
	}
	if _, err := (Check{Mods: []Mod{{MaxModDice + 1, "x"}}}).Expr(); !errors.Is(err, ErrTooManyDice) {
		t.Errorf("Expr with %d bonus dice: err = %v; want ErrTooManyDice", MaxModDice+1, err)
	}
}

// TestCheckRollKeepsBestAndWorst: with a bonus die the best 3 count, with a
// penalty die the worst 3; the success level is floored at 0 (RULES.md §3.1).
func TestCheckRollKeepsBestAndWorst(t *testing.T) {
	tests := []struct {
		name      string
		k         Check
		faces     []int
		roll      string
		total, sl int
	}{
		{"plain", Check{Rank: 2}, []int{1, 0, -1}, "3dF+2 [+, 0, −] + 2 = 2", 2, 2},
		{"bonus die keeps best", Check{Rank: 1, Mods: []Mod{{1, ""}}}, []int{-1, 1, -1, 0}, "4dFkh3+1 [~~−~~, +, −, 0] + 1 = 1", 1, 1},
		{"penalty die keeps worst", Check{Rank: 1, Mods: []Mod{{-1, ""}}}, []int{1, 1, 0, -1}, "4dFkl3+1 [~~+~~, +, 0, −] + 1 = 1", 1, 1},
		{"below 0 is SL 0", Check{Rank: 1}, []int{-1, -1, -1}, "3dF+1 [−, −, −] + 1 = -2", -2, 0},
		{"4dF", Check{Rank: 0, FudgeDice: 4}, []int{1, 1, 1, 1}, "4dF [+, +, +, +] = 4", 4, 4},
	}
	for _, tt := range tests {
		res, err := tt.k.Roll(scripted(tt.faces...))
		if err != nil {
			t.Fatalf("%s: Roll = %v", tt.name, err)
		}
		if res.Roll.String() != tt.roll || res.Total != tt.total || res.SL != tt.sl {
			t.Errorf("%s: Roll(%v) = %s, total %d, SL %d; want %s, %d, %d", tt.name, tt.faces, res.Roll, res.Total, res.SL, tt.roll, tt.total, tt.sl)
		}
	}
}

// bruteForce enumerates every way n Fudge dice can fall and counts the sum
// of the kept dice (the highest keep when keep > 0, the lowest −keep when
// keep < 0, all when keep is 0).
func bruteForce(n, keep int) map[int]int64 {
	counts := map[int]int64{}
	faces := make([]int, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			sorted := append([]int(nil), faces...)
			for a := range sorted { // insertion sort, highest first
				for b := a; b > 0 && sorted[b] > sorted[b-1]; b-- {
					sorted[b], sorted[b-1] = sorted[b-1], sorted[b]
				}
			}
			var kept []int
			switch {
			case keep > 0:
				kept = sorted[:keep]
			case keep < 0:
				kept = sorted[n+keep:]
			default:
				kept = sorted
			}
			sum := 0
			for _, f := range kept {
				sum += f
			}
			counts[sum]++
			return
		}
		for f := -1; f <= 1; f++ {
			faces[i] = f
			rec(i + 1)
		}
	}
	rec(0)
	return counts
}

// TestCheckDistributionsMatchBruteForce checks the exact distributions of
// 3dF, 4dF, "3dF with one bonus die" (4dFkh3) and with one penalty die
// (4dFkl3) against an enumeration of every roll (RULES.md §3.1).
func TestCheckDistributionsMatchBruteForce(t *testing.T) {
	tests := []struct {
		name    string
		k       Check
		n, keep int
	}{
		{"3dF", Check{}, 3, 0},
		{"4dF", Check{FudgeDice: 4}, 4, 0},
		{"3dF with one bonus die", Check{Mods: []Mod{{1, "bonus"}}}, 4, 3},
		{"3dF with one penalty die", Check{Mods: []Mod{{-1, "penalty"}}}, 4, -3},
		{"3dF with two bonus dice", Check{Mods: []Mod{{2, "bonus"}}}, 5, 3},
	}
	for _, tt := range tests {
		e, err := tt.k.Expr()
		if err != nil {
			t.Fatal(err)
		}
		d, err := e.Distribution()
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(tt.n, tt.keep)
		var outcomes int64
		for sum, c := range want {
			outcomes += c
			if got := d.Count(sum); got.Cmp(big.NewInt(c)) != 0 {
				t.Errorf("%s (%s): Count(%d) = %v; want %d", tt.name, e, sum, got, c)
			}
		}
		if d.Outcomes().Cmp(big.NewInt(outcomes)) != 0 {
			t.Errorf("%s: Outcomes() = %v; want %d", tt.name, d.Outcomes(), outcomes)
		}
		for sum := d.Min(); sum <= d.Max(); sum++ {
			if _, ok := want[sum]; !ok && d.Count(sum).Sign() != 0 {
				t.Errorf("%s: Count(%d) = %v; want 0", tt.name, sum, d.Count(sum))
			}
		}
	}
	// Two known values: 3dF rolls 0 in 7 of 27, and a bonus die makes +3
	// (three + among the best three) 9 in 81.
	d3, _ := dice.MustParse("3dF").Distribution()
	if got := d3.P(0); got.Cmp(big.NewRat(7, 27)) != 0 {
		t.Errorf("P(3dF = 0) = %v; want 7/27", got)
	}
	dB, _ := dice.MustParse("4dFkh3").Distribution()
	if got := dB.P(3); got.Cmp(big.NewRat(9, 81)) != 0 {
		t.Errorf("P(4dFkh3 = 3) = %v; want 1/9", got)
	}
}

// TestConditionPenalty: Bloody puts a penalty die on every check but the
// innate abilities, Broken on every check (RULES.md §3.2).
func TestConditionPenalty(t *testing.T) {
	tests := []struct {
		cond    Condition
		ability string
		want    int
	}{
		{Healthy, Endure, 0}, {Healthy, "climb", 0}, {Healthy, FirstAid, 0},
		{Bloody, Endure, 0}, {Bloody, React, 0}, {Bloody, Willpower, 0},
		{Bloody, "climb", 1}, {Bloody, FirstAid, 1}, {Bloody, Counsel, 1},
		{Broken, Endure, 1}, {Broken, React, 1}, {Broken, Willpower, 1},
		{Broken, "climb", 1}, {Broken, FirstAid, 1},
	}
	for _, tt := range tests {
		c := New()
		c.Condition = tt.cond
		if got := c.ConditionPenalty(tt.ability); got != tt.want {
			t.Errorf("%v.ConditionPenalty(%s) = %d; want %d", tt.cond, tt.ability, got, tt.want)
		}
	}
}

// garrett returns RULES.md §3.2's Garrett with a Climb skill on Vigor.
func garrett() Character {
	c := New()
	c.Abilities[Endure] = Ability{2, Vigor}
	c.Abilities[React] = Ability{1, Instinct}
	c.Abilities["climb"] = Ability{2, Vigor}
	c.Abilities[FirstAid] = Ability{1, Reason}
	return c
}

// TestActPenaltyDicePerConditionAndAbility: an action carries the condition's
// penalty die by ability kind (RULES.md §3.2).
func TestActPenaltyDicePerConditionAndAbility(t *testing.T) {
	tests := []struct {
		cond    Condition
		ability string
		expr    string
	}{
		{Healthy, "climb", "3dF+2"},
		{Healthy, Endure, "3dF+2"},
		{Bloody, "climb", "4dFkl3+2"},
		{Bloody, Endure, "3dF+2"},
		{Bloody, React, "3dF+1"},
		{Broken, "climb", "4dFkl3+2"},
		{Broken, Endure, "4dFkl3+2"},
		{Broken, Willpower, "4dFkl3"},
	}
	for _, tt := range tests {
		c := garrett()
		c.Condition = tt.cond
		_, out, err := c.Act(scripted(0, 0, 0, 0), Action{Ability: tt.ability})
		if err != nil {
			t.Fatalf("%v Act(%s) = %v", tt.cond, tt.ability, err)
		}
		if got := out.Check.Roll.Expr.String(); got != tt.expr {
			t.Errorf("%v Act(%s) rolled %s; want %s", tt.cond, tt.ability, got, tt.expr)
		}
	}
}

// TestActPoolPoint: a pool point buys one bonus die, from the ability's pool
// (the reading named on Act), and an empty pool is refused.
func TestActPoolPoint(t *testing.T) {
	c := garrett()
	n, out, err := c.Act(scripted(-1, 1, 0, 1), Action{Ability: "climb", Pool: Vigor})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Check.Roll.String(); got != "4dFkh3+2 [~~−~~, +, 0, +] + 2 = 4" || out.Check.SL != 4 {
		t.Errorf("Act(climb, vigor) rolled %s SL %d; want 4dFkh3+2 [~~−~~, +, 0, +] + 2 = 4, SL 4", got, out.Check.SL)
	}
	if n.Vigor.Current != 2 || c.Vigor.Current != 3 || len(out.Spent) != 1 || out.Spent[0] != (PoolChange{Vigor, 3, 2, "bonus die"}) {
		t.Errorf("Act(climb, vigor): Vigor %d (was %d), spent %+v; want 3 → 2 for a bonus die, original untouched", n.Vigor.Current, c.Vigor.Current, out.Spent)
	}
	if _, _, err := c.Act(scripted(0, 0, 0, 0), Action{Ability: "climb", Pool: Reason}); !errors.Is(err, ErrWrongPool) {
		t.Errorf("Act(climb, reason) err = %v; want ErrWrongPool", err)
	}
	c.Vigor.Current = 0
	if _, _, err := c.Act(scripted(0, 0, 0, 0), Action{Ability: "climb", Pool: Vigor}); !errors.Is(err, ErrPoolEmpty) {
		t.Errorf("Act(climb, vigor) with Vigor 0: err = %v; want ErrPoolEmpty", err)
	}
	if _, _, err := c.Act(scripted(0, 0, 0), Action{Ability: "swim"}); !errors.Is(err, ErrNoAbility) {
		t.Errorf("Act(swim) err = %v; want ErrNoAbility", err)
	}
}

// TestActBloodyPointCancelsPenalty: a Bloody character's pool point cancels
// the penalty die: 3dF again (RULES.md §3.1 cancellation).
func TestActBloodyPointCancelsPenalty(t *testing.T) {
	c := garrett()
	c.Condition = Bloody
	_, out, err := c.Act(scripted(1, 0, -1), Action{Ability: "climb", Pool: Vigor})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Check.Roll.String(); got != "3dF+2 [+, 0, −] + 2 = 2" {
		t.Errorf("Bloody Act(climb, vigor) rolled %s; want 3dF+2 [+, 0, −] + 2 = 2", got)
	}
	if k := out.Check.Check; k.Bonus() != 1 || k.Penalty() != 1 || k.Net() != 0 {
		t.Errorf("bonus %d, penalty %d, net %d; want 1, 1, 0", k.Bonus(), k.Penalty(), k.Net())
	}
}

// TestBrokenActionCostsAPointOfTheAbilitysPool: while Broken each action
// costs 1 point of the ability's pool, spent by the bot; with none left it
// is refused and nothing changes (RULES.md §3.2). With a bonus die as well
// it costs 2.
func TestBrokenActionCostsAPointOfTheAbilitysPool(t *testing.T) {
	c := garrett()
	c.Condition = Broken
	c.Instinct.Current = 1
	n, out, err := c.Act(scripted(0, 0, 0, 0), Action{Ability: React})
	if err != nil {
		t.Fatal(err)
	}
	if n.Instinct.Current != 0 || len(out.Spent) != 1 || out.Spent[0] != (PoolChange{Instinct, 1, 0, "Broken action"}) {
		t.Errorf("Broken Act(react): Instinct %d, spent %+v; want 1 → 0 for the Broken action", n.Instinct.Current, out.Spent)
	}
	if got := out.Check.Roll.Expr.String(); got != "4dFkl3+1" {
		t.Errorf("Broken Act(react) rolled %s; want 4dFkl3+1", got)
	}
	if _, _, err := n.Act(scripted(0, 0, 0, 0), Action{Ability: React}); !errors.Is(err, ErrPoolEmpty) {
		t.Errorf("Broken Act(react) with Instinct 0: err = %v; want ErrPoolEmpty", err)
	}
	// A bonus die too: 2 points, and the bonus cancels the penalty.
	n, out, err = c.Act(scripted(0, 0, 0), Action{Ability: "climb", Pool: Vigor})
	if err != nil {
		t.Fatal(err)
	}
	if n.Vigor.Current != 1 || len(out.Spent) != 2 || out.Check.Roll.Expr.String() != "3dF+2" {
		t.Errorf("Broken Act(climb, vigor): Vigor %d, spent %+v, rolled %s; want Vigor 1, 2 spent, 3dF+2", n.Vigor.Current, out.Spent, out.Check.Roll.Expr)
	}
	c.Vigor.Current = 1
	if _, _, err := c.Act(scripted(0, 0, 0), Action{Ability: "climb", Pool: Vigor}); !errors.Is(err, ErrPoolEmpty) {
		t.Errorf("Broken Act(climb, vigor) with Vigor 1: err = %v; want ErrPoolEmpty", err)
	}
}

// TestActScriptExhaustedChangesNothing: a failed roll spends nothing.
func TestActScriptExhaustedChangesNothing(t *testing.T) {
	c := garrett()
	c.Condition = Broken
	n, _, err := c.Act(scripted(0), Action{Ability: Endure, Pool: Vigor})
	if !errors.Is(err, dice.ErrScriptExhausted) || n.Vigor.Current != 3 {
		t.Errorf("Act with 1 face: err %v, Vigor %d; want ErrScriptExhausted, 3", err, n.Vigor.Current)
	}
}

// TestCheckRollMatchesBruteForce runs every sequence of Fudge faces through
// Check.Roll (the roller the rules use, not the dice package's
// Distribution) and compares the success levels counted with an
// enumeration of the kept dice (RULES.md §3.1): 3dF, 4dF, one bonus die,
// one penalty die, and a bonus and a penalty die cancelling; with rank 1 so
// that the floor at SL 0 is exercised.
func TestCheckRollMatchesBruteForce(t *testing.T) {
	tests := []struct {
		name    string
		k       Check
		n, keep int
	}{
		{"3dF", Check{Rank: 1}, 3, 0},
		{"4dF", Check{Rank: 1, FudgeDice: 4}, 4, 0},
		{"one bonus die", Check{Rank: 1, Mods: []Mod{{1, "Vigor point"}}}, 4, 3},
		{"one penalty die", Check{Rank: 1, Mods: []Mod{{-1, "Bloody"}}}, 4, -3},
		{"bonus and penalty cancel", Check{Rank: 1, Mods: []Mod{{-1, "Broken"}, {1, "Vigor point"}}}, 3, 0},
	}
	for _, tt := range tests {
		want := map[int]int64{}
		for sum, c := range bruteForce(tt.n, tt.keep) {
			want[max(sum+tt.k.Rank, 0)] += c
		}
		got := map[int]int64{}
		faces := make([]int, tt.n)
		var rec func(i int)
		rec = func(i int) {
			if i == tt.n {
				src := dice.NewScripted(faces...)
				res, err := tt.k.Roll(src)
				if err != nil {
					t.Fatalf("%s: Roll(%v) = %v", tt.name, faces, err)
				}
				if src.Remaining() != 0 {
					t.Fatalf("%s: Roll(%v) left %d faces; want %d dice rolled", tt.name, faces, src.Remaining(), tt.n)
				}
				if res.SL != max(res.Total, 0) {
					t.Fatalf("%s: Roll(%v) total %d, SL %d", tt.name, faces, res.Total, res.SL)
				}
				got[res.SL]++
				return
			}
			for f := -1; f <= 1; f++ {
				faces[i] = f
				rec(i + 1)
			}
		}
		rec(0)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: SL counts over every roll = %v; want %v", tt.name, got, want)
		}
	}
}
