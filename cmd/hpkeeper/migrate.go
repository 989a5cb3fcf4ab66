package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

// migrateTimeout bounds one transaction of hpkeeper migrate: the read of
// the whole source is one, and so is the write of the longest history.
const migrateTimeout = 6 * time.Hour

// migrateMain runs `hpkeeper migrate`: every table of one database copied
// into another, from a bbolt file into PostgreSQL or back (or between two
// of either), each table in one transaction, read back and compared record
// by record; resumed by running it again. It returns 0 when every table
// is in the destination and checked, 1 when not (a problem, or Ctrl-C: what
// was copied stays), 2 for a usage error.
func migrateMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("hpkeeper migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the database to read: a bbolt `FILE.db` no process holds, or a postgres:// URL; it is not changed (an older file's schema is brought up to date first, as serve would)")
	to := fs.String("to", "", "the database to write: a postgres:// `URL` or a bbolt file (created when missing); tables it holds already are compared, never overwritten")
	fs.Usage = usageFunc(fs, "migrate", "copy every table, character and event of one database into another — a bbolt file into PostgreSQL, or back into a file for a local copy — each table in one transaction, read back and compared record by record. Stop the bot first. Interrupted, it resumes where it stopped when run again.",
		"--from FILE.db|URL --to URL|FILE.db")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hpkeeper migrate: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *from == "" || *to == "" {
		fmt.Fprintln(stderr, "hpkeeper migrate: --from and --to are both required")
		return 2
	}
	if *from == *to || (!storage.IsPostgresURL(*from) && !storage.IsPostgresURL(*to) && storage.SamePath(*from, *to)) {
		fmt.Fprintln(stderr, "hpkeeper migrate: --from and --to are the same database")
		return 2
	}
	open := func(where string) (*storage.DB, error) {
		if storage.IsPostgresURL(where) {
			return storage.OpenPostgres(where, storage.PostgresOptions{Timeout: migrateTimeout, CacheBytes: -1})
		}
		return storage.Open(where, storage.Options{CacheBytes: -1})
	}
	src, err := open(*from)
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper migrate: source: %v\n", err)
		return 1
	}
	defer src.Close()
	dst, err := open(*to)
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper migrate: destination: %v\n", err)
		return 1
	}
	defer dst.Close()
	fromName, toName := storage.RedactURL(*from), storage.RedactURL(*to)
	fmt.Fprintf(stdout, "copying %s → %s\n", fromName, toName)
	start, last := time.Now(), time.Now()
	rep, err := storage.CopyDatabase(ctx, src, dst, func(channelID string, r storage.CopyReport) {
		if time.Since(last) >= 5*time.Second {
			last = time.Now()
			fmt.Fprintf(stdout, "  %s copied, %s there already (at %s)\n", counted(r.Channels, "table"), counted(r.Present, "table"), channelID)
		}
	})
	fmt.Fprintf(stdout, "%s copied and checked, %s there already and checked equal: %s, %s, %s in %s\n",
		counted(rep.Channels, "channel"), counted(rep.Present, "channel"), counted(rep.Tables, "table"),
		counted(rep.Characters, "character"), counted(rep.Events, "event"), time.Since(start).Round(time.Millisecond))
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "hpkeeper migrate: stopped; what was copied stays: run the same command again to go on\n")
		return 1
	case errors.Is(err, storage.ErrCopyConflict):
		fmt.Fprintf(stderr, "hpkeeper migrate: %v\n(the destination was written by something else: migrate into an empty database, or remove that table there)\n", err)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "hpkeeper migrate: %v\n(what was copied stays: run the same command again to go on)\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s holds every table of %s.\n", toName, fromName)
	if storage.IsPostgresURL(*to) {
		fmt.Fprintf(stdout, "Run the bot on it: storage.url = %q (or HPKEEPER_DB_URL), as many serve or run processes as you like.\n", toName)
	}
	return 0
}
