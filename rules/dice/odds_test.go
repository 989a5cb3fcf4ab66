package dice

import (
	"errors"
	"math/big"
	"slices"
	"testing"
)

// probe is a Source that hands out given faces and then fails, saying
// which die it was asked for: everyRoll uses it to follow every roll.
type probe struct {
	faces []int
	i     int
	need  Die
}

var errProbe = errors.New("probe: no face given")

func (p *probe) Roll(d Die) (int, error) {
	if p.i < len(p.faces) {
		p.i++
		return p.faces[p.i-1], nil
	}
	p.need = d
	return 0, errProbe
}

// everyRoll rolls e with every sequence of faces it can ask for, each with
// its probability, and returns the probability of each total: the
// distribution by brute force, through Expr.Roll itself.
func everyRoll(t *testing.T, e Expr) map[int]*big.Rat {
	t.Helper()
	out := map[int]*big.Rat{}
	var rec func(prefix []int, p *big.Rat)
	rec = func(prefix []int, p *big.Rat) {
		pr := &probe{faces: prefix}
		res, err := e.Roll(pr)
		if err == nil {
			if out[res.Total] == nil {
				out[res.Total] = new(big.Rat)
			}
			out[res.Total].Add(out[res.Total], p)
			return
		}
		if !errors.Is(err, errProbe) {
			t.Fatalf("%v: Roll error %v", e, err)
		}
		lo, hi := pr.need.faces()
		q := new(big.Rat).Mul(p, big.NewRat(1, int64(hi-lo+1)))
		for f := lo; f <= hi; f++ {
			rec(append(slices.Clone(prefix), f), q)
		}
	}
	rec(nil, big.NewRat(1, 1))
	return out
}

// TestTreeDistributionMatchesEveryRoll: the exact odds of the new
// operators (rerolls once, ra, keep and drop by any selector, sets,
// counting, arithmetic, comparisons) equal the brute-force distribution of
// the very rolls /roll makes.
func TestTreeDistributionMatchesEveryRoll(t *testing.T) {
	for _, s := range []string{
		"2d6ro<3", "4d6k3", "4d6d1", "3d6p1", "(1d4 + 1, 3, 2d6kl1)kh1", "5d4t3f1ds4", "4d4tl2",
		"1d20>=15", "1d6*10-1d4", "3d4kh1kl1", "3d6ro1kh2", "2d6ra6", "3d6mi2ma5", "4dFt1",
		"3d6/2", "2d6%3", "(2d6)kh1", "3d4rol1", "3d4rol1kh2", "2d4ra<3", "(1d4, 1d4, 1d4)kh2",
		"-(2d4)+1d4*2", "2d4k2p2", "1d4+(1d6, 1d6)kl1", "3d4ro<3kh2", "((4d4kh3)kl2)kh1",
		"2d4r1", "3d4rg4kh1", "1d6 // -2", "2d4 != 5", "(1, 2d4, 3)p<3", "1d6e7", "3dF+2",
	} {
		t.Run(s, func(t *testing.T) {
			e := MustParse(s)
			want := everyRoll(t, e)
			d, err := e.Distribution()
			if err != nil {
				t.Fatalf("Distribution error %v", err)
			}
			sum := new(big.Rat)
			for v := d.Min() - 1; v <= d.Max()+1; v++ {
				w := want[v]
				if w == nil {
					w = new(big.Rat)
				}
				sum.Add(sum, w)
				if got := d.P(v); got.Cmp(w) != 0 {
					t.Errorf("P(%d) = %v; every roll gives %v", v, got, w)
				}
			}
			if sum.Cmp(big.NewRat(1, 1)) != 0 {
				t.Errorf("probabilities within Min-1..Max+1 sum to %v", sum)
			}
			if d.Min() < e.Min() || d.Max() > e.Max() || len(want) > e.Totals() {
				t.Errorf("%d totals within %d..%d; Min, Max, Totals %d, %d, %d", len(want), d.Min(), d.Max(), e.Min(), e.Max(), e.Totals())
			}
		})
	}
}

// TestTreeDistributionRerollUntil: rr, which rerolls without end, has the
// closed form of a die without the rerolled faces.
func TestTreeDistributionRerollUntil(t *testing.T) {
	d, err := MustParse("1d20rr<3").Distribution()
	if err != nil {
		t.Fatal(err)
	}
	for v := 3; v <= 20; v++ {
		if d.P(v).Cmp(big.NewRat(1, 18)) != 0 {
			t.Errorf("1d20rr<3: P(%d) = %v; want 1/18", v, d.P(v))
		}
	}
	if d.Min() != 3 {
		t.Errorf("1d20rr<3: Min %d; want 3", d.Min())
	}
	// Great Weapon Fighting on 2d6, rerolled once (ro) and until (rr).
	d, _ = MustParse("2d6rr<3").Distribution()
	if got, want := d.P(12), big.NewRat(1, 16); got.Cmp(want) != 0 {
		t.Errorf("2d6rr<3: P(12) = %v; want %v", got, want)
	}
	d, _ = MustParse("2d6ro<3").Distribution()
	if got, want := d.P(2), big.NewRat(4, 1296); got.Cmp(want) != 0 {
		t.Errorf("2d6ro<3: P(2) = %v; want %v", got, want)
	}
}

// TestTreeDistributionRefusals: no exact odds for exploding dice (no
// highest total), before the totals are counted; work past the limit is
// refused, quickly, as too complex.
func TestTreeDistributionRefusals(t *testing.T) {
	for _, s := range []string{"1d6e6", "4d6e6kh3", "2d10ie10t8", "1d6ra6+1d8e"} {
		e := MustParse(s)
		if _, err := e.Distribution(); !errors.Is(err, ErrNoExactOdds) {
			t.Errorf("%s: Distribution error %v; want ErrNoExactOdds", s, err)
		}
		if _, err := e.DistributionLimit(60); !errors.Is(err, ErrNoExactOdds) {
			t.Errorf("%s: DistributionLimit error %v; want ErrNoExactOdds", s, err)
		}
	}
	for _, s := range []string{"20d20kh1kl1", "(1d20, 1d20, 1d20, 1d20, 1d20, 1d20)kh2", "1d1000*1d1000", "100d1000ro1"} {
		if _, err := MustParse(s).Distribution(); !errors.Is(err, ErrTooComplex) {
			t.Errorf("%s: Distribution error %v; want ErrTooComplex", s, err)
		}
	}
	e := MustParse("1d6*100")
	if e.Totals() != 6 {
		t.Errorf("1d6*100: Totals %d; want 6 (the product of the parts' totals, not Max-Min+1)", e.Totals())
	}
	if _, err := e.DistributionLimit(5); !errors.Is(err, ErrTooManyTotals) {
		t.Errorf("1d6*100 within 5 totals: %v; want ErrTooManyTotals", err)
	}
}
