package storage

import (
	"fmt"
	"reflect"
	"testing"
)

// TestGMInboxIsNotUndone: a table's GM inbox is stored with the table and
// read back exactly, but no event records it and /undo neither compares
// nor puts it back: a result delivered (or queued) after a change stays
// delivered (or queued) when that change is undone, and the undo is not
// refused because the inbox changed since.
func TestGMInboxIsNotUndone(t *testing.T) { bothBackends(t, testGMInboxIsNotUndone) }

func testGMInboxIsNotUndone(t *testing.T) {
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

// TestGMInboxStaysOutOfTheHistory: a GM inbox that changes between events,
// with no event of its own, enters neither a checkpoint nor an event's
// table states, however they are stored (derived from the table that
// follows, or whole), and the history walked back from the table as it is
// now leads to the same states as when they were written: Inspect finds
// the store sound, and undoing a table change put back exactly the table
// before it.
func TestGMInboxStaysOutOfTheHistory(t *testing.T) {
	bothBackends(t, testGMInboxStaysOutOfTheHistory)
}

func testGMInboxStaysOutOfTheHistory(t *testing.T) {
	path := newStore(t)
	db := mustOpenPath(t, path)
	setupTable(t, db, "c1")
	var last *Event
	for i := range checkpointEvery + 10 {
		last = record(t, db, "c1", func(tx *Tx, e *Event) error {
			before, err := tx.Table("c1")
			if err != nil {
				return err
			}
			after := before.Clone()
			after.Clock++
			e.TableBefore, e.TableAfter = before, after
			return tx.PutTable(after)
		})
		mustUpdate(t, db, func(tx *Tx) error { // the inbox changes, with no event
			tb, err := tx.Table("c1")
			if err != nil {
				return err
			}
			tb.GMInbox = []GMNote{{Text: fmt.Sprintf("result %d", i)}}
			return tx.PutTable(tb)
		})
	}
	mustView(t, db, func(tx *Tx) error {
		return tx.EachEventBackward("c1", func(e *Event) (bool, error) {
			for _, tb := range []*Table{e.TableBefore, e.TableAfter} {
				if tb != nil && tb.GMInbox != nil {
					t.Fatalf("event %d's table states hold the inbox %+v", e.Seq, tb.GMInbox)
				}
			}
			return true, nil
		})
	})
	if err := undo(db, last); err != nil {
		t.Fatal(err)
	}
	mustView(t, db, func(tx *Tx) error {
		tb, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if tb.Clock != int64(checkpointEvery+9) || len(tb.GMInbox) != 1 || tb.GMInbox[0].Text != fmt.Sprintf("result %d", checkpointEvery+9) {
			t.Errorf("after undo: clock %d, inbox %+v; want clock %d and the last inbox", tb.Clock, tb.GMInbox, checkpointEvery+9)
		}
		return nil
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := inspectStore(path); err != nil {
		t.Errorf("Inspect: %v", err)
	}
}
