package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Gateway shards without files. On PostgreSQL every run process may run
// any of the bot's gateway shards: the database says which process runs
// which (pgschema.go: gateway_members, shard_leases) and whose turn it is
// to IDENTIFY (identify_buckets). Time is the database's (current_timestamp),
// one clock for every process.
//
//   - A run process is a member while it renews its membership; a member
//     that stops renewing (killed, cut off) is gone after the time to live.
//   - A shard's lease is held by one member until it expires; its holder
//     renews it well before. Each acquisition hands out a larger token, so
//     a lease taken over is told from the one before it (fencing: the
//     token names the session that answers, and a holder that could not
//     renew stops answering before the lease can be taken: bot/leases.go).
//   - IDENTIFYs of one rate-limit bucket (shard_id % max_concurrency) are
//     spaced by Discord's interval whichever process sends them.

// ErrNotShared is returned by the gateway's shared operations on a bbolt
// file: its one process runs its shards alone (Shared).
var ErrNotShared = errors.New("the database is not shared: a bbolt file has one process")

// ShardLease is a process's hold on one gateway shard.
type ShardLease struct {
	// Count and Shard name the shard: shard Shard of Count.
	Count, Shard int
	// Owner is the holding process's name (unique per process).
	Owner string
	// Token grows with every acquisition of the shard: the lease of a
	// later holder has a larger one.
	Token int64
	// Expires is when the lease ends unless renewed, by the database's
	// clock.
	Expires time.Time
}

// pgCtx returns a context bounded by the database's transaction timeout.
func (db *DB) pgCtx() (context.Context, context.CancelFunc, error) {
	if db.pg == nil {
		return nil, nil, ErrNotShared
	}
	ctx, cancel := context.WithTimeout(context.Background(), db.pg.timeout)
	return ctx, cancel, nil
}

// GatewayMember is a live run process sharing the gateway's shards.
type GatewayMember struct {
	// Owner is the process's name (unique per process).
	Owner string
	// Shards are the shards it may take: its range (--shard-ids), or
	// every shard of the count. A member that recorded no range (an
	// older hpkeeper) reads as First 0, Last math.MaxInt32: any shard.
	Shards ShardRange
}

// Takes reports whether m may take the shard id.
func (m GatewayMember) Takes(id int) bool {
	return m.Shards.First <= id && id <= m.Shards.Last
}

// ShardCountError is the error of GatewayMembers when the live members of
// the gateway run another shard count than the one asked for.
type ShardCountError struct {
	// Count is the live members' count, as the database records it; Want
	// is the one asked for.
	Count, Want int
	// Members are the live members' names.
	Members []string
}

// Error says both counts and names up to three of the members.
func (e *ShardCountError) Error() string {
	names := e.Members
	more := ""
	if len(names) > 3 {
		names, more = names[:3], fmt.Sprintf(" and %d more", len(names)-3)
	}
	return fmt.Sprintf("the run processes on this database use %d shards (%s%s); this process was told %d",
		e.Count, strings.Join(names, ", "), more, e.Want)
}

// GatewayMembers records m as a live run process, with its range of
// shards, until ttl from now and returns every live member, m included,
// in byte order of their names. The Count of the members' Shards is m's.
//
// Every member runs one shard count, which the database records
// (gateway_shards): the first member to join while no other is alive sets
// it to its own. When other members are alive and the recorded count is
// not m.Shards.Count, nothing is recorded and the error is a
// *ShardCountError.
func (db *DB) GatewayMembers(m GatewayMember, ttl time.Duration) ([]GatewayMember, error) {
	if db.pg == nil {
		return nil, ErrNotShared
	}
	var members []GatewayMember
	err := db.pg.run(true, func(t *pgTx) error {
		members = members[:0]
		count := 0
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO gateway_shards (id, shard_count, set_by, set_at) VALUES (1, $1, $2, current_timestamp)
			ON CONFLICT (id) DO NOTHING`, m.Shards.Count, m.Owner)
		b.Queue(`SELECT shard_count FROM gateway_shards WHERE id = 1 FOR UPDATE`).
			QueryRow(func(row pgx.Row) error { return row.Scan(&count) })
		b.Queue(`SELECT owner, shard_first, shard_last FROM gateway_members
			WHERE expires_at > current_timestamp AND owner <> $1`, m.Owner).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					o := GatewayMember{Shards: ShardRange{Count: m.Shards.Count}}
					if err := rows.Scan(&o.Owner, &o.Shards.First, &o.Shards.Last); err != nil {
						return err
					}
					members = append(members, o)
				}
				return rows.Err()
			})
		if err := t.send(b); err != nil {
			return err
		}
		if count != m.Shards.Count {
			if len(members) > 0 {
				e := &ShardCountError{Count: count, Want: m.Shards.Count}
				for _, o := range members {
					e.Members = append(e.Members, o.Owner)
				}
				slices.Sort(e.Members)
				return e
			}
			t.queue(`UPDATE gateway_shards SET shard_count = $1, set_by = $2, set_at = current_timestamp WHERE id = 1`,
				m.Shards.Count, m.Owner)
		}
		t.queue(`INSERT INTO gateway_members (owner, expires_at, shard_first, shard_last)
			VALUES ($1, current_timestamp + $2::interval, $3, $4)
			ON CONFLICT (owner) DO UPDATE SET expires_at = excluded.expires_at,
			shard_first = excluded.shard_first, shard_last = excluded.shard_last`,
			m.Owner, ttl, m.Shards.First, m.Shards.Last)
		t.wroteShared = true
		return nil
	})
	var ce *ShardCountError
	if errors.As(err, &ce) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("gateway members: %w", err)
	}
	members = append(members, m)
	slices.SortFunc(members, func(a, b GatewayMember) int { return strings.Compare(a.Owner, b.Owner) })
	return members, nil
}

// LeaveGateway ends owner's membership and releases every lease it holds,
// so that the others take its shards at once (a graceful stop).
func (db *DB) LeaveGateway(owner string) error {
	ctx, cancel, err := db.pgCtx()
	if err != nil {
		return err
	}
	defer cancel()
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM shard_leases WHERE owner = $1`, owner)
	b.Queue(`DELETE FROM gateway_members WHERE owner = $1`, owner)
	if err := db.pg.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("leave gateway: %w", pgUnavailable(err))
	}
	return nil
}

// AcquireShard takes the lease of shard of count for owner until ttl from
// now, when it is free, expired, or owner's already (then with a new
// token). It reports false, and the lease of the holder, when another
// process holds it.
func (db *DB) AcquireShard(count, shard int, owner string, ttl time.Duration) (ShardLease, bool, error) {
	ctx, cancel, err := db.pgCtx()
	if err != nil {
		return ShardLease{}, false, err
	}
	defer cancel()
	l := ShardLease{Count: count, Shard: shard}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO shard_leases (shard_count, shard_id, owner, token, expires_at)
		VALUES ($1, $2, $3, 1, current_timestamp + $4::interval)
		ON CONFLICT (shard_count, shard_id) DO UPDATE
		SET owner = excluded.owner, token = shard_leases.token + 1, expires_at = excluded.expires_at
		WHERE shard_leases.expires_at <= current_timestamp OR shard_leases.owner = excluded.owner`,
		count, shard, owner, ttl)
	b.Queue(`SELECT owner, token, expires_at FROM shard_leases WHERE shard_count = $1 AND shard_id = $2`, count, shard).
		QueryRow(func(row pgx.Row) error { return row.Scan(&l.Owner, &l.Token, &l.Expires) })
	if err := db.pg.pool.SendBatch(ctx, b).Close(); err != nil {
		return ShardLease{}, false, fmt.Errorf("acquire shard %d of %d: %w", shard, count, pgUnavailable(err))
	}
	return l, l.Owner == owner, nil
}

// RenewShard extends the lease l until ttl from now, when it is still
// held with l's token (nobody took it, even if it expired meanwhile). It
// reports false when it is not: the shard is another's now.
func (db *DB) RenewShard(l ShardLease, ttl time.Duration) (ShardLease, bool, error) {
	ctx, cancel, err := db.pgCtx()
	if err != nil {
		return l, false, err
	}
	defer cancel()
	err = db.pg.pool.QueryRow(ctx, `UPDATE shard_leases SET expires_at = current_timestamp + $5::interval
		WHERE shard_count = $1 AND shard_id = $2 AND owner = $3 AND token = $4 RETURNING expires_at`,
		l.Count, l.Shard, l.Owner, l.Token, ttl).Scan(&l.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, false, nil
	}
	if err != nil {
		return l, false, fmt.Errorf("renew shard %d of %d: %w", l.Shard, l.Count, pgUnavailable(err))
	}
	return l, true, nil
}

// ReleaseShard gives the lease l up, when it is still held with its token.
func (db *DB) ReleaseShard(l ShardLease) error {
	ctx, cancel, err := db.pgCtx()
	if err != nil {
		return err
	}
	defer cancel()
	_, err = db.pg.pool.Exec(ctx, `DELETE FROM shard_leases WHERE shard_count = $1 AND shard_id = $2 AND owner = $3 AND token = $4`,
		l.Count, l.Shard, l.Owner, l.Token)
	if err != nil {
		return fmt.Errorf("release shard %d of %d: %w", l.Shard, l.Count, pgUnavailable(err))
	}
	return nil
}

// lockIdentifyBucket locks the bucket's row of the identify queue (making
// it when no process has asked yet) and returns the transaction's time and
// the bucket's next turn, both the database's.
func lockIdentifyBucket(t *pgTx, bucket int) (now, next time.Time, err error) {
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO identify_buckets (bucket, next_at) VALUES ($1, current_timestamp) ON CONFLICT (bucket) DO NOTHING`, bucket)
	b.Queue(`SELECT current_timestamp, next_at FROM identify_buckets WHERE bucket = $1 FOR UPDATE`, bucket).
		QueryRow(func(row pgx.Row) error { return row.Scan(&now, &next) })
	err = t.send(b)
	return now, next, err
}

// IdentifyTurn asks for the next IDENTIFY of the rate-limit bucket (shard
// id % max_concurrency): when the bucket's last IDENTIFY, by any process,
// was interval or more ago, it reserves the turn and returns 0; otherwise
// it returns how long until the turn may be asked for again.
func (db *DB) IdentifyTurn(bucket int, interval time.Duration) (time.Duration, error) {
	if db.pg == nil {
		return 0, ErrNotShared
	}
	var wait time.Duration
	err := db.pg.run(true, func(t *pgTx) error {
		now, next, err := lockIdentifyBucket(t, bucket)
		if err != nil {
			return err
		}
		if wait = next.Sub(now); wait > 0 {
			return nil
		}
		wait = 0
		t.queue(`UPDATE identify_buckets SET next_at = $2 WHERE bucket = $1`, bucket, now.Add(interval))
		t.wroteShared = true
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("identify turn of bucket %d: %w", bucket, err)
	}
	return wait, nil
}

// IdentifySent notes that the bucket's IDENTIFY, whose turn IdentifyTurn
// gave, has been written now (the database's now): the bucket's next turn
// is interval after it, when that is later than the turn already
// reserved. The reserved turn counts from when it was given, and the
// connection's dial comes between the turn and the IDENTIFY, so without
// this a process that dialled slowly could IDENTIFY less than interval
// before the next process, which dialled fast. Errors are the database's.
func (db *DB) IdentifySent(bucket int, interval time.Duration) error {
	if db.pg == nil {
		return ErrNotShared
	}
	err := db.pg.run(true, func(t *pgTx) error {
		now, next, err := lockIdentifyBucket(t, bucket)
		if err != nil {
			return err
		}
		if at := now.Add(interval); at.After(next) {
			t.queue(`UPDATE identify_buckets SET next_at = $2 WHERE bucket = $1`, bucket, at)
			t.wroteShared = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("identify sent in bucket %d: %w", bucket, err)
	}
	return nil
}
