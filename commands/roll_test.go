package commands_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestRollFullNotation: /roll takes the full notation (docs/dice.md) and
// shows every die, rerolled and exploded ones included, the comment, and
// under the roll how a reading Avrae and Dice Maiden differ on was taken.
func TestRollFullNotation(t *testing.T) {
	tb := newTable(t)
	tb.Dice.Push(1, 6, 3)
	commandstest.WantIn(t, "GWF", tb.OK(tb.Do("ann", `/roll expr:"2d6ro<3 ! GWF"`)), "ann rolled 2d6ro<3 [~~1~~→3, 6] = 9 — GWF")
	tb.Dice.Push(3, 5, 3, 6)
	out := tb.OK(tb.Do("ann", "/roll expr:4d6k3"))
	if want := "ann rolled 4d6k3 [3, ~~5~~, 3, ~~6~~] = 6\n-# `4d6k3` keeps the dice showing 3, as in Avrae; for the highest 3 write `4d6kh3`"; out != want {
		t.Errorf("4d6k3:\n%s\nwant\n%s", out, want)
	}
	tb.Dice.Push(6, 2, 3, 4, 6, 1)
	commandstest.WantIn(t, "explosion", tb.OK(tb.Do("ann", "/roll expr:4d6e6")), "[6!, 2, 3, 4, 6!, 1] = 22", "-# `4d6e6` explodes again on every added 6")
	tb.Dice.Push(8, 3, 10, 7, 1, 5)
	commandstest.WantIn(t, "pool", tb.OK(tb.Do("ann", "/roll expr:6d10t7f1")), "6d10t7f1 [8✓, 3, 10✓, 7✓, 1✗, 5] = 2")
	// Refused before any die: no face is used.
	tb.Refused(tb.Do("ann", "/roll expr:1d20rr<21"), "every face of a d20 is rerolled, so the rerolling never stops")
	tb.Refused(tb.Do("ann", "/roll expr:1d6/(1d2-1)"), "cannot divide by 0")
	if n := tb.Dice.Remaining(); n != 0 {
		t.Errorf("%d faces left; want none", n)
	}
	// A roll that runs on past 1,000 dice stops, refused, its dice unused.
	sixes := make([]int, 1000)
	for i := range sixes {
		sixes[i] = 6
	}
	tb.Dice.Push(sixes...)
	tb.Refused(tb.Do("ann", "/roll expr:1d6e6"), "rolled 1000 dice, rerolls and explosions counted, without finishing")

	// As a character, whichever system answers /roll as:.
	for _, sys := range []string{"hit-protection", "hp-mp-wp", "harm"} {
		tb := newTable(t)
		tb.OK(tb.Do("ann", "/table setup system:"+sys))
		tb.OK(tb.Do("ann", `/char create name:Lister stats:"`+map[string]string{"hit-protection": "hp=4", "hp-mp-wp": "hp-max=8", "harm": "endure=1"}[sys]+`"`))
		tb.Dice.Push(3, 5, 3, 6)
		commandstest.WantIn(t, sys+", as Lister", tb.OK(tb.Do("ann", "/roll as:Lister expr:4d6d1")),
			"**Lister** rolled 4d6d1 [~~3~~, 5, 3, 6] = 14", "\n-# `4d6d1` drops the lowest 1, as in Dice Maiden")
	}
}

// TestOddsFullNotation: /odds charts the new operators exactly, totals the
// operators never give left out, and says plainly when there are no exact
// odds.
func TestOddsFullNotation(t *testing.T) {
	tb := newTable(t)
	resp := tb.Do("ann", "/odds expr:2d6ro<3")
	commandstest.WantIn(t, "2d6ro<3", tb.OK(resp), "**Odds of 2d6ro<3** (exact)", "2: 0.3%", "12: 4.9%")
	commandstest.CheckPNG(t, resp.Files[0])
	totals, _, err := commands.DiceOdds(dice.MustParse("1d6*10"))
	if err != nil || strings.Join(totals, " ") != "10 20 30 40 50 60" {
		t.Errorf("1d6*10: totals %v, %v; want the six it can roll", totals, err)
	}
	tb.Refused(tb.Do("ann", "/odds expr:4d6e6"), "No exact odds for 4d6e6: exploding dice can keep adding dice")
	tb.Refused(tb.Do("ann", "/odds expr:20d20kh1kl1"), "No exact odds for 20d20kh1kl1: it has too many outcomes to count")
	tb.Refused(tb.Do("ann", "/odds expr:1d100*1d100"), "1d100*1d100 can have up to 10000 different totals; a chart shows at most 60")
}
