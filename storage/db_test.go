package storage

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestOpenCreatesSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatalf("Open(%q) error: %v", path, err)
	}
	if got := db.Path(); got != path {
		t.Errorf("Path() = %q; want %q", got, path)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close() error: %v", err)
	}

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("file mode = %o; want 600", mode)
	}

	raw, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	err = raw.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			t.Fatalf("bucket %q missing", bucketMeta)
		}
		if got, want := string(meta.Get(keySchema)), strconv.FormatUint(SchemaVersion, 10); got != want {
			t.Errorf("schema version = %q; want %q", got, want)
		}
		if tx.Bucket(bucketChannels) == nil {
			t.Errorf("bucket %q missing", bucketChannels)
		}
		if tx.Bucket(bucketTables) != nil {
			t.Errorf("bucket %q of schema 3 left in a new file", bucketTables)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	for i := range 3 {
		db, err := Open(path, Options{Timeout: testTimeout})
		if err != nil {
			t.Fatalf("Open #%d error: %v", i+1, err)
		}
		err = db.View(func(tx *Tx) error {
			_, err := tx.Table("c1")
			return err
		})
		if i == 0 && !errors.Is(err, ErrNotFound) {
			t.Errorf("Table on a new file: error %v; want ErrNotFound", err)
		}
		if i > 0 && err != nil {
			t.Errorf("Table after reopen #%d: %v", i, err)
		}
		if i == 0 {
			mustUpdate(t, db, func(tx *Tx) error { return tx.PutTable(newTable("c1")) })
		}
		if err := db.Close(); err != nil {
			t.Fatalf("Close #%d error: %v", i+1, err)
		}
	}
}

func TestOpenMigratesEmptyBoltFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	raw, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	db := mustOpenPath(t, path)
	// The channels bucket exists: PutTable would fail without it.
	mustUpdate(t, db, func(tx *Tx) error { return tx.PutTable(newTable("c1")) })
}

func TestOpenSchemaTooNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	raw, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	newer := []byte(strconv.FormatUint(SchemaVersion+1, 10))
	err = raw.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		return meta.Put(keySchema, newer)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(path, Options{Timeout: testTimeout})
	if !errors.Is(err, ErrSchemaTooNew) {
		if db != nil {
			db.Close()
		}
		t.Fatalf("Open of a newer file: error %v; want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file %q", err, path)
	}

	// The file is untouched and not left locked.
	raw, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: testTimeout})
	if err != nil {
		t.Fatalf("reopen after refused Open: %v", err)
	}
	defer raw.Close()
	err = raw.View(func(tx *bolt.Tx) error {
		if got := string(tx.Bucket(bucketMeta).Get(keySchema)); got != string(newer) {
			t.Errorf("schema version = %q; want %q", got, newer)
		}
		if tx.Bucket(bucketChannels) != nil {
			t.Errorf("refused Open created bucket %q", bucketChannels)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMigrationsOrdered(t *testing.T) {
	for i, m := range migrations {
		if m.version != uint64(i+1) {
			t.Errorf("migrations[%d].version = %d; want %d", i, m.version, i+1)
		}
	}
	if last := migrations[len(migrations)-1].version; last != SchemaVersion {
		t.Errorf("last migration version = %d; want SchemaVersion %d", last, SchemaVersion)
	}
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	first := mustOpenPath(t, path)

	start := time.Now()
	db, err := Open(path, Options{Timeout: testTimeout})
	elapsed := time.Since(start)
	if err == nil {
		db.Close()
		t.Fatal("second Open of a locked file succeeded; want ErrLocked")
	}
	if !errors.Is(err, ErrLocked) {
		t.Errorf("second Open error = %v; want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file %q", err, path)
	}
	// Giving up rather than waiting for ever (the first holder never lets
	// go): a bound far above the timeout, for a busy machine.
	if elapsed > testTimeout+30*time.Second {
		t.Errorf("second Open took %v; want it to give up after about %v", elapsed, testTimeout)
	}
	// It waited for the lock rather than failing at once (bbolt gives up one
	// 50ms retry early).
	if elapsed < testTimeout/2 {
		t.Errorf("second Open took %v; want it to wait about %v", elapsed, testTimeout)
	}

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	mustOpenPath(t, path) // the lock is released by Close
}

func TestOpenLockedNegativeTimeoutFailsAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	mustOpenPath(t, path)
	start := time.Now()
	db, err := Open(path, Options{Timeout: -1})
	if err == nil {
		db.Close()
		t.Fatal("Open of a locked file succeeded; want ErrLocked")
	}
	if !errors.Is(err, ErrLocked) {
		t.Errorf("Open error = %v; want ErrLocked", err)
	}
	// Once rather than for ever (bbolt's timeout 0): the bound only tells the
	// two apart, on however busy a machine.
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("Open with negative timeout took %v; want it to fail at once", elapsed)
	}
}

func TestOpenBadPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", "hpkeeper.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err == nil {
		db.Close()
		t.Fatal("Open in a missing directory succeeded")
	}
	if errors.Is(err, ErrLocked) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open error = %v; want a not-exist error", err)
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) { bothBackends(t, testUpdateErrorWritesNothing) }

func testUpdateErrorWritesNothing(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	errBoom := errors.New("boom")
	err := db.Update(func(tx *Tx) error {
		if err := tx.CreateCharacter(newCharacter("c1", "Lister", 5)); err != nil {
			return err
		}
		if err := tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Summary: "created"}); err != nil {
			return err
		}
		t2 := newTable("c1")
		t2.Clock = 10
		if err := tx.PutTable(t2); err != nil {
			return err
		}
		return errBoom
	})
	if err != errBoom {
		t.Fatalf("Update error = %v; want fn's error unchanged", err)
	}
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.CharacterByName("c1", "Lister"); !errors.Is(err, ErrNotFound) {
			t.Errorf("CharacterByName after failed Update: error %v; want ErrNotFound", err)
		}
		if seq, err := tx.LastEventSeq("c1"); err != nil || seq != 0 {
			t.Errorf("LastEventSeq after failed Update = %d, %v; want 0, nil", seq, err)
		}
		tbl, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if tbl.Clock != 0 {
			t.Errorf("Clock after failed Update = %d; want 0", tbl.Clock)
		}
		return nil
	})
	// The id sequence was rolled back too.
	mustUpdate(t, db, func(tx *Tx) error {
		c := newCharacter("c1", "Kryten", 4)
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		if c.ID != 1 {
			t.Errorf("ID after failed Update = %d; want 1", c.ID)
		}
		return nil
	})
}

func TestUpdatePanicWritesNothing(t *testing.T) { bothBackends(t, testUpdatePanicWritesNothing) }

func testUpdatePanicWritesNothing(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Update did not re-panic")
			}
		}()
		_ = db.Update(func(tx *Tx) error {
			if err := tx.CreateCharacter(newCharacter("c1", "Lister", 5)); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.CharacterByName("c1", "Lister"); !errors.Is(err, ErrNotFound) {
			t.Errorf("CharacterByName after panicking Update: error %v; want ErrNotFound", err)
		}
		return nil
	})
}

func TestViewIsReadOnly(t *testing.T) { bothBackends(t, testViewIsReadOnly) }

func testViewIsReadOnly(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	writes := map[string]func(tx *Tx) error{
		"PutTable":        func(tx *Tx) error { return tx.PutTable(newTable("c2")) },
		"CreateCharacter": func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", "Rimmer", 1)) },
		"PutCharacter": func(tx *Tx) error {
			c := newCharacter("c1", "Lister", 1)
			c.ID = 1
			return tx.PutCharacter(c)
		},
		"DeleteCharacter": func(tx *Tx) error { return tx.DeleteCharacter("c1", 1) },
		"AppendEvent":     func(tx *Tx) error { return tx.AppendEvent(&Event{ChannelID: "c1"}) },
		"RevertEvent":     func(tx *Tx) error { return tx.RevertEvent(&Event{ChannelID: "c1"}) },
	}
	for name, fn := range writes {
		t.Run(name, func(t *testing.T) {
			if err := db.View(fn); err == nil {
				t.Errorf("%s in View succeeded; want an error", name)
			}
		})
	}
}

func TestTxUnusableAfterFn(t *testing.T) { bothBackends(t, testTxUnusableAfterFn) }

func testTxUnusableAfterFn(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	var kept *Tx
	mustView(t, db, func(tx *Tx) error { kept = tx; return nil })
	if _, err := kept.Table("c1"); err == nil {
		t.Error("Table on an ended View transaction succeeded; want an error")
	}
	mustUpdate(t, db, func(tx *Tx) error { kept = tx; return nil })
	if err := kept.PutTable(newTable("c2")); err == nil {
		t.Error("PutTable on an ended Update transaction succeeded; want an error")
	}
}

func TestStateSurvivesReopen(t *testing.T) { bothBackends(t, testStateSurvivesReopen) }

func testStateSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	setupTable(t, db, "c1", "Lister", "Rimmer", "Kryten")
	setupTable(t, db, "c2", "Cat")
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.DeleteCharacter("c1", 3); err != nil {
			return err
		}
		for range 2 {
			if err := tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Summary: "x"}); err != nil {
				return err
			}
		}
		return nil
	})
	before1, before2 := readState(t, db, "c1"), readState(t, db, "c2")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db = mustOpenPath(t, path)
	assertState(t, readState(t, db, "c1"), before1)
	assertState(t, readState(t, db, "c2"), before2)
	mustUpdate(t, db, func(tx *Tx) error {
		c := newCharacter("c1", "Holly", 1)
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		if c.ID != 4 {
			t.Errorf("ID after reopen = %d; want 4 (ids are never reused)", c.ID)
		}
		e := &Event{ChannelID: "c1", At: t0}
		if err := tx.AppendEvent(e); err != nil {
			return err
		}
		if e.Seq != 3 {
			t.Errorf("Seq after reopen = %d; want 3", e.Seq)
		}
		return nil
	})
}

func TestConcurrentUse(t *testing.T) { bothBackends(t, testConcurrentUse) }

func testConcurrentUse(t *testing.T) {
	db := mustOpen(t)
	const tables, perTable = 4, 25
	for i := range tables {
		setupTable(t, db, "c"+strconv.Itoa(i))
	}
	errs := make(chan error, 2*tables)
	for i := range tables {
		channel := "c" + strconv.Itoa(i)
		go func() {
			for j := range perTable {
				err := db.Update(func(tx *Tx) error {
					c := newCharacter(channel, "N"+strconv.Itoa(j), j)
					if err := tx.CreateCharacter(c); err != nil {
						return err
					}
					return tx.AppendEvent(&Event{ChannelID: channel, At: t0, Changes: []Change{{CharacterID: c.ID, After: c}}})
				})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
		go func() {
			for range perTable {
				err := db.View(func(tx *Tx) error {
					_, err := tx.Characters(channel)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 * tables {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	mustView(t, db, func(tx *Tx) error {
		for i := range tables {
			channel := "c" + strconv.Itoa(i)
			all, err := tx.Characters(channel)
			if err != nil {
				return err
			}
			if len(all) != perTable {
				t.Errorf("%s has %d characters; want %d", channel, len(all), perTable)
			}
			for j, c := range all {
				if c.ID != uint64(j+1) {
					t.Errorf("%s character %d has ID %d; want %d", channel, j, c.ID, j+1)
				}
			}
			if last, err := tx.LastEventSeq(channel); err != nil || last != perTable {
				t.Errorf("LastEventSeq(%s) = %d, %v; want %d", channel, last, err, perTable)
			}
		}
		return nil
	})
}
