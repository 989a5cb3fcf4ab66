package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// InspectPostgres checks the PostgreSQL database at url without changing
// it and counts what it holds, as Inspect does for a file: in one
// REPEATABLE READ READ ONLY transaction, bounded by timeout (0: an hour),
// it reads the schema version and decodes every table, character and event
// (each checkpoint compared with the walk of the history), and checks that
// every character is found under its name (name_key). It reads the whole
// database, holding in memory the ids of the tables and one page of their
// rows at a time (eachChannel), and holds its snapshot open for the whole
// run: VACUUM cannot clean up rows changed meanwhile until it ends. What
// lies below the rows (pages, indexes, the write-ahead log) is
// PostgreSQL's to check: pg_amcheck does.
//
// It returns the report and nil for a sound database. Otherwise it returns
// what it could count and an error: wrapping ErrUnavailable when the server
// cannot be reached, ErrSchemaTooNew when a newer hpkeeper migrated the
// database (records are then not decoded), or joining up to ten of the
// problems found (a database hpkeeper never opened is one).
func InspectPostgres(url string, timeout time.Duration) (*Report, error) {
	if timeout <= 0 {
		timeout = time.Hour
	}
	name := RedactURL(url)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", name, err)
	}
	cfg.MaxConns = 2
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", name, err)
	}
	defer pool.Close()
	s := &pgStore{pool: pool, name: name, timeout: timeout, cache: newStateCache(-1)}
	rep := &Report{Path: name}
	var p problems
	err = s.run(false, func(t *pgTx) error {
		b := &pgx.Batch{}
		var version int
		b.Queue(`SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).
			QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
		if err := t.send(b); err != nil {
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == pgUndefinedTable {
				p.add(errors.New("no schema_migrations table: not an hpkeeper database"))
				return nil
			}
			return err
		}
		rep.SchemaVersion = uint64(version)
		if version > pgSchemaVersion {
			return fmt.Errorf("database has schema version %d, this program knows up to %d: %w", version, pgSchemaVersion, ErrSchemaTooNew)
		}
		if err := t.eachChannel(func(ch channelRecords) error {
			checkChannel(ch, rep, &p)
			return nil
		}); err != nil {
			return err
		}
		return pgCheckNames(t, &p)
	})
	if err != nil {
		return rep, fmt.Errorf("check %s: %w", name, err)
	}
	return rep, p.err(name)
}

// pgCheckNames adds to p every character whose name_key is not its
// record's name's (nameKey): CharacterByName and the uniqueness of names
// rely on it.
func pgCheckNames(t *pgTx, p *problems) error {
	b := &pgx.Batch{}
	b.Queue(`SELECT channel_id, id, name_key, record FROM characters`).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var channelID, key string
			var id int64
			var rec []byte
			if err := rows.Scan(&channelID, &id, &key, &rec); err != nil {
				return err
			}
			c, err := decodeCharacter(rec)
			if err != nil {
				continue // checkChannel reported it
			}
			if want := string(nameKey(c.Name)); key != pgText(want) {
				p.add(fmt.Errorf("character %q (id %d) at table %s has name_key %q, not %q", c.Name, id, channelID, key, want))
			}
		}
		return rows.Err()
	})
	return t.send(b)
}
