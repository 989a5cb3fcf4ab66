package dice

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// ErrTooComplex is returned (wrapped, naming the expression) by
// Expr.Distribution when computing the exact distribution would take more
// than about MaxWork steps. Every expression without keep/drop suffixes
// works, 100d1000 included; so do the suffixed ones the rules use. What can
// fail is a term keeping many dice of many sides, such as 100d1000kh50.
var ErrTooComplex = errors.New("too complex to work out exactly")

// ErrTooManyTotals is returned (wrapped, naming the expression, its number
// of possible totals and the limit) by Expr.DistributionLimit when the
// expression can roll more different totals than the caller's limit. The
// check counts the totals from the terms alone (Expr.Totals), so the refusal
// costs no computing: 100d1000, with 99,901 totals, is refused in about a
// microsecond (BenchmarkDistributionLimitRefuses100d1000) instead of the
// 0.4 s its counting takes.
var ErrTooManyTotals = errors.New("too many possible totals")

// MaxWork bounds the work of Expr.Distribution, in steps of adding one count
// of up to 64 bits into another (math/big counts cost a step per 64 bits
// and two more). It keeps the worst case to about a second; 100d1000 takes
// about half of that.
const MaxWork = 200_000_000

// Distribution is the exact distribution of an expression's total: for
// every total from Min to Max, the number of the Outcomes equally likely
// outcomes (one per combination of faces of all the dice) that give it. The
// zero Distribution has no outcomes. A Distribution is immutable and safe to
// share.
type Distribution struct {
	min int
	// Counts for the totals min, min+1, …: in small when every count fits
	// 64 bits, otherwise in large.
	small    []word
	large    []bignum
	outcomes *big.Int // nil in the zero Distribution
}

// Min returns the lowest total with a nonzero count.
func (d Distribution) Min() int { return d.min }

// Max returns the highest total with a nonzero count.
func (d Distribution) Max() int { return d.min + max(len(d.small), len(d.large)) - 1 }

// Count returns the number of outcomes that total total: 0 outside
// Min..Max. The result is a new big.Int the caller may change.
func (d Distribution) Count(total int) *big.Int {
	i := total - d.min
	switch {
	case d.small != nil && i >= 0 && i < len(d.small):
		return new(big.Int).SetUint64(uint64(d.small[i]))
	case d.large != nil && i >= 0 && i < len(d.large):
		return new(big.Int).Set(&d.large[i].Int)
	}
	return new(big.Int)
}

// Outcomes returns the number of equally likely outcomes, the product of
// sides^count over the dice terms (3 sides for a Fudge die; 1 when there
// are no dice). The result is a new big.Int the caller may change.
func (d Distribution) Outcomes() *big.Int {
	if d.outcomes == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(d.outcomes)
}

// P returns the exact probability that the total is total (0 outside
// Min..Max).
func (d Distribution) P(total int) *big.Rat { return d.PRange(total, total) }

// PFloat returns P(total) as the nearest float64.
func (d Distribution) PFloat(total int) float64 {
	i := total - d.min
	if d.small != nil && i >= 0 && i < len(d.small) {
		c, o := uint64(d.small[i]), d.outcomes.Uint64()
		if c < 1<<53 && o < 1<<53 {
			// Both exact as float64, so the quotient is correctly rounded.
			return float64(c) / float64(o)
		}
	}
	f, _ := d.P(total).Float64()
	return f
}

// PRange returns the exact probability that lo ≤ total ≤ hi. Bounds outside
// Min..Max are clamped, so PRange(math.MinInt, 4) is P(total ≤ 4); lo > hi
// gives 0.
func (d Distribution) PRange(lo, hi int) *big.Rat {
	lo, hi = max(lo, d.Min()), min(hi, d.Max())
	sum := new(big.Int)
	if lo <= hi {
		if d.small != nil {
			var s uint64 // at most Outcomes, so it fits
			for _, c := range d.small[lo-d.min : hi-d.min+1] {
				s += uint64(c)
			}
			sum.SetUint64(s)
		} else {
			for i := range d.large[lo-d.min : hi-d.min+1] {
				sum.Add(sum, &d.large[lo-d.min+i].Int)
			}
		}
	}
	if d.outcomes == nil {
		return new(big.Rat)
	}
	return new(big.Rat).SetFrac(sum, d.outcomes)
}

// PAtMost returns the exact probability that the total is at most v.
func (d Distribution) PAtMost(v int) *big.Rat { return d.PRange(math.MinInt, v) }

// PAtLeast returns the exact probability that the total is at least v.
func (d Distribution) PAtLeast(v int) *big.Rat { return d.PRange(v, math.MaxInt) }

// Distribution returns the exact distribution of e's total, counted over
// all equally likely outcomes by dynamic programming, not sampling: a
// sliding-window convolution per die without a suffix, and for a keep/drop
// term a sum over the face of the last die kept. Counts are machine words
// when the number of outcomes fits 64 bits (2d6, 3d6dh1 and 4dFkh3 take about a
// microsecond) and math/big integers otherwise (100d1000 takes about
// half a second). It returns ErrTooComplex (wrapped, naming e) when the work
// would exceed MaxWork, and the *ParseError of Validate for an invalid
// hand-built Expr.
func (e Expr) Distribution() (Distribution, error) {
	if e.x != nil {
		return treeDistribution(e.x)
	}
	if err := e.Validate(); err != nil {
		return Distribution{}, err
	}
	d := Distribution{outcomes: new(big.Int)}
	small, fits := uint64(1), true
	for _, t := range e.Terms {
		for range t.Count {
			hi, lo := bits.Mul64(small, uint64(t.Sides))
			fits = fits && hi == 0
			small = lo
		}
	}
	work := e.work()
	if fits {
		d.outcomes.SetUint64(small)
	} else {
		d.outcomes.SetUint64(1)
		for _, t := range e.Terms {
			if t.Count > 0 {
				p := new(big.Int).Exp(big.NewInt(int64(t.Sides)), big.NewInt(int64(t.Count)), nil)
				d.outcomes.Mul(d.outcomes, p)
			}
		}
		// A math/big step costs about one word step per 64 bits, plus
		// overhead.
		work *= float64(d.outcomes.BitLen()/64 + 3)
	}
	if work > MaxWork {
		return Distribution{}, fmt.Errorf("%q: %w", e.String(), ErrTooComplex)
	}
	if fits {
		d.min, d.small = compute[word](e)
	} else {
		d.min, d.large = compute[bignum](e)
	}
	return d, nil
}

// Totals returns how many different totals e can roll, Max − Min + 1: the
// length of its Distribution. Every total in between is rolled by some
// outcome (each term's values are consecutive integers). It takes time
// linear in the number of terms, computes no distribution and suits a check
// before Distribution; it is 0 for an invalid Expr with no terms.
func (e Expr) Totals() int {
	if e.x != nil {
		return int(e.x.totals)
	}
	if len(e.Terms) == 0 {
		return 0
	}
	return e.Max() - e.Min() + 1
}

// DistributionLimit is Distribution for a caller that can use at most
// maxTotals different totals (a chart, a table): when e can roll more, it
// returns an error wrapping ErrTooManyTotals, e.g. `"100d1000": 99901
// possible totals, more than 60: too many possible totals`, before anything
// is computed. Otherwise it returns what Distribution returns (ErrTooComplex
// included); an invalid Expr gets Validate's *ParseError first.
func (e Expr) DistributionLimit(maxTotals int) (Distribution, error) {
	if err := e.Validate(); err != nil {
		return Distribution{}, err
	}
	if e.x != nil && e.x.unbound != "" {
		return Distribution{}, fmt.Errorf("%q: %w: %s", e.x.canon, ErrNoExactOdds, e.x.unbound)
	}
	if n := e.Totals(); n > maxTotals {
		return Distribution{}, fmt.Errorf("%q: %d possible totals, more than %d: %w", e.String(), n, maxTotals, ErrTooManyTotals)
	}
	return e.Distribution()
}

// work estimates the steps compute takes for e, counting one per count
// added.
func (e Expr) work() float64 {
	w, width := 0.0, 1.0 // width: totals in the running distribution
	for _, t := range e.Terms {
		low, high := t.drops()
		if t.Count == 0 || low+high == 0 {
			continue
		}
		n, k, s := float64(t.Count), float64(t.kept()), float64(t.Sides)
		// keptSums: per threshold and dice above it, a slide and an add
		// over their sums, plus the binomial sums.
		w += k*(k-1)/2*s*(s-1)/2*2 + 2*k*s + k*s*n + n*n
		tw := k*(s-1) + 1
		w += width * tw
		width += tw - 1
	}
	for _, t := range e.Terms {
		low, high := t.drops()
		if t.Count == 0 || low+high != 0 {
			continue
		}
		for range t.Count {
			width += float64(t.Sides - 1)
			w += 2 * width
		}
	}
	return w
}

// compute returns the lowest total of e and the counts of the totals from
// it upward, in the number type T.
func compute[T any, P number[T]](e Expr) (int, []T) {
	size := e.Max() - e.Min() + 1
	acc := make([]T, 1, size)
	P(&acc[0]).setUint64(1)
	lo, konst := 0, 0
	// Suffixed terms first, convolved with each other while the running
	// distribution is narrow; then each die without a suffix slides in at a
	// cost linear in the width.
	var tmp T
	for _, t := range e.Terms {
		low, high := t.drops()
		if t.Count == 0 || low+high == 0 {
			continue
		}
		tlo, tc := keptSums[T, P](t)
		next := make([]T, len(acc)+len(tc)-1, size)
		for i := range acc {
			if P(&acc[i]).isZero() {
				continue
			}
			for j := range tc {
				P(&next[i+j]).addMul(&acc[i], &tc[j], &tmp)
			}
		}
		acc, lo = next, lo+tlo
	}
	spare := make([]T, 0, size)
	for _, t := range e.Terms {
		switch low, high := t.drops(); {
		case t.Count == 0:
			konst += t.Sign * t.Const
		case low+high == 0:
			flo, fhi := t.Die().faces()
			if t.Sign < 0 {
				flo, fhi = -fhi, -flo
			}
			for range t.Count {
				spare = slide[T, P](spare, acc, fhi-flo+1)
				acc, spare = spare, acc
				lo += flo
			}
		}
	}
	return lo + konst, acc
}

// slide sets dst to the convolution of src with w equally likely
// consecutive values 0..w-1: dst[t] = src[t-w+1] + … + src[t].
func slide[T any, P number[T]](dst, src []T, w int) []T {
	dst = dst[:len(src)+w-1]
	var run T
	P(&run).setUint64(0)
	for t := range dst {
		if t < len(src) {
			P(&run).add(&src[t])
		}
		if t >= w {
			P(&run).sub(&src[t-w])
		}
		P(&dst[t]).set(&run)
	}
	return dst
}

// keptSums returns the distribution of the value of a keep/drop dice term t:
// its lowest value and the counts of the values from there upward.
//
// For keeping the k highest of n dice of S sides, every outcome has one
// threshold m, the k-th highest face, with a dice above m (a < k, all kept)
// and b ≥ k-a dice showing m, of which k-a are kept. The kept sum is the sum
// of the a dice above m plus (k-a)·m, and the outcomes with a given m, a
// and sum s of the dice above number
//
//	C(n, a) · N(a, s) · Σ_{b=k-a}^{n-a} C(n-a, b)·(m-1)^(n-a-b)
//
// where N(a, s) counts the ways a dice with faces m+1..S sum to s, built one
// die at a time with slide. Keeping the k lowest is the mirror image (face f
// as S+1-f), Fudge faces 1..3 stand for −1..+1, and a minus sign reverses
// the result.
func keptSums[T any, P number[T]](t Term) (int, []T) {
	n, k, sides := t.Count, t.kept(), t.Sides
	// binom[x*(n+1)+y] = C(x, y) for x ≤ n.
	binom := make([]T, (n+1)*(n+1))
	for x := 0; x <= n; x++ {
		P(&binom[x*(n+1)]).setUint64(1)
		for y := 1; y <= x; y++ {
			b := P(&binom[x*(n+1)+y])
			b.set(&binom[(x-1)*(n+1)+y-1])
			b.add(&binom[(x-1)*(n+1)+y])
		}
	}
	out := make([]T, k*(sides-1)+1) // kept sums k..k·S
	above := make([]T, 1, (k-1)*sides+1)
	spare := make([]T, 0, cap(above))
	pow := make([]T, n+1) // pow[e] = (m-1)^e
	var base, ways, tmp T
	for m := 1; m <= sides; m++ {
		P(&base).setUint64(uint64(m - 1))
		P(&pow[0]).setUint64(1)
		for e := 1; e <= n; e++ {
			P(&pow[e]).mul(&pow[e-1], &base)
		}
		above = above[:1]
		P(&above[0]).setUint64(1)
		for a := 0; a < k && (a == 0 || m < sides); a++ {
			if a > 0 {
				spare = slide[T, P](spare, above, sides-m)
				above, spare = spare, above
			}
			// above[i] = N(a, a·(m+1) + i).
			P(&ways).setUint64(0)
			for b := k - a; b <= n-a; b++ {
				P(&ways).addMul(&binom[(n-a)*(n+1)+b], &pow[n-a-b], &tmp)
			}
			P(&tmp).set(&ways)
			P(&ways).mul(&tmp, &binom[n*(n+1)+a])
			at := a*(m+1) + (k-a)*m - k
			for i := range above {
				P(&out[at+i]).addMul(&above[i], &ways, &tmp)
			}
		}
	}
	if _, high := t.drops(); high > 0 {
		reverse(out) // the k lowest
	}
	lo := k
	if t.Fudge {
		lo -= 2 * k
	}
	if t.Sign < 0 {
		reverse(out)
		lo = -(lo + len(out) - 1)
	}
	return lo, out
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// number is the arithmetic compute needs, on a pointer to T: word for
// counts that fit 64 bits, bignum otherwise.
type number[T any] interface {
	*T
	setUint64(v uint64)
	set(x *T)
	add(x *T)
	sub(x *T)
	mul(x, y *T)         // z = x·y
	addMul(x, y, tmp *T) // z += x·y, with tmp as scratch
	isZero() bool
}

// word is a count in a machine word. Arithmetic wraps modulo 2^64; since
// Distribution uses words only when every final count is below 2^64, and
// compute only adds, subtracts and multiplies, the final counts are exact
// even where an intermediate product wraps.
type word uint64

func (z *word) setUint64(v uint64)   { *z = word(v) }
func (z *word) set(x *word)          { *z = *x }
func (z *word) add(x *word)          { *z += *x }
func (z *word) sub(x *word)          { *z -= *x }
func (z *word) mul(x, y *word)       { *z = *x * *y }
func (z *word) addMul(x, y, _ *word) { *z += *x * *y }
func (z *word) isZero() bool         { return *z == 0 }

// bignum is a count of any size.
type bignum struct{ big.Int }

func (z *bignum) setUint64(v uint64) { z.SetUint64(v) }
func (z *bignum) set(x *bignum)      { z.Set(&x.Int) }
func (z *bignum) add(x *bignum)      { z.Add(&z.Int, &x.Int) }
func (z *bignum) sub(x *bignum)      { z.Sub(&z.Int, &x.Int) }
func (z *bignum) mul(x, y *bignum)   { z.Mul(&x.Int, &y.Int) }
func (z *bignum) addMul(x, y, tmp *bignum) {
	tmp.Mul(&x.Int, &y.Int)
	z.Add(&z.Int, &tmp.Int)
}
func (z *bignum) isZero() bool { return z.Sign() == 0 }
