// Package storage keeps each table's state (the table, its characters and its
// event history) in one embedded bbolt file.
//
// All access goes through transactions: DB.View for reads and DB.Update for
// one atomic read-write change. Records are plain structs encoded as JSON
// inside this package; every record a Tx returns is a decoded copy that stays
// valid after the transaction ends. Tables and characters are served from a
// write-through cache of decoded channel states that only durable commits
// reach (cache.go); events store what changed and are read back from the
// records (eventcodec.go). Bucket and key names are in schema.go; Update's
// group commit is in group.go.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DefaultTimeout is how long Open waits for the file lock when
// Options.Timeout is 0.
const DefaultTimeout = time.Second

// Options configures Open.
type Options struct {
	// Timeout is how long Open waits for another process to release the file
	// lock before failing with ErrLocked. 0 means DefaultTimeout; a negative
	// value tries once and fails at once. Open never waits forever.
	Timeout time.Duration
	// OnCommit, when set, is called on the writer goroutine after every group
	// of Updates it ran (see GroupStats), for metrics. It must return quickly
	// and must not call the DB: every write waits while it runs.
	OnCommit func(GroupStats)
	// AllowUnsound opens a file that is damaged but readable (a
	// *DamageError with Readable set: one damaged meta page beside a sound
	// one, or what bbolt's consistency check finds on pages that are all
	// where they should be), which Open otherwise refuses; DB.Unsound then
	// says what was found. A file bbolt cannot read at all is refused
	// whatever this says. It is the operator's override (serve and run's
	// --allow-unsound), for a file that cannot be restored from a backup.
	AllowUnsound bool
	// CacheBytes bounds the state cache (cache.go), the decoded tables and
	// characters the process keeps, by an estimate of their size in bytes:
	// 0 means DefaultCacheBytes, a negative value keeps none (every read
	// decodes from the file).
	CacheBytes int
}

// DB is an open hpkeeper database file. It is safe for concurrent use: any
// number of View transactions run alongside the writer, which commits the
// queued Updates in groups (see Update).
type DB struct {
	bolt  *bolt.DB
	path  string
	w     *writer
	cache *stateCache
	// closed is set by Close: a View that the cache alone would answer
	// must fail after Close too.
	closed atomic.Bool
	// pg is the PostgreSQL database when the DB is one (pgdb.go); bolt,
	// w and the file's fields are then unused.
	pg *pgStore
	// fault is the error of a fault bbolt met reading the file (fault.go):
	// once set, the DB is not used again.
	fault atomic.Pointer[error]
	// unsound is what Open found wrong with a file it opened with
	// Options.AllowUnsound; nil for a sound one.
	unsound error
	// parsed counts the events the transactions parsed (EventsParsed).
	parsed atomic.Int64
	// writes guards stopped, set by StopWrites, after which no Update
	// begins; running counts the Updates begun.
	writes  sync.RWMutex
	stopped bool
	running sync.WaitGroup
}

// EventsParsed returns how many stored events the transactions of db have
// parsed since it was opened: decoded, stepped over to read back an older
// one (eventcodec.go), or a checkpoint a walk started from. It is the work
// of reading histories, which the index spares (index.go) and commands
// pay for (readplan.go).
func (db *DB) EventsParsed() int64 { return db.parsed.Load() }

// Open opens the database file at path, creating it with mode 0600 if it does
// not exist, and brings its schema up to SchemaVersion (creating every bucket)
// in one transaction.
//
// An existing file is checked first, read-only, before bbolt opens it for
// writing: its pages with plain reads (damage.go), then bbolt's consistency
// check, which reads every page (the file is read once in order first: on a
// 1 GB file that is not cached, 6 s and then 3 s of checks; BENCHMARKS.md).
// A damaged file gives a *DamageError (errors.Is(err, ErrDamaged)) naming
// the file and what is wrong, and is not changed; with opts.AllowUnsound a
// readable one is opened all the same (see Unsound).
//
// When another process holds the file, Open waits up to opts.Timeout and then
// returns an error wrapping ErrLocked whose message names the path, e.g.
// "open /data/hpkeeper.db: database file is locked by another process (timed
// out after 1s)". A file written by a newer schema gives an error wrapping
// ErrSchemaTooNew, and the file is left untouched.
func Open(path string, opts Options) (*DB, error) {
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	var unsound error
	if _, err := os.Stat(path); err == nil {
		err := checkFile(path, timeout)
		var de *DamageError
		switch {
		case errors.Is(err, ErrLocked):
			return nil, fmt.Errorf("open %s: %w (timed out after %s)", path, ErrLocked, max(timeout, 0))
		case errors.As(err, &de) && de.Readable && opts.AllowUnsound:
			unsound = err
		case err != nil:
			return nil, err
		}
	}
	bopts := *bolt.DefaultOptions
	bopts.Timeout = timeout
	tuneOptions(&bopts)
	if timeout < 0 {
		// bbolt treats 0 as "wait forever"; a tiny positive timeout makes it
		// try the lock once.
		bopts.Timeout = time.Nanosecond
	}
	var bdb *bolt.DB
	err := guard(path, func() (err error) {
		bdb, err = bolt.Open(path, 0o600, &bopts)
		return err
	})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("open %s: %w (timed out after %s)", path, ErrLocked, max(timeout, 0))
		}
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) || errors.Is(err, ErrDamaged) {
			return nil, fmt.Errorf("open database: %w", err) // err names the path
		}
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := guard(path, func() error { return bdb.Update(migrate) }); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	cacheBytes := opts.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = DefaultCacheBytes
	}
	db := &DB{bolt: bdb, path: path, cache: newStateCache(cacheBytes), unsound: unsound}
	// Everything committed so far is on disk: readers may fill the cache
	// from it.
	if err := bdb.View(func(btx *bolt.Tx) error {
		db.cache.durable = uint64(btx.ID())
		return nil
	}); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.w = startWriter(db, opts.OnCommit)
	return db, nil
}

// checkFile checks the existing file at path, read-only, as Open needs
// (checkPages): nil for a sound file, a *DamageError for a damaged one, or
// the error of opening it (ErrLocked when a process holds it).
func checkFile(path string, timeout time.Duration) error {
	bdb, err := openReadOnly(path, timeout)
	if err != nil {
		return err
	}
	defer bdb.Close()
	d, _, err := checkPages(context.Background(), path, bdb)
	if err != nil {
		return err
	}
	return d.err()
}

// Unsound returns what Open found wrong with a file it opened only because
// of Options.AllowUnsound (a *DamageError), or nil for a sound file.
func (db *DB) Unsound() error { return db.unsound }

// Close closes the file, waiting for running transactions (and every Update
// already queued) to finish. Update after Close fails.
func (db *DB) Close() error {
	if db.pg != nil {
		return db.pgClose()
	}
	db.closed.Store(true)
	db.w.stop()
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("close %s: %w", db.path, err)
	}
	return nil
}

// Ping reports whether the database is usable: the file is open (a read
// transaction starts) and the writer goroutine takes work from its queue
// before ctx is done. It returns nil then; an error wrapping bbolt's
// ErrDatabaseNotOpen after Close; or an error wrapping ctx's error when the
// writer did not answer in time (stuck in a commit on a stalled disk, or
// further behind than ctx allows). A probe runs no transaction of its own
// and is not counted in WriterStats; it waits behind the Updates queued
// before it.
func (db *DB) Ping(ctx context.Context) error {
	if db.pg != nil {
		return db.pg.ping(ctx)
	}
	if err := db.failed(); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	if err := db.bolt.View(func(*bolt.Tx) error { return nil }); err != nil {
		return fmt.Errorf("ping %s: %w", db.path, err)
	}
	if err := db.w.probe(ctx); err != nil {
		return fmt.Errorf("ping %s: %w", db.path, err)
	}
	return nil
}

// Path returns the path the database was opened with.
func (db *DB) Path() string { return db.path }

// View runs fn in a read-only transaction and returns fn's error. The write
// methods of Tx fail inside View. Do not call Update from fn (or View from an
// Update's fn): one goroutine must not hold a read and a write transaction.
//
// Tables and characters come from the state cache when it holds their
// channel (the last durable commit; see cache.go), and each channel is read
// once per View, so its table and characters agree. Events, and channels the
// cache lacks, come from a bbolt read transaction opened at the first such
// read; when a write commits during the View, that snapshot may hold a commit
// more than the channels read before it from the cache.
func (db *DB) View(fn func(*Tx) error) error {
	if db.closed.Load() {
		return fmt.Errorf("view %s: %w", db.path, berrors.ErrDatabaseNotOpen)
	}
	if db.pg != nil {
		return db.pgView(fn)
	}
	if err := db.failed(); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	tx := &Tx{db: db, view: true}
	defer tx.end()
	err, fault := guarded(db.path, func() error { return fn(tx) })
	if fault != nil {
		return fmt.Errorf("view: %w", db.fail(fault))
	}
	return err
}

// Update runs fn in one atomic read-write transaction. When fn returns nil the
// transaction is committed (and synced to disk) before Update returns; when fn
// returns an error or panics, nothing fn did is written and Update returns
// fn's error unchanged (or panics again with the same value).
//
// How often fn runs depends on the backend. On a bbolt file it runs exactly
// once, never retried. On PostgreSQL it runs at least once and at most 9
// times: when the server refuses its transaction with a serialization
// failure or a deadlock (SQLSTATE 40001, 40P01: two Updates locking tables
// in opposite orders, or CockroachDB under contention), the transaction is
// rolled back and fn runs again from the start, in a new transaction that
// sees nothing of the run before (TestUpdateRunsAgainAfterADeadlock); only
// the last run is written. So fn must leave nothing outside tx that a
// second run would double or contradict, and set what it hands its caller
// afresh in each run (commands.Service.Mutate rolls its dice and builds its
// reply in every run; the reply sent is that of the run written).
//
// On a bbolt file, concurrent Updates are committed together (group
// commit, see group.go): fn runs on the writer goroutine, after the
// functions queued before it and seeing what they wrote, and the whole
// group is synced to disk with one commit; each Update returns only after
// the commit that holds its changes. Updates are serialised: keep fn
// short. On PostgreSQL each Update is a transaction of its own, serialised
// with those of the tables it reads (their rows' locks). Either way, do
// not call Update or View from fn.
func (db *DB) Update(fn func(*Tx) error) error {
	db.writes.RLock()
	if db.stopped {
		db.writes.RUnlock()
		return fmt.Errorf("update %s: writes stopped: %w", db.path, ErrClosed)
	}
	db.running.Add(1)
	db.writes.RUnlock()
	defer db.running.Done()
	return db.update(fn)
}

// update is Update whether or not the writes were stopped (StopWrites):
// what the process itself saves as it stops (the replay guard).
func (db *DB) update(fn func(*Tx) error) error {
	if db.pg != nil {
		return db.pgUpdate(fn)
	}
	return db.w.update(fn)
}

// Tx is a transaction started by DB.View or DB.Update. It is valid only inside
// the function it was passed to and must not be shared between goroutines.
// Every record it returns is a decoded copy, safe to keep and modify after the
// transaction ends.
type Tx struct {
	db *DB
	// btx is the bbolt transaction: an Update's write transaction, or a
	// View's read transaction once a read needed one (nil before).
	btx  *bolt.Tx
	view bool
	done bool
	// j records this Update function's writes so they can be undone alone
	// (group commit); nil in View.
	j *journal
	// g is the group of Updates this function runs in (group.go); nil in View.
	g *groupStates
	// states are the channel states this Tx has read (a View's snapshot of
	// each channel) or, in an Update, also its own changed copies (mine).
	states map[string]*txState
	// pg is the SQL transaction when the DB is PostgreSQL (btx, j and g
	// are then nil).
	pg *pgTx
	// opened and openedMore are the records of the channels a bbolt View
	// has read (the first, the others by id), each opened once (records).
	opened     *channel
	openedMore map[string]*channel
	// boltInteraction is the interaction this bbolt Update recorded
	// (boltinteractions.go), nil for none.
	boltInteraction *Interaction
}

// txState is one channel's state as a Tx sees it.
type txState struct {
	st *channelState
	// mine: st is this Update function's own copy, changed by its writes;
	// the group takes it when the function succeeds.
	mine bool
}

// errTxDone is returned by Tx methods called after the transaction ended.
var errTxDone = errors.New("transaction already ended")

// end marks tx as finished so later use fails instead of touching freed
// memory, and ends a View's bbolt transaction if it opened one.
func (tx *Tx) end() {
	if tx.view && tx.btx != nil {
		_ = tx.btx.Rollback()
	}
	tx.btx, tx.done = nil, true
}

// read returns the bbolt transaction, opening a View's read transaction on
// first use, or an error if tx has ended.
func (tx *Tx) read() (*bolt.Tx, error) {
	if tx.done {
		return nil, errTxDone
	}
	if tx.pg != nil {
		return nil, errNotBolt
	}
	if tx.btx == nil {
		if !tx.view {
			return nil, errTxDone
		}
		btx, err := tx.db.bolt.Begin(false)
		if err != nil {
			return nil, fmt.Errorf("begin read transaction on %s: %w", tx.db.path, err)
		}
		tx.btx = btx
	}
	return tx.btx, nil
}

// write returns the bbolt transaction if tx is a live read-write transaction.
func (tx *Tx) write() (*bolt.Tx, error) {
	if tx.done {
		return nil, errTxDone
	}
	if tx.view {
		return nil, berrors.ErrTxNotWritable
	}
	return tx.read()
}

// state returns the channel's state as tx sees it: its own copy or what it
// read before, else (in an Update) what an earlier function of the group
// wrote or read from the file, else the cache's, else decoded from the file
// (and offered to the cache). The state must not be changed: see writable.
func (tx *Tx) state(channelID string) (*channelState, error) {
	if channelID == "" {
		return nil, errNoChannel
	}
	if ts := tx.states[channelID]; ts != nil {
		return ts.st, nil
	}
	if tx.done {
		return nil, errTxDone
	}
	if tx.pg != nil {
		return tx.pgState(channelID)
	}
	var st *channelState
	if tx.g != nil {
		if st = tx.g.states[channelID]; st == nil {
			st = tx.g.read[channelID]
		}
	}
	if st == nil {
		st = tx.db.cache.get(channelID)
	}
	if st == nil {
		btx, err := tx.read()
		if err != nil {
			return nil, err
		}
		ch, err := openChannel(btx, channelID)
		if err != nil {
			return nil, err
		}
		if st, err = loadChannel(btx, ch); err != nil {
			return nil, err
		}
		if tx.g != nil {
			// The writer's transaction holds the last commit here (no
			// function of the group wrote the channel): the group
			// publishes it with its own commit.
			tx.g.read[channelID] = st
		} else {
			tx.db.cache.offer(channelID, st)
		}
	}
	if tx.states == nil {
		tx.states = map[string]*txState{}
	}
	tx.states[channelID] = &txState{st: st}
	return st, nil
}

// Version returns the version of the channel's table and characters as
// tx reads them: two reads of one channel with the same version read the
// same table and characters, on this process or, on PostgreSQL, another.
// On a bbolt file it is the id of the transaction that wrote them or that
// they were read from; on PostgreSQL the row's version, read with them
// (pgNextVersion: random, per write). It is 0 when no version names them:
// in an Update (what it reads may be an earlier function's write, not
// yet committed), or at a channel PostgreSQL has no row of.
// A channel's events are not part of it: a bbolt write may append an
// event without changing the table or a character (LastEventSeq).
func (tx *Tx) Version(channelID string) (uint64, error) {
	st, err := tx.state(channelID)
	if err != nil {
		return 0, fmt.Errorf("version of table %s: %w", channelID, err)
	}
	if !tx.view {
		return 0, nil
	}
	return st.version, nil
}

// writable returns the channel's state as this Update function's own copy,
// which its writes change along with the file.
func (tx *Tx) writable(channelID string) (*channelState, error) {
	st, err := tx.state(channelID)
	if err != nil {
		return nil, err
	}
	ts := tx.states[channelID]
	if !ts.mine {
		ts.st, ts.mine = st.clone(), true
	}
	return ts.st, nil
}
