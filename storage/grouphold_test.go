package storage

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// openHeld opens a bbolt file whose writer holds small groups for hold,
// and whose holds call during(d) instead of sleeping, on the writer
// goroutine; onCommit is Options.OnCommit.
func openHeld(t *testing.T, hold time.Duration, during func(d time.Duration), onCommit func(GroupStats)) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "hpkeeper.db"), Options{Timeout: testTimeout, GroupHold: hold, OnCommit: onCommit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db.w.holdWith.Store(&during)
	return db
}

// waitQueued waits until n calls are in db's queue.
func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(db.w.queue) < n {
		if time.Now().After(deadline) {
			t.Errorf("%d calls queued; want %d", len(db.w.queue), n)
			return
		}
		runtime.Gosched()
	}
}

// TestGroupHoldTakesWhatQueuedIntoOneCommit holds a group of two open
// while two more Updates queue: the four commit once, each function runs
// exactly once, and no caller has its result before the commit returned.
func TestGroupHoldTakesWhatQueuedIntoOneCommit(t *testing.T) {
	var db *DB
	var committed atomic.Bool
	var ran [4]atomic.Int32
	fn := func(i int) func(*Tx) error {
		return func(tx *Tx) error {
			ran[i].Add(1)
			return tx.CreateCharacter(newCharacter("c1", fmt.Sprintf("pc%d", i), 1))
		}
	}
	results := make(chan error, 4)
	update := func(i int) {
		go func() {
			err := db.Update(fn(i))
			if err == nil && !committed.Load() {
				err = fmt.Errorf("update %d returned before its group's commit", i)
			}
			results <- err
		}()
	}
	var holds []time.Duration
	var groups []int
	db = openHeld(t, 300*time.Microsecond, func(d time.Duration) {
		holds = append(holds, d)
		update(2)
		update(3)
		waitQueued(t, db, 2)
		if len(results) != 0 {
			t.Error("a caller had its result while its group was held open")
		}
	}, func(g GroupStats) {
		// Called once the commit returned (durable), before any reply.
		groups = append(groups, g.Updates)
		if g.Updates == 4 {
			committed.Store(true)
		}
	})
	setupTable(t, db, "c1")
	release := holdWriter(t, db)
	update(0)
	waitQueued(t, db, 1)
	update(1)
	waitQueued(t, db, 2)
	before, groups0 := writeTxs(db), len(groups)
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	if got := writeTxs(db) - before; got != 1 {
		t.Errorf("%d write transactions for four Updates; want 1 (the held group)", got)
	}
	// The held Update's group of one (not held), then the four.
	if got := groups[groups0:]; len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("groups of %v after the release; want [1 4]", got)
	}
	for i := range ran {
		if n := ran[i].Load(); n != 1 {
			t.Errorf("function %d ran %d times; want 1", i, n)
		}
	}
	if len(holds) != 1 || holds[0] != 300*time.Microsecond {
		t.Errorf("holds %v; want one of 300µs", holds)
	}
	if got := len(readState(t, db, "c1").Characters); got != 4 {
		t.Errorf("%d characters; want 4", got)
	}
}

// TestGroupHoldNeverForALoneUpdate: Updates one at a time are never held,
// nor is any group when Options.GroupHold is negative.
func TestGroupHoldNeverForALoneUpdate(t *testing.T) {
	for _, hold := range []time.Duration{0, -1} {
		t.Run(fmt.Sprint(hold), func(t *testing.T) {
			var holds atomic.Int32
			db := openHeld(t, hold, func(time.Duration) { holds.Add(1) }, nil)
			setupTable(t, db, "c1")
			for i := range 20 {
				mustUpdate(t, db, func(tx *Tx) error {
					return tx.CreateCharacter(newCharacter("c1", fmt.Sprintf("pc%d", i), 1))
				})
			}
			if hold < 0 {
				// A group of ten queued behind a held writer.
				release := holdWriter(t, db)
				var results []<-chan any
				for i := range 10 {
					results = append(results, enqueue(t, db, func(tx *Tx) error {
						return tx.CreateCharacter(newCharacter("c1", fmt.Sprintf("npc%d", i), 1))
					}))
				}
				if err := release(); err != nil {
					t.Fatal(err)
				}
				for _, r := range results {
					if err := <-r; err != nil {
						t.Fatal(err)
					}
				}
			}
			if n := holds.Load(); n != 0 {
				t.Errorf("%d holds; want 0", n)
			}
			if st := db.WriterStats(); st.Held != 0 {
				t.Errorf("WriterStats.Held = %d; want 0", st.Held)
			}
		})
	}
}

// TestGroupHoldIsBounded: a held group is held once, for Options.GroupHold,
// however many Updates keep queueing meanwhile; what queued commits with
// it, up to maxGroup, and the rest in the next group. A group of holdBelow
// or more is not held at all.
func TestGroupHoldIsBounded(t *testing.T) {
	var db *DB
	var holds []time.Duration
	var groups []int
	done := make(chan error, 2*maxGroup)
	update := func(name string) {
		go func() {
			done <- db.Update(func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", name, 1)) })
		}()
	}
	db = openHeld(t, DefaultGroupHold, func(d time.Duration) {
		holds = append(holds, d)
		if len(holds) > 1 {
			return
		}
		// More than the group can take arrives while it is held.
		for i := range maxGroup {
			update(fmt.Sprintf("late%d", i))
		}
		waitQueued(t, db, maxGroup)
	}, func(g GroupStats) { groups = append(groups, g.Updates) })
	setupTable(t, db, "c1")
	release := holdWriter(t, db)
	update("a")
	waitQueued(t, db, 1)
	update("b")
	waitQueued(t, db, 2)
	groups0 := len(groups)
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for range 2 + maxGroup {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	// One hold, of GroupHold, for the group of two. It took the first
	// maxGroup-2 that queued; the two left were queued when that group
	// committed: a group of two again, held, with nothing more coming.
	if len(holds) != 2 || holds[0] != DefaultGroupHold || holds[1] != DefaultGroupHold {
		t.Errorf("holds %v; want two of %v", holds, DefaultGroupHold)
	}
	got := groups[groups0:]
	if want := []int{1, maxGroup, 2}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v; want %v", got, want)
	}
	if st := db.WriterStats(); st.Held != 2 {
		t.Errorf("WriterStats.Held = %d; want 2", st.Held)
	}

	// A group of holdBelow is not held.
	holds = holds[:0]
	release = holdWriter(t, db)
	var results []<-chan any
	for i := range holdBelow {
		results = append(results, enqueue(t, db, func(tx *Tx) error {
			return tx.CreateCharacter(newCharacter("c1", fmt.Sprintf("big%d", i), 1))
		}))
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	if len(holds) != 0 {
		t.Errorf("a group of %d was held: %v", holdBelow, holds)
	}
}
