package commands_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
)

func TestOddsHitProtection(t *testing.T) {
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
	if len(resp.Files) != 1 || resp.Files[0].Name != commands.InjuryOddsFile {
		t.Fatalf("files %+v; want one %s", resp.Files, commands.InjuryOddsFile)
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
	bands, series, err := commands.InjuryOdds()
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || len(bands) != len(hitprot.Bands) {
		t.Fatalf("got %d series, %d bands", len(series), len(bands))
	}
	for i, expr := range []string{hitprot.StayUpRoll, hitprot.GoDownRoll} {
		odds, err := hitprot.Odds(expr)
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

func TestOddsExpr(t *testing.T) {
	tb := newTable(t)
	// No table needed for a plain roll.
	resp := tb.Do("ann", "/odds expr:2d6")
	out := tb.OK(resp)
	if !strings.Contains(out, "7: 16.7%") || !strings.Contains(out, "2: 2.8%") {
		t.Errorf("reply:\n%s", out)
	}
	commandstest.CheckPNG(t, resp.Files[0])
	totals, values, err := commands.DiceOdds(dice.MustParse("4dF"))
	if err != nil || len(totals) != 9 || totals[0] != "-4" || math.Abs(values[4]-100*19.0/81) > 1e-9 {
		t.Errorf("4dF: %v %v %v", totals, values, err)
	}
	tb.Refused(tb.Do("ann", "/odds expr:1d1000"), "possible totals")
	tb.Refused(tb.Do("ann", "/odds expr:2x"), "Bad dice")
	tb.Refused(tb.Do("ann", "/odds"), "no table")
	tb.OK(tb.Do("!carol", "/table setup system:hp-mp-wp"))
	tb.Refused(tb.Do("ann", "/odds"), "no injury table")
}

// TestOddsHarm: a harm table charts its check dice (RULES.md §3.1).
func TestOddsHarm(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:harm"))
	resp := tb.Do("ann", "/odds")
	out := tb.OK(resp)
	// 3dF totals 0 in 7 of 27 ways.
	if !strings.Contains(out, "plain (3dF): -3: 3.7% · -2: 11.1% · -1: 22.2% · 0: 25.9%") {
		t.Errorf("reply:\n%s", out)
	}
	commandstest.CheckPNG(t, resp.Files[0])
	tb.OK(tb.Do("!carol", "/table option name:fudge-dice value:4"))
	totals, series, err := commands.CheckOdds(4)
	if err != nil || len(totals) != 9 || len(series) != 3 {
		t.Fatalf("CheckOdds(4) = %v, %d series, %v", totals, len(series), err)
	}
	for _, s := range series {
		sum := 0.0
		for _, v := range s.Values {
			sum += v
		}
		if math.Abs(sum-100) > 1e-9 {
			t.Errorf("%s sums to %v%%", s.Name, sum)
		}
	}
	// A bonus die helps: the chance of a total of +2 or more rises.
	if series[1].Values[7] <= series[0].Values[7] || series[2].Values[7] >= series[0].Values[7] {
		t.Errorf("+3 with bonus %v, plain %v, penalty %v", series[1].Values[7], series[0].Values[7], series[2].Values[7])
	}
	if out := tb.OK(tb.Do("ann", "/odds")); !strings.Contains(out, "plain (4dF)") {
		t.Errorf("fudge-dice 4 reply:\n%s", out)
	}
}

// TestOddsRateLimited: charts cost work; a burst of them is refused.
func TestOddsRateLimited(t *testing.T) {
	tb := newTable(t)
	at := time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC)
	tb.Svc.SetClock(func() time.Time { return at }) // no refill
	n := commands.WorkBurst / commands.OddsCost
	for i := 0; i < n; i++ {
		tb.OK(tb.Do("ann", "/odds expr:1d4"))
	}
	tb.Refused(tb.Do("ann", "/odds expr:1d4"), "Slow down")
	tb.OK(tb.Do("bob", "/odds expr:1d4"))
}
