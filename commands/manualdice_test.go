package commands_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// submit answers the modal resp opened, as user, with text in its first input.
func (tb *table) submit(user string, resp *commands.Response, text string) *commands.Response {
	tb.t.Helper()
	if resp.Modal == nil {
		tb.t.Fatalf("no modal in %+v", resp)
	}
	return tb.svc.Handle(context.Background(), &commands.Request{
		Kind: commands.KindModal, ChannelID: tb.channel, GuildID: "g1",
		UserID: user, UserName: user, CustomID: resp.Modal.CustomID,
		Values: map[string]string{resp.Modal.Inputs[0].CustomID: text},
	})
}

func TestManualDice(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("!carol", "/table setup system:hit-protection"))
	tb.ok(tb.do("ann", `/char create name:Lister stats:"class=fighter level=1 hp=6"`))
	tb.refused(tb.do("ann", "/table option name:dice value:manual"), "Only a GM")
	tb.refused(tb.do("!carol", "/table option name:dice value:sometimes"), "bot or manual")
	if out := tb.ok(tb.do("!carol", "/table option name:dice value:manual")); !strings.Contains(out, "dice: bot → manual") {
		t.Errorf("option reply %q", out)
	}

	if show := tb.ok(tb.do("ann", "/table show")); !strings.Contains(show, "dice=manual") {
		t.Errorf("/table show does not say dice=manual:\n%s", show)
	}

	// The GM rolls damage for Lister: Lister's owner is asked; nothing happens yet.
	ask := tb.do("!carol", "/damage target:Lister amount:1d6")
	out := tb.ok(ask)
	if !strings.Contains(out, "Lister") || !strings.Contains(out, "<@ann>") || !strings.Contains(out, "roll **1d6**") || !strings.Contains(out, "Nothing has happened yet") {
		t.Fatalf("prompt %q", out)
	}
	if show := tb.ok(tb.do("ann", "/char show name:Lister")); !strings.Contains(show, "HP 6") {
		t.Fatalf("damage applied before the dice were entered: %s", show)
	}
	tb.refused(tb.press("bob", ask, "Enter dice"), "(or a GM) enters these dice")
	modal := tb.press("ann", ask, "Enter dice")
	if modal.Modal == nil || !strings.Contains(modal.Modal.Inputs[0].Label, "1d6") {
		t.Fatalf("press gave %+v", modal)
	}
	tb.refused(tb.submit("ann", modal, "4 4"), "Enter 1 faces for 1d6; you entered 2")
	tb.refused(tb.submit("ann", modal, "7"), "cannot come up on a d6")
	tb.refused(tb.submit("ann", modal, "x"), "cannot come up on a d6")
	done := tb.submit("ann", modal, "4")
	out = tb.ok(done)
	if !done.UpdateMessage || !strings.Contains(out, "1d6 [4] = 4") || !strings.Contains(out, "6 → 2") {
		t.Fatalf("result %q (update %v)", out, done.UpdateMessage)
	}
	tb.refused(tb.submit("ann", modal, "4"), "no longer pending")
	tb.refused(tb.press("ann", ask, "Enter dice"), "no longer pending")
	// The history has the event with the die, once.
	if h := tb.ok(tb.do("ann", "/history")); strings.Count(h, "1d6 [4] = 4") != 1 {
		t.Errorf("history:\n%s", h)
	}

	// Down to 0 HP, then Stay Up: its 2d6 come from the owner too; a GM may enter them.
	zero := tb.do("!carol", "/damage target:Lister amount:2")
	tb.ok(zero)
	ask = tb.press("ann", zero, "Stay Up")
	if out := tb.ok(ask); !strings.Contains(out, "roll **2d6**") {
		t.Fatalf("stay up prompt %q", out)
	}
	modal = tb.press("carol", ask, "Enter dice")
	tb.refused(tb.submit("carol", modal, "3"), "Enter 2 faces")
	// 7 is a Severe Wound: a save follows, asked for next (RULES.md §1.4).
	again := tb.submit("carol", modal, "3 4")
	if out := tb.ok(again); !again.UpdateMessage || !strings.Contains(out, "roll **1d20**") || !strings.Contains(out, "so far: 3 4") {
		t.Fatalf("second prompt %q", out)
	}
	again = tb.submit("ann", tb.press("ann", again, "Enter dice"), "12")
	if out := tb.ok(again); !strings.Contains(out, "roll **3d4**") {
		t.Fatalf("third prompt %q", out)
	}
	out = tb.ok(tb.submit("ann", tb.press("ann", again, "Enter dice"), "1 2 3"))
	// 1d4 for the stun, then 2d4 for the days: one run of d4s, asked at once.
	if !strings.Contains(out, "2d6 [3, 4] = 7") || !strings.Contains(out, "1d20 [12]") || !strings.Contains(out, "1d4 [1]") || !strings.Contains(out, "2d4 [2, 3] = 5") {
		t.Fatalf("stay up result %q", out)
	}

	// Back to the bot's dice.
	tb.ok(tb.do("!carol", "/table option name:dice value:bot"))
	tb.dice.Push(5)
	if out := tb.ok(tb.do("!carol", "/roll expr:1d6 as:Lister")); !strings.Contains(out, "[5]") {
		t.Errorf("bot roll %q", out)
	}
}

// TestManualDiceFudge: Fudge faces may be typed as + and -.
func TestManualDiceFudge(t *testing.T) {
	faces, err := commands.ParseFacesFor("+ 0 - -1", manualFudge(4))
	if err != nil || len(faces) != 4 || faces[0] != 1 || faces[2] != -1 || faces[3] != -1 {
		t.Fatalf("faces %v, %v", faces, err)
	}
	if _, err := commands.ParseFacesFor("2 0 0 0", manualFudge(4)); err == nil {
		t.Fatal("2 accepted on a Fudge die")
	}
}

func manualFudge(n int) []dice.Die {
	out := make([]dice.Die, n)
	for i := range out {
		out[i] = dice.Die{Sides: 3, Fudge: true}
	}
	return out
}
