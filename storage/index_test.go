package storage

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"

	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// entriesOf returns the index entries EventEntries gives for f, newest
// first.
func entriesOf(tb testing.TB, tx *Tx, ch string, f EntryFilter, before uint64) []EventEntry {
	tb.Helper()
	var out []EventEntry
	if err := tx.EventEntries(ch, f, before, func(en EventEntry) (bool, error) {
		out = append(out, en)
		return true, nil
	}); err != nil {
		tb.Fatalf("EventEntries(%s, %+v, %d): %v", ch, f, before, err)
	}
	return out
}

// wantEntries returns the entries of the events evs (newest first) that f
// keeps below before.
func wantEntries(evs []*Event, f EntryFilter, before uint64) []EventEntry {
	var out []EventEntry
	for _, e := range evs {
		if en := EntryOf(e); (before == 0 || e.Seq < before) && f.keeps(en) {
			out = append(out, en)
		}
	}
	return out
}

// sameEntries reports whether a and b are the same entries (sameEntry).
func sameEntries(a, b []EventEntry) bool {
	return slices.EqualFunc(a, b, sameEntry)
}

// TestEventEntries: every event appended has its entry in the index, found
// by seq, by user, by character and as a change of system, below any
// event, in a read transaction and in the write transaction that appends
// it (before its commit); the undo of an event is found by the event
// undone.
func TestEventEntries(t *testing.T) { bothBackends(t, testEventEntries) }

func testEventEntries(t *testing.T) {
	db := mustOpen(t)
	cs := setupTable(t, db, "c1", "Lister", "Rimmer")
	lister, rimmer := cs[0], cs[1]
	mustUpdate(t, db, func(tx *Tx) error {
		gm := newTable("c1")
		for _, e := range []*Event{
			{UserID: "u-gm", TableAfter: gm},
			{UserID: "u-Lister", Changes: []Change{{CharacterID: lister.ID, Name: "Lister", After: lister}}},
			{UserID: "u-gm", Changes: []Change{{CharacterID: rimmer.ID, Name: "Rimmer", After: rimmer}}},
			// The GM's damage to both: not the author's characters.
			{UserID: "u-gm", Changes: []Change{{CharacterID: rimmer.ID, Before: rimmer, After: rimmer}, {CharacterID: lister.ID, Before: lister, After: lister}}},
			{UserID: "u-Lister", Changes: []Change{{CharacterID: lister.ID, Before: lister, After: lister}}},
			{UserID: "u-Lister", UndoOf: 5, Changes: []Change{{CharacterID: lister.ID, Before: lister, After: lister}}},
			{UserID: "u-gm", TableBefore: gm, TableAfter: &Table{ChannelID: "c1", System: "harm"}},
			// A timer that fired about Rimmer, hidden, and changed nothing.
			{UserID: "u-gm", Parts: []EventPart{{Characters: []uint64{rimmer.ID}, Hidden: true, Summary: "Rimmer holds on."}}},
		} {
			e.ChannelID = "c1"
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		// What this Update appended is in the index before its commit.
		if got := entriesOf(t, tx, "c1", EntryFilter{SystemChanges: true}, 0); len(got) != 1 || got[0].Seq != 7 {
			t.Errorf("in the Update: system changes %+v; want event 7", got)
		}
		return nil
	})
	want := map[uint64]EventEntry{
		1: {Seq: 1, UserID: "u-gm", Flags: EntryTableCreated | EntryAuthorOwns},
		2: {Seq: 2, UserID: "u-Lister", Flags: EntryCharacters | EntryAuthorOwns, Characters: []uint64{lister.ID}, Changed: []uint64{lister.ID}},
		3: {Seq: 3, UserID: "u-gm", Flags: EntryCharacters, Characters: []uint64{rimmer.ID}, Changed: []uint64{rimmer.ID}},
		4: {Seq: 4, UserID: "u-gm", Flags: EntryCharacters, Characters: []uint64{lister.ID, rimmer.ID}, Changed: []uint64{lister.ID, rimmer.ID}},
		5: {Seq: 5, UserID: "u-Lister", Flags: EntryCharacters | EntryAuthorOwns, Characters: []uint64{lister.ID}, Changed: []uint64{lister.ID}},
		6: {Seq: 6, UserID: "u-Lister", UndoOf: 5, Flags: EntryCharacters | EntryAuthorOwns, Characters: []uint64{lister.ID}, Changed: []uint64{lister.ID}},
		7: {Seq: 7, UserID: "u-gm", Flags: EntryTableChanged | EntrySystemChanged | EntryAuthorOwns},
		8: {Seq: 8, UserID: "u-gm", Flags: EntryAuthorOwns | EntryHidden, Characters: []uint64{rimmer.ID}},
	}
	seqsOf := func(ens []EventEntry) []uint64 {
		var out []uint64
		for _, en := range ens {
			out = append(out, en.Seq)
		}
		return out
	}
	mustView(t, db, func(tx *Tx) error {
		all := entriesOf(t, tx, "c1", EntryFilter{}, 0)
		if len(all) != len(want) {
			t.Fatalf("entries %+v; want %d", all, len(want))
		}
		for _, en := range all {
			if !sameEntry(en, want[en.Seq]) {
				t.Errorf("entry %+v; want %+v", en, want[en.Seq])
			}
		}
		for _, c := range []struct {
			f      EntryFilter
			before uint64
			want   []uint64
		}{
			{EntryFilter{ByUser: true, UserID: "u-Lister"}, 0, []uint64{6, 5, 2}},
			{EntryFilter{ByUser: true, UserID: "u-gm"}, 0, []uint64{8, 7, 4, 3, 1}},
			{EntryFilter{ByUser: true, UserID: "u-Lister"}, 6, []uint64{5, 2}},
			{EntryFilter{ByUser: true, UserID: "u-nobody"}, 0, nil},
			{EntryFilter{ByUser: true}, 0, nil}, // events of no user: none
			{EntryFilter{CharacterID: rimmer.ID}, 0, []uint64{8, 4, 3}},
			{EntryFilter{CharacterID: lister.ID, ByUser: true, UserID: "u-gm"}, 0, []uint64{4}},
			{EntryFilter{CharacterID: lister.ID}, 5, []uint64{4, 2}},
			{EntryFilter{SystemChanges: true}, 0, []uint64{7}},
			{EntryFilter{}, 3, []uint64{2, 1}},
			{EntryFilter{}, 1, nil},
		} {
			if got := seqsOf(entriesOf(t, tx, "c1", c.f, c.before)); !slices.Equal(got, c.want) {
				t.Errorf("EventEntries(%+v, before %d) = %v; want %v", c.f, c.before, got, c.want)
			}
		}
		for seq, by := range map[uint64]uint64{5: 6, 4: 0, 9: 0} {
			if got, err := tx.UndoneBy("c1", seq); err != nil || got != by {
				t.Errorf("UndoneBy(%d) = %d, %v; want %d", seq, got, err, by)
			}
		}
		for _, en := range all {
			if want := map[uint64]uint64{5: 6}[en.Seq]; en.UndoneBy != want {
				t.Errorf("entry %d: UndoneBy %d; want %d", en.Seq, en.UndoneBy, want)
			}
		}
		if got := entriesOf(t, tx, "nope", EntryFilter{}, 0); got != nil {
			t.Errorf("entries of a channel with no events: %+v", got)
		}
		return nil
	})
}

// TestIndexOfALongHistory: at a long history of every kind of event, the
// index holds exactly each event's entry, by every filter and below every
// event; and hpkeeper check agrees.
func TestIndexOfALongHistory(t *testing.T) { bothBackends(t, testIndexOfALongHistory) }

func testIndexOfALongHistory(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x1dec5))
	path := newStore(t)
	db, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	longHistory(t, db, "c1", checkpointEvery+60, rng)
	full := allEvents(t, db, "c1")
	mustView(t, db, func(tx *Tx) error {
		filters := []EntryFilter{{}, {SystemChanges: true}, {ByUser: true, UserID: "u-gm"}}
		for id := uint64(1); id <= 6; id++ {
			filters = append(filters, EntryFilter{CharacterID: id})
		}
		for _, f := range filters {
			for _, before := range []uint64{0, 1, 2, 100, checkpointEvery, uint64(len(full)), uint64(len(full)) + 1} {
				got, want := entriesOf(t, tx, "c1", f, before), wantEntries(full, f, before)
				if len(got) != len(want) {
					t.Errorf("seed %d: EventEntries(%+v, %d): %d entries; want %d", seed, f, before, len(got), len(want))
					continue
				}
				for i := range got {
					if !sameEntry(got[i], want[i]) {
						t.Errorf("seed %d: EventEntries(%+v, %d)[%d] = %+v; want %+v", seed, f, before, i, got[i], want[i])
						break
					}
				}
			}
		}
		return nil
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := inspectStore(path); err != nil {
		t.Errorf("seed %d: check: %v", seed, err)
	}
}

// TestMigrateSchema4File: a file written by the code of schema 4
// (testdata/schema4.db, see its README), which has no index of the
// history, is migrated to schema 5 at Open: every event of every table
// gets its entry, the index finds each table's events by user, by
// character and by the event undone as the events themselves say, and
// the file checks clean.
func TestMigrateSchema4File(t *testing.T) {
	path := copyOf(t, filepath.Join("testdata", "schema4.db"), filepath.Join(t.TempDir(), "hpkeeper.db"))
	old, err := Inspect(path, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if old.SchemaVersion != 4 || old.Events < 390 {
		t.Fatalf("testdata/schema4.db: %+v; want schema 4 with 395 events", old)
	}
	db := mustOpenPath(t, path)
	chans := mustTables(t, db)
	if len(chans) != old.Tables {
		t.Fatalf("%d tables; want %d", len(chans), old.Tables)
	}
	for _, tbl := range chans {
		full := allEvents(t, db, tbl.ChannelID)
		mustView(t, db, func(tx *Tx) error {
			if got, want := entriesOf(t, tx, tbl.ChannelID, EntryFilter{}, 0), wantEntries(full, EntryFilter{}, 0); !sameEntries(got, want) {
				t.Errorf("table %s: entries %+v; want %+v", tbl.ChannelID, got, want)
			}
			return nil
		})
	}
	mustView(t, db, func(tx *Tx) error {
		// The barrier table: a change of system (#2), and undos of the
		// GM's #7, meghan's #5 and dave's #6.
		if got := entriesOf(t, tx, "barrier", EntryFilter{SystemChanges: true}, 0); len(got) != 1 || got[0].Seq != 2 {
			t.Errorf("barrier: system changes %+v; want #2", got)
		}
		for seq, by := range map[uint64]uint64{7: 8, 5: 9, 6: 10, 4: 0} {
			if got, err := tx.UndoneBy("barrier", seq); err != nil || got != by {
				t.Errorf("barrier: UndoneBy(%d) = %d, %v; want %d", seq, got, err, by)
			}
		}
		mine := entriesOf(t, tx, "barrier", EntryFilter{ByUser: true, UserID: "meghan"}, 0)
		if len(mine) != 4 || !mine[1].Has(EntryAuthorOwns|EntryCharacters) || mine[0].Seq != 11 {
			t.Errorf("barrier: meghan's entries %+v; want her 4 events, all of her own character", mine)
		}
		return nil
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Inspect(path, testTimeout)
	if err != nil || rep.SchemaVersion != SchemaVersion || rep.Events != old.Events {
		t.Errorf("after migrating: Inspect = %+v, %v; want schema %d, %d events, sound", rep, err, SchemaVersion, old.Events)
	}
}

// TestCheckFindsABrokenIndex: an index that no longer says what the
// events say is a problem hpkeeper check names: an entry changed, a
// reference by user or by character removed or added, an undo forgotten.
func TestCheckFindsABrokenIndex(t *testing.T) {
	for _, c := range []struct {
		name    string
		breakIt func(b *bolt.Bucket) error
		want    string
	}{
		{"an entry changed", func(b *bolt.Bucket) error {
			return b.Put(channelKey("c1", kindEntry, itob(2)), encodeEntry(EventEntry{Seq: 2, UserID: "u-mallory"}))
		}, "the index entry of event 2"},
		{"a user's reference gone", func(b *bolt.Bucket) error {
			return b.Delete(channelKey("c1", kindByUser, append(userPrefix("u1"), itob(3)...)))
		}, `by user "u1"`},
		{"a character's reference added", func(b *bolt.Bucket) error {
			return b.Put(channelKey("c1", kindByCharacter, append(itob(9), itob(3)...)), []byte{})
		}, "the index holds"},
		{"an undo forgotten", func(b *bolt.Bucket) error {
			return b.Delete(channelKey("c1", kindUndone, itob(2)))
		}, "undid event 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hpkeeper.db")
			db := mustOpenPath(t, path)
			cs := setupTable(t, db, "c1", "Lister")
			appendEvents(t, db, "c1", 3)
			mustUpdate(t, db, func(tx *Tx) error {
				return tx.AppendEvent(&Event{ChannelID: "c1", UserID: "u1", UndoOf: 2, Changes: []Change{{CharacterID: cs[0].ID, Before: cs[0], After: cs[0]}}})
			})
			db.Close()
			if _, err := Inspect(path, testTimeout); err != nil {
				t.Fatalf("before: %v", err)
			}
			rawUpdate(t, path, func(btx *bolt.Tx) error { return c.breakIt(btx.Bucket(bucketChannels)) })
			if _, err := Inspect(path, testTimeout); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Inspect = %v; want a problem saying %q", err, c.want)
			}
		})
	}
}

// TestPostgresIndexMigration: a database of schema version 5, whose events
// have no entries, is given every event's entry by the migration to
// version 6, which a second process starting at the same time skips; the
// database then checks clean.
func TestPostgresIndexMigration(t *testing.T) {
	url := pgtest.NewDatabase(t)
	db, err := openStore(url)
	if err != nil {
		t.Fatal(err)
	}
	seed := testSeed(t)
	longHistory(t, db, "c1", checkpointEvery+20, rand.New(rand.NewPCG(seed, 3)))
	want := allEvents(t, db, "c1")
	db.Close()
	// Back to version 5: no flags, no event_characters, no indexes.
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP INDEX events_user`, `DROP INDEX events_undo_of`, `DROP TABLE event_characters`,
		`ALTER TABLE events DROP COLUMN flags`, `DELETE FROM schema_migrations WHERE version = 6`,
	} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close(context.Background())
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			db, err := openStore(url)
			if err == nil {
				err = db.Close()
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	db, err = openStore(url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		if got := entriesOf(t, tx, "c1", EntryFilter{}, 0); !sameEntries(got, wantEntries(want, EntryFilter{}, 0)) {
			t.Errorf("after the migration: %d entries; want those of the %d events", len(got), len(want))
		}
		return nil
	})
	if rep, err := inspectStore(url); err != nil || rep.SchemaVersion != PostgresSchemaVersion {
		t.Errorf("check after the migration: %+v, %v", rep, err)
	}
}
