package harm_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/harm"
)

// TestOdds: a harm table charts its check dice (RULES.md §3.1).
func TestOdds(t *testing.T) {
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
	totals, series, err := harm.CheckOdds(4)
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
