package storage

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The PostgreSQL backend: any number of hpkeeper processes share one
// database (pgschema.go has its tables). Each Update is one SQL transaction
// (READ COMMITTED) that locks the row of every table it touches before it
// reads it (SELECT … FOR UPDATE), so the commands of one table run one
// after the other whichever process runs them, and commands of different
// tables side by side. Its writes are sent, with the COMMIT, in one round
// trip when fn returns. A View is one REPEATABLE READ READ ONLY
// transaction: one snapshot. The state cache (cache.go) keeps decoded
// channels as elsewhere, each with its row's version, and a read uses one
// only when the row still has that version: another process's write
// gives it a new one.

// DefaultPostgresTimeout bounds one transaction (every round trip of one
// View or Update, the wait for a connection and for the table's row lock
// included) when PostgresOptions.Timeout is 0.
const DefaultPostgresTimeout = 10 * time.Second

// DefaultPostgresConns is the size of the connection pool when the URL does
// not set pool_max_conns.
const DefaultPostgresConns = 16

// pgRetries is how many times an Update whose transaction PostgreSQL (or
// CockroachDB) refused with a serialization failure or a deadlock is run
// again before the error is returned.
const pgRetries = 8

// PostgresOptions configures OpenPostgres.
type PostgresOptions struct {
	// Timeout bounds each transaction; 0 means DefaultPostgresTimeout.
	Timeout time.Duration
	// CacheBytes bounds the state cache as Options.CacheBytes does: 0 means
	// DefaultCacheBytes, a negative value keeps none.
	CacheBytes int
	// OnCommit, when set, is called after every Update's transaction ended
	// (a group of one; see Options.OnCommit), for metrics. It must return
	// quickly.
	OnCommit func(GroupStats)
}

// IsPostgresURL reports whether s names a PostgreSQL database
// ("postgres://…" or "postgresql://…") rather than a bbolt file.
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// RedactURL returns the URL s with its password replaced by "xxxxx", for
// messages and logs; s itself when it is not a URL.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// pgStore is an open PostgreSQL database.
type pgStore struct {
	pool    *pgxpool.Pool
	name    string // the URL, its password redacted
	timeout time.Duration
	cache   *stateCache
	// onCommit is PostgresOptions.OnCommit, or nil.
	onCommit func(GroupStats)
	// For WriterStats: Updates run, and nanoseconds spent in their
	// functions and in their commits.
	updates, fnNanos, commitNanos atomic.Int64
	// trips counts the round trips of Views, Updates and AcceptRequest
	// (RoundTrips); workFailures the TakeWork calls that failed.
	trips, workFailures atomic.Int64
	// failing is the run of Updates that failed for want of the server
	// (Health), nil while they succeed.
	failing atomic.Pointer[pgFailing]
	// loseCommit is a test's hook (pgLoseCommit); nil in production.
	loseCommit atomic.Pointer[pgLoseCommit]
}

// openPostgres connects to the database at rawURL, checks it answers, and
// brings its schema up to pgSchemaVersion.
func openPostgres(rawURL string, opts PostgresOptions) (*pgStore, error) {
	name := RedactURL(rawURL)
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if !strings.Contains(rawURL, "pool_max_conns") {
		cfg.MaxConns = DefaultPostgresConns
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultPostgresTimeout
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > timeout {
		cfg.ConnConfig.ConnectTimeout = timeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", name, pgUnavailable(err))
	}
	if err := pgMigrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	cacheBytes := opts.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = DefaultCacheBytes
	}
	return &pgStore{pool: pool, name: name, timeout: timeout, cache: newStateCache(cacheBytes), onCommit: opts.OnCommit}, nil
}

// close closes every connection.
func (s *pgStore) close() { s.pool.Close() }

// ping reports whether the database answers a query before ctx is done.
func (s *pgStore) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var one int
	if err := s.pool.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("ping %s: %w", s.name, pgUnavailable(err))
	}
	// The server answers again: the run of failed Updates (Health) is
	// over, with no command needed, as a bbolt writer's empty commit
	// ends one.
	s.failing.Store(nil)
	return nil
}

// ErrUnavailable is returned (wrapped) when the database server cannot be
// reached or is not accepting work (restarting, shutting down, too many
// connections, a transaction past its timeout). Nothing of the
// transaction was written, except after an ambiguous commit (see
// ErrCommitUnknown). hpkeeper reconnects by itself: a later transaction may
// succeed.
var ErrUnavailable = errors.New("database unavailable")

// ErrCommitUnknown is returned (wrapped) by an Update whose COMMIT was sent
// but whose answer never came back (the connection broke): the
// transaction may or may not have been written. An Update that records
// its interaction (Tx.RecordInteraction) is resolved instead: the Update
// returns nil when the interaction is found written, and its error otherwise.
var ErrCommitUnknown = errors.New("the database did not say whether the transaction was written")

// pgUnavailable wraps err in ErrUnavailable when it is a failure of the
// connection or of the server's availability rather than of the SQL.
func pgUnavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case pgAdminShutdown, pgCrashShutdown, pgCannotConnectNow, pgTooManyConnections, pgQueryCanceled, pgIdleInTransactionTime:
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if strings.HasPrefix(pgErr.Code, "08") { // connection exception
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// pgRetryable reports whether err is a refusal of the transaction that a
// new run of it may not meet: a serialization failure or a deadlock.
func pgRetryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == pgSerializationFailure || pgErr.Code == pgDeadlockDetected)
}

// pgWrite is a statement an Update queued, sent with its COMMIT.
type pgWrite struct {
	sql  string
	args []any
}

// pgTx is one SQL transaction of a View or an Update, begun by its first
// statement (BEGIN is sent in the same round trip).
type pgTx struct {
	s        *pgStore
	ctx      context.Context
	writable bool
	conn     *pgxpool.Conn // acquired by the first statement
	begun    bool
	chans    map[string]*pgChannel
	writes   []pgWrite
	// failed is the first error of a statement: the transaction can no
	// longer commit.
	failed error
	// interaction, when set, is written with the transaction and looked
	// for when its COMMIT's answer is lost (Tx.RecordInteraction);
	// applied is its record when it was recorded before.
	interaction, applied *Interaction
	// wroteShared: a queued write is of no channel (shared.go), so the
	// transaction commits even when no channel changed.
	wroteShared bool
	// alone: a View read a channel in a statement of its own, outside a
	// transaction (loadAlone); loading: that statement is being sent.
	alone, loading bool
}

// beginSQL returns the statement that begins the transaction.
func (t *pgTx) beginSQL() string {
	if t.writable {
		return "BEGIN ISOLATION LEVEL READ COMMITTED"
	}
	return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
}

// send sends b in one round trip, beginning the transaction first when
// this is its first statement, and runs b's callbacks.
func (t *pgTx) send(b *pgx.Batch) error {
	if t.failed != nil {
		return t.failed
	}
	if t.conn == nil {
		conn, err := t.s.pool.Acquire(t.ctx)
		if err != nil {
			t.failed = pgUnavailable(err)
			return t.failed
		}
		t.conn = conn
	}
	switch {
	case t.begun:
	case !t.writable && t.loading && !t.alone:
		// A View's first read, one statement: alone, no transaction
		// (loadAlone).
	case !t.writable && t.alone:
		// A View's next read: its snapshot begins now (upgrade).
		t.upgrade(b)
		t.begun = true
	default:
		b.QueuedQueries = append([]*pgx.QueuedQuery{{SQL: t.beginSQL()}}, b.QueuedQueries...)
		t.begun = true
	}
	t.s.trips.Add(1)
	if err := t.conn.SendBatch(t.ctx, b).Close(); err != nil {
		t.failed = pgUnavailable(err)
		return t.failed
	}
	return nil
}

// queue adds a write to send with the COMMIT.
func (t *pgTx) queue(sql string, args ...any) {
	t.writes = append(t.writes, pgWrite{sql: sql, args: args})
}

// end rolls back what is still open and gives the connection back.
func (t *pgTx) end() {
	if t.conn == nil {
		return
	}
	if t.conn.Conn().PgConn().TxStatus() != 'I' && !t.conn.Conn().IsClosed() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.s.trips.Add(1)
		_, _ = t.conn.Exec(ctx, "ROLLBACK")
		cancel()
	}
	t.conn.Release() // a connection still in a transaction is closed instead
	t.conn = nil
}

// commit sends the queued writes, the new versions of the channels
// written and the COMMIT in one round trip. A transaction that wrote
// nothing is rolled back instead (nothing to make durable). It returns
// ErrCommitUnknown (wrapped) when the COMMIT was sent and its answer lost.
func (t *pgTx) commit() error {
	if t.failed != nil {
		return t.failed
	}
	b := &pgx.Batch{}
	wrote := t.wroteShared
	for _, w := range t.writes {
		b.Queue(w.sql, w.args...)
		wrote = true
	}
	for _, ch := range t.chans {
		switch {
		case ch.dirty:
			ch.queueRow(b)
			wrote = true
		case ch.inserted:
			// A row this transaction inserted to lock a channel it then
			// did not write: leave no empty row behind.
			b.Queue(`DELETE FROM tables WHERE channel_id = $1`, ch.chanID)
		}
	}
	if !wrote || !t.begun {
		t.end()
		return nil
	}
	if t.interaction != nil {
		in := t.interaction
		b.Queue(`INSERT INTO interactions (id, channel_id, event_seq, at) VALUES ($1, $2, $3, $4)`,
			in.ID, in.ChannelID, int64(in.EventSeq), in.At.UTC())
	}
	var tag pgconn.CommandTag
	end := "COMMIT"
	lose := t.s.loseCommit.Load()
	if lose != nil && lose.rollback {
		end = "ROLLBACK"
	}
	b.Queue(end).Exec(func(ct pgconn.CommandTag) error { tag = ct; return nil })
	t.s.trips.Add(1)
	err := t.conn.SendBatch(t.ctx, b).Close()
	if lose != nil && err == nil {
		// Tests: the answer to the COMMIT (or the ROLLBACK sent in its
		// place) never came back.
		_ = t.conn.Conn().Close(t.ctx)
		return fmt.Errorf("%w: %w", ErrCommitUnknown, pgUnavailable(errors.New("connection lost (test)")))
	}
	switch {
	case err == nil && tag.String() == "COMMIT":
		return nil
	case err == nil:
		return fmt.Errorf("commit: the server answered %q", tag.String())
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return err // the server refused a statement: nothing was written
	}
	if t.conn.Conn().IsClosed() || !pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w: %w", ErrCommitUnknown, pgUnavailable(err))
	}
	return pgUnavailable(err)
}

// pgLoseCommit, set by tests in a pgStore's loseCommit, makes every
// commit lose its answer: after the COMMIT when rollback is false, after a
// ROLLBACK sent instead when it is true, so that the resolution of an
// ambiguous commit can be seen both ways.
type pgLoseCommit struct{ rollback bool }

// run runs fn in a transaction of s, writable or not, and commits it (or
// rolls it back) when fn returns nil. A serialization failure or a
// deadlock runs fn again, up to pgRetries times. An ambiguous commit of an
// Update that recorded its interaction is resolved by looking for it.
func (s *pgStore) run(writable bool, fn func(*pgTx) error) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = s.runOnce(writable, fn)
		if !pgRetryable(err) || attempt >= pgRetries {
			if writable {
				s.noteUpdate(err) // for Health
			}
			return err
		}
		// Back off a little, with jitter, so that the transactions that
		// collided do not meet again at once.
		time.Sleep(time.Duration(1+rand.IntN(5<<attempt)) * time.Millisecond)
	}
}

func (s *pgStore) runOnce(writable bool, fn func(*pgTx) error) (err error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	t := &pgTx{s: s, ctx: ctx, writable: writable, chans: map[string]*pgChannel{}}
	defer t.end()
	start := time.Now()
	if err := fn(t); err != nil {
		return err
	}
	if !writable {
		return t.failed
	}
	ran := time.Now()
	err = t.commit()
	s.updates.Add(1)
	s.fnNanos.Add(int64(ran.Sub(start)))
	s.commitNanos.Add(int64(time.Since(ran)))
	if s.onCommit != nil {
		s.onCommit(GroupStats{Updates: 1, Functions: ran.Sub(start), Commit: time.Since(ran), Err: err})
	}
	if errors.Is(err, ErrCommitUnknown) && t.interaction != nil {
		found, ferr := s.interactionWritten(t.interaction)
		switch {
		case ferr != nil:
			return errors.Join(err, ferr)
		case found:
			return nil // written: the retry answers from what was written
		}
		return fmt.Errorf("%w: %w", ErrUnavailable, err) // not written
	}
	return err
}

// interactionWritten reports whether the interaction in was committed,
// asking on a new connection (after an ambiguous commit), for up to the
// transaction timeout while the server is unreachable. It asks under the
// lock of in's table row, which the transaction of the lost COMMIT held
// from its first statement: the lookup waits until that transaction, if
// the server still runs it, has committed or rolled back, and so never
// reads "not written" of a COMMIT still on its way. (A table row that
// transaction inserted is waited for by inserting it too.) Nothing is
// written: the lookup's transaction is rolled back.
func (s *pgStore) interactionWritten(in *Interaction) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	for {
		found, err := s.lookUpInteraction(ctx, in)
		if err == nil {
			return found, nil
		}
		if ctx.Err() != nil {
			return false, fmt.Errorf("look for interaction %s after an unknown commit: %w", in.ID, pgUnavailable(err))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lookUpInteraction is one try of interactionWritten.
func (s *pgStore) lookUpInteraction(ctx context.Context, in *Interaction) (bool, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var n int
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO tables (channel_id) VALUES ($1) ON CONFLICT (channel_id) DO NOTHING`, in.ChannelID)
	b.Queue(`SELECT 1 FROM tables WHERE channel_id = $1 FOR UPDATE`, in.ChannelID)
	b.Queue(`SELECT count(*) FROM interactions WHERE id = $1`, in.ID).
		QueryRow(func(row pgx.Row) error { return row.Scan(&n) })
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return false, err
	}
	return n > 0, nil
}
