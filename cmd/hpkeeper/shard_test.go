package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/discord"
	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// guildOfShard returns a made-up snowflake guild id on shard, of count
// shards; n makes it unique.
func guildOfShard(shard, count, n int) string { return discordtest.GuildOn(shard, count, n) }

// playTables writes a file as the bot would: in each of the guilds (a DM
// for ""), a table set up in one channel, two characters created, one
// damaged and the damage undone. It returns the channel of each guild.
func playTables(t *testing.T, path string, guilds ...string) map[string]string {
	t.Helper()
	db, err := storage.Open(path, storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := commands.New(db, dice.NewRandom(7), systems, features()...)
	channels := map[string]string{}
	for n, g := range guilds {
		ch := strconv.Itoa(1311000000000000300 + n)
		channels[g] = ch
		do := func(sub string, opts ...string) {
			t.Helper()
			cmd, sub, _ := strings.Cut(sub, " ")
			r := &commands.Request{Kind: commands.KindCommand, GuildID: g, ChannelID: ch, UserID: "1311000000000001001", UserName: "gm",
				Command: cmd, Subcommand: sub, Options: map[string]string{}}
			for i := 0; i+1 < len(opts); i += 2 {
				r.Options[opts[i]] = opts[i+1]
			}
			if resp := svc.Handle(context.Background(), r); resp.Ephemeral {
				t.Fatalf("/%s %s %v in guild %q: %s", cmd, sub, opts, g, resp.Content)
			}
		}
		do("table setup", "system", "hp-mp-wp")
		do("char create", "name", "Lister", "stats", "hp-max=9 mp-max=0")
		do("char create", "name", "Rimmer", "stats", "hp-max=7 mp-max=2")
		do("damage", "target", "Lister", "amount", "2")
		do("undo")
	}
	return channels
}

// TestShardSplitAndMerge runs `hpkeeper shard split` from one file to four
// and `hpkeeper shard merge` back: the counts printed before and after are
// equal, each file holds its shards' tables, the merged file holds every
// record of the original, and the command names the run flags of each file.
func TestShardSplitAndMerge(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hpkeeper.db")
	var guilds []string
	for s := 0; s < 4; s++ {
		guilds = append(guilds, guildOfShard(s, 4, s))
	}
	guilds = append(guilds, "", guildOfShard(3, 4, 9))
	channels := playTables(t, src, guilds...)

	code, stdout, stderr := runCmd(t, map[string]string{"HPKEEPER_DB": src}, "shard", "split", "--shards", "4", "--to", filepath.Join(dir, "hpkeeper-{ids}.db"))
	if code != 0 {
		t.Fatalf("shard split = %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"read  " + src + ": 6 tables, 12 characters, 30 events",
		"wrote " + filepath.Join(dir, "hpkeeper-0.db") + ": shard 0 of 4: 2 tables, 4 characters, 10 events, 2 channels, checked",
		"wrote " + filepath.Join(dir, "hpkeeper-3.db") + ": shard 3 of 4: 2 tables, 4 characters, 10 events, 2 channels, checked",
		"before: 6 tables, 12 characters, 30 events in 1 file\nafter:  6 tables, 12 characters, 30 events in 4 files: equal",
		"hpkeeper run --shards 4 --shard-ids 2 --db " + filepath.Join(dir, "hpkeeper-2.db"),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("shard split printed\n%s\nwant it to say %q", stdout, want)
		}
	}
	for s := 0; s < 4; s++ {
		path := filepath.Join(dir, fmt.Sprintf("hpkeeper-%d.db", s))
		for g, ch := range channels {
			shard, _ := discord.ShardOf(g, 4)
			if got := len(tableAt(t, path, ch)) > 0; got != (shard == s) {
				t.Errorf("%s has the table of guild %q (shard %d): %v", path, g, shard, got)
			}
		}
	}

	var parts []string
	for s := 0; s < 4; s++ {
		parts = append(parts, filepath.Join(dir, fmt.Sprintf("hpkeeper-%d.db", s)))
	}
	merged := filepath.Join(dir, "merged.db")
	code, stdout, stderr = runCmd(t, nil, "shard", "merge", "--from", strings.Join(parts, ","), "--to", merged)
	if code != 0 || !strings.Contains(stdout, "before: 6 tables, 12 characters, 30 events in 4 files\nafter:  6 tables, 12 characters, 30 events in 1 file: equal") ||
		!strings.Contains(stdout, "wrote "+merged+": every guild:") || !strings.Contains(stdout, "hpkeeper run --db "+merged) {
		t.Fatalf("shard merge = %d\n%s%s", code, stdout, stderr)
	}
	for _, ch := range channels {
		if a, b := tableAt(t, src, ch), tableAt(t, merged, ch); !reflect.DeepEqual(a, b) || len(a) == 0 {
			t.Errorf("channel %s: merged records differ from the original's:\n%v\n%v", ch, b, a)
		}
	}
}

// tableAt returns the table, characters and events of channel ch in the
// file at path, encoded as text; empty when the channel has no table.
func tableAt(t *testing.T, path, ch string) []string {
	t.Helper()
	db, err := storage.Open(path, storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	err = db.View(func(tx *storage.Tx) error {
		tbl, err := tx.Table(ch)
		if err != nil {
			return nil
		}
		out = append(out, fmt.Sprintf("%+v", *tbl))
		cs, err := tx.Characters(ch)
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%+v %s", *c, c.Sheet))
		}
		if err != nil {
			return err
		}
		return tx.EachEventBackward(ch, func(e *storage.Event) (bool, error) {
			out = append(out, fmt.Sprintf("%d %s %s %v", e.Seq, e.Command, e.Summary, e.Dice))
			return true, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestShardHelp: each operation's -h says what it does in one line, its
// usage, its flags and the environment it reads, as every subcommand's does.
func TestShardHelp(t *testing.T) {
	for op, flags := range map[string][]string{"split": {"config", "from", "shard-ids", "shards", "to"}, "merge": {"config", "from", "to"}} {
		code, stdout, stderr := runCmd(t, nil, "shard", op, "-h")
		help := stdout + stderr
		first, _, _ := strings.Cut(help, "\n")
		if code != 0 || !strings.HasPrefix(first, "hpkeeper shard "+op+": ") || !strings.HasSuffix(first, ".") ||
			!strings.Contains(help, "Usage: hpkeeper shard "+op+" --from") || !strings.Contains(help, "HPKEEPER_DB") {
			t.Errorf("shard %s -h = %d:\n%s", op, code, help)
		}
		if got := strings.Join(flagsIn(help), " "); got != strings.Join(flags, " ") {
			t.Errorf("shard %s -h lists the flags %q; want %q", op, got, strings.Join(flags, " "))
		}
	}
}

func TestShardCommandErrors(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hpkeeper.db")
	playTables(t, src, guildOfShard(0, 2, 1))
	existing := filepath.Join(dir, "taken.db")
	if err := os.WriteFile(existing, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := storage.Open(filepath.Join(dir, "held.db"), storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"shard"}, 2, "Usage:"},
		{[]string{"shard", "-h"}, 0, "hpkeeper shard split"},
		{[]string{"shard", "rebalance"}, 2, `unknown operation "rebalance"`},
		{[]string{"shard", "split", "--from", src, "--shards", "2"}, 2, "--to is required"},
		{[]string{"shard", "split", "--from", src, "--to", dir + "/x-{ids}.db"}, 2, "--shards 0: give the new shard count"},
		{[]string{"shard", "split", "--from", src, "--shards", "2", "--to", dir + "/x.db"}, 2, "needs {ids}"},
		{[]string{"shard", "split", "--from", src, "--shards", "4", "--shard-ids", "0-1,2-4", "--to", dir + "/x-{ids}.db"}, 2, "--shard-ids"},
		{[]string{"shard", "split", "--from", src, "--shards", "4", "--shard-ids", "0-1,3", "--to", dir + "/x-{ids}.db"}, 1, "not every shard"},
		{[]string{"shard", "merge", "--from", src, "--to", existing}, 1, "exists; name a new file"},
		{[]string{"shard", "merge", "--from", filepath.Join(dir, "held.db"), "--to", dir + "/m.db"}, 1, "stop the process that holds it first"},
		{[]string{"shard", "merge", "--from", src, "--to", dir + "/m.db", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(stdout+stderr, tt.out) {
			t.Errorf("run(%q) = %d, output %q; want %d and %q", tt.args, code, stdout+stderr, tt.code, tt.out)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 3 {
		t.Errorf("files after the refusals: %v; want only the source, the taken file and the held one", left)
	}
}

// TestDescribeCounts: the counts shard split and merge print agree in
// number with their figures.
func TestDescribeCounts(t *testing.T) {
	for c, want := range map[storage.Counts]string{
		{Tables: 1, Characters: 1, Events: 1}:         "1 table, 1 character, 1 event",
		{Tables: 0, Characters: 2, Events: 1500}:      "0 tables, 2 characters, 1,500 events",
		{Tables: 300, Characters: 1200, Events: 1500}: "300 tables, 1,200 characters, 1,500 events",
	} {
		if got := describeCounts(c); got != want {
			t.Errorf("describeCounts(%+v) = %q; want %q", c, got, want)
		}
	}
	if got := counted(1, "channel") + ", " + counted(0, "channel"); got != "1 channel, 0 channels" {
		t.Errorf("counted = %q; want \"1 channel, 0 channels\"", got)
	}
}

// TestShardPlacementChecksTheShares: hpkeeper shard takes outputs that
// share one shard count, do not overlap, and together hold exactly the
// guilds the sources hold (held, their meta/shards), and refuses others
// before storage writes anything.
func TestShardPlacementChecksTheShares(t *testing.T) {
	r4 := func(first, last int) storage.ShardRange {
		return storage.ShardRange{Count: 4, First: first, Last: last}
	}
	at := func(name string, r storage.ShardRange) storage.ShardFile {
		return storage.ShardFile{Path: name, Shards: r}
	}
	whole, quarters := storage.ShardRange{}, []storage.ShardRange{r4(0, 0), r4(1, 1), r4(2, 2), r4(3, 3)}
	var split4, split8 []storage.ShardFile
	for s := 0; s < 8; s++ {
		if s < 4 {
			split4 = append(split4, at(fmt.Sprintf("out-%d-of-4.db", s), r4(s, s)))
		}
		split8 = append(split8, at(fmt.Sprintf("out-%d-of-8.db", s), storage.ShardRange{Count: 8, First: s, Last: s}))
	}
	tests := []struct {
		name    string
		held    []storage.ShardRange
		outputs []storage.ShardFile
		want    string // "": taken
	}{
		{"a split of a whole file", []storage.ShardRange{whole}, split4, ""},
		{"a merge of every file", quarters, []storage.ShardFile{at("m.db", whole)}, ""},
		{"two files of 4 shards to one", quarters[2:], []storage.ShardFile{at("p.db", r4(2, 3))}, ""},
		{"four files of 4 shards to 8", quarters, split8, ""},
		{"overlapping ranges", []storage.ShardRange{whole}, []storage.ShardFile{at("a.db", r4(0, 2)), at("b.db", r4(2, 3))}, "shard 2 is in two outputs"},
		{"a shard without a file", []storage.ShardRange{whole}, []storage.ShardFile{at("a.db", r4(0, 1)), at("b.db", r4(3, 3))}, "not every shard"},
		{"two counts", []storage.ShardRange{whole}, []storage.ShardFile{at("a.db", r4(0, 1)), at("b.db", storage.ShardRange{Count: 8, First: 4, Last: 7})}, "of 8 shards"},
		{"a whole output beside others", []storage.ShardRange{whole}, []storage.ShardFile{at("a.db", whole), at("b.db", r4(0, 1))}, "holds every guild"},
		{"some of the bot's files to another count", quarters[:2], split8, "name every file of the bot"},
		{"some of the bot's files merged whole", quarters[:3], []storage.ShardFile{at("m.db", whole)}, "name every file of the bot"},
		{"some files to other shards", quarters[:2], []storage.ShardFile{at("a.db", r4(1, 2))}, "the outputs shards 1-2"},
		{"a whole file with others", []storage.ShardRange{whole, quarters[0]}, []storage.ShardFile{at("m.db", whole)}, "holds every guild"},
		{"a shard in two files", append(append([]storage.ShardRange(nil), quarters...), quarters[3]), []storage.ShardFile{at("m.db", whole)}, "shard 3 is in two sources"},
	}
	for _, tt := range tests {
		sources := make([]string, len(tt.held))
		for i := range sources {
			sources[i] = fmt.Sprintf("source-%d.db", i)
		}
		err := shardPlacement{sources, tt.outputs}.Check(tt.held)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Check = %v; want the outputs taken", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Check = %v; want an error saying %q", tt.name, err, tt.want)
		}
	}
}

// TestShardRefusesAMalformedGuild: shard split refuses a table whose guild
// id is not a snowflake, which no shard holds, and leaves nothing behind;
// shard merge places no table by its guild, so it takes any guild id.
func TestShardRefusesAMalformedGuild(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "hpkeeper.db")
	channels := playTables(t, src, guildOfShard(0, 2, 1), "g1", guildOfShard(1, 2, 2))
	code, stdout, stderr := runCmd(t, nil, "shard", "split", "--from", src, "--shards", "2", "--to", dir+"/x-{ids}.db")
	if want := "table " + channels["g1"] + `: "g1": guild id is not a snowflake`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("shard split of a table of guild \"g1\" = %d\n%s%s\nwant 1 and %q", code, stdout, stderr, want)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); !reflect.DeepEqual(left, []string{src}) {
		t.Errorf("files after the refusal: %v; want only the source", left)
	}
	if code, stdout, stderr := runCmd(t, nil, "shard", "merge", "--from", src, "--to", dir+"/m.db"); code != 0 || !strings.Contains(stdout, "3 tables") {
		t.Errorf("shard merge of a table of guild \"g1\" = %d\n%s%s\nwant 0 and its 3 tables", code, stdout, stderr)
	}
}
