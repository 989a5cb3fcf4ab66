package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The PostgreSQL schema, in one place.
//
// One row per channel in tables, per character in characters, per event in
// events; each holds its record as the JSON text bbolt holds (records.go,
// eventcodec.go), byte for byte, beside columns an operator queries:
//
//	tables        channel_id, guild_id, system, record (the Table, NULL once
//	              the table's creation was undone: its history stays),
//	              last_character_id and last_event_seq (the sequences that
//	              hand out ids and seqs), version (a new random number
//	              at every transaction that changes the channel, never a
//	              count: the state cache's check, pgNextVersion), and the
//	              row is the lock every command of the table takes
//	characters    channel_id, id, name_key (lower-cased name, unique per
//	              channel), record (the Character)
//	events        channel_id, seq, at, user_id, user_name, command, summary,
//	              undo_of, form (1: whole states, 2: what changed), record
//	              (the event's JSON in that form)
//	meta          key, value: the replay guard of a graceful stop (hex)
//	interactions  id (Discord's interaction id), channel_id, event_seq, at:
//	              each state-changing interaction, committed with its write
//	replays       signature (the first 16 bytes of an accepted request's
//	              Ed25519 signature), expires_at: the replay guard that every
//	              serve replica shares
//	work_limits   user_id, units, at: each user's work allowance
//	gateway_members  owner, expires_at, shard_first, shard_last: the run
//	              processes alive and the range of shards each may take
//	gateway_shards  id (always 1), shard_count, set_by, set_at: the shard
//	              count every run process uses, set by the first to join
//	              when no other is alive (leases.go)
//	shard_leases  shard_count, shard_id, owner, token, expires_at: which run
//	              process answers a gateway shard (leases.go)
//	identify_buckets  bucket, next_at: the identify queue every run process
//	              shares
//	schema_migrations  version, name, applied_at: the migrations applied
//
// Records are TEXT, not JSON or JSONB: both of those may rewrite what they
// are given (JSONB sorts keys and normalises numbers, and is what JSON is on
// CockroachDB), and an event's patches and checkpoints are byte for byte.
// Query them as JSON with a cast: record::jsonb ->> 'name'.
//
// The SQL is portable to CockroachDB (which speaks PostgreSQL's protocol):
// no advisory locks, no LISTEN/NOTIFY, no sequences or SERIAL (ids and seqs
// come from the counters of the channel's row, under its row lock), no
// PostgreSQL-only functions; upserts are INSERT … ON CONFLICT, and time
// comes from current_timestamp.

// pgMigration is one step of the PostgreSQL schema: its statements run in
// one transaction with the row that records it in schema_migrations.
type pgMigration struct {
	version int
	name    string
	sql     []string
}

// pgMigrations lists every step in order; append, never edit or reorder.
var pgMigrations = []pgMigration{
	{
		version: 1,
		name:    "tables, characters and events",
		sql: []string{
			`CREATE TABLE tables (
				channel_id        TEXT PRIMARY KEY,
				guild_id          TEXT,
				system            TEXT,
				record            TEXT,
				last_character_id BIGINT NOT NULL DEFAULT 0,
				last_event_seq    BIGINT NOT NULL DEFAULT 0,
				version           BIGINT NOT NULL DEFAULT 0
			)`,
			`CREATE TABLE characters (
				channel_id TEXT NOT NULL REFERENCES tables (channel_id),
				id         BIGINT NOT NULL,
				name_key   TEXT NOT NULL,
				record     TEXT NOT NULL,
				PRIMARY KEY (channel_id, id)
			)`,
			`CREATE UNIQUE INDEX characters_name_key ON characters (channel_id, name_key)`,
			`CREATE TABLE events (
				channel_id TEXT NOT NULL REFERENCES tables (channel_id),
				seq        BIGINT NOT NULL,
				at         TIMESTAMPTZ NOT NULL,
				user_id    TEXT NOT NULL,
				user_name  TEXT NOT NULL,
				command    TEXT NOT NULL,
				summary    TEXT NOT NULL,
				undo_of    BIGINT NOT NULL DEFAULT 0,
				form       SMALLINT NOT NULL,
				record     TEXT NOT NULL,
				PRIMARY KEY (channel_id, seq)
			)`,
			`CREATE TABLE meta (
				key   TEXT PRIMARY KEY,
				value TEXT NOT NULL
			)`,
		},
	},
	{
		version: 2,
		name:    "what replicas share: interactions, replays, work limits",
		sql: []string{
			`CREATE TABLE interactions (
				id         TEXT PRIMARY KEY,
				channel_id TEXT NOT NULL,
				event_seq  BIGINT NOT NULL,
				at         TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX interactions_at ON interactions (at)`,
			`CREATE TABLE replays (
				signature  BYTEA PRIMARY KEY,
				expires_at TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX replays_expires_at ON replays (expires_at)`,
			`CREATE TABLE work_limits (
				user_id TEXT PRIMARY KEY,
				units   DOUBLE PRECISION NOT NULL,
				at      TIMESTAMPTZ NOT NULL
			)`,
		},
	},
	{
		version: 3,
		name:    "gateway shards without files: members, leases, the identify queue",
		sql: []string{
			`CREATE TABLE gateway_members (
				owner      TEXT PRIMARY KEY,
				expires_at TIMESTAMPTZ NOT NULL
			)`,
			`CREATE TABLE shard_leases (
				shard_count INT NOT NULL,
				shard_id    INT NOT NULL,
				owner       TEXT NOT NULL,
				token       BIGINT NOT NULL,
				expires_at  TIMESTAMPTZ NOT NULL,
				PRIMARY KEY (shard_count, shard_id)
			)`,
			`CREATE TABLE identify_buckets (
				bucket  INT PRIMARY KEY,
				next_at TIMESTAMPTZ NOT NULL
			)`,
		},
	},
	{
		version: 4,
		name:    "each gateway member's range of shards",
		sql: []string{
			// A member that wrote no range (an older hpkeeper) may take
			// any shard, as it does.
			`ALTER TABLE gateway_members ADD COLUMN shard_first INT NOT NULL DEFAULT 0`,
			`ALTER TABLE gateway_members ADD COLUMN shard_last INT NOT NULL DEFAULT 2147483647`,
		},
	},
	{
		version: 5,
		name:    "the gateway's shard count, one for every run process",
		sql: []string{
			`CREATE TABLE gateway_shards (
				id          INT PRIMARY KEY CHECK (id = 1),
				shard_count INT NOT NULL,
				set_by      TEXT NOT NULL,
				set_at      TIMESTAMPTZ NOT NULL
			)`,
		},
	},
}

// PostgresSchemaVersion is the schema version of a PostgreSQL database this
// code reads and writes (its own numbering, apart from a file's
// SchemaVersion): the version of the last entry of pgMigrations.
const PostgresSchemaVersion = 5

// pgSchemaVersion is PostgresSchemaVersion as the migrations count it.
var pgSchemaVersion = pgMigrations[len(pgMigrations)-1].version

// pgMigrate brings the database to pgSchemaVersion, one transaction per
// step. Processes starting together may race: a step another process
// applied first is skipped (its schema_migrations row is the lock). It
// fails with ErrSchemaTooNew when the database is newer than the code.
func pgMigrate(ctx context.Context, pool *pgxpool.Pool) error {
	// Processes opening a new database together race in the catalog: the
	// CREATE TABLE IF NOT EXISTS of all but one fails on the catalog's own
	// unique keys once the first committed. The table is there then, and
	// the statement run again finds it.
	for try := 0; ; try++ {
		_, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INT PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
		)`)
		if err == nil {
			break
		}
		var pgErr *pgconn.PgError
		if try < 3 && errors.As(err, &pgErr) &&
			(pgErr.Code == pgUniqueViolation || pgErr.Code == pgDuplicateObject || pgErr.Code == pgDuplicateTable) {
			continue
		}
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	current, err := pgVersion(ctx, pool)
	if err != nil {
		return err
	}
	if current > pgSchemaVersion {
		return fmt.Errorf("database has schema version %d, this program knows up to %d: %w",
			current, pgSchemaVersion, ErrSchemaTooNew)
	}
	for _, m := range pgMigrations {
		if m.version <= current {
			continue
		}
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name)
			if err != nil {
				return err
			}
			for _, q := range m.sql {
				if _, err := tx.Exec(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == pgUniqueViolation {
			continue // another process applied it meanwhile
		}
		if err != nil {
			return fmt.Errorf("migrate to schema version %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

// pgVersion returns the schema version of the database, 0 for a new one.
func pgVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v int
	if err := q.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// SQLSTATE codes the backend acts on.
const (
	pgUniqueViolation       = "23505"
	pgSerializationFailure  = "40001"
	pgDeadlockDetected      = "40P01"
	pgUndefinedTable        = "42P01"
	pgDuplicateTable        = "42P07"
	pgDuplicateObject       = "42710"
	pgAdminShutdown         = "57P01"
	pgCannotConnectNow      = "57P03"
	pgCrashShutdown         = "57P02"
	pgTooManyConnections    = "53300"
	pgQueryCanceled         = "57014"
	pgIdleInTransactionTime = "25P03"
)
