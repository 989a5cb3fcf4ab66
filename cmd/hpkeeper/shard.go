package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

// idsPlaceholder is what `shard split --to` replaces with each file's shard
// ids ("0-3", or "2" for one shard).
const idsPlaceholder = "{ids}"

// shardUsage is `hpkeeper shard`'s help.
const shardUsage = `hpkeeper shard: move tables between database files when the shard count or the processes' shard ranges change (offline: stop the bot first).

Usage:
  hpkeeper shard split --from FILE[,FILE…] --shards N [--shard-ids A-B,…] --to PATTERN
        place every table of the files in the file of its guild's shard
  hpkeeper shard merge --from FILE,FILE… --to FILE
        put every table of the files into one file

"hpkeeper shard split -h" and "hpkeeper shard merge -h" describe their flags.
`

// shardMain runs `hpkeeper shard split|merge`. It returns 0 when every
// output was written and checked, 1 when none was (a source held, unsound
// or not placeable, the counts unequal, or ctx done: SIGINT or SIGTERM,
// after which the partial outputs are removed), 2 for a usage error.
func shardMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, shardUsage)
		return 2
	}
	op, rest := args[0], args[1:]
	var what, synopsis string
	switch op {
	case "split":
		what = "copy every table of the files (the bot stopped) into new files, one for each range of shards, by the shard of the table's guild ((guild_id >> 22) % N; DMs on shard 0), check each new file and compare the counts."
		synopsis = "--from FILE[,FILE…] --shards N [--shard-ids A-B,C-D…] --to PATTERN [--config FILE]"
	case "merge":
		what = "copy every table of the files (the bot stopped) into one new file, check it and compare the counts."
		synopsis = "--from FILE,FILE… --to FILE [--config FILE]"
	case "-h", "--help", "help":
		fmt.Fprint(stdout, shardUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "hpkeeper shard: unknown operation %q\n\n%s", op, shardUsage)
		return 2
	}
	fs := flag.NewFlagSet("hpkeeper shard "+op, flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the database `files` to read, comma-separated: every file of the bot, or those holding the shards being re-ranged (default: storage.path of the config); no process may hold them, and they are not changed")
	var shards *int
	var ids *string
	toHelp := "the new database `file`; it must not exist"
	if op == "split" {
		shards = fs.Int("shards", 0, "the new shard `count` N, as the processes will run with --shards")
		ids = fs.String("shard-ids", "", "the shard `ranges` of the new files, comma-separated, e.g. 0-3,4-7, as the processes will run with --shard-ids (default: one file per shard)")
		toHelp = "the new files: a `pattern` in which " + idsPlaceholder + " is each file's shard ids (hpkeeper-" + idsPlaceholder + ".db → hpkeeper-0-3.db); none may exist"
	}
	to := fs.String("to", "", toHelp)
	fs.Usage = usageFunc(fs, "shard "+op, what, synopsis, "HPKEEPER_CONFIG", "HPKEEPER_DB", "HPKEEPER_LOCK_TIMEOUT")
	cfg, code, ok := opsFlags(fs, rest, stderr, getenv)
	if !ok {
		return code
	}
	name := "hpkeeper shard " + op
	sources := splitList(*from)
	if len(sources) == 0 {
		sources = []string{cfg.Storage.Path}
	}
	if *to == "" {
		fmt.Fprintf(stderr, "%s: --to is required\n", name)
		return 2
	}
	outputs := []storage.ShardFile{{Path: *to}}
	if op == "split" {
		var err error
		if outputs, err = splitOutputs(*shards, *ids, *to); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 2
		}
	}
	timeout, err := time.ParseDuration(cfg.Storage.LockTimeout)
	if err != nil || timeout <= 0 {
		fmt.Fprintf(stderr, "%s: storage.lock_timeout %q is not a positive duration\n", name, cfg.Storage.LockTimeout)
		return 1
	}
	rep, err := storage.RepartitionContext(ctx, sources, outputs, timeout)
	for _, r := range rep.Sources {
		fmt.Fprintf(stdout, "read  %s: %s (schema version %d)\n", r.Path, describeCounts(countsOf(r)), r.SchemaVersion)
	}
	if errors.Is(err, storage.ErrStopped) {
		fmt.Fprintf(stderr, "%s: stopped (%v) before the end: the partial new files were removed; no file was written, the sources are unchanged.\n",
			name, context.Cause(ctx))
		return 1
	}
	if err != nil {
		if errors.Is(err, storage.ErrLocked) {
			err = fmt.Errorf("%w\n(stop the process that holds it first: shard %s works on files no process holds)", err, op)
		}
		fmt.Fprintf(stderr, "%s: %v\nNo file was written; the sources are unchanged.\n", name, err)
		return 1
	}
	for i, r := range rep.Outputs {
		fmt.Fprintf(stdout, "wrote %s: %s: %s, %s, checked\n", r.Path, guildsOf(outputs[i].Shards), describeCounts(countsOf(r)), counted(rep.Channels[i], "channel"))
	}
	fmt.Fprintf(stdout, "before: %s in %s\nafter:  %s in %s: equal\n",
		describeCounts(rep.Before), files(len(rep.Sources)), describeCounts(rep.After), files(len(rep.Outputs)))
	fmt.Fprintln(stdout, "The sources are unchanged: keep them until the processes run on the new files.")
	for _, o := range outputs {
		fmt.Fprintf(stdout, "  hpkeeper run %s--db %s\n", runShardFlags(o.Shards), o.Path)
	}
	return 0
}

// splitOutputs returns the files of `shard split`: one per range of ids
// (one per shard when ids is empty), named by pattern.
func splitOutputs(count int, ids, pattern string) ([]storage.ShardFile, error) {
	if count < 1 || count > storage.MaxShards {
		return nil, fmt.Errorf("--shards %d: give the new shard count, 1…%d", count, storage.MaxShards)
	}
	var ranges []storage.ShardRange
	if ids == "" {
		for s := 0; s < count; s++ {
			ranges = append(ranges, storage.ShardRange{Count: count, First: s, Last: s})
		}
	}
	for _, part := range splitList(ids) {
		r, err := storage.ParseShardRange(part, count)
		if err != nil {
			return nil, fmt.Errorf("--shard-ids: %w", err)
		}
		ranges = append(ranges, r)
	}
	if len(ranges) > 1 && !strings.Contains(pattern, idsPlaceholder) {
		return nil, fmt.Errorf("--to %q: with %d files the pattern needs %s, which becomes each file's shard ids", pattern, len(ranges), idsPlaceholder)
	}
	out := make([]storage.ShardFile, len(ranges))
	for i, r := range ranges {
		out[i] = storage.ShardFile{Path: strings.ReplaceAll(pattern, idsPlaceholder, r.IDs()), Shards: r}
	}
	return out, nil
}

// runShardFlags returns the `run` flags of a process serving r ("" for
// every guild, which any shard count serves).
func runShardFlags(r storage.ShardRange) string {
	if r.Whole() {
		return ""
	}
	return "--shards " + strconv.Itoa(r.Count) + " --shard-ids " + r.IDs() + " "
}

// guildsOf names the guilds of r: "shards 0-3 of 8", or "every guild".
func guildsOf(r storage.ShardRange) string {
	if r.Whole() {
		return "every guild"
	}
	return r.String()
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// files says "1 file" or "4 files".
func files(n int) string { return counted(n, "file") }

// counted says n of noun, in the plural but for one: "1 table",
// "1,200 characters".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return groupDigits(int64(n)) + " " + noun + "s"
}

// countsOf returns the counts of one report.
func countsOf(r *storage.Report) storage.Counts {
	return storage.Counts{Tables: r.Tables, Characters: r.Characters, Events: r.Events}
}

// describeCounts renders counts: "6 tables, 12 characters, 38 events"
// ("1 table, 1 character, 1 event").
func describeCounts(c storage.Counts) string {
	return counted(c.Tables, "table") + ", " + counted(c.Characters, "character") + ", " + counted(c.Events, "event")
}
