package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/discord"
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
	rep, err := storage.PlaceTables(ctx, sources, outputs, shardPlacement{sources, outputs}, timeout)
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

// shardPlacement is where `hpkeeper shard` puts each table: in the output
// whose range holds its guild's shard (discord.Owns), every table in the
// one output of a merge. Its outputs must share one shard count, not
// overlap, and together hold exactly the guilds the sources hold: every
// guild, or, when the sources hold a share of one shard count
// (meta/shards), that same share.
type shardPlacement struct {
	sources []string
	outputs []storage.ShardFile
}

// Check refuses outputs whose ranges do not hold exactly the guilds the
// sources hold (held, their meta/shards).
func (p shardPlacement) Check(held []storage.ShardRange) error {
	srcSet, srcCount, err := union(held, "source", func(i int) string { return p.sources[i] })
	if err != nil {
		return err
	}
	ranges := make([]storage.ShardRange, len(p.outputs))
	for i, o := range p.outputs {
		ranges[i] = o.Shards
	}
	outSet, outCount, err := union(ranges, "output", func(i int) string { return p.outputs[i].Path })
	if err != nil {
		return err
	}
	srcAll, outAll := srcSet == nil || !slices.Contains(srcSet, false), outSet == nil || !slices.Contains(outSet, false)
	switch {
	case srcAll && !outAll:
		return fmt.Errorf("the outputs hold shards %s of %d, not every shard: the others' tables would have no file", shardList(outSet), outCount)
	case !srcAll && (outAll || outCount != srcCount):
		return fmt.Errorf("the sources hold shards %s of %d only: name every file of the bot", shardList(srcSet), srcCount)
	case !srcAll && !slices.Equal(srcSet, outSet):
		return fmt.Errorf("the sources hold shards %s of %d, the outputs shards %s", shardList(srcSet), srcCount, shardList(outSet))
	}
	return nil
}

// Place returns the output whose range holds the table's guild; a merge
// (one output of every guild) reads no guild, so any guild id goes.
func (p shardPlacement) Place(guild func() (string, error)) (int, error) {
	if len(p.outputs) == 1 && p.outputs[0].Shards.Whole() {
		return 0, nil
	}
	g, err := guild()
	if err != nil {
		return 0, err
	}
	var shard int
	for i, o := range p.outputs {
		s, owned, err := discord.Owns(o.Shards, g)
		if err != nil {
			return 0, err
		}
		if owned {
			return i, nil
		}
		shard = s
	}
	return 0, fmt.Errorf("guild %s (shard %d of %d) belongs to no output", g, shard, p.outputs[0].Shards.Count)
}

// union returns the shards the ranges hold together as a set indexed by
// shard id (nil: every guild, from a whole range), and their count. It
// refuses ranges of different counts, overlapping ones, and a whole range
// beside others.
func union(rs []storage.ShardRange, what string, name func(int) string) ([]bool, int, error) {
	var set []bool
	count := 0
	for i, r := range rs {
		if r.Whole() {
			if len(rs) > 1 {
				return nil, 0, fmt.Errorf("%s %s holds every guild: it cannot go with other %ss", what, name(i), what)
			}
			return nil, r.Count, nil
		}
		if set == nil {
			set, count = make([]bool, r.Count), r.Count
		}
		if r.Count != count {
			return nil, 0, fmt.Errorf("%s %s is of %d shards, %s of %d", what, name(i), r.Count, name(0), count)
		}
		for s := r.First; s <= r.Last; s++ {
			if set[s] {
				return nil, 0, fmt.Errorf("shard %d is in two %ss (%s)", s, what, name(i))
			}
			set[s] = true
		}
	}
	return set, count, nil
}

// shardList names the shards in set: "0-3, 6".
func shardList(set []bool) string {
	var parts []string
	for s := 0; s < len(set); s++ {
		if !set[s] {
			continue
		}
		e := s
		for e+1 < len(set) && set[e+1] {
			e++
		}
		parts = append(parts, storage.ShardRange{Count: len(set), First: s, Last: e}.IDs())
		s = e
	}
	return strings.Join(parts, ", ")
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
