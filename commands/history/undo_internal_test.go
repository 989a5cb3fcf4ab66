package history

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/storage"
)

// SetUndoLooked makes /undo call f after it has found the event to revert
// (in a read transaction) and before its write transaction, so that an
// external test can change the table in between; the returned func puts
// things back.
func SetUndoLooked(f func()) (restore func()) {
	undoLooked = f
	return func() { undoLooked = nil }
}

// TestUndoSince: what the write transaction decides from the two walks is
// what one walk over every event would.
func TestUndoSince(t *testing.T) {
	target := &storage.Event{Seq: 7}
	found := func(seen int) *undoWalk {
		w := newUndoWalk(false, "ann")
		w.seen, w.target = seen, target
		return w
	}
	newer := func(seen int, undone ...uint64) *undoWalk {
		w := newUndoWalk(false, "ann")
		w.seen = seen
		for _, s := range undone {
			w.undone[s] = true
		}
		return w
	}
	if w, err := since(found(10), newer(3)); err != nil || w.target != target {
		t.Errorf("since(target at 10, 3 newer) = %+v, %v; want the target found", w, err)
	}
	if w, err := since(found(400), newer(101)); err != nil || w.target != nil {
		t.Errorf("since(target at 400, 101 newer) = %+v, %v; want none: past the window of %d", w, err, undoWindow)
	}
	if _, err := since(found(10), newer(1, 7)); err != errUndoMoved {
		t.Errorf("since(target undone meanwhile) error = %v; want errUndoMoved", err)
	}
	mine := newer(2)
	mine.target = &storage.Event{Seq: 12}
	if w, err := since(found(10), mine); err != nil || w.target.Seq != 12 {
		t.Errorf("since(a newer target) = %+v, %v; want the newer one", w, err)
	}
}
