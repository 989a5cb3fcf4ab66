package main

import (
	"fmt"
	"io"

	"github.com/hpkeeper/hpkeeper/storage"
)

// check and backup on a PostgreSQL database (storage.url): what they do
// there, and what they leave to PostgreSQL's own tools.

// checkPostgres runs `hpkeeper check` on the PostgreSQL database at url:
// storage.InspectPostgres, in one read-only snapshot while the replicas
// run. It returns 0 for a sound database, 1 for any problem.
func checkPostgres(url string, stdout, stderr io.Writer) int {
	rep, err := storage.InspectPostgres(url, 0)
	if rep != nil {
		verdict := "consistent: every record decodes, every history reads back to its checkpoints, every character is found by its name"
		if err != nil {
			verdict = "NOT sound"
		}
		schema := schemaLine(rep.SchemaVersion, storage.PostgresSchemaVersion)
		fmt.Fprintf(stdout, "%s: %s\n  schema version %s\n  tables         %d\n  characters     %d\n  events         %d\n"+
			"  (PostgreSQL checks what lies below the rows, its pages and indexes: pg_amcheck)\n",
			rep.Path, verdict, schema, rep.Tables, rep.Characters, rep.Events)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper check: %v\n", err)
		return 1
	}
	return 0
}

// schemaLine says a database's schema version have against the version
// known this program reads and writes, and what follows from it.
func schemaLine(have, known uint64) string {
	line := fmt.Sprintf("%d (this program: %d)", have, known)
	switch {
	case have < known:
		line += "; hpkeeper migrates it when it opens it"
	case have > known:
		line += "; written by a newer hpkeeper, which this one refuses to open"
	}
	return line
}

// backupPostgres answers `hpkeeper backup` on the PostgreSQL database at
// url: it names the tools that copy one (1: nothing written).
func backupPostgres(url, to string, stderr io.Writer) int {
	u := storage.RedactURL(url)
	fmt.Fprintf(stderr, "hpkeeper backup: %s is a PostgreSQL database, which hpkeeper does not copy as a file; nothing was written to %s.\n"+
		"  A consistent copy while the replicas run:  pg_dump --format=custom --file=hpkeeper.dump '%s'\n"+
		"  Restore it into an empty database:         pg_restore --dbname='<new database URL>' hpkeeper.dump\n"+
		"  A bbolt file of it (checked record by record):  hpkeeper migrate --from '%s' --to %s\n"+
		"  Continuous copies and failover: a standby (docs/scaling.md).\n", u, to, u, u, to)
	return 1
}
