package storage

import (
	"errors"
	"fmt"
	"time"
)

// A DB over PostgreSQL (postgres.go): View and Update run their function
// against a Tx whose records are rows (pgrecords.go); the Tx methods, the
// event codec and the state cache are those of every DB.

// errNotBolt is returned by the bbolt-only paths of a Tx of a PostgreSQL DB.
var errNotBolt = errors.New("not a bbolt database")

// OpenPostgres opens the PostgreSQL database at url ("postgres://…", see
// IsPostgresURL) as a DB, bringing its schema up to date (pgschema.go). It
// returns an error naming the URL (its password redacted) when the server
// cannot be reached (wrapping ErrUnavailable), when the database was
// migrated by a newer hpkeeper (ErrSchemaTooNew), or when a migration fails.
//
// Any number of processes may open one database. Close the DB when done.
func OpenPostgres(url string, opts PostgresOptions) (*DB, error) {
	s, err := openPostgres(url, opts)
	if err != nil {
		return nil, err
	}
	return &DB{pg: s, path: s.name, cache: s.cache}, nil
}

// pgClose closes the connections; View and Update fail from now on.
func (db *DB) pgClose() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.pg.close()
	return nil
}

// pgView runs fn in one REPEATABLE READ READ ONLY transaction.
func (db *DB) pgView(fn func(*Tx) error) error {
	return db.pg.run(false, func(t *pgTx) error {
		tx := &Tx{db: db, view: true, pg: t}
		defer tx.end()
		return fn(tx)
	})
}

// pgUpdate runs fn in one READ COMMITTED transaction that locks each
// table's row before it reads it, commits it, and puts the states it
// wrote in the cache.
func (db *DB) pgUpdate(fn func(*Tx) error) error {
	if db.closed.Load() {
		return fmt.Errorf("update %s: %w", db.path, ErrClosed)
	}
	var tx *Tx
	err := db.pg.run(true, func(t *pgTx) error {
		tx = &Tx{db: db, pg: t}
		err := fn(tx)
		tx.done = true
		if err == nil && t.interaction != nil {
			in := t.interaction
			if ch := t.chans[in.ChannelID]; ch != nil && len(ch.appended) > 0 {
				in.EventSeq = ch.appended[len(ch.appended)-1].seq
			}
		}
		return err
	})
	if err != nil {
		return db.pgInteractionDone(tx, err)
	}
	for id, ts := range tx.states {
		ch := tx.pg.chans[id]
		if !ts.mine || ch == nil {
			continue
		}
		st := ts.st
		st.version = uint64(ch.version)
		if ch.dirty {
			st.version = uint64(ch.next)
		}
		db.cache.putPG(id, st)
	}
	return nil
}

// pgState returns the channel's state as the PostgreSQL transaction reads
// it (pgTx.state), remembered for the rest of the Tx.
func (tx *Tx) pgState(channelID string) (*channelState, error) {
	st, err := tx.pg.state(channelID)
	if err != nil {
		return nil, err
	}
	if tx.states == nil {
		tx.states = map[string]*txState{}
	}
	tx.states[channelID] = &txState{st: st}
	return st, nil
}

// writerStats returns the Updates run so far as WriterStats: each one a
// group of one (a transaction of its own), Functions the time spent in
// their functions (the round trips of their reads included) and Commits
// the time spent committing.
func (s *pgStore) writerStats() WriterStats {
	return WriterStats{Groups: s.updates.Load(), Updates: s.updates.Load(),
		Functions: time.Duration(s.fnNanos.Load()), Commits: time.Duration(s.commitNanos.Load())}
}

// health is the Health of a PostgreSQL DB: the error of the last Update
// while Updates fail for want of the server, and since when.
func (s *pgStore) health(closed bool) Health {
	h := Health{Closed: closed, FreeBytes: -1}
	if f := s.failing.Load(); f != nil {
		h.CommitErr, h.FailingSince = f.err, f.since
	}
	return h
}

// pgFailing is the first of a run of Updates that failed for want of the
// server.
type pgFailing struct {
	err   error
	since time.Time
}

// noteUpdate records the outcome of an Update for health: a failure for
// want of the server starts (or goes on with) a run of failures, any other
// outcome ends it.
func (s *pgStore) noteUpdate(err error) {
	if errors.Is(err, ErrUnavailable) || errors.Is(err, ErrCommitUnknown) {
		if f := s.failing.Load(); f == nil {
			s.failing.Store(&pgFailing{err: err, since: time.Now()})
		}
		return
	}
	if s.failing.Load() != nil {
		s.failing.Store(nil)
	}
}
