package manualdice_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/manualdice"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

func newTable(t *testing.T) *commandstest.Table {
	return commandstest.New(t, commandstest.Systems()...)
}

func TestManualDice(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=1 hp=6"`))
	tb.Refused(tb.Do("ann", "/table option name:dice value:manual"), "Only a GM")
	tb.Refused(tb.Do("!carol", "/table option name:dice value:sometimes"), "bot or manual")
	if out := tb.OK(tb.Do("!carol", "/table option name:dice value:manual")); !strings.Contains(out, "dice: bot → manual") {
		t.Errorf("option reply %q", out)
	}

	if show := tb.OK(tb.Do("ann", "/table show")); !strings.Contains(show, "dice=manual") {
		t.Errorf("/table show does not say dice=manual:\n%s", show)
	}

	// The GM rolls damage for Lister: Lister's owner is asked; nothing happens yet.
	ask := tb.Do("!carol", "/damage target:Lister amount:1d6")
	out := tb.OK(ask)
	if !strings.Contains(out, "Lister") || !strings.Contains(out, "<@ann>") || !strings.Contains(out, "roll **1d6**") || !strings.Contains(out, "Nothing has happened yet") {
		t.Fatalf("prompt %q", out)
	}
	if show := tb.OK(tb.Do("ann", "/char list")); !strings.Contains(show, "HP 6") {
		t.Fatalf("damage applied before the dice were entered: %s", show)
	}
	tb.Refused(tb.Press("bob", ask, "Enter dice"), "(or a GM) enters these dice")
	modal := tb.Press("ann", ask, "Enter dice")
	if modal.Modal == nil || !strings.Contains(modal.Modal.Inputs[0].Label, "1d6") {
		t.Fatalf("press gave %+v", modal)
	}
	tb.Refused(tb.Submit("ann", modal, "4 4"), "Enter 1 face for 1d6; you entered 2")
	tb.Refused(tb.Submit("ann", modal, "7"), "cannot come up on a d6")
	tb.Refused(tb.Submit("ann", modal, "x"), "cannot come up on a d6")
	done := tb.Submit("ann", modal, "4")
	out = tb.OK(done)
	if !done.UpdateMessage || !strings.Contains(out, "1d6 [4] = 4") || !strings.Contains(out, "6 → 2") {
		t.Fatalf("result %q (update %v)", out, done.UpdateMessage)
	}
	tb.Refused(tb.Submit("ann", modal, "4"), "no longer pending")
	tb.Refused(tb.Press("ann", ask, "Enter dice"), "no longer pending")
	// The history has the event with the die, once.
	if h := tb.OK(tb.Do("ann", "/history")); strings.Count(h, "1d6 [4] = 4") != 1 {
		t.Errorf("history:\n%s", h)
	}

	// Down to 0 HP, then Stay Up: its 2d6 come from the owner too; a GM may enter them.
	zero := tb.Do("!carol", "/damage target:Lister amount:2")
	tb.OK(zero)
	ask = tb.Press("ann", zero, "Stay Up")
	if out := tb.OK(ask); !strings.Contains(out, "roll **2d6**") {
		t.Fatalf("stay up prompt %q", out)
	}
	modal = tb.Press("carol", ask, "Enter dice")
	tb.Refused(tb.Submit("carol", modal, "3"), "Enter 2 faces")
	// 7 is a Severe Wound: a save follows, asked for next (RULES.md §1.4).
	again := tb.Submit("carol", modal, "3 4")
	if out := tb.OK(again); !again.UpdateMessage || !strings.Contains(out, "roll **1d20**") || !strings.Contains(out, "so far: 3 4") {
		t.Fatalf("second prompt %q", out)
	}
	again = tb.Submit("ann", tb.Press("ann", again, "Enter dice"), "12")
	if out := tb.OK(again); !strings.Contains(out, "roll **3d4**") {
		t.Fatalf("third prompt %q", out)
	}
	out = tb.OK(tb.Submit("ann", tb.Press("ann", again, "Enter dice"), "1 2 3"))
	// 1d4 for the stun, then 2d4 for the days: one run of d4s, asked at once.
	if !strings.Contains(out, "2d6 [3, 4] = 7") || !strings.Contains(out, "1d20 [12]") || !strings.Contains(out, "1d4 [1]") || !strings.Contains(out, "2d4 [2, 3] = 5") {
		t.Fatalf("stay up result %q", out)
	}

	// Back to the bot's dice.
	tb.OK(tb.Do("!carol", "/table option name:dice value:bot"))
	tb.Dice.Push(5)
	if out := tb.OK(tb.Do("!carol", "/roll expr:1d6 as:Lister")); !strings.Contains(out, "[5]") {
		t.Errorf("bot roll %q", out)
	}
}

// TestManualDiceCreate: at a dice=manual table the prompt for the dice of a
// new sheet names the character being created, as every other prompt
// names its character; for a hidden NPC it names neither the dice nor the
// faces (its hit die is its HP maximum), and the modal that only the one
// entering them reads asks for them (BRIEF: hidden information stays
// hidden).
func TestManualDiceCreate(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hit-protection"))
	tb.OK(tb.Do("!carol", "/table option name:dice value:manual"))

	ask := tb.Do("ann", `/char create name:Lister stats:"class=fighter"`)
	if out := tb.OK(ask); !strings.Contains(out, "**Lister**: <@ann>, roll **1d8**") {
		t.Errorf("prompt for a new sheet %q; want it to name Lister", out)
	}
	modal := tb.Press("ann", ask, "Enter dice")
	if modal.Modal == nil || modal.Modal.Title != "Dice for Lister" {
		t.Fatalf("press gave %+v; want the modal Dice for Lister", modal)
	}
	tb.OK(tb.Submit("ann", modal, "5"))

	ask = tb.Do("!carol", `/char create name:Goblin stats:"class=goblin hit-die=d12 hidden=true"`)
	out := tb.OK(ask)
	if strings.Contains(out, "d12") || !strings.Contains(out, "**Goblin**") {
		t.Errorf("prompt for a hidden NPC's sheet %q; want Goblin named and no d12", out)
	}
	modal = tb.Press("carol", ask, "Enter dice")
	if modal.Modal == nil || !strings.Contains(modal.Modal.Inputs[0].Label, "1d12") {
		t.Fatalf("press gave %+v; want the GM's modal to ask for 1d12", modal)
	}
	// A hidden NPC comes in unannounced: the answer is the GM's alone.
	done := tb.Submit("carol", modal, "7")
	if out := tb.Private(done); !strings.Contains(out, "HP ██████░░░░ 7/12") {
		t.Errorf("GM's answer %q; want HP 7/12", out)
	}
}

// TestManualDiceFudge: Fudge faces may be typed as + and -.
func TestManualDiceFudge(t *testing.T) {
	faces, err := manualdice.ParseFacesFor("+ 0 - -1", manualFudge(4))
	if err != nil || len(faces) != 4 || faces[0] != 1 || faces[2] != -1 || faces[3] != -1 {
		t.Fatalf("faces %v, %v", faces, err)
	}
	if _, err := manualdice.ParseFacesFor("2 0 0 0", manualFudge(4)); err == nil {
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

// TestManualDiceEnteredByAnother: the faces of a GM's command may come from
// a player (the owner of the character whose die it is), and the re-run's
// answer then goes to that player's button press. What was for the GM
// alone (a hidden character's numbers, in the ephemeral follow-up) must not
// reach the player; the GM reads it in /history.
func TestManualDiceEnteredByAnother(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=1 hp=6"`))
	tb.Do("!carol", `/char create name:Goblin stats:"class=cleric level=19 hit-die=d12 hp=11 hidden=true"`)
	tb.OK(tb.Do("!carol", "/table option name:dice value:manual"))

	// The die is asked of Lister's owner, ann.
	ask := tb.Do("!carol", "/damage target:Lister,Goblin amount:1d6")
	if out := tb.OK(ask); !strings.Contains(out, "<@ann>") {
		t.Fatalf("prompt %q; want it to ask ann", out)
	}
	done := tb.Submit("ann", tb.Press("ann", ask, "Enter dice"), "4")
	out := tb.OK(done)
	if !strings.Contains(out, "Lister** takes 4 damage") || !strings.Contains(out, "Goblin**: Wounded") {
		t.Errorf("ann's answer %q; want Lister's damage and the Goblin's word", out)
	}
	for _, f := range done.FollowUps {
		if s := commandstest.Text(f); strings.Contains(s, "11 → 7") || strings.Contains(s, "/12") {
			t.Errorf("ann, who entered the GM's dice, gets the Goblin's numbers (ephemeral %v):\n%s", f.Ephemeral, s)
		}
	}
	if !strings.Contains(out, "/history") {
		t.Errorf("ann's answer %q; want it to say where a GM reads the hidden numbers", out)
	}
	if fu := commandstest.FollowUp(tb.Do("!carol", "/history")); !strings.Contains(fu, "HP 11 → 7") {
		t.Errorf("the GM's /history follow-up %q; want the Goblin's numbers", fu)
	}

	// Entered by the GM who asked, the follow-up is theirs as before.
	ask = tb.Do("!carol", "/damage target:Lister,Goblin amount:1d4")
	done = tb.Submit("carol", tb.Press("carol", ask, "Enter dice"), "1")
	if fu := commandstest.FollowUp(done); !strings.Contains(fu, "HP 7 → 6") {
		t.Errorf("the GM's own entry: follow-up %q; want the Goblin's numbers", fu)
	}
}
