package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
//
// On PostgreSQL it returns an error wrapping ErrNotAFile: InspectPostgres
// checks the records there.
func (db *DB) Check() error {
	if db.pg != nil {
		return fmt.Errorf("check %s: %w", db.path, ErrNotAFile)
	}
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
// process that holds it (a negative timeout tries once); checks its pages
// with plain reads before bbolt reads them (damage.go), then runs bbolt's
// consistency check (as Check does); and in one read transaction reads the
// schema version and decodes every table, character and event, checking
// that the name index and the characters agree.
//
// It returns the report and nil for a sound file. Otherwise it returns an
// error and, when the records could be read, what it counted: a nil
// report and a *DamageError (ErrDamaged) when the file is damaged below
// the records (empty, cut short, a bad page, or what bbolt's check found:
// nothing was counted); an error wrapping ErrLocked when a process holds
// the file (a running hpkeeper: inspect a backup instead); ErrSchemaTooNew
// when a newer hpkeeper wrote it (records are then not decoded); or an
// error joining up to ten of the problems found in the records (and a
// damaged meta page beside a sound one, which leaves them readable). It
// reads the whole file.
func Inspect(path string, timeout time.Duration) (*Report, error) {
	return inspectContext(context.Background(), path, timeout)
}

// inspectContext is Inspect, stopped between tables and pages when ctx is
// done (with an error wrapping ctx's).
func inspectContext(ctx context.Context, path string, timeout time.Duration) (*Report, error) {
	bdb, err := openReadOnly(path, timeout)
	if err != nil {
		return nil, err
	}
	defer bdb.Close()
	d, treeSound, err := checkPages(ctx, path, bdb)
	if err != nil {
		return nil, err
	}
	if !treeSound {
		return nil, d.err() // a broken tree is not worth walking
	}
	rep := &Report{Path: path}
	var p problems
	err = guard(path, func() error {
		return boundResident(bdb, func() error {
			return bdb.View(func(btx *bolt.Tx) error { return inspect(ctx, btx, rep, &p) })
		})
	})
	if err != nil {
		if errors.Is(err, ErrDamaged) {
			return nil, err
		}
		return rep, fmt.Errorf("check %s: %w", path, err)
	}
	// A damaged meta page beside a sound one leaves the records readable,
	// as of the other one's transaction: they were counted.
	err = p.err(path)
	if derr := d.err(); derr != nil {
		if err == nil {
			return rep, derr
		}
		return rep, fmt.Errorf("%w; %w", derr, err)
	}
	return rep, err
}

// inspect reads the schema version and every record of the file in btx
// into rep, adding what is wrong to p.
func inspect(ctx context.Context, btx *bolt.Tx, rep *Report, p *problems) error {
	rep.Size = btx.Size()
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
	// Only the bucket of the file's layout is read: the other one's
	// records would be neither served, counted nor moved.
	if v >= 4 && btx.Bucket(bucketTables) != nil {
		p.add(fmt.Errorf("bucket %q of schema 3 and older in a file of schema version %d: its channels are not read", bucketTables, v))
	}
	if v < 4 && btx.Bucket(bucketChannels) != nil {
		p.add(fmt.Errorf("bucket %q of schema 4 in a file of schema version %d: its channels are not read", bucketChannels, v))
	}
	if v < 4 {
		// The nested layout, which Open migrates: a backup of a
		// file before the upgrade still checks.
		tables := btx.Bucket(bucketTables)
		if tables == nil {
			p.add(fmt.Errorf("bucket %q missing", bucketTables))
			return nil
		}
		return tables.ForEachBucket(func(k []byte) error {
			countChannel(nestedChannel(tables.Bucket(k), string(k)), rep, p)
			return ctx.Err()
		})
	}
	channels := btx.Bucket(bucketChannels)
	if channels == nil {
		p.add(fmt.Errorf("bucket %q missing", bucketChannels))
		return nil
	}
	err = eachChannel(channels, func(channelID string) error {
		ch, err := flatChannel(channels, channelID)
		if err != nil {
			p.add(err)
			return nil
		}
		checkKeys(channels, channelID, p)
		countChannel(ch, rep, p)
		return ctx.Err()
	})
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if err != nil {
		p.add(err)
	}
	return nil
}

// countChannel counts and decodes the records of one channel into rep,
// adding what is wrong to p.
func countChannel(ch *channel, rep *Report, p *problems) {
	checkChannel(ch, rep, p) // checkrecords.go: what both backends check
	// bbolt's own: every character is in the name index under its name,
	// and every name in the index points to the character of that name.
	channelID := ch.id
	keyOf := map[string]string{} // character key → name index key
	_ = ch.chars.forEach(func(k, v []byte) error {
		c, err := decodeCharacter(v)
		if err != nil {
			return nil // checkChannel said so
		}
		keyOf[string(k)] = string(nameKey(c.Name))
		if !bytes.Equal(ch.names.get(nameKey(c.Name)), k) {
			p.add(fmt.Errorf("character %q (id %x) at table %s is missing from the name index", c.Name, k, channelID))
		}
		return nil
	})
	_ = ch.names.forEach(func(k, v []byte) error {
		if name, ok := keyOf[string(v)]; !ok || name != string(k) {
			p.add(fmt.Errorf("the name index of table %s has %q for id %x, which is not a character of that name", channelID, k, v))
		}
		return nil
	})
}

// checkKeys adds to p every key of the channel's records in the channels
// bucket b that is of no kind this program writes, or whose id or seq is
// not 8 bytes: a record nothing would read.
func checkKeys(b *bolt.Bucket, channelID string, p *problems) {
	_ = channelRange(b, channelID, func(k, _ []byte) error {
		rest := k[len(channelID)+1:]
		ok := len(rest) > 0
		if ok {
			switch rest[0] {
			case kindTable:
				ok = len(rest) == 1
			case kindCharacter, kindEvent:
				ok = len(rest) == 9
			case kindName, kindInteraction:
				ok = len(rest) > 1
			case kindSequence:
				ok = len(rest) == 2 && (rest[1] == kindCharacter || rest[1] == kindEvent)
			default:
				ok = false
			}
		}
		if !ok {
			p.add(fmt.Errorf("table %s: key %q is of no record this program knows", channelID, k))
		}
		return nil
	})
}

// openReadOnly opens the bbolt file at path read-only (a shared lock, which
// a running hpkeeper's exclusive lock excludes), waiting up to timeout for
// the lock; a negative timeout tries once. It returns an error wrapping
// ErrLocked when the wait ran out, and a *DamageError for a file bbolt
// cannot read: empty, without a valid meta page, shorter than its pages,
// with its root or freelist outside them (examine; the pages themselves
// are checkPages' to read).
func openReadOnly(path string, timeout time.Duration) (*bolt.DB, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() == 0 {
		// bbolt would try to write a new database into it, and fail.
		return nil, &DamageError{Path: path, Problems: []string{"it is empty (0 bytes), not a database"}, Count: 1}
	}
	opts := *bolt.DefaultOptions
	opts.ReadOnly = true
	opts.Timeout = timeout
	if timeout <= 0 {
		opts.Timeout = time.Nanosecond
	}
	var bdb *bolt.DB
	err := guard(path, func() (err error) {
		bdb, err = bolt.Open(path, 0o600, &opts)
		return err
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return nil, err // it names the path: "open F: no such file or directory"
	}
	// Under the shared lock, no process writes the file: what examine
	// reads is what bbolt will.
	if derr := examineFile(path); derr != nil {
		if bdb != nil {
			bdb.Close()
		}
		return nil, derr
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return bdb, nil
}

// examineFile returns examine's fatal damage of the file at path, or nil.
func examineFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d := &damage{path: path}
	examine(f, d)
	if d.fatal {
		return d.err()
	}
	return nil
}

// checkPages checks the file at path, open read-only in bdb, as bbolt's
// reading needs (damage.go): examine and walkPages with plain reads, after
// reading the file once in order, and, when its pages are all where they
// should be, bbolt's Tx.Check. It returns what was found, and whether the
// tree is sound: nothing was found but, perhaps, a damaged meta page
// beside a valid one. The error is for a file that could not be read.
func checkPages(ctx context.Context, path string, bdb *bolt.DB) (d *damage, treeSound bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	d = &damage{path: path}
	h, ok := examine(f, d)
	if !ok {
		return d, false, nil
	}
	metaNotes := d.count
	prefetch(ctx, f, int64(h.meta.pgid)*int64(h.pageSize))
	walkPages(ctx, f, h, d)
	if ctx.Err() != nil {
		return nil, false, context.Cause(ctx)
	}
	if d.fatal {
		return d, false, nil
	}
	err = guard(path, func() error {
		return boundResident(bdb, func() error {
			return bdb.View(func(btx *bolt.Tx) error {
				for e := range btx.Check() {
					d.add(false, "bbolt's consistency check: %v", e)
				}
				return nil
			})
		})
	})
	if err != nil {
		return d, false, err
	}
	return d, d.count == metaNotes, nil
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
