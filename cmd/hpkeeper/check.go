package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// opsFlags parses the flags of an operator subcommand (backup, check,
// health): fs's own flags, then --config and the configuration. It returns
// the configuration, or an exit code: 0 after -h, 2 for bad flags or
// arguments, 1 for a configuration that does not load.
func opsFlags(fs *flag.FlagSet, args []string, stderr io.Writer, getenv func(string) string) (Config, int, bool) {
	configPath := fs.String("config", getenv("HPKEEPER_CONFIG"), "TOML configuration `file` (see config.example.toml)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, 0, false
		}
		return Config{}, 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return Config{}, 2, false
	}
	cfg, err := LoadConfig(*configPath, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return Config{}, 1, false
	}
	return cfg, 0, true
}

// checkMain runs `hpkeeper check`: bbolt's consistency check and every
// record decoded, on a file no process holds; the schema version and the
// counts on stdout. It returns 0 for a sound file, 1 for any problem (a
// file held by a process, unreadable, inconsistent, or of a newer schema),
// 2 for a usage error.
func checkMain(_ context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("hpkeeper check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "the database `file` to check (default: storage.path of the config, hpkeeper.db); no process may hold it. A postgres:// URL checks that database (default: storage.url), while it runs")
	fs.Usage = usageFunc(fs, "check", "check a database file that no process holds (bbolt's consistency check, every record decoded) and print its schema version and counts; exit 1 on any problem.",
		"[--db FILE|URL] [--config FILE]", "HPKEEPER_CONFIG", "HPKEEPER_DB", "HPKEEPER_DB_URL", "HPKEEPER_LOCK_TIMEOUT")
	cfg, code, ok := opsFlags(fs, args, stderr, getenv)
	if !ok {
		return code
	}
	if *dbPath != "" {
		setDB(&cfg, *dbPath)
	}
	if cfg.Storage.URL != "" {
		return checkPostgres(cfg.Storage.URL, stdout, stderr) // pgops.go
	}
	timeout, err := cfg.LockTimeout() // valid: LoadConfig checked it
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper check: %v\n", err)
		return 1
	}
	rep, err := storage.Inspect(cfg.Storage.Path, timeout)
	if errors.Is(err, storage.ErrLocked) {
		// The copy comes through the running process, which backup finds
		// in the same configuration: keep --config in the suggestion.
		config := ""
		if p := fs.Lookup("config").Value.String(); p != "" {
			config = " --config " + shellQuote(p)
		}
		db := shellQuote(cfg.Storage.Path)
		fmt.Fprintf(stderr, "hpkeeper check: %s is held by a running process (waited %s); check a copy instead:\n"+
			"  hpkeeper backup%s --db %s --to copy.db && hpkeeper check --db copy.db\n", cfg.Storage.Path, timeout, config, db)
		return 1
	}
	switch {
	case rep != nil:
		verdict := "consistent: bbolt's check passed and every record decodes"
		if err != nil {
			verdict = "NOT sound"
		}
		fmt.Fprintf(stdout, "%s: %s\n%s", rep.Path, verdict, describeReport(rep))
	case errors.Is(err, storage.ErrDamaged):
		// Nothing was counted: no "0 tables" for a file that was not read.
		fmt.Fprintf(stdout, "%s: NOT sound: the file is damaged; its records were not read\n", cfg.Storage.Path)
	}
	var de *storage.DamageError
	if errors.As(err, &de) {
		advice := "restore the last backup (README: Backups and restore)"
		if de.Readable {
			advice += ", or, with no backup left, start run or serve with --allow-unsound to use the file as bbolt reads it"
		}
		fmt.Fprintf(stderr, "hpkeeper check: %v; %s\n", err, advice)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper check: %v\n", err)
		return 1
	}
	return 0
}

// describeReport renders the schema version and the counts of rep, one per
// line, indented.
func describeReport(rep *storage.Report) string {
	schema := schemaLine(rep.SchemaVersion, storage.SchemaVersion) // pgops.go
	return fmt.Sprintf("  schema version %s\n  tables         %d\n  characters     %d\n  events         %d\n  size           %s\n",
		schema, rep.Tables, rep.Characters, rep.Events, byteSize(rep.Size))
}

// byteSize renders n bytes as people read them: "1.5 MB (1,523,712 bytes)".
func byteSize(n int64) string {
	exact := groupDigits(n) + " bytes"
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB (%s)", float64(n)/(1<<30), exact)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB (%s)", float64(n)/(1<<20), exact)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB (%s)", float64(n)/(1<<10), exact)
	}
	return exact
}

// groupDigits writes n with thousands separators: 1234567 → "1,234,567".
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:=@, so that a suggested command works as printed.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
