package commands_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/odds"
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

// TestInitiativeDiceFullNotation: an init-dice of the full notation rolls
// its dice, then the bonus is added (it once took the Terms of RULES.md
// §0.3 alone, and a tree has none).
func TestInitiativeDiceFullNotation(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("gm", `/char create name:Lister stats:"hp=4 init=2"`))
	tb.OK(tb.Do("gm", "/table option name:init-dice value:1d20ro1"))
	tb.OK(tb.Do("gm", "/init start"))
	tb.Dice.Push(1, 5)
	commandstest.WantIn(t, "init join", tb.OK(tb.Do("gm", "/init join target:Lister")), "initiative 1d20ro1+2 [~~1~~→5] + 2 = 7 (init +2).")
}

// TestManualDiceRerolls: at a dice=manual table a reroll or an explosion
// is asked for only once the faces that call for it are entered (dice.Pacer):
// 2d6ro<3 asks for 2d6, then for the one d6 a 1 or a 2 rerolls, or for
// nothing more.
func TestManualDiceRerolls(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=30"`))
	tb.OK(tb.Do("!gm", "/table option name:dice value:manual"))
	ask := tb.Do("!gm", `/damage target:Vala amount:"2d6ro<3 fire"`)
	commandstest.WantIn(t, "first ask", tb.OK(ask), "roll **2d6**")
	again := tb.Submit("ann", tb.Press("ann", ask, "Enter dice"), "1 6")
	commandstest.WantIn(t, "the reroll", tb.OK(again), "roll **1d6**", "Faces entered so far: 1 6")
	done := tb.Submit("ann", tb.Press("ann", again, "Enter dice"), "4")
	commandstest.WantIn(t, "rolled", tb.OK(done), "2d6ro<3 [~~1~~→4, 6] = 10 — fire")

	ask = tb.Do("ann", "/roll as:Vala expr:4d6e6")
	commandstest.WantIn(t, "explosion, first ask", tb.OK(ask), "roll **4d6**")
	again = tb.Submit("ann", tb.Press("ann", ask, "Enter dice"), "6 2 6 1")
	commandstest.WantIn(t, "the two 6s explode", tb.OK(again), "roll **2d6**")
	again = tb.Submit("ann", tb.Press("ann", again, "Enter dice"), "6 3")
	commandstest.WantIn(t, "a 6 again", tb.OK(again), "roll **1d6**")
	done = tb.Submit("ann", tb.Press("ann", again, "Enter dice"), "2")
	commandstest.WantIn(t, "exploded", tb.OK(done), "**Vala** rolled 4d6e6 [6!, 2, 6!, 1, 6!, 3, 2] = 26")
	// An exploding amount has no highest total: refused before any die.
	tb.Refused(tb.Do("!gm", "/damage target:Vala amount:4d6e6"), "can reach 6000, above the limit of 1000")

	ask = tb.Do("!gm", "/damage target:Vala amount:2d6ro<3")
	done = tb.Submit("ann", tb.Press("ann", ask, "Enter dice"), "5 6")
	commandstest.WantIn(t, "no reroll needed", tb.OK(done), "2d6ro<3 [5, 6] = 11")
}

// TestOddsFullNotation: /odds charts the new operators exactly, totals the
// operators never give left out, and says plainly when there are no exact
// odds.
func TestOddsFullNotation(t *testing.T) {
	tb := newTable(t)
	resp := tb.Do("ann", "/odds expr:2d6ro<3")
	commandstest.WantIn(t, "2d6ro<3", tb.OK(resp), "**Odds of 2d6ro<3** (exact)", "2: 0.3%", "12: 4.9%")
	commandstest.CheckPNG(t, resp.Files[0])
	totals, _, err := odds.DiceOdds(dice.MustParse("1d6*10"))
	if err != nil || strings.Join(totals, " ") != "10 20 30 40 50 60" {
		t.Errorf("1d6*10: totals %v, %v; want the six it can roll", totals, err)
	}
	tb.Refused(tb.Do("ann", "/odds expr:4d6e6"), "No exact odds for 4d6e6: exploding dice can keep adding dice")
	tb.Refused(tb.Do("ann", "/odds expr:20d20kh1kl1"), "No exact odds for 20d20kh1kl1: it has too many outcomes to count")
	tb.Refused(tb.Do("ann", "/odds expr:1d100*1d100"), "1d100*1d100 can have up to 10000 different totals; a chart shows at most 60")
}

// TestExprAutocomplete: the expr of /roll and /odds suggests the table's
// system rolls, after what was typed and how it reads; nothing about a
// character (a hidden NPC's dice) is suggested.
func TestExprAutocomplete(t *testing.T) {
	tb := newTable(t)
	ac := func(command, typed string) []commands.Choice {
		t.Helper()
		resp := tb.Svc.Handle(context.Background(), &commands.Request{
			Kind: commands.KindAutocomplete, ChannelID: tb.Channel, UserID: "ann", UserName: "ann",
			Command: command, Options: map[string]string{"expr": typed}, Focused: "expr",
		})
		if resp.Ephemeral && len(resp.Choices) == 0 && resp.Content != "" {
			t.Fatalf("autocomplete %q: %s", typed, resp.Content)
		}
		return resp.Choices
	}
	names := func(cs []commands.Choice) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name+" => "+c.Value)
		}
		return strings.Join(out, "\n")
	}
	// No table: what was typed, read.
	if got := names(ac("roll", "4d6k3")); got != "4d6k3 — 4d6k3 keeps the dice showing 3, as in Avrae; for the highest 3 write 4d6kh3 => 4d6k3" {
		t.Errorf("no table, 4d6k3:\n%s", got)
	}
	commandstest.WantIn(t, "refused", names(ac("roll", "3d1001")), `3d1001 — refused: "3d1001": a die has 2 to 1000 sides => 3d1001`)
	commandstest.WantIn(t, "totals", names(ac("odds", "2d6")), "2d6 — totals 2 to 12 => 2d6")

	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hp=4"`))
	tb.Private(tb.Do("gm", `/char create name:Goblin stats:"class=fighter hit-die=d12 hp=9 hidden=true"`))
	all := names(ac("roll", ""))
	commandstest.WantIn(t, "hit-protection", all, "3d6dh1 — the injury table when attended (advantage) => 3d6dh1",
		"2d6 — the injury table, staying up => 2d6", "1d20 — a saving throw", "1d8 — Lister's hit die (HD 1/1) => 1d8")
	if strings.Contains(all, "Goblin") || strings.Contains(all, "d12") {
		t.Errorf("a player's suggestions give away the hidden Goblin:\n%s", all)
	}
	gmAll := names(tb.Svc.Handle(context.Background(), &commands.Request{
		Kind: commands.KindAutocomplete, ChannelID: tb.Channel, UserID: "gm", UserName: "gm", Permissions: commands.ManageChannels,
		Command: "roll", Options: map[string]string{"expr": "1d1"}, Focused: "expr",
	}).Choices)
	commandstest.WantIn(t, "a GM sees the hidden Goblin's die", gmAll, "1d12 — Goblin's hit die (HD 1/1) => 1d12")
	if got := names(ac("roll", "3d6")); !strings.HasPrefix(got, "3d6 — totals 3 to 18 => 3d6\n3d6dh1") {
		t.Errorf("typed 3d6: the typed first, then what starts with it:\n%s", got)
	}
	tb.OK(tb.Do("gm", "/table option name:init-dice value:d10"))
	if got := names(ac("roll", "1d10")); got != "1d10 — initiative (the table's init-dice) => 1d10" {
		t.Errorf("init-dice 1d10, typed: what the suggestion says it is, not the bare echo:\n%s", got)
	}

	tb = newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:harm"))
	tb.OK(tb.Do("ann", `/char create name:Garrett stats:"endure=2 climb=1:vigor"`))
	commandstest.WantIn(t, "harm", names(ac("roll", "")), "3dF+2 — Garrett's endure check => 3dF+2", "3dF+1 — Garrett's climb check => 3dF+1",
		"4dFkh3 — a check with a bonus die (+ rank) => 4dFkh3")
	tb.OK(tb.Do("gm", "/table option name:fudge-dice value:4"))
	commandstest.WantIn(t, "harm, fudge-dice 4", names(ac("odds", "4dF+")), "4dF+ — refused", "4dF+2 — Garrett's endure check => 4dF+2")

	tb = newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 dex=14 init=1"`))
	commandstest.WantIn(t, "hp-mp-wp", names(ac("roll", "")), "2d20kh1 — a check with advantage => 2d20kh1", "1d20+3 — Vala's initiative (Dex +2, init +1) => 1d20+3")
}

// TestHelpRoll: /help topic:roll gives an example of every operator, in one
// message.
func TestHelpRoll(t *testing.T) {
	tb := newTable(t)
	out := tb.Do("ann", "/help topic:roll").Content
	for _, op := range []string{"keep/drop", "kh3", "kl1", "dl1", "pl1", "k>3", "p1", "ro<3", "rr1", "ra6", "r2", "ir2", "e6", "e>7", "mi2", "ma5",
		"t7", "tl4", "f1", "ds10", "(1d4+1, 3, 2d6kl1)kh1", ">=", "*2", "1d6/2", "//", "%", "dF", "d%", "[fire]", "!", "1,000"} {
		if !strings.Contains(out, op) {
			t.Errorf("/help topic:roll has no %q:\n%s", op, out)
		}
	}
	if n := len([]rune(out)); n > 1900 {
		t.Errorf("/help topic:roll is %d characters; keep it well under Discord's 2,000", n)
	}
}
