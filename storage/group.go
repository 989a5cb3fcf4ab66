package storage

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Group commit.
//
// A bbolt commit costs two fsyncs, which on most disks is far longer than the
// work of a command. One writer goroutine therefore takes every Update queued
// while the previous commit was running, runs their functions one after the
// other inside ONE bbolt write transaction and commits that transaction once.
// There is no timer: the group is whatever queued up during the last commit,
// so a lone Update commits at once and a busy table-top amortises the fsync
// over many commands.
//
// Each function runs exactly once (it rolls dice; running it again would roll
// again) against a Tx whose journal records how to undo its writes. When a
// function fails or panics, its journal is rolled back inside the shared
// transaction, so nothing of it is written while its neighbours still commit;
// a later function in the group sees the writes of the earlier successful
// ones, exactly as if they had committed one by one. Every caller gets its
// result only after the group's commit returned (durable: the commit syncs).

// maxGroup bounds how many functions share one commit, so one commit's dirty
// pages stay small and early callers do not wait behind a huge group.
const maxGroup = 256

// call is one queued Update, or a probe of Ping (fn nil, probe true), which
// the writer answers without opening a transaction.
type call struct {
	fn       func(*Tx) error
	probe    bool
	err      error
	panicked bool
	panicVal any
	done     chan struct{}
}

// callPool recycles calls (and their done channels) between Updates.
var callPool = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

// writer is the goroutine that owns all write transactions of a DB.
type writer struct {
	db      *DB
	queue   chan *call
	mu      sync.RWMutex // held for reading while sending to queue; Lock to close it
	closed  bool
	stopped chan struct{}
	j       journal      // reused between functions (the writer is the only user)
	groups  atomic.Int64 // write transactions run (WriterStats.Groups)
	// For WriterStats: functions run, and nanoseconds spent running them
	// and committing (bbolt's spill, page writes and fdatasyncs).
	calls, fnNanos, commitNanos atomic.Int64
	// queued counts the Updates waiting for the writer (WriterStats.Queued):
	// in the queue or blocked sending to it.
	queued atomic.Int64
	// onCommit is Options.OnCommit, or nil.
	onCommit func(GroupStats)
	// failing is the last commit's failure while commits fail (nil after
	// a commit that succeeded), for Health.
	failing atomic.Pointer[commitFailure]
	// busySince is when the writer started its current group (Unix
	// nanoseconds), 0 while it waits for work: Health's stuck writer.
	busySince atomic.Int64
	// failCommit, when set (tests), is asked before each commit, empty
	// ones included: an error it returns makes the commit fail as a full
	// disk's does, nothing written.
	failCommit atomic.Pointer[func() error]
}

// injected returns the error failCommit gives, or nil.
func (w *writer) injected() error {
	if f := w.failCommit.Load(); f != nil {
		return (*f)()
	}
	return nil
}

// commitFailure is a failed commit: its error, and when commits began to
// fail.
type commitFailure struct {
	err   error
	since time.Time
}

// WriterStats is what the writer goroutine has done since Open: Groups write
// transactions (each one durable commit, or a rollback when every function
// of the group failed) holding Updates functions in all; Functions is the
// time spent running the functions and Commits the time spent committing
// (page writes and the two fdatasyncs). Functions+Commits over a wall-clock
// interval is how busy the writer was.
//
// Queued is not a total but the number of Updates waiting for the writer at
// the moment of the reading (queued behind the running group).
type WriterStats struct {
	Groups, Updates    int64
	Functions, Commits time.Duration
	Queued             int64
}

// GroupStats describes one group the writer ran (see Options.OnCommit):
// Updates functions in one write transaction, Functions the time spent
// running them and Commit the time spent committing it (or rolling it back).
// Err is the commit's error: nil when the group is durable or when every
// function failed (the transaction is then rolled back and nothing written).
type GroupStats struct {
	Updates           int
	Functions, Commit time.Duration
	Err               error
}

// WriterStats returns the writer's counters so far; callers subtract two
// readings to measure an interval. It is safe for concurrent use.
func (db *DB) WriterStats() WriterStats {
	if db.pg != nil {
		return db.pg.writerStats()
	}
	w := db.w
	return WriterStats{Groups: w.groups.Load(), Updates: w.calls.Load(),
		Functions: time.Duration(w.fnNanos.Load()), Commits: time.Duration(w.commitNanos.Load()),
		Queued: max(w.queued.Load(), 0)}
}

// startWriter starts db's writer goroutine; onCommit (may be nil) is called
// after every group.
func startWriter(db *DB, onCommit func(GroupStats)) *writer {
	w := &writer{db: db, queue: make(chan *call, maxGroup), stopped: make(chan struct{}), onCommit: onCommit}
	go w.run()
	return w
}

// update queues fn, waits for the commit holding its result, and returns fn's
// error (or the commit's), re-panicking if fn panicked.
func (w *writer) update(fn func(*Tx) error) error {
	if err := w.db.failed(); err != nil {
		return fmt.Errorf("update: %w: %w", ErrCommitFailed, err)
	}
	c := callPool.Get().(*call)
	c.fn = fn
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		callPool.Put(c)
		return fmt.Errorf("update %s: %w", w.db.path, berrors.ErrDatabaseNotOpen)
	}
	w.queued.Add(1)
	w.queue <- c
	w.mu.RUnlock()
	<-c.done
	err, panicked, p := c.err, c.panicked, c.panicVal
	*c = call{done: c.done}
	callPool.Put(c)
	if panicked {
		panic(p)
	}
	return err
}

// probe queues a call that the writer answers as soon as it takes it from
// the queue, and waits for that answer until ctx is done. It returns nil when
// the writer answered, ErrDatabaseNotOpen (wrapped) after Close, or ctx's
// error (wrapped) when the writer did not take the probe in time: it is
// stuck in a commit, or far behind.
func (w *writer) probe(ctx context.Context) error {
	c := &call{probe: true, done: make(chan struct{}, 1)} // not pooled: it may be abandoned
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return berrors.ErrDatabaseNotOpen
	}
	select {
	case w.queue <- c:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return fmt.Errorf("the writer did not take a probe: %w", ctx.Err())
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the writer did not answer a probe: %w", ctx.Err())
	}
}

// stop closes the queue and waits until every queued Update has committed.
func (w *writer) stop() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.queue)
	}
	w.mu.Unlock()
	<-w.stopped
}

// errGoexit is the result of the calls of a group in which a function ended
// the writer goroutine (runtime.Goexit, as t.FailNow does): bbolt rolled the
// whole transaction back.
var errGoexit = errors.New("an update function called runtime.Goexit; nothing of its group was written")

// run commits groups until the queue is closed and drained.
func (w *writer) run() {
	// A fault reading the mapped file is a panic, not a crash (fault.go).
	debug.SetPanicOnFault(true)
	group := make([]*call, 0, maxGroup)
	clean := false
	defer func() {
		if clean {
			close(w.stopped)
			return
		}
		// A function called runtime.Goexit: bbolt has rolled the
		// transaction back. Fail the group and carry on in a new goroutine.
		w.j.undo = w.j.undo[:0]
		for _, c := range group {
			c.err, c.panicked = errGoexit, false
			c.done <- struct{}{}
		}
		go w.run()
	}()
	for c := range w.queue {
		group = append(group[:0], w.took(c))
	fill:
		for len(group) < maxGroup {
			select {
			case c, ok := <-w.queue:
				if !ok {
					break fill
				}
				group = append(group, w.took(c))
			default:
				break fill
			}
		}
		w.commit(group)
		for _, c := range group {
			c.done <- struct{}{}
		}
		group = group[:0]
	}
	clean = true
}

// took notes that the writer took c from the queue and returns it.
func (w *writer) took(c *call) *call {
	if !c.probe {
		w.queued.Add(-1)
	}
	return c
}

// errNoneSucceeded makes bbolt roll back a group in which every function
// failed: there is nothing to write, so there is no fsync to pay.
var errNoneSucceeded = errors.New("no function of the group succeeded")

// commit runs the functions of group in order inside one write transaction,
// undoing each failed one, and commits once. Afterwards every call holds its
// result: its own error when it failed, else the commit's error (nil when
// durable).
//
// Probes in the group are answered without running anything; a group of
// probes alone opens no transaction.
func (w *writer) commit(group []*call) {
	updates := 0
	for _, c := range group {
		if !c.probe {
			updates++
		}
	}
	if updates == 0 {
		if w.failing.Load() != nil {
			w.retry()
		}
		return
	}
	w.busySince.Store(time.Now().UnixNano())
	defer w.busySince.Store(0)
	succeeded := 0
	w.groups.Add(1)
	w.calls.Add(int64(updates))
	start := time.Now()
	var ran time.Time // when the functions were done; commit follows
	var err error
	defer func() {
		if ran.IsZero() { // bbolt failed before running the group
			ran = start
		}
		fn, commit := ran.Sub(start), time.Since(ran)
		w.fnNanos.Add(int64(fn))
		w.commitNanos.Add(int64(commit))
		if w.onCommit != nil {
			w.onCommit(GroupStats{Updates: updates, Functions: fn, Commit: commit, Err: err})
		}
	}()
	g := &groupStates{states: map[string]*channelState{}, read: map[string]*channelState{}}
	var version uint64
	err = guard(w.db.path, func() error {
		return w.db.bolt.Update(func(btx *bolt.Tx) error {
			defer func() { ran = time.Now() }()
			version = uint64(btx.ID())
			if err := w.run1(btx, group, g, &succeeded); err != nil {
				return err
			}
			return w.injected()
		})
	})
	w.j.undo = w.j.undo[:0]
	if err == nil {
		w.failing.Store(nil)
		// Durable: only now do the group's states reach the cache.
		w.db.cache.publish(version, g.published(version))
		return
	}
	if errors.Is(err, errNoneSucceeded) {
		err = nil
		return
	}
	if errors.Is(err, ErrDamaged) {
		err = w.db.fail(err)
	}
	err = fmt.Errorf("commit %s: %w: %w", w.db.path, ErrCommitFailed, err)
	w.failed(err)
	for _, c := range group {
		if c.err == nil && !c.panicked && !c.probe {
			c.err = err
		}
	}
}

// run1 runs the functions of group in the write transaction btx, undoing
// each failed one, and counts those that succeeded. It returns the error
// that makes bbolt roll the whole transaction back: errNoneSucceeded when
// none did, or a fault of bbolt's met by a function (the transaction can
// no longer be trusted).
func (w *writer) run1(btx *bolt.Tx, group []*call, g *groupStates, succeeded *int) error {
	for _, c := range group {
		if c.probe {
			continue
		}
		tx := &Tx{db: w.db, btx: btx, j: &w.j, g: g}
		var fault error
		c.err, c.panicked, c.panicVal, fault = runFn(tx, w.db.path, c.fn)
		tx.end()
		if fault != nil {
			c.err = fault
			return fault
		}
		if c.err == nil && !c.panicked {
			*succeeded++
			w.j.undo = w.j.undo[:0]
			g.took(tx)
			continue
		}
		if uerr := w.j.rollback(); uerr != nil {
			// The transaction can no longer be trusted: write nothing.
			return fmt.Errorf("undo a failed update: %w", uerr)
		}
	}
	if *succeeded == 0 {
		return errNoneSucceeded
	}
	return nil
}

// failed notes a failed commit for Health, keeping when the failures
// began.
func (w *writer) failed(err error) {
	f := &commitFailure{err: err, since: time.Now()}
	if last := w.failing.Load(); last != nil {
		f.since = last.since
	}
	w.failing.Store(f)
}

// retry tries an empty commit while commits fail (a probe of Ping asks
// for it): bbolt writes a new freelist and meta page and syncs them, so
// its success says the disk takes writes again, and Health recovers
// without waiting for a player's command. After a commit that ran out of
// space, it waits until the filesystem has FullDiskBytes free.
func (w *writer) retry() {
	if w.db.failed() != nil {
		return // a damaged file does not heal
	}
	if f := w.failing.Load(); f != nil && outOfSpace(f.err) {
		// An empty commit fits in the file's free pages, so it proves
		// nothing while the filesystem is still full.
		if free := freeBytes(w.db.path); free >= 0 && free < FullDiskBytes {
			return
		}
	}
	err := guard(w.db.path, func() error {
		return w.db.bolt.Update(func(*bolt.Tx) error {
			return w.injected()
		})
	})
	if err != nil {
		if errors.Is(err, ErrDamaged) {
			err = w.db.fail(err)
		}
		w.failed(fmt.Errorf("commit %s: %w: %w", w.db.path, ErrCommitFailed, err))
		return
	}
	w.failing.Store(nil)
}

// groupStates is what the functions of one group commit have done to channel
// states (cache.go): the states the successful ones wrote, and those a
// function read from the file (the last commit) without any function
// writing them. The writer publishes both to the cache once the commit is
// durable, and drops them when it is not.
type groupStates struct {
	states map[string]*channelState
	read   map[string]*channelState
}

// took takes the states a successful function changed.
func (g *groupStates) took(tx *Tx) {
	for id, ts := range tx.states {
		if ts.mine {
			g.states[id] = ts.st
			delete(g.read, id)
		}
	}
}

// published returns every state of the group as of the transaction version.
func (g *groupStates) published(version uint64) map[string]*channelState {
	for id, st := range g.read {
		if g.states[id] == nil {
			g.states[id] = st
		}
	}
	for _, st := range g.states {
		st.version = version
	}
	return g.states
}

// runFn calls fn(tx), turning a panic into a result the caller re-raises,
// or, when the panic is bbolt's (fault.go), into fault.
func runFn(tx *Tx, path string, fn func(*Tx) error) (err error, panicked bool, p any, fault error) {
	returned := false
	defer func() {
		if returned {
			return
		}
		fromBbolt, _ := panicOrigin()
		if r := recover(); r != nil {
			if fault = faultOf(r, fromBbolt, path); fault == nil {
				err, panicked, p = nil, true, r
			}
		}
	}()
	err = fn(tx)
	returned = true
	return err, false, nil, nil
}
