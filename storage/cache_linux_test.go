//go:build linux

package storage

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// failWrites makes every write to the database file fail with ENOSPC, as a
// full disk would, by putting /dev/full in place of the file's descriptor
// (reads through bbolt's memory map go on). It returns the function that
// puts the file back.
func failWrites(t *testing.T, db *DB) (restore func()) {
	t.Helper()
	want, err := os.Stat(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	fd := -1
	for _, e := range fds {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fi, err := os.Stat(filepath.Join("/proc/self/fd", e.Name())); err == nil && os.SameFile(fi, want) {
			fd = n
			break
		}
	}
	if fd < 0 {
		t.Fatal("no descriptor of the database file")
	}
	saved, err := syscall.Dup(fd)
	if err != nil {
		t.Fatal(err)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	if err := syscall.Dup3(int(full.Fd()), fd, 0); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := syscall.Dup3(saved, fd, 0); err != nil {
			t.Fatal(err)
		}
		syscall.Close(saved)
	}
}

// TestCacheNeverAheadOfAFailedCommit: when a group's commit fails (the disk
// full), its callers get the error and the cache goes on serving the state
// of the last durable commit, to readers that ran during the failing commit
// too; the next commit that succeeds is served and is what the file holds.
func TestCacheNeverAheadOfAFailedCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db := mustOpenPath(t, path)
	setupTable(t, db, "c1", "Lister")
	setHP := func(hp int) error {
		return db.Update(func(tx *Tx) error {
			c, err := tx.CharacterByName("c1", "Lister")
			if err != nil {
				return err
			}
			c.Sheet = sheet(hp)
			return tx.PutCharacter(c)
		})
	}
	hpSeen := func() string {
		var s string
		mustView(t, db, func(tx *Tx) error {
			c, err := tx.CharacterByName("c1", "Lister")
			s = string(c.Sheet)
			return err
		})
		return s
	}
	if err := setHP(5); err != nil {
		t.Fatal(err)
	}
	durable := string(sheet(5))
	if got := hpSeen(); got != durable {
		t.Fatalf("sheet %s; want %s", got, durable)
	}

	// Readers run all through the failing commit.
	var stop atomic.Bool
	var wg sync.WaitGroup
	var wrong atomic.Value
	for range 3 {
		wg.Go(func() {
			for !stop.Load() {
				if got := hpSeen(); got != durable {
					wrong.Store(got)
				}
			}
		})
	}
	restore := failWrites(t, db)
	err := setHP(0)
	restore()
	stop.Store(true)
	wg.Wait()
	if err == nil {
		t.Fatal("Update on a full disk returned nil")
	}
	if w := wrong.Load(); w != nil {
		t.Errorf("a reader was served %s, which was never durable", w)
	}
	if got := hpSeen(); got != durable {
		t.Errorf("after the failed commit the cache serves %s; want the durable %s", got, durable)
	}

	// The file is whole and takes the next write.
	if err := setHP(2); err != nil {
		t.Fatalf("Update after the disk came back: %v", err)
	}
	want := readState(t, db, "c1")
	plain := reopenUncached(t, db, path)
	if err := plain.Check(); err != nil {
		t.Fatal(err)
	}
	if got := readState(t, plain, "c1"); !reflect.DeepEqual(got, want) || string(got.Characters[0].Sheet) != string(sheet(2)) {
		t.Errorf("file after reopening: %+v; want %+v with hp 2", got, want)
	}
}
