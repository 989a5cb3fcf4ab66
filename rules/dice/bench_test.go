package dice

import "testing"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("1d20 + 4dFkh3 - 2"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRoll(b *testing.B) {
	e := MustParse("3d6dh1+2")
	src := NewRandom(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Roll(src); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkDistribution(b *testing.B, s string) {
	e := MustParse(s)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Distribution(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDistribution2d6(b *testing.B)      { benchmarkDistribution(b, "2d6") }
func BenchmarkDistribution3d6dh1(b *testing.B)   { benchmarkDistribution(b, "3d6dh1") }
func BenchmarkDistribution4dFkh3(b *testing.B)   { benchmarkDistribution(b, "4dFkh3") }
func BenchmarkDistribution1d20(b *testing.B)     { benchmarkDistribution(b, "1d20") }
func BenchmarkDistribution3dF(b *testing.B)      { benchmarkDistribution(b, "3dF") }
func BenchmarkDistribution1d20p1d4(b *testing.B) { benchmarkDistribution(b, "1d20+1d4-2") }
func BenchmarkDistribution100d6(b *testing.B)    { benchmarkDistribution(b, "100d6") }
func BenchmarkDistribution100d1000(b *testing.B) { benchmarkDistribution(b, "100d1000") }

// BenchmarkDistributionLimitRefuses100d1000 measures the refusal of an
// expression with too many totals (99,901 for a limit of 60), which must
// cost no counting: compare BenchmarkDistribution100d1000.
func BenchmarkDistributionLimitRefuses100d1000(b *testing.B) {
	e := MustParse("100d1000")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.DistributionLimit(60); err == nil {
			b.Fatal("100d1000 within 60 totals")
		}
	}
}

// BenchmarkCheckRange100d1000 measures the range check of a damage amount
// that can exceed its limit.
func BenchmarkCheckRange100d1000(b *testing.B) {
	e := MustParse("100d1000")
	b.ReportAllocs()
	for b.Loop() {
		if err := e.CheckRange(0, 1000); err == nil {
			b.Fatal("100d1000 within 0..1000")
		}
	}
}

// The full notation (docs/dice.md).

func BenchmarkParseFull(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("(1d4+1, 3, 2d6kl1)kh1 + 4d6e6kh3 [fire] ! to hit"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseCommentFallback is the slowest parse: a comment found by
// trying each space before the error, nearest first.
func BenchmarkParseCommentFallback(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("1d20 a b c d e f g h i j k l m n o p q r s u v w x y z aa"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRollFull(b *testing.B) {
	e := MustParse("4d6e6kh3+2d6ro<3+6d10t7f1")
	src := NewRandom(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Roll(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoll500Rerolls rolls the most dice Parse lets a roll expect:
// 100d10rr<9 rerolls each die 4 times on average.
func BenchmarkRoll500Rerolls(b *testing.B) {
	e := MustParse("100d10rr<9")
	src := NewRandom(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Roll(src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTreeDistribution2d6ro3(b *testing.B)    { benchmarkDistribution(b, "2d6ro<3") }
func BenchmarkTreeDistribution6d10t7(b *testing.B)    { benchmarkDistribution(b, "6d10t7f1ds10") }
func BenchmarkTreeDistribution4d6kh1kl1(b *testing.B) { benchmarkDistribution(b, "4d6kh1kl1") }
func BenchmarkTreeDistribution100d6ro1(b *testing.B)  { benchmarkDistribution(b, "100d6ro1") }

// BenchmarkTreeDistributionWorst is about the most work the odds do before
// the limit (maxOddsSteps): every multiset of four d20.
func BenchmarkTreeDistributionWorst(b *testing.B) {
	benchmarkDistribution(b, "(1d20, 1d20, 1d20, 1d20)kh2")
}

// BenchmarkTreeDistributionOutOfBudget is a refusal that no estimate makes
// beforehand: rerolls branch until the work limit runs out.
func BenchmarkTreeDistributionOutOfBudget(b *testing.B) {
	e := MustParse("8d6ro<3kh2")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Distribution(); err == nil {
			b.Fatal("8d6ro<3kh2 counted")
		}
	}
}

// BenchmarkTreeDistributionRefused is a refusal the estimate makes before
// any counting.
func BenchmarkTreeDistributionRefused(b *testing.B) {
	e := MustParse("20d20kh1kl1")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Distribution(); err == nil {
			b.Fatal("20d20kh1kl1 counted")
		}
	}
}
