package storage

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Backup writes a consistent copy of the whole database to w: the file as
// it stands at the start of one read transaction (bbolt's Tx.WriteTo), so
// Updates committed after that moment are not in it and every Update
// acknowledged before it is. Writers are not blocked while it runs; only a
// file growing past its memory map (1 GiB, tune.go) waits for it. sized,
// when not nil, is called with the number of bytes that will be written
// before the first byte is. It returns the bytes written and the first error
// of the read or of w.
//
// A PostgreSQL DB has no file to copy: Backup returns an error wrapping
// ErrNotAFile, and the copy is PostgreSQL's own to make (pg_dump).
func (db *DB) Backup(w io.Writer, sized func(size int64)) (int64, error) {
	if db.pg != nil {
		return 0, fmt.Errorf("back up %s: %w", db.path, ErrNotAFile)
	}
	if err := db.failed(); err != nil {
		return 0, fmt.Errorf("back up: %w", err)
	}
	var n int64
	err := db.bolt.View(func(btx *bolt.Tx) error {
		if sized != nil {
			sized(btx.Size())
		}
		var err error
		n, err = btx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("back up %s: %w", db.path, err)
	}
	return n, nil
}

// BackupFile copies the database file src, which no process may hold, to
// dst as SaveBackup does. It waits up to timeout for the file's lock (a
// negative timeout tries once) and returns an error wrapping ErrLocked when
// a process holds it: a running hpkeeper must make the copy itself (DB.Backup).
// It refuses a dst that is src.
func BackupFile(src, dst string, timeout time.Duration) (*Report, error) {
	if SamePath(src, dst) {
		return nil, fmt.Errorf("back up %s to %s: %w", src, dst, errors.New("the copy would replace the database itself"))
	}
	bdb, err := openReadOnly(src, timeout)
	if err != nil {
		return nil, err
	}
	defer bdb.Close()
	return SaveBackup(dst, func(w io.Writer) error {
		return bdb.View(func(btx *bolt.Tx) error {
			_, err := btx.WriteTo(w)
			return err
		})
	})
}

// SaveBackup makes the file dst a checked copy of a database, never a
// partial one: write fills a new temporary file in dst's directory, which is
// synced, checked with Inspect, renamed to dst (replacing a file already
// there) and its directory synced. On any error the temporary file is
// removed and dst is left as it was. It returns Inspect's report of the copy
// (Path is dst), or an error: write's, the disk's, or the check's (the copy
// is then inconsistent and not kept).
func SaveBackup(dst string, write func(io.Writer) error) (rep *Report, err error) {
	dir := filepath.Dir(dst)
	f, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".partial-*")
	if err != nil {
		return nil, fmt.Errorf("save backup: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return nil, fmt.Errorf("save backup %s: %w", dst, err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("save backup %s: %w", dst, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("save backup %s: %w", dst, err)
	}
	rep, err = Inspect(tmp, -1)
	if err != nil {
		return nil, fmt.Errorf("save backup %s: the copy is not sound, not kept: %w", dst, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return nil, fmt.Errorf("save backup: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return nil, fmt.Errorf("save backup %s: %w", dst, err)
	}
	rep.Path = dst
	return rep, nil
}

// SamePath reports whether the paths a and b name one file: the same
// absolute path, or the same existing file (a hard or symbolic link). A
// backup must never replace the database it copies; a path that cannot be
// made absolute counts as the same.
func SamePath(a, b string) bool {
	aa, errA := filepath.Abs(a)
	ab, errB := filepath.Abs(b)
	if errA != nil || errB != nil || aa == ab {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// syncDir syncs a directory, so a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
