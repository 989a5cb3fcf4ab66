package hitprot_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/hitprot"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

func TestOdds(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hit-protection"))
	resp := tb.Do("ann", "/odds")
	out := tb.OK(resp)
	// RULES.md §1.4 with 2d6: Flesh Wound is 3-4, 5 of 36 outcomes.
	for _, want := range []string{"Stay Up, 2d6", "Go Down", "Flesh Wound 13.9%"} {
		if !strings.Contains(out, want) {
			t.Errorf("reply lacks %q:\n%s", want, out)
		}
	}
	if len(resp.Files) != 1 || resp.Files[0].Name != hitprot.InjuryOddsFile {
		t.Fatalf("files %+v; want one %s", resp.Files, hitprot.InjuryOddsFile)
	}
	commandstest.CheckPNG(t, resp.Files[0])

	// The 0-HP message carries the same chart.
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hp=3"`))
	zero := tb.Do("ann", "/damage target:Lister amount:3")
	if out := tb.OK(zero); !strings.Contains(out, "at 0 HP") || len(zero.Files) != 1 || !bytes.Equal(zero.Files[0].Data, resp.Files[0].Data) {
		t.Fatalf("0-HP message %q with %d files; want the injury chart", out, len(zero.Files))
	}
}

// TestInjuryOddsData: the bars are the exact odds of rules/hitprot.
func TestInjuryOddsData(t *testing.T) {
	bands, series, err := hitprot.InjuryOdds()
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || len(bands) != len(rules.Bands) {
		t.Fatalf("got %d series, %d bands", len(series), len(bands))
	}
	for i, expr := range []string{rules.StayUpRoll, rules.GoDownRoll} {
		odds, err := rules.Odds(expr)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for j, o := range odds {
			want, _ := o.P.Float64()
			if bands[j] != o.Band.String() || math.Abs(series[i].Values[j]-100*want) > 1e-9 {
				t.Errorf("%s %s: bar %v; want %v%%", expr, bands[j], series[i].Values[j], 100*want)
			}
			sum += series[i].Values[j]
		}
		if math.Abs(sum-100) > 1e-9 {
			t.Errorf("%s: bars sum to %v%%", expr, sum)
		}
	}
}
