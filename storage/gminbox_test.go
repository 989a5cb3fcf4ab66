package storage

import (
	"reflect"
	"testing"
)

// TestGMInboxIsNotUndone: a table's GM inbox is stored with the table and
// read back exactly, but no event records it and /undo neither compares
// nor puts it back: a result delivered (or queued) after a change stays
// delivered (or queued) when that change is undone, and the undo is not
// refused because the inbox changed since.
func TestGMInboxIsNotUndone(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	inbox := []GMNote{{Text: "**Bandit**: HP 0 → -1", Given: []string{"gm"}}}
	e := record(t, db, "c1", func(tx *Tx, e *Event) error {
		before, err := tx.Table("c1")
		if err != nil {
			return err
		}
		after := before.Clone()
		after.Clock++
		after.GMInbox = inbox
		e.TableBefore, e.TableAfter = before, after
		return tx.PutTable(after)
	})
	if e.TableAfter.GMInbox != nil || e.TableBefore.GMInbox != nil {
		t.Errorf("event %d's table states hold a GM inbox: %+v, %+v", e.Seq, e.TableBefore.GMInbox, e.TableAfter.GMInbox)
	}
	later := append(inbox, GMNote{Text: "**Ogre** dies"})
	mustUpdate(t, db, func(tx *Tx) error {
		tb, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(tb.GMInbox, inbox) {
			t.Errorf("stored inbox %+v; want %+v", tb.GMInbox, inbox)
		}
		tb.GMInbox = later
		return tx.PutTable(tb)
	})
	if err := undo(db, e); err != nil {
		t.Fatalf("undo after the inbox changed: %v", err)
	}
	mustView(t, db, func(tx *Tx) error {
		tb, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if tb.Clock != 0 || !reflect.DeepEqual(tb.GMInbox, later) {
			t.Errorf("after undo: clock %d, inbox %+v; want clock 0 and the inbox kept, %+v", tb.Clock, tb.GMInbox, later)
		}
		return nil
	})
}
