package history_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/history"
)

// table is the harness of the history's tests.
type table = commandstest.Table

func newTable(t *testing.T) *table { return commandstest.New(t, commandstest.Systems()...) }

// TestUndoWhileTheTableChanges: /undo looks for the event to revert in a
// read transaction (up to undoWindow events, decoded whole: no writer time)
// and its write transaction looks only at the events written meanwhile.
// What it reverts is what one walk over the whole history at the moment
// of the write would choose.
func TestUndoWhileTheTableChanges(t *testing.T) {
	setup := func(t *testing.T) *table {
		tb := newTable(t)
		tb.OK(tb.Do("!carol", "/table setup system:hit-protection"))
		tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`))
		tb.OK(tb.Do("!carol", `/char create name:Rimmer stats:"class=fighter level=3 hp=6"`))
		tb.OK(tb.Do("ann", `/char set name:Lister stats:"hp=5"`))
		tb.OK(tb.Do("ann", `/char set name:Lister stats:"hp=4"`))
		return tb
	}
	between := func(t *testing.T, f func()) {
		once := false
		t.Cleanup(history.SetUndoLooked(func() {
			if !once {
				once = true
				f()
			}
		}))
	}
	hp := func(tb *table, name string) string {
		out := tb.OK(tb.Do("!carol", "/char list"))
		out = out[strings.Index(out, "**"+name+"**"):]
		i := strings.Index(out, "HP ")
		return out[i : i+5]
	}

	t.Run("another's event meanwhile", func(t *testing.T) {
		tb := setup(t)
		between(t, func() { tb.OK(tb.Do("!carol", `/char set name:Rimmer stats:"hp=2"`)) })
		if out := tb.OK(tb.Do("ann", "/undo")); !strings.Contains(out, "hp=4") {
			t.Errorf("/undo = %q; want ann's hp=4 undone", out)
		}
		if got := hp(tb, "Lister"); got != "HP 5/" {
			t.Errorf("Lister %s; want HP 5", got)
		}
		if got := hp(tb, "Rimmer"); got != "HP 2/" {
			t.Errorf("Rimmer %s; want the GM's HP 2 kept", got)
		}
	})
	t.Run("the caller's own event meanwhile", func(t *testing.T) {
		tb := setup(t)
		between(t, func() { tb.OK(tb.Do("ann", `/char set name:Lister stats:"hp=3"`)) })
		if out := tb.OK(tb.Do("ann", "/undo")); !strings.Contains(out, "hp=3") {
			t.Errorf("/undo = %q; want the newest, hp=3, undone", out)
		}
		if got := hp(tb, "Lister"); got != "HP 4/" {
			t.Errorf("Lister %s; want HP 4", got)
		}
	})
	t.Run("the event found undone meanwhile", func(t *testing.T) {
		tb := setup(t)
		between(t, func() { tb.OK(tb.Do("ann", "/undo")) })
		if out := tb.OK(tb.Do("ann", "/undo")); !strings.Contains(out, "hp=5") {
			t.Errorf("/undo = %q; want the one before, hp=5, undone", out)
		}
		if got := hp(tb, "Lister"); got != "HP 6/" {
			t.Errorf("Lister %s; want HP 6", got)
		}
	})
	t.Run("a GM no more", func(t *testing.T) {
		tb := setup(t)
		tb.OK(tb.Do("!carol", "/table gm action:add user:dave"))
		between(t, func() { tb.OK(tb.Do("!carol", "/table gm action:remove user:dave")) })
		// dave looked as a GM (and found the gm add); by the write he is a
		// player, who has nothing to undo.
		tb.Refused(tb.Do("dave", "/undo"), "nothing here that you can undo")
	})
}

// TestUndoNamesTheEventInTheWay: a player's /undo after the GM hit their
// character names the GM's event and who can undo it, instead of "undo
// the later event first", which a player cannot; once the GM undid it,
// the player's /undo reverts their own event.
func TestUndoNamesTheEventInTheWay(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hp-mp-wp"))                   // #1
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp-max=30 con=14"`)) // #2
	tb.OK(tb.Do("ann", `/char set name:Lister stats:"str=12"`))              // #3
	tb.OK(tb.Do("!carol", "/damage target:Lister amount:3"))                 // #4
	tb.OK(tb.Do("bob", `/char create name:Rimmer stats:"hp-max=6"`))         // #5: another's, not in the way
	resp := tb.Do("ann", "/undo")
	tb.Refused(resp, "Cannot undo `#3`")
	commandstest.WantIn(t, "refusal", resp.Content, "`#4` by carol (/damage amount:3 target:Lister) changed **Lister**", "carol, a GM, can undo `#4` with /undo")
	commandstest.WantIn(t, "Lister kept", tb.OK(tb.Do("ann", "/char show name:Lister")), "HP █████████░ 27/30")
	tb.Press("carol", tb.Do("!carol", "/undo"), "Undo") // #5, after the question
	// The printed way works: the GM undoes #4, then ann's /undo reverts #3.
	commandstest.WantIn(t, "the GM's undo", tb.OK(tb.Do("!carol", "/undo")), "Undid `#4`")
	commandstest.WantIn(t, "ann's undo", tb.OK(tb.Do("ann", "/undo")), "Undid `#3`")
}

// TestUndoNeverDeletesPastALaterEvent: the creation of a character that a
// later event changed, or put in the turn order, is never undone past it
// (it would delete the character from under it), even when the later
// event was the caller's own and one they cannot undo.
func TestUndoNeverDeletesPastALaterEvent(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hit-protection")) // #1
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp=6"`)) // #2
	tb.OK(tb.Do("!carol", "/init start"))                        // #3
	tb.Dice.Push(4)
	tb.OK(tb.Do("ann", "/init join target:Lister")) // #4: ann's, but a table change
	resp := tb.Do("ann", "/undo")
	tb.Refused(resp, "Cannot undo `#2`")
	commandstest.WantIn(t, "refusal", resp.Content, "`#4` by ann (/init join target:Lister) put **Lister** in the turn order", "A GM can undo `#4`")
	commandstest.WantIn(t, "Lister kept", tb.OK(tb.Do("ann", "/char show name:Lister")), "Lister")
}

// TestUndoOfACreationAsks: undoing the creation of a character deletes it,
// so /undo asks first, privately, with Undo and Cancel buttons; Cancel
// keeps it, Undo reverts it, and a question that the table moved past is
// refused.
func TestUndoOfACreationAsks(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:harm"))
	tb.OK(tb.Do("ann", `/char create name:"Old Garrett" stats:"endure=2"`)) // #2
	ask := tb.Do("ann", "/undo")
	if !ask.Ephemeral || len(ask.Components) != 1 || len(ask.Components[0]) != 2 {
		t.Fatalf("/undo of a creation = %+v; want an ephemeral question with two buttons", ask)
	}
	commandstest.WantIn(t, "question", ask.Content, "Undo `#2` by ann", "deletes **Old Garrett**")
	commandstest.WantIn(t, "not yet undone", tb.OK(tb.Do("ann", `/char show name:"Old Garrett"`)), "Old Garrett")
	kept := tb.Press("ann", ask, "Cancel")
	if !kept.UpdateMessage || !kept.Components[0][0].Disabled {
		t.Errorf("Cancel = %+v; want the question updated with its buttons disabled", kept)
	}
	commandstest.WantIn(t, "cancelled", tb.OK(tb.Do("ann", `/char show name:"Old Garrett"`)), "Old Garrett")

	ask = tb.Do("ann", "/undo")
	tb.OK(tb.Do("ann", `/char set name:"Old Garrett" stats:"react=1"`)) // #3: now /undo reverts this
	tb.Refused(tb.Press("ann", ask, "Undo"), "out of date")
	tb.OK(tb.Do("ann", "/undo")) // #3
	done := tb.Press("ann", tb.Do("ann", "/undo"), "Undo")
	commandstest.WantIn(t, "undone", tb.OK(done), "Undid `#2` by ann")
	tb.Refused(tb.Do("ann", `/char show name:"Old Garrett"`), "No character")
	tb.Refused(tb.Press("ann", ask, "Undo"), "out of date")
}
