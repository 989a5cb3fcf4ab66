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
