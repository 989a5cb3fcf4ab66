package dice

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed for the randomised tests (0 picks one; each test logs its seed)")

// testRand returns a generator for a randomised test, logging its seed so
// that a failure can be replayed with -seed.
func testRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (replay with -seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// randomExpr returns a random valid expression of one to three terms with
// at most maxOutcomes outcomes, built as text and parsed.
func randomExpr(r *rand.Rand, maxOutcomes int) Expr {
	for {
		var b strings.Builder
		outcomes := 1
		for i := range 1 + r.IntN(3) {
			switch {
			case r.IntN(2) == 0:
				b.WriteByte('-')
			case i > 0:
				b.WriteByte('+')
			}
			if r.IntN(4) == 0 {
				fmt.Fprint(&b, r.IntN(11))
				continue
			}
			n := 1 + r.IntN(5)
			sides := []int{2, 3, 4, 6, 8, 10}[r.IntN(6)]
			if r.IntN(4) == 0 {
				fmt.Fprintf(&b, "%ddF", n)
				sides = 3
			} else {
				fmt.Fprintf(&b, "%dd%d", n, sides)
			}
			for range n {
				outcomes *= sides
			}
			switch r.IntN(5) {
			case 1:
				fmt.Fprintf(&b, "kh%d", 1+r.IntN(n))
			case 2:
				fmt.Fprintf(&b, "kl%d", 1+r.IntN(n))
			case 3:
				fmt.Fprintf(&b, "dh%d", r.IntN(n))
			case 4:
				fmt.Fprintf(&b, "dl%d", r.IntN(n))
			}
		}
		if outcomes <= maxOutcomes {
			return MustParse(b.String())
		}
	}
}

// keptValue is the test's own arithmetic for one term: the sum of the faces
// a keep/drop suffix keeps (found by sorting), with the sign applied.
func keptValue(t Term, faces []int) int {
	if t.Count == 0 {
		return t.Sign * t.Const
	}
	sorted := slices.Clone(faces)
	slices.Sort(sorted)
	n, k := len(sorted), t.KeepN
	switch t.Keep {
	case KeepHighest:
		sorted = sorted[n-k:]
	case KeepLowest:
		sorted = sorted[:k]
	case DropHighest:
		sorted = sorted[:n-k]
	case DropLowest:
		sorted = sorted[k:]
	}
	sum := 0
	for _, f := range sorted {
		sum += f
	}
	return t.Sign * sum
}

// bruteForce enumerates every tuple of faces of e's dice and counts the
// totals.
func bruteForce(e Expr) (counts map[int]int64, outcomes int64) {
	var dice []Die
	for _, t := range e.Terms {
		for range t.Count {
			dice = append(dice, t.Die())
		}
	}
	faces := make([]int, len(dice))
	for i, d := range dice {
		faces[i], _ = d.faces()
	}
	counts = map[int]int64{}
	for {
		total, at := 0, 0
		for _, t := range e.Terms {
			total += keptValue(t, faces[at:at+t.Count])
			at += t.Count
		}
		counts[total]++
		outcomes++
		// Next tuple, odometer style.
		i := 0
		for ; i < len(dice); i++ {
			lo, hi := dice[i].faces()
			if faces[i] < hi {
				faces[i]++
				break
			}
			faces[i] = lo
		}
		if i == len(dice) {
			return counts, outcomes
		}
	}
}

// checkAgainstBruteForce compares e's Distribution with bruteForce exactly.
func checkAgainstBruteForce(t *testing.T, e Expr) {
	t.Helper()
	d, err := e.Distribution()
	if err != nil {
		t.Fatalf("%v: Distribution error %v", e, err)
	}
	counts, outcomes := bruteForce(e)
	if got := d.Outcomes(); !got.IsInt64() || got.Int64() != outcomes {
		t.Fatalf("%v: Outcomes() = %v; want %d", e, got, outcomes)
	}
	if d.Min() != e.Min() || d.Max() != e.Max() {
		t.Fatalf("%v: Distribution Min, Max = %d, %d; want %d, %d", e, d.Min(), d.Max(), e.Min(), e.Max())
	}
	for total := d.Min() - 3; total <= d.Max()+3; total++ {
		if got := d.Count(total); !got.IsInt64() || got.Int64() != counts[total] {
			t.Fatalf("%v: Count(%d) = %v; want %d", e, total, got, counts[total])
		}
	}
}

func TestDistributionAgainstBruteForce(t *testing.T) {
	for _, s := range []string{
		"2d6", "3d6dh1", "3d6kh2", "3d6kl2", "3d6dl1", "3dF", "4dFkh3", "4dFkl3",
		"1d20+1d4-2", "2d20kh1", "2d20kl1", "4d6dl1", "-3d6kh2+4", "5", "-2dF-1",
		"3d6dh0", "1d2", "4d4kh2-2d6kl1",
	} {
		t.Run(s, func(t *testing.T) { checkAgainstBruteForce(t, MustParse(s)) })
	}
}

func TestDistributionRandomAgainstBruteForce(t *testing.T) {
	r := testRand(t)
	for range 300 {
		checkAgainstBruteForce(t, randomExpr(r, 50_000))
	}
}

// TestDistributionKnown checks counts worked out by hand.
func TestDistributionKnown(t *testing.T) {
	tests := []struct {
		expr   string
		min    int
		counts []int64
	}{
		{"2d6", 2, []int64{1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1}},
		// Keeping the two lowest of 3d6 (RULES.md §1.3): 16 of 216 outcomes
		// have at least two 1s, 1 has three 6s, 3 have 5, 6, 6.
		{"3d6dh1", 2, []int64{16, 27, 34, 36, 34, 27, 19, 12, 7, 3, 1}},
		{"3dF", -3, []int64{1, 3, 6, 7, 6, 3, 1}},
		{"1d20", 1, slices.Repeat([]int64{1}, 20)},
	}
	for _, tt := range tests {
		d, err := MustParse(tt.expr).Distribution()
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		var got []int64
		for v := d.Min(); v <= d.Max(); v++ {
			got = append(got, d.Count(v).Int64())
		}
		if d.Min() != tt.min || !slices.Equal(got, tt.counts) {
			t.Errorf("%s: from %d counts %v; want from %d %v", tt.expr, d.Min(), got, tt.min, tt.counts)
		}
	}
}

func TestDistributionEquivalences(t *testing.T) {
	for _, pair := range [][2]string{
		{"3d6dl1", "3d6kh2"}, // RULES.md §0.3
		{"3d6dh1", "3d6kl2"},
		{"4dFkh3", "4dFdl1"},
		{"5d8dh0", "5d8"},
		{"3d6kh3", "3d6"},
		{"1d20-1d4", "-1d4+1d20"},
	} {
		a, errA := MustParse(pair[0]).Distribution()
		b, errB := MustParse(pair[1]).Distribution()
		if errA != nil || errB != nil {
			t.Fatalf("%v: %v, %v", pair, errA, errB)
		}
		if a.Min() != b.Min() || a.Max() != b.Max() {
			t.Fatalf("%s and %s have ranges %d..%d and %d..%d", pair[0], pair[1], a.Min(), a.Max(), b.Min(), b.Max())
		}
		for v := a.Min(); v <= a.Max(); v++ {
			if a.Count(v).Cmp(b.Count(v)) != 0 {
				t.Errorf("%s and %s differ at %d: %v and %v", pair[0], pair[1], v, a.Count(v), b.Count(v))
			}
		}
	}
}

func TestProbabilities(t *testing.T) {
	d, err := MustParse("2d6").Distribution()
	if err != nil {
		t.Fatal(err)
	}
	rat := func(a, b int64) *big.Rat { return big.NewRat(a, b) }
	tests := []struct {
		name string
		got  *big.Rat
		want *big.Rat
	}{
		{"P(7)", d.P(7), rat(1, 6)},
		{"P(2)", d.P(2), rat(1, 36)},
		{"P(1)", d.P(1), rat(0, 1)},
		{"P(13)", d.P(13), rat(0, 1)},
		{"PRange(5, 9)", d.PRange(5, 9), rat(24, 36)},
		{"PRange clamps", d.PRange(-100, 100), rat(1, 1)},
		{"PRange(10, 8)", d.PRange(10, 8), rat(0, 1)},
		{"PRange beyond", d.PRange(13, 20), rat(0, 1)},
		{"PAtMost(4)", d.PAtMost(4), rat(6, 36)},
		{"PAtMost(1)", d.PAtMost(1), rat(0, 1)},
		{"PAtMost(max)", d.PAtMost(math.MaxInt), rat(1, 1)},
		{"PAtLeast(10)", d.PAtLeast(10), rat(6, 36)},
		{"PAtLeast(13)", d.PAtLeast(13), rat(0, 1)},
		{"PAtLeast(min)", d.PAtLeast(math.MinInt), rat(1, 1)},
	}
	for _, tt := range tests {
		if tt.got.Cmp(tt.want) != 0 {
			t.Errorf("%s = %v; want %v", tt.name, tt.got, tt.want)
		}
	}
	if got := d.PFloat(7); got != 1.0/6 {
		t.Errorf("PFloat(7) = %v; want %v", got, 1.0/6)
	}
	if got := d.PFloat(0); got != 0 {
		t.Errorf("PFloat(0) = %v; want 0", got)
	}
	if got := d.Outcomes(); got.Int64() != 36 {
		t.Errorf("Outcomes() = %v; want 36", got)
	}
	// Results are the caller's to change.
	d.Outcomes().SetInt64(1)
	d.Count(7).SetInt64(1)
	if d.P(7).Cmp(rat(1, 6)) != 0 {
		t.Errorf("changing returned values changed the Distribution: P(7) = %v", d.P(7))
	}

	big100, err := MustParse("100d6").Distribution()
	if err != nil {
		t.Fatal(err)
	}
	want := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(6), big.NewInt(100), nil))
	if got := big100.P(100); got.Cmp(want) != 0 {
		t.Errorf("100d6: P(100) = %v; want 1/6^100", got)
	}
	if got, want := big100.PFloat(100), math.Pow(6, -100); math.Abs(got-want) > want*1e-12 {
		t.Errorf("100d6: PFloat(100) = %v; want %v", got, want)
	}
}

func TestZeroDistribution(t *testing.T) {
	var d Distribution
	if d.Outcomes().Sign() != 0 || d.Count(0).Sign() != 0 || d.P(0).Sign() != 0 ||
		d.PRange(-10, 10).Sign() != 0 || d.PFloat(0) != 0 || d.Max() >= d.Min() {
		t.Errorf("zero Distribution: Outcomes %v, Count(0) %v, P(0) %v, Min %d, Max %d",
			d.Outcomes(), d.Count(0), d.P(0), d.Min(), d.Max())
	}
}

// TestDistributionLarge covers the math/big path, with closed forms:
// N dice of S sides total N in exactly one way and N+1 in N ways, and the
// highest of N dice is m in m^N - (m-1)^N ways.
func TestDistributionLarge(t *testing.T) {
	pow := func(b, e int) *big.Int { return new(big.Int).Exp(big.NewInt(int64(b)), big.NewInt(int64(e)), nil) }
	exprs := []string{"100d6", "30d6kh1", "30d6kl1", "30d6dl29", "100dFkh50", "1d20+25d6"}
	if !testing.Short() {
		exprs = append(exprs, "100d1000") // about half a second, longer with -race
	}
	for _, s := range exprs {
		e := MustParse(s)
		start := time.Now()
		d, err := e.Distribution()
		if err != nil {
			t.Fatalf("%s: Distribution error %v; want it to work", s, err)
		}
		t.Logf("%s: %v", s, time.Since(start))
		sum := new(big.Int)
		for v := d.Min(); v <= d.Max(); v++ {
			c := d.Count(v)
			if c.Sign() <= 0 {
				t.Fatalf("%s: Count(%d) = %v; want > 0", s, v, c)
			}
			sum.Add(sum, c)
		}
		if sum.Cmp(d.Outcomes()) != 0 || d.Min() != e.Min() || d.Max() != e.Max() {
			t.Fatalf("%s: counts sum to %v over %d..%d; want %v over %d..%d", s, sum, d.Min(), d.Max(), d.Outcomes(), e.Min(), e.Max())
		}
		switch s {
		case "100d6", "100d1000":
			sides := e.Terms[0].Sides
			if d.Outcomes().Cmp(pow(sides, 100)) != 0 || d.Count(100).Int64() != 1 || d.Count(101).Int64() != 100 || d.Count(100*sides).Int64() != 1 {
				t.Errorf("%s: Outcomes %v, Count(100) %v, Count(101) %v", s, d.Outcomes(), d.Count(100), d.Count(101))
			}
		case "30d6kh1", "30d6dl29", "30d6kl1":
			for m := 1; m <= 6; m++ {
				face := m
				if s == "30d6kl1" {
					face = 7 - m // the lowest is 7-m when the highest of 7-f is m
				}
				want := new(big.Int).Sub(pow(m, 30), pow(m-1, 30))
				if got := d.Count(face); got.Cmp(want) != 0 {
					t.Errorf("%s: Count(%d) = %v; want %v", s, face, got, want)
				}
			}
		}
	}
}

// TestDistributionAcrossWordLimit checks the math/big path against the
// machine-word one where the outcomes cross 2^64: 24d6 (6^24 < 2^64) and
// 25d6 = 24d6 + 1d6 (6^25 > 2^64).
func TestDistributionAcrossWordLimit(t *testing.T) {
	d24, err := MustParse("24d6").Distribution()
	if err != nil {
		t.Fatal(err)
	}
	d25, err := MustParse("25d6").Distribution()
	if err != nil {
		t.Fatal(err)
	}
	if d24.small == nil || d25.large == nil {
		t.Fatalf("24d6 and 25d6 should use words and math/big")
	}
	for v := 25; v <= 150; v++ {
		want := new(big.Int)
		for f := 1; f <= 6; f++ {
			want.Add(want, d24.Count(v-f))
		}
		if got := d25.Count(v); got.Cmp(want) != 0 {
			t.Fatalf("25d6: Count(%d) = %v; want %v", v, got, want)
		}
	}
}

// TestWordsAreBigModulo2to64 computes random expressions in both number
// types: words wrap modulo 2^64, so they must equal the math/big counts
// reduced modulo 2^64, even where the outcomes do not fit a word.
func TestWordsAreBigModulo2to64(t *testing.T) {
	r := testRand(t)
	mod := new(big.Int).Lsh(big.NewInt(1), 64)
	exprs := []Expr{MustParse("30d6kh3-20d10dl2+5"), MustParse("40dFkl7+1d20")}
	for range 100 {
		exprs = append(exprs, randomExpr(r, 1e9))
	}
	for _, e := range exprs {
		loW, w := compute[word](e)
		loB, b := compute[bignum](e)
		if loW != loB || len(w) != len(b) {
			t.Fatalf("%v: words from %d (%d), big from %d (%d)", e, loW, len(w), loB, len(b))
		}
		for i := range w {
			want := new(big.Int).Mod(&b[i].Int, mod)
			if !want.IsUint64() || want.Uint64() != uint64(w[i]) {
				t.Fatalf("%v: total %d: word %d; big %v mod 2^64 = %v", e, loW+i, w[i], &b[i].Int, want)
			}
		}
	}
}

func TestDistributionTooComplex(t *testing.T) {
	for _, s := range []string{"100d1000kh50", "100d1000dl1", "20d1000kh10", "50d1000kh25+50d1000kh25"} {
		start := time.Now()
		_, err := MustParse(s).Distribution()
		if !errors.Is(err, ErrTooComplex) {
			t.Errorf("%s: error %v; want ErrTooComplex", s, err)
			continue
		}
		if want := fmt.Sprintf("%q: too complex to work out exactly", s); err.Error() != want {
			t.Errorf("%s: error %q; want %q", s, err, want)
		}
		// Working these out would take hours; refusing takes microseconds.
		// The bound tells the two apart on however busy a machine.
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("%s: refusing took %v", s, el)
		}
	}
}

func TestDistributionLimit(t *testing.T) {
	tests := []struct {
		expr   string
		limit  int
		totals int
		ok     bool
	}{
		{"2d6", 11, 11, true},
		{"2d6", 10, 11, false},
		{"3d6dh1+2", 11, 11, true},
		{"4dF", 9, 9, true},
		{"1d20-1d4", 60, 23, true},
		{"7", 1, 1, true},
		{"100d1000", 60, 99_901, false},
		{"100d1000kh50", 60, 49_951, false}, // refused for its totals before ErrTooComplex
	}
	for _, tt := range tests {
		e := MustParse(tt.expr)
		if n := e.Totals(); n != tt.totals {
			t.Errorf("%s.Totals() = %d; want %d", tt.expr, n, tt.totals)
		}
		d, err := e.DistributionLimit(tt.limit)
		if tt.ok {
			if err != nil || d.Max()-d.Min()+1 != tt.totals {
				t.Errorf("%s.DistributionLimit(%d) = %d..%d, %v; want %d totals", tt.expr, tt.limit, d.Min(), d.Max(), err, tt.totals)
			}
			continue
		}
		if !errors.Is(err, ErrTooManyTotals) || errors.Is(err, ErrTooComplex) {
			t.Errorf("%s.DistributionLimit(%d) error = %v; want ErrTooManyTotals", tt.expr, tt.limit, err)
			continue
		}
		want := fmt.Sprintf("%q: %d possible totals, more than %d: too many possible totals", tt.expr, tt.totals, tt.limit)
		if err.Error() != want {
			t.Errorf("%s.DistributionLimit(%d) error %q; want %q", tt.expr, tt.limit, err, want)
		}
	}
	if _, err := (Expr{}).DistributionLimit(10); err == nil || errors.Is(err, ErrTooManyTotals) {
		t.Errorf("Expr{}.DistributionLimit = %v; want Validate's error", err)
	}
	if n := (Expr{}).Totals(); n != 0 {
		t.Errorf("Expr{}.Totals() = %d; want 0", n)
	}
}

func TestCheckRange(t *testing.T) {
	tests := []struct {
		expr   string
		lo, hi int
		want   string // "" for nil
	}{
		{"4", 0, 1000, ""},
		{"10d100", 0, 1000, ""},
		{"100d1000", 0, 1000, `"100d1000" can total up to 100000, above 1000`},
		{"1d4-5", 0, 1000, `"1d4-5" can total as little as -4, below 0`},
		{"-1d4", 0, 1000, `"-1d4" can total as little as -4, below 0`},
		{"1001", 0, 1000, `"1001" can total up to 1001, above 1000`},
	}
	for _, tt := range tests {
		err := MustParse(tt.expr).CheckRange(tt.lo, tt.hi)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckRange(%s, %d, %d) = %v; want nil", tt.expr, tt.lo, tt.hi, err)
			}
			continue
		}
		var re *RangeError
		if !errors.Is(err, ErrTotalOutOfRange) || !errors.As(err, &re) || err.Error() != tt.want {
			t.Errorf("CheckRange(%s, %d, %d) = %v; want %q wrapping ErrTotalOutOfRange", tt.expr, tt.lo, tt.hi, err, tt.want)
			continue
		}
		e := MustParse(tt.expr)
		if re.Min != e.Min() || re.Max != e.Max() || re.Lo != tt.lo || re.Hi != tt.hi {
			t.Errorf("CheckRange(%s) = %+v; want Min %d Max %d Lo %d Hi %d", tt.expr, re, e.Min(), e.Max(), tt.lo, tt.hi)
		}
	}
	var pe *ParseError
	if err := (Expr{}).CheckRange(0, 1); !errors.As(err, &pe) {
		t.Errorf("Expr{}.CheckRange = %v; want a *ParseError", err)
	}
}
