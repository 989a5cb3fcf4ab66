package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// maxCheckErrors caps how many inconsistencies Check and Inspect report.
const maxCheckErrors = 10

// Check verifies the consistency of the whole file in one read transaction
// (bbolt's Tx.Check: every page reachable exactly once, no page both free and
// in use, keys in order). It returns nil for a consistent file, or an error
// naming the path and joining up to ten of the inconsistencies found. It
// reads every page, so it takes time proportional to the file size: use it in
// tests and offline checks, not per request.
func (db *DB) Check() error {
	var p problems
	err := db.bolt.View(func(btx *bolt.Tx) error {
		p.bbolt(btx)
		return nil
	})
	if err != nil {
		return fmt.Errorf("check %s: %w", db.path, err)
	}
	return p.err(db.path)
}

// Report is what Inspect found in a database file.
type Report struct {
	// Path is the file inspected.
	Path string
	// Size is the size of the database in bytes (bbolt's high-water mark,
	// which is what a backup copies).
	Size int64
	// SchemaVersion is the file's schema version (see SchemaVersion for the
	// one this code writes); 0 when the file has none.
	SchemaVersion uint64
	// Tables counts the tables set up (channels whose table was undone but
	// whose history is kept are not counted); Characters and Events count
	// every character and every event of every channel.
	Tables, Characters, Events int
}

// Inspect checks the database file at path without changing it and counts
// what it holds. It opens the file read-only, waiting up to timeout for a
// process that holds it (a negative timeout tries once), and in one read
// transaction runs bbolt's consistency check (as Check does), reads the
// schema version, and decodes every table, character and event, checking
// that the name index and the characters agree.
//
// It returns the report and nil for a sound file. Otherwise it returns what
// it could count and an error: wrapping ErrLocked when a process holds the
// file (a running hpkeeper: inspect a backup instead), ErrSchemaTooNew when a
// newer hpkeeper wrote it (records are then not decoded), or joining up to
// ten of the problems found. It reads the whole file.
func Inspect(path string, timeout time.Duration) (*Report, error) {
	bdb, err := openReadOnly(path, timeout)
	if err != nil {
		return nil, err
	}
	defer bdb.Close()
	rep := &Report{Path: path}
	var p problems
	err = bdb.View(func(btx *bolt.Tx) error {
		rep.Size = btx.Size()
		p.bbolt(btx)
		if p.n > 0 {
			return nil // a broken tree is not worth walking
		}
		meta := btx.Bucket(bucketMeta)
		if meta == nil {
			p.add(errors.New("no meta bucket: not an hpkeeper database"))
			return nil
		}
		v, err := readVersion(meta)
		if err != nil {
			p.add(err)
			return nil
		}
		rep.SchemaVersion = v
		if v > SchemaVersion {
			return fmt.Errorf("file has schema version %d, this program knows up to %d: %w", v, SchemaVersion, ErrSchemaTooNew)
		}
		tables := btx.Bucket(bucketTables)
		if tables == nil {
			p.add(fmt.Errorf("bucket %q missing", bucketTables))
			return nil
		}
		return tables.ForEachBucket(func(k []byte) error {
			countChannel(tables.Bucket(k), string(k), rep, &p)
			return nil
		})
	})
	if err != nil {
		return rep, fmt.Errorf("check %s: %w", path, err)
	}
	return rep, p.err(path)
}

// countChannel counts and decodes the records of one channel bucket into rep,
// adding what is wrong to p.
func countChannel(ch *bolt.Bucket, channelID string, rep *Report, p *problems) {
	if v := ch.Get(keyTable); v != nil {
		if _, err := decodeTable(v); err != nil {
			p.add(fmt.Errorf("table %s: %w", channelID, err))
		}
		rep.Tables++
	}
	// Every character is in the name index under its name, and every name
	// in the index points to the character of that name.
	chars, names := ch.Bucket(bucketChars), ch.Bucket(bucketNames)
	keyOf := map[string]string{} // character key → name index key
	if chars != nil {
		_ = chars.ForEach(func(k, v []byte) error {
			rep.Characters++
			c, err := decodeCharacter(v)
			if err != nil {
				p.add(fmt.Errorf("character %x at table %s: %w", k, channelID, err))
				return nil
			}
			keyOf[string(k)] = string(nameKey(c.Name))
			if names == nil || !bytes.Equal(names.Get(nameKey(c.Name)), k) {
				p.add(fmt.Errorf("character %q (id %x) at table %s is missing from the name index", c.Name, k, channelID))
			}
			return nil
		})
	}
	if names != nil {
		_ = names.ForEach(func(k, v []byte) error {
			if name, ok := keyOf[string(v)]; !ok || name != string(k) {
				p.add(fmt.Errorf("the name index of table %s has %q for id %x, which is not a character of that name", channelID, k, v))
			}
			return nil
		})
	}
	if events := ch.Bucket(bucketEvents); events != nil {
		// Newest first, as the history is read back (eventcodec.go).
		h := newHistory(ch, channelID, false)
		h.verify = true // and every checkpoint agrees with the walk
		c := events.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			rep.Events++
			seq, err := btoi(k)
			if err == nil {
				_, err = h.decode(v, seq)
			}
			if err != nil {
				p.add(fmt.Errorf("event %x at table %s: %w", k, channelID, err))
				h = newHistory(nil, channelID, false) // the rest of the walk cannot be trusted
				h.whole = true
			}
		}
	}
}

// openReadOnly opens the bbolt file at path read-only (a shared lock, which
// a running hpkeeper's exclusive lock excludes), waiting up to timeout for
// the lock; a negative timeout tries once. It returns an error wrapping
// ErrLocked when the wait ran out.
func openReadOnly(path string, timeout time.Duration) (*bolt.DB, error) {
	opts := *bolt.DefaultOptions
	opts.ReadOnly = true
	opts.Timeout = timeout
	if timeout <= 0 {
		opts.Timeout = time.Nanosecond
	}
	bdb, err := bolt.Open(path, 0o600, &opts)
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return nil, err // it names the path: "open F: no such file or directory"
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return bdb, nil
}

// problems collects what a check found: the first maxCheckErrors in full and
// a count of all.
type problems struct {
	found []error
	n     int
}

func (p *problems) add(err error) {
	p.n++
	if len(p.found) < maxCheckErrors {
		p.found = append(p.found, err)
	}
}

// bbolt adds the inconsistencies of bbolt's Tx.Check.
func (p *problems) bbolt(btx *bolt.Tx) {
	for e := range btx.Check() {
		p.add(e)
	}
}

// err returns nil when nothing was found, else an error naming path.
func (p *problems) err(path string) error {
	if p.n == 0 {
		return nil
	}
	if p.n > len(p.found) {
		return fmt.Errorf("check %s: %d problems, the first %d: %w", path, p.n, len(p.found), errors.Join(p.found...))
	}
	return fmt.Errorf("check %s: inconsistent file: %w", path, errors.Join(p.found...))
}
