package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// hpOf decodes the "hp" of a test sheet.
func hpOf(tb testing.TB, c *Character) int {
	tb.Helper()
	var s struct {
		HP int `json:"hp"`
	}
	if err := json.Unmarshal(c.Sheet, &s); err != nil {
		tb.Fatal(err)
	}
	return s.HP
}

// holdWriter queues an Update that blocks the writer until the returned
// release function is called, so that the Updates queued meanwhile are
// committed together as one group, in the order they were queued.
func holdWriter(t *testing.T, db *DB) (release func() error) {
	t.Helper()
	entered, gate := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.Update(func(tx *Tx) error {
			close(entered)
			<-gate
			return nil
		})
	}()
	<-entered
	return func() error { close(gate); return <-done }
}

// enqueue starts db.Update(fn) in a goroutine and waits until it is queued
// behind the held writer, so that calls are queued in a known order.
func enqueue(t *testing.T, db *DB, fn func(*Tx) error) <-chan any {
	t.Helper()
	before := len(db.w.queue)
	res := make(chan any, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				res <- fmt.Sprintf("panic: %v", p)
			}
		}()
		res <- db.Update(fn)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(db.w.queue) == before {
		if time.Now().After(deadline) {
			t.Fatal("Update was not queued")
		}
		runtime.Gosched()
	}
	return res
}

func TestGroupCommitConcurrentUpdatesAreExactAndDurable(t *testing.T) {
	bothBackends(t, testGroupCommitConcurrentUpdatesAreExactAndDurable)
}

func testGroupCommitConcurrentUpdatesAreExactAndDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	setupTable(t, db, "c1", "Counter")
	const workers, each = 50, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				errs <- db.Update(func(tx *Tx) error {
					c, err := tx.CharacterByName("c1", "counter")
					if err != nil {
						return err
					}
					c.Sheet = sheet(hpOf(t, c) + 1)
					if err := tx.PutCharacter(c); err != nil {
						return err
					}
					if err := tx.CreateCharacter(newCharacter("c1", fmt.Sprintf("w%d-%d", w, i), 1)); err != nil {
						return err
					}
					return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Command: "/inc"})
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update error: %v", err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Everything each Update was told was committed is in the reopened file.
	db = mustOpenPath(t, path)
	if err := db.Check(); err != nil {
		t.Error(err)
	}
	mustView(t, db, func(tx *Tx) error {
		c, err := tx.CharacterByName("c1", "counter")
		if err != nil {
			return err
		}
		if got := hpOf(t, c); got != 3+workers*each {
			t.Errorf("counter = %d; want %d (an increment was lost)", got, 3+workers*each)
		}
		all, err := tx.Characters("c1")
		if err != nil {
			return err
		}
		if len(all) != 1+workers*each {
			t.Errorf("%d characters; want %d", len(all), 1+workers*each)
		}
		for i, c := range all {
			if c.ID != uint64(i+1) {
				t.Fatalf("character %d has id %d; want dense ids", i, c.ID)
			}
		}
		last, err := tx.LastEventSeq("c1")
		if err != nil {
			return err
		}
		if last != workers*each {
			t.Errorf("last event seq = %d; want %d", last, workers*each)
		}
		return nil
	})
}

func TestGroupCommitSharesOneCommit(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	release := holdWriter(t, db)
	var results []<-chan any
	for i := range 10 {
		results = append(results, enqueue(t, db, func(tx *Tx) error {
			return tx.CreateCharacter(newCharacter("c1", fmt.Sprintf("pc%d", i), 1))
		}))
	}
	before, stats0 := writeTxs(db), db.WriterStats()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := <-r; err != nil {
			t.Fatalf("Update error: %v", err)
		}
	}
	// The held Update's transaction, then one more for all ten queued ones.
	if got := writeTxs(db) - before; got != 1 {
		t.Errorf("%d write transactions after release; want 1 (ten Updates, one commit)", got)
	}
	// WriterStats saw the same: the held group of one, then the ten.
	st := db.WriterStats()
	if g, u := st.Groups-stats0.Groups, st.Updates-stats0.Updates; g != 1 || u != 10 {
		t.Errorf("WriterStats: %d groups, %d updates since release; want 1 and 10", g, u)
	}
	if st.Functions <= stats0.Functions || st.Commits <= stats0.Commits {
		t.Errorf("WriterStats times did not grow: %+v then %+v", stats0, st)
	}
	if got := len(readState(t, db, "c1").Characters); got != 10 {
		t.Errorf("%d characters; want 10", got)
	}
}

func TestGroupCommitFailedFunctionLeavesNoTrace(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	wantErr := errors.New("refused")

	release := holdWriter(t, db)
	// a: commits; it creates Rimmer (id 2) and appends event 1.
	a := enqueue(t, db, func(tx *Tx) error {
		if err := tx.CreateCharacter(newCharacter("c1", "Rimmer", 4)); err != nil {
			return err
		}
		return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Command: "a"})
	})
	// b: writes everywhere (a character, a rename, a delete, an event, a new
	// table in a new channel, the table) and then fails.
	b := enqueue(t, db, func(tx *Tx) error {
		if err := tx.CreateCharacter(newCharacter("c1", "Kryten", 9)); err != nil {
			return err
		}
		l, err := tx.CharacterByName("c1", "Lister")
		if err != nil {
			return err
		}
		l.Name, l.Sheet = "Dave", sheet(0)
		if err := tx.PutCharacter(l); err != nil {
			return err
		}
		r, err := tx.CharacterByName("c1", "Rimmer") // a's write is visible
		if err != nil {
			return err
		}
		if err := tx.DeleteCharacter("c1", r.ID); err != nil {
			return err
		}
		if err := tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Command: "b"}); err != nil {
			return err
		}
		if err := tx.PutTable(newTable("c2")); err != nil {
			return err
		}
		if err := tx.CreateCharacter(newCharacter("c2", "Holly", 1)); err != nil {
			return err
		}
		t1 := newTable("c1")
		t1.Clock = 99
		if err := tx.PutTable(t1); err != nil {
			return err
		}
		return wantErr
	})
	// p: writes and panics.
	p := enqueue(t, db, func(tx *Tx) error {
		if err := tx.CreateCharacter(newCharacter("c1", "Talkie", 1)); err != nil {
			return err
		}
		panic("boom")
	})
	// c: commits, and sees neither b's nor p's writes.
	var cSaw state
	c := enqueue(t, db, func(tx *Tx) error {
		chars, err := tx.Characters("c1")
		if err != nil {
			return err
		}
		cSaw.Characters = chars
		if _, err := tx.Table("c2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("c sees table c2 written by the failed b: error %v", err)
		}
		cat := newCharacter("c1", "Cat", 7)
		if err := tx.CreateCharacter(cat); err != nil {
			return err
		}
		return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Command: "c"})
	})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-a; err != nil {
		t.Errorf("a: %v", err)
	}
	if err := <-b; err != wantErr {
		t.Errorf("b: error %v; want its own error unchanged", err)
	}
	if got := <-p; got != "panic: boom" {
		t.Errorf("p: %v; want the panic re-raised in the caller", got)
	}
	if err := <-c; err != nil {
		t.Errorf("c: %v", err)
	}
	if names := charNames(cSaw.Characters); fmt.Sprint(names) != "[Lister Rimmer]" {
		t.Errorf("c saw characters %v; want [Lister Rimmer] (a's, none of b's)", names)
	}

	got := readState(t, db, "c1")
	if names := charNames(got.Characters); fmt.Sprint(names) != "[Lister Rimmer Cat]" {
		t.Errorf("characters %v; want [Lister Rimmer Cat]", names)
	}
	if got.Table.Clock != 0 {
		t.Errorf("table clock %d; want 0 (b's PutTable undone)", got.Table.Clock)
	}
	mustView(t, db, func(tx *Tx) error {
		cat, err := tx.CharacterByName("c1", "cat")
		if err != nil {
			return err
		}
		if cat.ID != 3 {
			t.Errorf("Cat has id %d; want 3 (the ids b and p took were given back)", cat.ID)
		}
		if _, err := tx.CharacterByName("c1", "dave"); !errors.Is(err, ErrNotFound) {
			t.Errorf("b's rename left an index entry: %v", err)
		}
		for seq, want := range map[uint64]string{1: "a", 2: "c"} {
			e, err := tx.Event("c1", seq)
			if err != nil {
				return err
			}
			if e.Command != want {
				t.Errorf("event %d is %q; want %q", seq, e.Command, want)
			}
		}
		if last, _ := tx.LastEventSeq("c1"); last != 2 {
			t.Errorf("last event %d; want 2", last)
		}
		btx, _ := tx.read()
		_ = channelRange(btx.Bucket(bucketChannels), "c2", func(k, _ []byte) error {
			t.Errorf("b's new key %q of channel c2 survived", k)
			return nil
		})
		return nil
	})
	// The undone writes left a consistent file (no page lost or shared).
	if err := db.Check(); err != nil {
		t.Error(err)
	}
}

func charNames(cs []*Character) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestGroupCommitAllFailedWritesNothing(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	before := writeTxs(db)
	err := db.Update(func(tx *Tx) error {
		_ = tx.CreateCharacter(newCharacter("c1", "Lister", 1))
		return errors.New("no")
	})
	if err == nil || err.Error() != "no" {
		t.Fatalf("error %v; want fn's", err)
	}
	if got := readState(t, db, "c1"); len(got.Characters) != 0 {
		t.Errorf("characters %v; want none", charNames(got.Characters))
	}
	if writeTxs(db)-before != 1 {
		t.Error("want one (rolled back) write transaction")
	}
}

func TestGroupCommitSurvivesGoexit(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	err := db.Update(func(tx *Tx) error {
		_ = tx.CreateCharacter(newCharacter("c1", "Lister", 1))
		runtime.Goexit()
		return nil
	})
	if !errors.Is(err, errGoexit) {
		t.Fatalf("error %v; want errGoexit", err)
	}
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", "Rimmer", 1)) })
	if names := charNames(readState(t, db, "c1").Characters); fmt.Sprint(names) != "[Rimmer]" {
		t.Errorf("characters %v; want [Rimmer]", names)
	}
}

func TestUpdateAfterCloseFails(t *testing.T) { bothBackends(t, testUpdateAfterCloseFails) }

func testUpdateAfterCloseFails(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "x.db"), Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(*Tx) error { return nil }); err == nil {
		t.Error("Update after Close succeeded")
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// writeTxs is how many write transactions the file has run.
func writeTxs(db *DB) int64 {
	return db.w.groups.Load()
}

// channelKeys returns every key of the channels bucket with its value.
func channelKeys(t *testing.T, db *DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	mustView(t, db, func(tx *Tx) error {
		btx, err := tx.read()
		if err != nil {
			return err
		}
		return btx.Bucket(bucketChannels).ForEach(func(k, v []byte) error {
			out[string(k)] = string(v)
			return nil
		})
	})
	return out
}

// TestGroupCommitFailedFunctionGivesBackEverySequence: a function that
// fails beside one that succeeds leaves the channels bucket exactly as it
// was, the sequence keys included, whichever write moved them: ids skipped
// for an import (SkipCharacterIDs), a deleted character restored under an
// id above the sequence (RevertEvent), whole events appended to a channel
// with no history (AppendEncodedEvents), besides CreateCharacter's and
// AppendEvent's next id and seq.
func TestGroupCommitFailedFunctionGivesBackEverySequence(t *testing.T) {
	db := mustOpen(t)
	// Each sequence is moved by one write only: a write the journal
	// missed is not hidden by the undo of an earlier one it recorded.
	setupTable(t, db, "c1", "Lister")
	setupTable(t, db, "c3")
	setupTable(t, db, "c4", "Cat")
	kryten := record(t, db, "c3", createCharacter("Kryten"))
	del := record(t, db, "c3", deleteCharacterOp(kryten.Changes[0].CharacterID))
	// The deletion as if copied from elsewhere: its character's id was
	// never handed out here, so restoring it moves the sequence up.
	far := *del
	before := *del.Changes[0].Before
	before.ID = 40
	far.Changes = []Change{{CharacterID: 40, Name: before.Name, Before: &before}}
	enc, err := EncodeEvent(&Event{ChannelID: "c2", Seq: 1, At: t0, Command: "/table import"})
	if err != nil {
		t.Fatal(err)
	}
	want := channelKeys(t, db)

	release := holdWriter(t, db)
	failed := enqueue(t, db, func(tx *Tx) error {
		if err := tx.RevertEvent(&far); err != nil {
			return err
		}
		if err := tx.SkipCharacterIDs("c1", 100); err != nil {
			return err
		}
		if err := tx.CreateCharacter(newCharacter("c4", "Rimmer", 4)); err != nil {
			return err
		}
		if err := tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Command: "/char create"}); err != nil {
			return err
		}
		if err := tx.AppendEncodedEvents("c2", []EncodedEvent{enc}); err != nil {
			return err
		}
		return errRollback
	})
	ok := enqueue(t, db, func(tx *Tx) error { return nil })
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err, _ := (<-failed).(error); !errors.Is(err, errRollback) {
		t.Fatalf("failed function: %v; want errRollback", err)
	}
	if err := <-ok; err != nil {
		t.Fatalf("succeeding function: %v", err)
	}
	got := channelKeys(t, db)
	for k, v := range got {
		if w, ok := want[k]; !ok || w != v {
			t.Errorf("key %q = %x after the failed function; want %x (present: %v)", k, v, w, ok)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("key %q lost by the failed function", k)
		}
	}
}
