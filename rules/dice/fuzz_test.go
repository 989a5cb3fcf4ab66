package dice

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, that its errors name a part of
// the input, that canonical forms parse back to themselves, and that rolls
// and (small) distributions stay within Min..Max, that Totals counts them and
// DistributionLimit and CheckRange refuse just past them.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"3d6dl1", "d20", "4dFkh3+1d20-2", " -1d4 + 5 ", "3D6 KH 4", "3d6++2",
		"100d1000", "2x6", "d2+d2+d2", "-0", "1d6kh1dl1", "60d6+50d6", "dF",
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
		if err := e.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %v, which fails Validate: %v", s, e, err)
		}
		canon := e.String()
		// Round trip without the length limit (canon may be longer than
		// the input, see Expr.String), and with it when canon is short.
		p := parser{src: canon}
		terms, err := p.parse()
		if err != nil {
			t.Fatalf("Parse(%q) = %q, whose terms do not parse: %v", s, canon, err)
		}
		if again := (Expr{Terms: terms}).String(); again != canon {
			t.Fatalf("Parse(%q) = %q, which parses as %q", s, canon, again)
		}
		if utf8.RuneCountInString(canon) <= MaxLength {
			if e2, err := Parse(canon); err != nil || e2.String() != canon {
				t.Fatalf("Parse(%q) = %q; Parse of that = %v, %v", s, canon, e2, err)
			}
		}

		res, err := e.Roll(NewRandom(uint64(len(s))))
		if err != nil {
			t.Fatalf("%q: Roll error %v", canon, err)
		}
		if res.Total < e.Min() || res.Total > e.Max() {
			t.Fatalf("%q: Total %d outside %d..%d", canon, res.Total, e.Min(), e.Max())
		}
		if n := e.Totals(); n != e.Max()-e.Min()+1 || n < 1 {
			t.Fatalf("%q: Totals() = %d; want Max-Min+1 = %d", canon, n, e.Max()-e.Min()+1)
		}
		if _, err := e.DistributionLimit(e.Totals() - 1); !errors.Is(err, ErrTooManyTotals) {
			t.Fatalf("%q: DistributionLimit(Totals-1) = %v; want ErrTooManyTotals", canon, err)
		}
		if err := e.CheckRange(e.Min(), e.Max()); err != nil {
			t.Fatalf("%q: CheckRange(Min, Max) = %v", canon, err)
		}
		if err := e.CheckRange(e.Min(), e.Max()-1); !errors.Is(err, ErrTotalOutOfRange) {
			t.Fatalf("%q: CheckRange(Min, Max-1) = %v; want ErrTotalOutOfRange", canon, err)
		}
		if e.work() < 1e5 {
			d, err := e.Distribution()
			if err != nil {
				t.Fatalf("%q: Distribution error %v", canon, err)
			}
			if d.Min() != e.Min() || d.Max() != e.Max() || d.Count(res.Total).Sign() <= 0 {
				t.Fatalf("%q: Distribution %d..%d, Count(%d) = %v", canon, d.Min(), d.Max(), res.Total, d.Count(res.Total))
			}
		}
	})
}
