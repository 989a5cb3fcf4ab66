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
