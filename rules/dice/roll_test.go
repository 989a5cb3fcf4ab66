package dice

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRoll(t *testing.T) {
	tests := []struct {
		name, expr string
		faces      []int
		total      int
		want       string
	}{
		{"drop lowest", "3d6dl1", []int{5, 2, 1}, 7, "3d6dl1 [5, 2, ~~1~~] = 7"},
		{"keep highest", "3d6kh2", []int{5, 2, 1}, 7, "3d6kh2 [5, 2, ~~1~~] = 7"},
		{"drop highest", "3d6dh1", []int{5, 2, 1}, 3, "3d6dh1 [~~5~~, 2, 1] = 3"},
		{"keep lowest", "3d6kl2", []int{5, 2, 1}, 3, "3d6kl2 [~~5~~, 2, 1] = 3"},
		{"tie: first low dropped", "3d6dl1", []int{4, 1, 1}, 5, "3d6dl1 [4, ~~1~~, 1] = 5"},
		{"tie: first high dropped", "3d6dh1", []int{6, 2, 6}, 8, "3d6dh1 [~~6~~, 2, 6] = 8"},
		{"advantage", "2d20kh1", []int{3, 17}, 17, "2d20kh1 [~~3~~, 17] = 17"},
		{"disadvantage", "2d20kl1", []int{3, 17}, 3, "2d20kl1 [3, ~~17~~] = 3"},
		{"drop two lowest", "5d6dl2", []int{2, 6, 1, 5, 3}, 14, "5d6dl2 [~~2~~, 6, ~~1~~, 5, 3] = 14"},
		{"keep one of equals", "4d6kh1", []int{3, 3, 3, 3}, 3, "4d6kh1 [~~3~~, ~~3~~, ~~3~~, 3] = 3"},
		{"drop none", "3d6dh0", []int{1, 2, 3}, 6, "3d6dh0 [1, 2, 3] = 6"},
		{"keep all", "3d6kh3", []int{1, 2, 3}, 6, "3d6kh3 [1, 2, 3] = 6"},
		{"fudge", "3dF", []int{1, 0, -1}, 0, "3dF [+, 0, −] = 0"},
		{"fudge keep highest", "4dFkh3", []int{-1, 1, -1, 0}, 0, "4dFkh3 [~~−~~, +, −, 0] = 0"},
		{"fudge keep lowest", "4dFkl3", []int{1, 1, -1, 1}, 1, "4dFkl3 [~~+~~, +, −, +] = 1"},
		{"fudge plus rank", "3dF+2", []int{1, 0, 0}, 3, "3dF+2 [+, 0, 0] + 2 = 3"},
		{"several terms", "1d20+1d4+2", []int{13, 3}, 18, "1d20+1d4+2 [13] + [3] + 2 = 18"},
		{"minus terms", "1d20-1d4-2", []int{13, 3}, 8, "1d20-1d4-2 [13] - [3] - 2 = 8"},
		{"leading minus", "-1d4+5", []int{3}, 2, "-1d4+5 -[3] + 5 = 2"},
		{"minus fudge", "-3dF", []int{-1, -1, -1}, 3, "-3dF -[−, −, −] = 3"},
		{"minus keep", "10-3d6kh2", []int{6, 1, 4}, 0, "10-3d6kh2 10 - [6, ~~1~~, 4] = 0"},
		{"constants only", "2+3", nil, 5, "2+3 = 5"},
		{"negative total", "1d4-10", []int{1}, -9, "1d4-10 [1] - 10 = -9"},
		// RULES.md §1.3, Lister: Stay Up rolls 2d6 [1, 2] = 3, a Flesh Wound.
		{"Lister stays up", "2d6", []int{1, 2}, 3, "2d6 [1, 2] = 3"},
		{"Lister hit again", "1d6+7", []int{2}, 9, "1d6+7 [2] + 7 = 9"},
		// RULES.md §3.1, Garrett: Endure check 3dF = +1 with Endure 2.
		{"Garrett endures", "3dF+2", []int{1, 0, 0}, 3, "3dF+2 [+, 0, 0] + 2 = 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := NewScripted(tt.faces...)
			res, err := MustParse(tt.expr).Roll(src)
			if err != nil {
				t.Fatalf("Roll(%s, %v) error %v", tt.expr, tt.faces, err)
			}
			if res.Total != tt.total {
				t.Errorf("Roll(%s, %v).Total = %d; want %d", tt.expr, tt.faces, res.Total, tt.total)
			}
			if got := res.String(); got != tt.want {
				t.Errorf("Roll(%s, %v).String() = %q; want %q", tt.expr, tt.faces, got, tt.want)
			}
			if n := src.Remaining(); n != 0 {
				t.Errorf("Roll(%s, %v) left %d faces; want all used", tt.expr, tt.faces, n)
			}
			sum := 0
			for _, tr := range res.Terms {
				sum += tr.Value
			}
			if sum != res.Total {
				t.Errorf("term values sum to %d; Total is %d", sum, res.Total)
			}
		})
	}
}

func TestRollTermResults(t *testing.T) {
	e := MustParse("1d20-3d6dl1-2")
	res, err := e.Roll(NewScripted(13, 4, 1, 6))
	if err != nil {
		t.Fatal(err)
	}
	want := []TermResult{
		{Term: e.Terms[0], Dice: []Rolled{{Face: 13}}, Value: 13},
		{Term: e.Terms[1], Dice: []Rolled{{Face: 4}, {Face: 1, Dropped: true}, {Face: 6}}, Value: -10},
		{Term: e.Terms[2], Value: -2},
	}
	if !reflect.DeepEqual(res.Terms, want) {
		t.Errorf("Terms = %+v; want %+v", res.Terms, want)
	}
	if res.Total != 1 || res.Expr.String() != "1d20-3d6dl1-2" {
		t.Errorf("Total, Expr = %d, %v; want 1, 1d20-3d6dl1-2", res.Total, res.Expr)
	}
	for i, want := range [][]int{{13}, {4, 6}, nil, nil} {
		if got := res.Kept(i); !reflect.DeepEqual(got, want) {
			t.Errorf("Kept(%d) = %v; want %v", i, got, want)
		}
	}
	if got := res.Kept(-1); got != nil {
		t.Errorf("Kept(-1) = %v; want nil", got)
	}
	// The dice of one term cannot grow into the next.
	res.Terms[0].Dice = append(res.Terms[0].Dice, Rolled{Face: 99})
	if res.Terms[1].Dice[0].Face != 4 {
		t.Errorf("appending to term 0's dice changed term 1's")
	}
}

func TestRollErrors(t *testing.T) {
	tests := []struct {
		name, expr string
		src        Source
		is         error
		want       string
	}{
		{"script runs out", "3d6", NewScripted(1, 2), ErrScriptExhausted, "rolling 3d6: scripted dice ran out"},
		{"face too high", "1d20+1d6", NewScripted(20, 7), ErrFaceOutOfRange, "rolling 1d20+1d6: scripted face 7 cannot come up on a d6 (1 to 6)"},
		{"fudge face", "4dF", NewScripted(0, 2), ErrFaceOutOfRange, "rolling 4dF: scripted face 2 cannot come up on a dF (-1 to 1)"},
		{"no source", "1d6", nil, errNoSource, "no dice source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := MustParse(tt.expr).Roll(tt.src)
			if !errors.Is(err, tt.is) || err.Error() != tt.want {
				t.Errorf("Roll error %v; want %q wrapping %v", err, tt.want, tt.is)
			}
			if res.Terms != nil || res.Total != 0 {
				t.Errorf("Roll returned %+v with its error; want the zero Result", res)
			}
		})
	}
}

func TestResultStringZero(t *testing.T) {
	if s := (Result{}).String(); s != "" {
		t.Errorf("Result{}.String() = %q; want empty", s)
	}
}

// TestRollMatchesBruteForce rolls random expressions and checks each Result
// against the test's own keep/drop arithmetic (see keptValue).
func TestRollMatchesBruteForce(t *testing.T) {
	r := testRand(t)
	src := NewRandom(r.Uint64())
	for range 500 {
		e := randomExpr(r, 100_000)
		res, err := e.Roll(src)
		if err != nil {
			t.Fatalf("%v: Roll error %v", e, err)
		}
		total := 0
		for i, tr := range res.Terms {
			term := e.Terms[i]
			faces := make([]int, len(tr.Dice))
			dropped := 0
			for j, d := range tr.Dice {
				faces[j] = d.Face
				if d.Dropped {
					dropped++
				}
			}
			want := keptValue(term, faces)
			if tr.Value != want {
				t.Fatalf("%v: term %d with faces %v has Value %d; want %d", e, i, faces, tr.Value, want)
			}
			if term.Count > 0 && dropped != term.Count-term.kept() {
				t.Fatalf("%v: term %d dropped %d dice; want %d", e, i, dropped, term.Count-term.kept())
			}
			total += want
		}
		if res.Total != total || total < e.Min() || total > e.Max() {
			t.Fatalf("%v: Total %d; want %d within %d..%d", e, res.Total, total, e.Min(), e.Max())
		}
		if !strings.HasPrefix(res.String(), e.String()+" ") {
			t.Fatalf("%v: String() = %q", e, res.String())
		}
	}
}

// recorder is an ExprRoller that rolls with src and records each
// expression it is handed.
type recorder struct {
	src     Source
	rolled  []string
	perDice int
}

func (r *recorder) Roll(d Die) (int, error) {
	r.perDice++
	return r.src.Roll(d)
}

func (r *recorder) RollExpr(e Expr) (Result, error) {
	res, err := e.Roll(r.src)
	if err == nil {
		r.rolled = append(r.rolled, res.String())
	}
	return res, err
}

// TestRollHandsExprRollerTheExpression: Expr.Roll hands a valid
// expression whole to an ExprRoller, which rolls it (its Roll is never
// asked for a die), and still refuses an invalid one itself.
func TestRollHandsExprRollerTheExpression(t *testing.T) {
	r := &recorder{src: NewScripted(3, 4)}
	res, err := MustParse("2d6+1").Roll(r)
	if err != nil || res.Total != 8 || r.perDice != 0 || len(r.rolled) != 1 || r.rolled[0] != "2d6+1 [3, 4] + 1 = 8" {
		t.Errorf("Roll(2d6+1) with an ExprRoller = %v, %v; rolled %q, %d dice asked one by one; want 8, one expression, no die", res, err, r.rolled, r.perDice)
	}
	tree, err := Parse("(1d6+1)*2")
	if err != nil {
		t.Fatal(err)
	}
	r.src = NewScripted(5)
	if res, err := tree.Roll(r); err != nil || res.Total != 12 || r.perDice != 0 || len(r.rolled) != 2 {
		t.Errorf("Roll((1d6+1)*2) with an ExprRoller = %v, %v; rolled %q, %d dice asked one by one; want 12, handed over whole", res, err, r.rolled, r.perDice)
	}
	bad := Expr{Terms: []Term{{Sign: 1, Count: 1, Sides: 1}}}
	var pe *ParseError
	if _, err := bad.Roll(r); !errors.As(err, &pe) || len(r.rolled) != 2 {
		t.Errorf("Roll(1d1) with an ExprRoller error %v, rolled %q; want the *ParseError, nothing handed on", err, r.rolled)
	}
}
