package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// smallFS mounts a tmpfs of size bytes on a new directory, unmounted when
// the test ends; it skips the test where mounting is not allowed (not
// root).
func smallFS(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("a full disk needs a small filesystem, and mounting a tmpfs failed (%v): run as root to test it", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file in dir until the filesystem has no space left, and
// returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatal(err)
		}
	}
}

// TestFullDiskForReal puts the database on a 4 MiB tmpfs and fills it:
// writes fail with ENOSPC until one does not fit the file's pages any
// more, then every Update says nothing was saved and Health says why; the
// tables read as before. Once the filler is removed, a Ping's empty
// commit succeeds, Health recovers by itself, and the next Update is
// saved. The file is sound throughout.
func TestFullDiskForReal(t *testing.T) {
	dir := smallFS(t, 4<<20)
	path := filepath.Join(dir, "hpkeeper.db")
	db := mustOpenPath(t, path)
	setupTable(t, db, "c1", "Lister")
	filler := fill(t, dir)
	if h := db.Health(); h.FreeBytes != 0 {
		t.Errorf("Health on the full disk: FreeBytes = %d; want 0", h.FreeBytes)
	}
	var saved, failed int
	var failure error
	for i := 0; i < 2000 && failed == 0; i++ {
		err := db.Update(func(tx *Tx) error {
			return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Summary: fmt.Sprintf("%04d %0500d", i, i)})
		})
		switch {
		case err == nil:
			saved++
		case errors.Is(err, ErrCommitFailed):
			failed, failure = failed+1, err
		default:
			t.Fatalf("Update %d: %v", i, err)
		}
	}
	if failed == 0 || !errors.Is(failure, syscall.ENOSPC) {
		t.Fatalf("%d Updates saved on the full disk, none failed with ENOSPC (%v)", saved, failure)
	}
	t.Logf("%d Updates saved in the file's free pages, then: %v", saved, failure)
	h := db.Health()
	if !errors.Is(h.CommitErr, syscall.ENOSPC) {
		t.Errorf("Health = %+v; want the commit failing with ENOSPC", h)
	}
	events := 0
	mustView(t, db, func(tx *Tx) error {
		return tx.EachEventBackward("c1", func(*Event) (bool, error) { events++; return true, nil })
	})
	if events != saved {
		t.Errorf("%d events after the failure; want the %d saved", events, saved)
	}
	if err := db.Ping(t.Context()); err != nil || db.Health().CommitErr == nil {
		t.Errorf("a Ping on the full disk: %v, %+v; want the writer answering, commits still failing", err, db.Health())
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h := db.Health(); h.CommitErr != nil || h.FreeBytes <= 0 {
		t.Errorf("Health after the space was freed and a Ping = %+v; want recovered", h)
	}
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Summary: "after"}) })
	if err := db.Check(); err != nil {
		t.Errorf("the file after the full disk: %v", err)
	}
}
