package storage

import (
	"errors"
	"fmt"
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

// call is one queued Update.
type call struct {
	fn       func(*Tx) error
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
}

// WriterStats is what the writer goroutine has done since Open: Groups write
// transactions (each one durable commit, or a rollback when every function
// of the group failed) holding Updates functions in all; Functions is the
// time spent running the functions and Commits the time spent committing
// (page writes and the two fdatasyncs). Functions+Commits over a wall-clock
// interval is how busy the writer was.
type WriterStats struct {
	Groups, Updates    int64
	Functions, Commits time.Duration
}

// WriterStats returns the writer's counters so far; callers subtract two
// readings to measure an interval. It is safe for concurrent use.
func (db *DB) WriterStats() WriterStats {
	w := db.w
	return WriterStats{Groups: w.groups.Load(), Updates: w.calls.Load(),
		Functions: time.Duration(w.fnNanos.Load()), Commits: time.Duration(w.commitNanos.Load())}
}

// startWriter starts db's writer goroutine.
func startWriter(db *DB) *writer {
	w := &writer{db: db, queue: make(chan *call, maxGroup), stopped: make(chan struct{})}
	go w.run()
	return w
}

// update queues fn, waits for the commit holding its result, and returns fn's
// error (or the commit's), re-panicking if fn panicked.
func (w *writer) update(fn func(*Tx) error) error {
	c := callPool.Get().(*call)
	c.fn = fn
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		callPool.Put(c)
		return fmt.Errorf("update %s: %w", w.db.path, berrors.ErrDatabaseNotOpen)
	}
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
		group = append(group[:0], c)
	fill:
		for len(group) < maxGroup {
			select {
			case c, ok := <-w.queue:
				if !ok {
					break fill
				}
				group = append(group, c)
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

// errNoneSucceeded makes bbolt roll back a group in which every function
// failed: there is nothing to write, so there is no fsync to pay.
var errNoneSucceeded = errors.New("no function of the group succeeded")

// commit runs the functions of group in order inside one write transaction,
// undoing each failed one, and commits once. Afterwards every call holds its
// result: its own error when it failed, else the commit's error (nil when
// durable).
func (w *writer) commit(group []*call) {
	succeeded := 0
	w.groups.Add(1)
	w.calls.Add(int64(len(group)))
	start := time.Now()
	var ran time.Time // when the functions were done; commit follows
	defer func() {
		if ran.IsZero() { // bbolt failed before running the group
			ran = start
		}
		w.fnNanos.Add(int64(ran.Sub(start)))
		w.commitNanos.Add(int64(time.Since(ran)))
	}()
	err := w.db.bolt.Update(func(btx *bolt.Tx) error {
		defer func() { ran = time.Now() }()
		for _, c := range group {
			tx := &Tx{btx: btx, j: &w.j}
			c.err, c.panicked, c.panicVal = runFn(tx, c.fn)
			tx.end()
			if c.err == nil && !c.panicked {
				succeeded++
				w.j.undo = w.j.undo[:0]
				continue
			}
			if uerr := w.j.rollback(); uerr != nil {
				// The transaction can no longer be trusted: write nothing.
				return fmt.Errorf("undo a failed update: %w", uerr)
			}
		}
		if succeeded == 0 {
			return errNoneSucceeded
		}
		return nil
	})
	w.j.undo = w.j.undo[:0]
	if err == nil || errors.Is(err, errNoneSucceeded) {
		return
	}
	err = fmt.Errorf("commit %s: %w", w.db.path, err)
	for _, c := range group {
		if c.err == nil && !c.panicked {
			c.err = err
		}
	}
}

// runFn calls fn(tx), turning a panic into a result the caller re-raises.
func runFn(tx *Tx, fn func(*Tx) error) (err error, panicked bool, p any) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked, p = nil, true, r
		}
	}()
	return fn(tx), false, nil
}
