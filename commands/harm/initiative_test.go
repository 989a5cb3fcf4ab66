package harm_test

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/harm"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// TestInitiativeCheck: the initiative is a React check, 3dF (4dF with
// fudge-dice 4) + React rank, and its SL (never below 0) the initiative;
// the React rank breaks ties (RULES.md §0.6, §3.1).
func TestInitiativeCheck(t *testing.T) {
	tb := commandstest.New(t, harm.System{})
	tb.OK(tb.Do("gm", "/table setup system:harm"))
	tb.OK(tb.Do("ann", `/char create name:Garrett stats:"react=1"`))
	tb.OK(tb.Do("bob", `/char create name:Sly stats:"react=0"`))
	tb.OK(tb.Do("gm", "/init start"))
	tb.Dice.Push(0, 0, 0, -1, -1, -1)
	out := tb.OK(tb.Do("gm", "/init join target:Sly,Garrett"))
	commandstest.WantIn(t, "checks", out, "**Sly** joins the turn order: initiative React 0 (Unskilled): 3dF [0, 0, 0] = 0 → **SL 0**.",
		"**Garrett** joins the turn order: initiative React 1 (Apprentice): 3dF+1 [−, −, −] + 1 = -2 → **SL 0**.")
	// SL 0 each: Garrett's React 1 beats Sly's 0, though Sly joined first.
	commandstest.WantIn(t, "tie", tb.OK(tb.Do("ann", "/init show")), "▫ **Garrett** 0\n▫ **Sly** 0")
	commandstest.WantIn(t, "first turn", tb.OK(tb.Do("gm", "/init next")), "Round 1 of the turn order begins. It is **Garrett**'s turn.")
	tb.OK(tb.Do("gm", "/init end"))
	tb.OK(tb.Do("gm", "/table option name:fudge-dice value:4"))
	tb.OK(tb.Do("gm", "/init start"))
	tb.Dice.Push(1, 1, 1, 1)
	commandstest.WantIn(t, "4dF", tb.OK(tb.Do("ann", "/init join target:Garrett")), "4dF+1 [+, +, +, +] + 1 = 5 → **SL 5**")
	tb.NoDiceLeft()
}

// TestInitiativeDice names the reading of init-dice at a harm table: the
// React check's Fudge dice, 3dF or 4dF; anything else is refused.
func TestInitiativeDice(t *testing.T) {
	for _, tt := range []struct {
		expr string
		ok   bool
	}{{"3dF", true}, {"4dF", true}, {"2dF", false}, {"5dF", false}, {"d20", false}, {"3dF+1", false}, {"4dFkh3", false}, {"-3dF", false}} {
		err := harm.System{}.InitiativeDice(dice.MustParse(tt.expr))
		if (err == nil) != tt.ok {
			t.Errorf("InitiativeDice(%s) = %v; want accepted %v", tt.expr, err, tt.ok)
		}
	}
}

// TestCanAct: a character taken out of the conflict cannot act; Broken
// still acts (RULES.md §3.2).
func TestCanAct(t *testing.T) {
	for _, tt := range []struct {
		sheet string
		ok    bool
		why   string
	}{
		{`{"abilities":{},"pools":{},"condition":"Broken","harm":0}`, true, ""},
		{`{"abilities":{},"pools":{},"condition":"Broken","harm":0,"taken_out":true}`, false, "taken out of the conflict"},
	} {
		ok, why, err := harm.System{}.CanAct(&storage.Character{ID: 1, Name: "Vex", Sheet: []byte(tt.sheet)}, 0)
		if err != nil || ok != tt.ok || why != tt.why {
			t.Errorf("CanAct(%s) = %v, %q, %v; want %v, %q", tt.sheet, ok, why, err, tt.ok, tt.why)
		}
	}
}
