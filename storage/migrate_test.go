package storage

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// errRollback makes an Update write nothing.
var errRollback = errors.New("rolled back on purpose")

// TestMigrateSchema2File carries a file written by the code of schema 2
// (testdata/schema2.db, see its README) forward: Open migrates it to
// SchemaVersion, every record and every old event still reads, the newest
// old event of a table still reverts to its exact before state, new events
// are stored compact on top of the old ones and revert exactly too, and the
// file checks clean before and after.
func TestMigrateSchema2File(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "schema2.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := Inspect(path, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if old.SchemaVersion != 2 || old.Tables == 0 || old.Events == 0 {
		t.Fatalf("testdata/schema2.db: %+v; want schema 2 with tables and events", old)
	}

	db := mustOpenPath(t, path)
	var tables []*Table
	events := map[string][]*Event{} // newest first
	mustView(t, db, func(tx *Tx) error {
		var err error
		if tables, err = tx.Tables(); err != nil {
			return err
		}
		for _, tb := range tables {
			err := tx.EachEventBackward(tb.ChannelID, func(e *Event) (bool, error) {
				events[tb.ChannelID] = append(events[tb.ChannelID], e)
				return true, nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	n := 0
	for _, es := range events {
		n += len(es)
	}
	if len(tables) != old.Tables || n != old.Events {
		t.Errorf("after migrating: %d tables, %d events; the schema 2 file had %d and %d", len(tables), n, old.Tables, old.Events)
	}

	// The newest old event of a table with characters reverts exactly.
	var ch string
	var last *Event
	for _, tb := range tables {
		if es := events[tb.ChannelID]; len(es) > 0 && len(es[0].Changes) > 0 && es[0].Changes[0].Before != nil && es[0].Changes[0].After != nil {
			ch, last = tb.ChannelID, es[0]
			break
		}
	}
	if last == nil {
		t.Fatal("no table whose newest event changed a character")
	}
	err = db.Update(func(tx *Tx) error {
		if err := tx.RevertEvent(last); err != nil {
			return err
		}
		for _, c := range last.Changes {
			got, err := tx.Character(ch, c.CharacterID)
			if err != nil {
				return err
			}
			if want := inChannel(c.Before, ch); !reflect.DeepEqual(got, want) {
				t.Errorf("reverting old event %d: character %+v; want %+v", last.Seq, got, want)
			}
		}
		return errRollback // leave the file as it was
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("reverting old event %d: %v", last.Seq, err)
	}

	// A new event on top is compact and reverts exactly.
	before := readState(t, db, ch)
	var e *Event
	mustUpdate(t, db, func(tx *Tx) error {
		b, err := tx.Character(ch, last.Changes[0].CharacterID)
		if err != nil {
			return err
		}
		c := *b
		c.Hidden = !c.Hidden
		c.Name = "Renamed"
		if err := tx.PutCharacter(&c); err != nil {
			return err
		}
		a, err := tx.Character(ch, c.ID)
		if err != nil {
			return err
		}
		e = &Event{ChannelID: ch, At: t0, Command: "/char set", Changes: []Change{{CharacterID: c.ID, Name: a.Name, Before: b, After: a}}}
		return tx.AppendEvent(e)
	})
	if raw := rawEvent(t, db, ch, e.Seq); len(raw) == 0 || raw[0] != eventCompact {
		t.Errorf("new event stored as %x…; want eventCompact", raw[:min(1, len(raw))])
	}
	mustUpdate(t, db, func(tx *Tx) error {
		var newest []*Event
		err := tx.EachEventBackward(ch, func(ev *Event) (bool, error) {
			newest = append(newest, ev)
			return len(newest) < 2, nil
		})
		if err != nil {
			return err
		}
		if want := normEvent(e); !reflect.DeepEqual(newest[0], want) {
			t.Errorf("new event reads back as %+v; want %+v", newest[0], want)
		}
		if !reflect.DeepEqual(newest[1], last) {
			t.Errorf("the old event under it reads back as %+v; want %+v", newest[1], last)
		}
		return tx.RevertEvent(newest[0])
	})
	assertState(t, readState(t, db, ch), before)

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Inspect(path, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if rep.SchemaVersion != SchemaVersion || rep.Tables != old.Tables || rep.Characters != old.Characters || rep.Events != old.Events+1 {
		t.Errorf("after: %+v; want schema %d with the old counts and one event more than %+v", rep, SchemaVersion, old)
	}
}
