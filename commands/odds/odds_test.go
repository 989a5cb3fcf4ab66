package odds_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/odds"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

func newTable(t *testing.T) *commandstest.Table {
	return commandstest.New(t, commandstest.Systems()...)
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
	totals, values, err := odds.DiceOdds(dice.MustParse("4dF"))
	if err != nil || len(totals) != 9 || totals[0] != "-4" || math.Abs(values[4]-100*19.0/81) > 1e-9 {
		t.Errorf("4dF: %v %v %v", totals, values, err)
	}
	tb.Refused(tb.Do("ann", "/odds expr:1d1000"), "possible totals")
	tb.Refused(tb.Do("ann", "/odds expr:100d1000"), "100d1000 has 99901 possible totals; a chart shows at most 60")
	// Refused before any counting (its distribution makes some 529,000
	// allocations): the refusal's work, not its time, is what is checked.
	big := dice.MustParse("100d1000")
	if allocs := testing.AllocsPerRun(3, func() { odds.DiceOdds(big) }); allocs > 50 {
		t.Errorf("DiceOdds(100d1000) made %v allocations; want the refusal before the distribution is counted", allocs)
	}
	tb.Refused(tb.Do("ann", "/odds expr:2x"), "Bad dice")
	tb.Refused(tb.Do("ann", "/odds"), "no table")
	tb.OK(tb.Do("!carol", "/table setup system:hp-mp-wp"))
	tb.Refused(tb.Do("ann", "/odds"), "no injury table")
}

// TestOddsRateLimited: charts cost work; a burst of them is refused.
func TestOddsRateLimited(t *testing.T) {
	tb := newTable(t)
	at := time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC)
	tb.Svc.SetClock(func() time.Time { return at }) // no refill
	n := commands.WorkBurst / odds.Cost
	for i := 0; i < n; i++ {
		tb.OK(tb.Do("ann", "/odds expr:1d4"))
	}
	tb.Refused(tb.Do("ann", "/odds expr:1d4"), "Slow down")
	tb.OK(tb.Do("bob", "/odds expr:1d4"))
}
