package storage

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// copySource builds a file with what a copy must carry: long histories
// (checkpoints, undos, deleted characters), a history of whole events (an
// import) followed by compact ones, and a channel whose table's creation
// was undone (its history kept, no table).
func copySource(t *testing.T) (*DB, []string) {
	t.Helper()
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	db := mustOpenPath(t, filepath.Join(t.TempDir(), "source.db"))
	longHistory(t, db, "c1", checkpointEvery+30, rng)
	longHistory(t, db, "c2", 40, rng)
	imported := allEvents(t, db, "c2")
	var encoded []EncodedEvent
	for i := range imported {
		e := *imported[len(imported)-1-i]
		e.ChannelID, e.Seq = "c3", uint64(i+1)
		enc, err := EncodeEvent(&e)
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, enc)
	}
	mustUpdate(t, db, func(tx *Tx) error {
		t := newTable("c3")
		if err := tx.AppendEncodedEvents("c3", encoded); err != nil {
			return err
		}
		return tx.PutTable(t)
	})
	longHistory(t, db, "c3", 20, rng)
	mustUpdate(t, db, func(tx *Tx) error {
		tb := newTable("c4")
		if err := tx.PutTable(tb); err != nil {
			return err
		}
		return tx.AppendEvent(&Event{ChannelID: "c4", At: t0, Command: "/table setup", TableAfter: tb})
	})
	mustUpdate(t, db, func(tx *Tx) error {
		e, err := tx.Event("c4", 1)
		if err != nil {
			return err
		}
		if err := tx.RevertEvent(e); err != nil {
			return err
		}
		return tx.AppendEvent(&Event{ChannelID: "c4", At: t0, Command: "/undo", UndoOf: 1, TableBefore: e.TableAfter})
	})
	return db, []string{"c1", "c2", "c3", "c4"}
}

// TestCopyDatabaseThereAndBack: a file copied into PostgreSQL and back
// into a new file holds every record byte for byte, reads back the same
// tables, characters and histories on every leg, and checks sound; a copy
// stopped halfway is resumed; a destination holding other records for a
// table is refused.
func TestCopyDatabaseThereAndBack(t *testing.T) {
	src, chans := copySource(t)
	u := pgtest.NewDatabase(t)
	pg := mustOpenPath(t, u)

	// Stopped after two channels, then resumed.
	ctx, cancel := context.WithCancel(context.Background())
	rep, err := CopyDatabase(ctx, src, pg, func(_ string, r CopyReport) {
		if r.Channels == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || rep.Channels != 2 {
		t.Fatalf("stopped copy = %+v, %v; want 2 channels and context.Canceled", rep, err)
	}
	rep, err = CopyDatabase(context.Background(), src, pg, nil)
	if err != nil || rep.Present != 2 || rep.Channels != 2 {
		t.Fatalf("resumed copy = %+v, %v; want 2 present and 2 copied", rep, err)
	}
	if _, err := InspectPostgres(u, 0); err != nil {
		t.Errorf("the PostgreSQL copy: %v", err)
	}
	back := mustOpenPath(t, filepath.Join(t.TempDir(), "back.db"))
	rep2, err := CopyDatabase(context.Background(), pg, back, nil)
	if err != nil || rep2.Channels != 4 || rep2.Tables != rep.Tables || rep2.Events != rep.Events || rep2.Characters != rep.Characters {
		t.Fatalf("copy back = %+v, %v; want the %+v of the first copy", rep2, err, rep)
	}
	if err := back.Check(); err != nil {
		t.Errorf("the file copied back: %v", err)
	}
	for _, ch := range chans {
		want := readState(t, src, ch)
		wantEvents := allEvents(t, src, ch)
		for name, db := range map[string]*DB{"postgres": pg, "file copied back": back} {
			assertState(t, readState(t, db, ch), want)
			if got := allEvents(t, db, ch); !reflect.DeepEqual(got, wantEvents) {
				t.Errorf("%s: table %s: %d events read back differently from the source's %d", name, ch, len(got), len(wantEvents))
			}
		}
	}
	err = back.View(func(btx *Tx) error {
		return src.View(func(stx *Tx) error {
			for _, ch := range chans {
				s, err := stx.records(ch, false)
				if err != nil {
					return err
				}
				b, err := btx.records(ch, false)
				if err != nil {
					return err
				}
				if err := sameChannel(s, b, &CopyReport{}); err != nil {
					t.Errorf("table %s back in a file: %v", ch, err)
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}

	// The destination's copy of a table changed: copying again refuses it.
	mustUpdate(t, pg, func(tx *Tx) error {
		tb, err := tx.Table("c2")
		if err != nil {
			return err
		}
		tb.Clock++
		return tx.PutTable(tb)
	})
	if _, err := CopyDatabase(context.Background(), src, pg, nil); !errors.Is(err, ErrCopyConflict) {
		t.Errorf("copy over a changed table: %v; want ErrCopyConflict", err)
	}
}
