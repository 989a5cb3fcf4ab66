package dice

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, that its errors name a part of
// the input, that canonical forms parse back to themselves, and that rolls
// and (small) distributions stay within Min..Max, that Totals counts them and
// DistributionLimit and CheckRange refuse just past them. For the full
// notation (docs/dice.md) Totals is a bound rather than a count, a roll may
// stop at MaxRolled dice, and exact odds may be refused (exploding dice, or
// too much work); the distribution, when given, sums to one.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"3d6dl1", "d20", "4dFkh3+1d20-2", " -1d4 + 5 ", "3D6 KH 4", "3d6++2",
		"100d1000", "2x6", "d2+d2+d2", "-0", "1d6kh1dl1", "60d6+50d6", "dF",
		// The full notation.
		"4d6k3", "(1d4 + 1, 3, 2d6kl1)kh1", "2d6ro<3", "8d6mi2", "4d6e6kh3", "6d10 t7 f1 ds10",
		"1d20 to hit", "2d6 ! Fire damage", "(Attack) 1d20+5", "3d6 [fire] + 1d4 [piercing]",
		"1d20+5 >= 15", "d%", "10d6k1ph1", "4d10ie8", "1d2e2", "((10d6kh5)kl2)kh1", "1d6/(1d2+1)",
		"4*(3d8kh2+9[fire]+(9d2e2+3[cold])/2)", "-(1d8 + 3) [healing]", "1d20rr<21", "(1,)", "()",
		"4d6 r2", "4d6 ir2", "4dFt1", "13 % -2", "1d6ra6", "2d20 k1", "6 4d6",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error %T %v; want *ParseError", s, err, err)
			}
			if !strings.Contains(s, pe.Part) || pe.Reason == "" {
				t.Fatalf("Parse(%q) error %q: Part %q not in the input, or no Reason", s, err, pe.Part)
			}
			if r, _ := utf8.DecodeRuneInString(pe.Reason); unicode.IsUpper(r) || strings.HasSuffix(pe.Reason, ".") {
				t.Fatalf("Parse(%q) error reason %q: want lower case, no final period", s, pe.Reason)
			}
			return
		}
		flat := e.x == nil
		if err := e.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %v, which fails Validate: %v", s, e, err)
		}
		canon := e.String()
		// Round trip without the length limit (canon may be longer than
		// the input, see Expr.String), and with it when canon is short.
		back, err := parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, whose terms do not parse: %v", s, canon, err)
		}
		if again := back.String(); again != canon {
			t.Fatalf("Parse(%q) = %q, which parses as %q", s, canon, again)
		}
		if utf8.RuneCountInString(canon) <= MaxLength {
			if e2, err := Parse(canon); err != nil || e2.String() != canon {
				t.Fatalf("Parse(%q) = %q; Parse of that = %v, %v", s, canon, e2, err)
			}
		}
		for _, n := range e.Notes() {
			if n == "" || strings.ContainsAny(n, "\n@") {
				t.Fatalf("%q: note %q", canon, n)
			}
		}

		shown := canon // how a roll starts: the expression, without its annotations
		if !flat {
			var b strings.Builder
			e.x.root.write(&b, false)
			shown = b.String()
		}
		res, err := e.Roll(NewRandom(uint64(len(s))))
		switch {
		case err != nil && (flat || !errors.Is(err, ErrTooManyRolls)):
			t.Fatalf("%q: Roll error %v", canon, err)
		case err == nil && (res.Total < e.Min() || res.Total > e.Max()):
			t.Fatalf("%q: Total %d outside %d..%d", canon, res.Total, e.Min(), e.Max())
		case err == nil && !strings.HasPrefix(res.String(), shown+" "):
			t.Fatalf("%q: String() = %q", canon, res.String())
		case err == nil && e.Rolls() > MaxRolled:
			t.Fatalf("%q: Rolls() = %d, above MaxRolled", canon, e.Rolls())
		}
		rolled := err == nil
		if n := e.Totals(); n > e.Max()-e.Min()+1 || n < 1 || flat && n != e.Max()-e.Min()+1 {
			t.Fatalf("%q: Totals() = %d; want Max-Min+1 = %d (at most, for the full notation)", canon, n, e.Max()-e.Min()+1)
		}
		if _, err := e.DistributionLimit(e.Totals() - 1); !errors.Is(err, ErrTooManyTotals) && (flat || !errors.Is(err, ErrNoExactOdds)) {
			t.Fatalf("%q: DistributionLimit(Totals-1) = %v; want ErrTooManyTotals", canon, err)
		}
		if err := e.CheckRange(e.Min(), e.Max()); err != nil {
			t.Fatalf("%q: CheckRange(Min, Max) = %v", canon, err)
		}
		if err := e.CheckRange(e.Min(), e.Max()-1); !errors.Is(err, ErrTotalOutOfRange) {
			t.Fatalf("%q: CheckRange(Min, Max-1) = %v; want ErrTotalOutOfRange", canon, err)
		}
		if flat && e.work() < 1e5 {
			d, err := e.Distribution()
			if err != nil {
				t.Fatalf("%q: Distribution error %v", canon, err)
			}
			if d.Min() != e.Min() || d.Max() != e.Max() || d.Count(res.Total).Sign() <= 0 {
				t.Fatalf("%q: Distribution %d..%d, Count(%d) = %v", canon, d.Min(), d.Max(), res.Total, d.Count(res.Total))
			}
		}
		if !flat && e.Totals() <= 200 && e.DiceCount() <= 12 {
			d, err := e.Distribution()
			switch {
			case errors.Is(err, ErrNoExactOdds) || errors.Is(err, ErrTooComplex):
				return
			case err != nil:
				t.Fatalf("%q: Distribution error %v", canon, err)
			case d.Min() < e.Min() || d.Max() > e.Max():
				t.Fatalf("%q: Distribution %d..%d outside %d..%d", canon, d.Min(), d.Max(), e.Min(), e.Max())
			case rolled && d.Count(res.Total).Sign() <= 0:
				t.Fatalf("%q: rolled %d, whose Count is 0", canon, res.Total)
			}
			sum := new(big.Int)
			for v := d.Min(); v <= d.Max(); v++ {
				sum.Add(sum, d.Count(v))
			}
			if sum.Cmp(d.Outcomes()) != 0 {
				t.Fatalf("%q: counts sum to %v; Outcomes %v", canon, sum, d.Outcomes())
			}
		}
	})
}
