package storage

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	bolt "go.etcd.io/bbolt"
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

// rawChannel is every stored byte of one channel, whichever the layout.
type rawChannel struct {
	Table                []byte
	Chars, Names, Events map[string]string
	CharSeq, EventSeq    uint64
	// Walk is every event as the history is read back, newest first.
	Walk []*Event
}

// rawFile reads every channel of the file at path, in the nested layout of
// schema 3 and older or in the channels bucket, and its meta bucket.
func rawFile(t *testing.T, path string) (map[string]*rawChannel, map[string]string) {
	t.Helper()
	bdb, err := openReadOnly(path, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	out := map[string]*rawChannel{}
	meta := map[string]string{}
	read := func(ch *channel) error {
		r := &rawChannel{Table: bytes.Clone(ch.table())}
		for _, kind := range []struct {
			m   *map[string]string
			set recordSet
		}{{&r.Chars, ch.chars}, {&r.Names, ch.names}, {&r.Events, ch.events}} {
			*kind.m = map[string]string{}
			if err := kind.set.forEach(func(k, v []byte) error {
				(*kind.m)[string(k)] = string(v)
				return nil
			}); err != nil {
				return err
			}
		}
		var err error
		if r.CharSeq, err = ch.chars.sequence(); err != nil {
			return err
		}
		if r.EventSeq, err = ch.events.sequence(); err != nil {
			return err
		}
		h, err := startHistory(ch, ch.id, false)
		if err != nil {
			return err
		}
		err = ch.eachEventBefore(0, func(seq uint64, d eventData) (bool, error) {
			e, err := h.visit(d, seq, true)
			r.Walk = append(r.Walk, e)
			return err == nil, err
		})
		if err != nil {
			return err
		}
		out[ch.id] = r
		return nil
	}
	err = bdb.View(func(btx *bolt.Tx) error {
		_ = btx.Bucket(bucketMeta).ForEach(func(k, v []byte) error {
			meta[string(k)] = string(v)
			return nil
		})
		if tables := btx.Bucket(bucketTables); tables != nil {
			if btx.Bucket(bucketChannels) != nil {
				t.Errorf("%s has both bucket %q and bucket %q", path, bucketTables, bucketChannels)
			}
			return tables.ForEachBucket(func(k []byte) error {
				return read(nestedChannel(tables.Bucket(k), string(k)))
			})
		}
		b := btx.Bucket(bucketChannels)
		return eachChannel(b, func(id string) error {
			ch, err := flatChannel(b, id)
			if err != nil {
				return err
			}
			return read(ch)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, meta
}

// TestMigrateSchema3File carries a file written by the code of schema 3
// (testdata/schema3.db, see its README) to schema 4: Open moves every
// channel's nested bucket into the channels bucket, and every table,
// character, name index entry and event survives byte for byte, each
// channel's sequences carry on (the next character id and the next event
// seq follow the old ones), the history reads back exactly as before
// (checkpoints included), the saved replay guard and the shards stamp
// are kept, and the file checks clean with the same counts.
func TestMigrateSchema3File(t *testing.T) {
	path := copyOf(t, filepath.Join("testdata", "schema3.db"), filepath.Join(t.TempDir(), "hpkeeper.db"))
	old, err := Inspect(path, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if old.SchemaVersion != 3 || old.Tables == 0 || old.Events <= checkpointEvery {
		t.Fatalf("testdata/schema3.db: %+v; want schema 3 with tables and more than %d events", old, checkpointEvery)
	}
	before, beforeMeta := rawFile(t, path)

	db := mustOpenPath(t, path)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	after, afterMeta := rawFile(t, path)
	if len(after) != len(before) {
		t.Errorf("after migrating: %d channels; the schema 3 file had %d", len(after), len(before))
	}
	long := ""
	for id, b := range before {
		a := after[id]
		if a == nil {
			t.Errorf("channel %s lost", id)
			continue
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("channel %s: after migrating %+v; want %+v", id, a, b)
		}
		if b.EventSeq > checkpointEvery {
			long = id
		}
	}
	if long == "" {
		t.Fatal("no channel with a checkpoint")
	}
	if want := strconv.FormatUint(SchemaVersion, 10); afterMeta["schema"] != want {
		t.Errorf("schema %q; want %q", afterMeta["schema"], want)
	}
	delete(beforeMeta, "schema")
	delete(afterMeta, "schema")
	if beforeMeta["replay-guard"] == "" || beforeMeta["shards"] == "" || !reflect.DeepEqual(afterMeta, beforeMeta) {
		t.Errorf("meta after migrating %q; want the replay guard and shards stamp of %q", afterMeta, beforeMeta)
	}

	db = mustOpenPath(t, path)
	defer db.Close()
	if err := db.ClaimShards(ShardRange{Count: 2, First: 0, Last: 0}); err != nil {
		t.Errorf("ClaimShards(the stamp's own range) = %v", err)
	}
	if err := db.ClaimShards(ShardRange{}); !errors.Is(err, ErrShardMismatch) {
		t.Errorf("ClaimShards(every guild) = %v; want ErrShardMismatch (the stamp says shard 0 of 2)", err)
	}
	if got, err := db.TakeReplayState(); err != nil || string(got) != beforeMeta["replay-guard"] {
		t.Errorf("TakeReplayState() = %q, %v; want %q", got, err, beforeMeta["replay-guard"])
	}
	// The API reads what the old file held, and the sequences carry on.
	mustView(t, db, func(tx *Tx) error {
		tables, err := tx.Tables()
		if err != nil {
			return err
		}
		if len(tables) != old.Tables {
			t.Errorf("Tables() gave %d; want %d", len(tables), old.Tables)
		}
		for id, b := range before {
			var walk []*Event
			if err := tx.EachEventBackward(id, func(e *Event) (bool, error) {
				walk = append(walk, e)
				return true, nil
			}); err != nil {
				return err
			}
			if !reflect.DeepEqual(walk, b.Walk) {
				t.Errorf("channel %s: the history reads back otherwise than before migrating", id)
			}
			chars, err := tx.Characters(id)
			if err != nil {
				return err
			}
			if len(chars) != len(b.Chars) {
				t.Errorf("channel %s: %d characters; want %d", id, len(chars), len(b.Chars))
			}
			for _, c := range chars {
				if got, err := tx.CharacterByName(id, c.Name); err != nil || got.ID != c.ID {
					t.Errorf("channel %s: CharacterByName(%q) = %v, %v; want id %d", id, c.Name, got, err, c.ID)
				}
			}
		}
		// A page deep in the long history starts from its checkpoint.
		var page []*Event
		err = tx.EachEventBefore(long, checkpointEvery/2, func(e *Event) (bool, error) {
			page = append(page, e)
			return len(page) < 3, nil
		})
		if err != nil {
			return err
		}
		if want := before[long].Walk[len(before[long].Walk)-checkpointEvery/2+1:][:3]; !reflect.DeepEqual(page, want) {
			t.Errorf("EachEventBefore(%s, %d) gave %d events, not the old walk's", long, checkpointEvery/2, len(page))
		}
		return nil
	})
	var ch string
	for _, tb := range mustTables(t, db) {
		ch = tb.ChannelID
		break
	}
	c := newCharacter(ch, "Newcomer", 3)
	e := &Event{ChannelID: ch, At: t0, Command: "/char create"}
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		got, err := tx.Character(ch, c.ID)
		if err != nil {
			return err
		}
		e.Changes = []Change{{CharacterID: c.ID, Name: c.Name, After: got}}
		return tx.AppendEvent(e)
	})
	if c.ID != before[ch].CharSeq+1 || e.Seq != before[ch].EventSeq+1 {
		t.Errorf("new character id %d, event seq %d; want %d and %d (after the old sequences)", c.ID, e.Seq, before[ch].CharSeq+1, before[ch].EventSeq+1)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Inspect(path, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if rep.SchemaVersion != SchemaVersion || rep.Tables != old.Tables || rep.Characters != old.Characters+1 || rep.Events != old.Events+1 {
		t.Errorf("after: %+v; want schema %d with one character and one event more than %+v", rep, SchemaVersion, old)
	}
}

// mustTables returns every table of db.
func mustTables(t *testing.T, db *DB) []*Table {
	t.Helper()
	var tables []*Table
	mustView(t, db, func(tx *Tx) error {
		var err error
		tables, err = tx.Tables()
		return err
	})
	return tables
}
