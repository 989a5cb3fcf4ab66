package storage

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// What the processes of one database share beyond the records: on
// PostgreSQL, any number of serve replicas answer the interactions of one
// bot, so the HTTP endpoint's replay guard and each user's work allowance
// live in the database (pgschema.go: replays, work_limits) instead of in
// each process's memory. On a bbolt file the one process that holds it
// keeps them in memory (bot/replay.go, commands/ratelimit.go).

// Shared reports whether other processes may use the database at the same
// time (PostgreSQL): the replay guard and the work limits must then be
// kept in it (AcceptRequest, TakeWork).
func (db *DB) Shared() bool { return db.pg != nil }

// AcceptRequest records that the HTTP endpoint accepted the signed request
// whose Ed25519 signature begins with key, signed so that it is refused as
// stale after expires, and reports whether the request was accepted before,
// by this process or any other sharing the database (a replay). The record
// is durable before it returns. It returns an error (wrapping
// ErrUnavailable when the server cannot be reached) when the database
// cannot say; the endpoint then refuses the request. On a bbolt file it
// reports false: the endpoint's own guard is the whole guard.
func (db *DB) AcceptRequest(key [16]byte, expires time.Time) (replayed bool, err error) {
	if db.pg == nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), db.pg.timeout)
	defer cancel()
	db.pg.trips.Add(1)
	tag, err := db.pg.pool.Exec(ctx, `INSERT INTO replays (signature, expires_at) VALUES ($1, $2)
		ON CONFLICT (signature) DO NOTHING`, key[:], expires.UTC())
	if err != nil {
		return false, fmt.Errorf("replay guard: %w", pgUnavailable(err))
	}
	return tag.RowsAffected() == 0, nil
}

// RoundTrips returns how many round trips to the database server the
// Views, Updates, AcceptRequest and Expire calls have made since Open (a batch of
// statements sent together is one; the one-off preparation of a statement
// on a new connection is not counted): 0 on a bbolt file, which has no
// server. Callers subtract two readings.
func (db *DB) RoundTrips() int64 {
	if db.pg == nil {
		return 0
	}
	return db.pg.trips.Load()
}

// TakeWork spends cost units of user's work allowance at now, from a
// bucket of burst units that refills at perMinute units a minute, in the
// database, so that a user's allowance is one whatever replica answers
// them. It reports whether the units were there; if not it spends nothing
// and returns how long until they are. On a bbolt file it returns an error:
// the process's own limiter is the one to use.
func (db *DB) TakeWork(user string, cost int, burst, perMinute int, now time.Time) (bool, time.Duration, error) {
	if db.pg == nil {
		return false, 0, errNotBolt
	}
	if cost <= 0 {
		return true, 0, nil
	}
	perSecond := float64(perMinute) / 60
	var ok bool
	var units float64
	err := db.pg.run(true, func(t *pgTx) error {
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO work_limits (user_id, units, at) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING`,
			pgText(user), float64(burst), now.UTC())
		var at time.Time
		b.Queue(`SELECT units, at FROM work_limits WHERE user_id = $1 FOR UPDATE`, pgText(user)).
			QueryRow(func(row pgx.Row) error { return row.Scan(&units, &at) })
		if err := t.send(b); err != nil {
			return err
		}
		if d := now.Sub(at); d > 0 {
			units = math.Min(float64(burst), units+d.Seconds()*perSecond)
			at = now
		}
		if ok = float64(cost) <= units; ok {
			units -= float64(cost)
		}
		t.queue(`UPDATE work_limits SET units = $2, at = $3 WHERE user_id = $1`, pgText(user), units, at.UTC())
		t.wroteShared = true
		return nil
	})
	if err != nil {
		db.pg.workFailures.Add(1)
		return false, 0, fmt.Errorf("work limit: %w", err)
	}
	if ok {
		return true, 0, nil
	}
	if float64(cost) > float64(burst) {
		return false, time.Duration(math.Ceil(float64(burst)/perSecond*1000)) * time.Millisecond, nil
	}
	return false, time.Duration(math.Ceil((float64(cost)-units)/perSecond*1000)) * time.Millisecond, nil
}

// WorkLimitFailures returns how many TakeWork calls failed since Open (0 on
// a bbolt file): each time, the caller's own limiter answered instead
// (commands falls back to it).
func (db *DB) WorkLimitFailures() int64 {
	if db.pg == nil {
		return 0
	}
	return db.pg.workFailures.Load()
}

// Expire deletes what the database keeps for a while only: interactions
// recorded more than InteractionTTL before now, replay guard entries
// expired, and work allowances untouched for an hour (full again long
// since). Every process of a shared database calls it now and then
// (a minute apart); it is a no-op on a bbolt file, whose guard lives in
// memory and whose interactions are expired as they are written. Each
// statement deletes at most expireBatch rows, and the statements run again,
// each time a short transaction, while one finds that many: a backlog (a
// bot that was down, a burst of interactions) never makes one run long or
// lock much at once.
func (db *DB) Expire(now time.Time) error {
	if db.pg == nil {
		return nil
	}
	return db.pg.expire(now, expireBatch)
}

// expireBatch bounds the rows one statement of Expire deletes.
const expireBatch = 1000

// expire is Expire with batch rows a statement. The three statements go in
// one round trip, sent again while any of them deleted batch rows.
// (DELETE … LIMIT is not PostgreSQL's: each limits a subquery, and keeps
// its condition, which is checked again on a row changed meanwhile.)
func (s *pgStore) expire(now time.Time, batch int) error {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		var full bool
		count := func(ct pgconn.CommandTag) error {
			full = full || ct.RowsAffected() >= int64(batch)
			return nil
		}
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM interactions WHERE at < $1 AND id IN
			(SELECT id FROM interactions WHERE at < $1 LIMIT $2)`, now.Add(-InteractionTTL).UTC(), batch).Exec(count)
		b.Queue(`DELETE FROM replays WHERE expires_at < $1 AND signature IN
			(SELECT signature FROM replays WHERE expires_at < $1 LIMIT $2)`, now.UTC(), batch).Exec(count)
		b.Queue(`DELETE FROM work_limits WHERE at < $1 AND user_id IN
			(SELECT user_id FROM work_limits WHERE at < $1 LIMIT $2)`, now.Add(-time.Hour).UTC(), batch).Exec(count)
		s.trips.Add(1)
		err := s.pool.SendBatch(ctx, b).Close()
		cancel()
		if err != nil {
			return fmt.Errorf("expire: %w", pgUnavailable(err))
		}
		if !full {
			return nil
		}
	}
}
