package storage

import "time"

// FullDiskBytes is the free space on the file's filesystem below which a
// commit that needs a new page fails: the disk is full. (bbolt reuses the
// file's own free pages first, so some commits still succeed.)
const FullDiskBytes = 1 << 20

// Health is the state of a DB's writes, read at once: it does not wait for
// the writer (Ping does).
type Health struct {
	// Closed is set after Close.
	Closed bool
	// Fault is the fault that made the DB unusable (wrapping ErrDamaged),
	// or nil.
	Fault error
	// CommitErr is the error of the last commit while commits fail (a
	// full or failing disk; wrapping ErrCommitFailed), nil once one has
	// succeeded again; FailingSince is when the first of those failed.
	// While it is set, every Ping makes the writer try an empty commit
	// (after a full disk, once FullDiskBytes are free again), so the
	// state recovers once the disk takes writes again, with no command
	// needed; so does any commit that succeeds.
	CommitErr    error
	FailingSince time.Time
	// Busy is how long the writer has been running its current group (0
	// while it waits for work): a writer stuck in a commit on a stalled
	// disk, or in a long function, makes it grow.
	Busy time.Duration
	// FreeBytes is the space left on the file's filesystem for this
	// process (statfs's available blocks); -1 when it cannot be read.
	FreeBytes int64
}

// Health returns the state of the DB's writes and the free space beside
// its file. It is safe for concurrent use and costs one statfs.
//
// On PostgreSQL, CommitErr is the error of the last Update while the
// server cannot be reached (wrapping ErrUnavailable), and FreeBytes is -1:
// the disk is the server's.
func (db *DB) Health() Health {
	if db.pg != nil {
		return db.pg.health(db.closed.Load())
	}
	h := Health{Closed: db.closed.Load(), Fault: db.failed(), FreeBytes: freeBytes(db.path)}
	if f := db.w.failing.Load(); f != nil {
		h.CommitErr, h.FailingSince = f.err, f.since
	}
	if since := db.w.busySince.Load(); since != 0 {
		h.Busy = max(time.Since(time.Unix(0, since)), time.Nanosecond)
	}
	return h
}
