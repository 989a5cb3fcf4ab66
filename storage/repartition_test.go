package storage

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// shardedSource writes a file with tables in guilds of every shard of 4 (two
// channels on shard 2), a DM table, characters created, renamed and
// deleted, a table whose creation was undone (its history kept, no table
// record) and a saved replay guard. It returns the path, closed, and each
// channel's guild.
func shardedSource(t *testing.T, dir string) (string, map[string]string) {
	t.Helper()
	path := filepath.Join(dir, "source.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	guilds := map[string]string{
		"1311000000000000200": guildOn(0, 4, 1),
		"1311000000000000201": guildOn(1, 4, 2),
		"1311000000000000202": guildOn(2, 4, 3),
		"1311000000000000203": guildOn(2, 4, 4),
		"1311000000000000204": guildOn(3, 4, 5),
		"1311000000000000205": "", // a DM: shard 0
	}
	for _, ch := range slices.Sorted(maps.Keys(guilds)) {
		record(t, db, ch, func(tx *Tx, e *Event) error {
			tbl := newTable(ch)
			tbl.GuildID = guilds[ch]
			e.TableAfter = tbl
			return tx.PutTable(tbl)
		})
		record(t, db, ch, createCharacter("Lister"))
		record(t, db, ch, createCharacter("Rimmer"))
		c := record(t, db, ch, createCharacter("Kryten"))
		record(t, db, ch, changeCharacter(1, func(c *Character) { c.Name = "Dave"; c.Sheet = sheet(2) }))
		record(t, db, ch, deleteCharacterOp(c.Changes[0].CharacterID))
	}
	// A table set up and undone in a guild of shard 3: only its events say
	// which guild it was.
	const undone = "1311000000000000206"
	guilds[undone] = guildOn(3, 4, 6)
	e := record(t, db, undone, func(tx *Tx, e *Event) error {
		tbl := newTable(undone)
		tbl.GuildID = guilds[undone]
		e.TableAfter = tbl
		return tx.PutTable(tbl)
	})
	if err := undo(db, e); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveReplayState([]byte("guard of the process that stopped")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path, guilds
}

// dump returns every key of a file under tables/ with its value, and every
// bucket's sequence, as "tables/<channel>/<bucket>/<key>" → bytes.
func dump(t *testing.T, path string) map[string]string {
	t.Helper()
	bdb, err := openReadOnly(path, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	out := map[string]string{}
	var walk func(prefix string, b *bolt.Bucket)
	walk = func(prefix string, b *bolt.Bucket) {
		out[prefix+"#seq"] = fmt.Sprint(b.Sequence())
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(prefix+fmt.Sprintf("%x", k)+"/", b.Bucket(k))
			} else {
				out[prefix+fmt.Sprintf("%x", k)] = string(v)
			}
			return nil
		})
	}
	if err := bdb.View(func(btx *bolt.Tx) error {
		walk("tables/", btx.Bucket(bucketTables))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// channelsIn returns the channel ids of a file's tables bucket.
func channelsIn(d map[string]string) []string {
	seen := map[string]bool{}
	for k := range d {
		if rest, ok := strings.CutPrefix(k, "tables/"); ok {
			if ch, _, ok := strings.Cut(rest, "/"); ok {
				seen[ch] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// records is every decoded record of a channel.
type records struct {
	State  state
	Events []*Event
}

func readRecords(t *testing.T, path string, channels []string) map[string]records {
	t.Helper()
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]records{}
	for _, ch := range channels {
		r := records{State: readState(t, db, ch)}
		mustView(t, db, func(tx *Tx) error {
			return tx.EachEventBackward(ch, func(e *Event) (bool, error) {
				r.Events = append(r.Events, e)
				return true, nil
			})
		})
		out[ch] = r
	}
	return out
}

func hexID(ch string) string { return fmt.Sprintf("%x", ch) }

// TestRepartitionSplitAndMerge splits one file into four by shard and
// merges the four back: every table lands in the file of its guild's shard,
// the counts before and after are equal, the merged file holds every key,
// value and sequence of the source byte for byte (and so every record
// decodes equal), the ids and event numbers carry on, and the replay guard
// of the process that stopped is left behind.
func TestRepartitionSplitAndMerge(t *testing.T) {
	dir := t.TempDir()
	src, guilds := shardedSource(t, dir)
	want := dump(t, src)
	var outputs []ShardFile
	for s := 0; s < 4; s++ {
		r := ShardRange{Count: 4, First: s, Last: s}
		outputs = append(outputs, ShardFile{Path: filepath.Join(dir, "shard-"+r.IDs()+".db"), Shards: r})
	}
	rep, err := Repartition([]string{src}, outputs, testTimeout)
	if err != nil {
		t.Fatalf("Repartition(split into 4) = %v", err)
	}
	// 6 tables (the undone one is history), 2 characters each (one
	// deleted), 6 events each plus 2 for the undone table.
	wantCounts := Counts{Tables: 6, Characters: 12, Events: 38}
	if rep.Before != wantCounts || rep.After != wantCounts {
		t.Errorf("counts before %+v, after %+v; want %+v both", rep.Before, rep.After, wantCounts)
	}
	if got := rep.Channels; !slices.Equal(got, []int{2, 1, 2, 2}) {
		t.Errorf("channels per output %v; want [2 1 2 2] (shard 0: a guild and the DM; shard 3: a table and an undone one)", got)
	}
	union := map[string]string{}
	for s, o := range outputs {
		d := dump(t, o.Path)
		for _, ch := range channelsIn(d) {
			var guild string
			for c, g := range guilds {
				if hexID(c) == ch {
					guild = g
				}
			}
			if got, _ := ShardOf(guild, 4); got != s {
				t.Errorf("%s holds channel %s of guild %q (shard %d); want only shard %d", o.Path, ch, guild, got, s)
			}
		}
		for k, v := range d {
			if k == "tables/#seq" {
				continue
			}
			union[k] = v
		}
	}
	delete(want, "tables/#seq")
	if !reflect.DeepEqual(union, want) {
		t.Errorf("the four files hold %d keys together; want exactly the source's %d, byte for byte", len(union), len(want))
	}
	for _, entry := range []string{".partial"} {
		matches, _ := filepath.Glob(filepath.Join(dir, "*"+entry+"*"))
		if len(matches) > 0 {
			t.Errorf("temporary files left: %v", matches)
		}
	}

	merged := filepath.Join(dir, "merged.db")
	var paths []string
	for _, o := range outputs {
		paths = append(paths, o.Path)
	}
	rep, err = Repartition(paths, []ShardFile{{Path: merged}}, testTimeout)
	if err != nil {
		t.Fatalf("Repartition(merge the 4) = %v", err)
	}
	if rep.Before != wantCounts || rep.After != wantCounts {
		t.Errorf("merge: counts before %+v, after %+v; want %+v both", rep.Before, rep.After, wantCounts)
	}
	got := dump(t, merged)
	delete(got, "tables/#seq")
	if !reflect.DeepEqual(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("merged %s = %q; want %q", k, got[k], v)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("merged has %s, which the source has not", k)
			}
		}
	}
	channels := slices.Sorted(maps.Keys(guilds))
	if a, b := readRecords(t, src, channels), readRecords(t, merged, channels); !reflect.DeepEqual(a, b) {
		t.Errorf("decoded records of the merged file differ from the source's")
	}

	// The outputs serve their own shards only, carry the sequences on, and
	// hold no replay guard (serve then applies its rule for a crash).
	db, err := Open(outputs[2].Path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.ClaimShards(outputs[2].Shards); err != nil {
		t.Errorf("ClaimShards(%v) on its own file = %v", outputs[2].Shards, err)
	}
	if err := db.ClaimShards(outputs[1].Shards); !errors.Is(err, ErrShardMismatch) {
		t.Errorf("ClaimShards(%v) on the file of %v = %v; want ErrShardMismatch", outputs[1].Shards, outputs[2].Shards, err)
	}
	if st, err := db.TakeReplayState(); err != nil || st != nil {
		t.Errorf("TakeReplayState of a split file = %q, %v; want none", st, err)
	}
	c := record(t, db, "1311000000000000202", createCharacter("Cat"))
	if id := c.Changes[0].CharacterID; id != 4 || c.Seq != 7 {
		t.Errorf("a new character in a split file got id %d in event %d; want id 4 (Kryten's 3 is never reused) in event 7", id, c.Seq)
	}
	if st, err := openMerged(t, merged).TakeReplayState(); err != nil || st != nil {
		t.Errorf("TakeReplayState of a merged file = %q, %v; want none", st, err)
	}
}

func openMerged(t *testing.T, path string) *DB {
	t.Helper()
	return mustOpenPath(t, path)
}

// TestRepartitionChangesCount moves four files of 4 shards to two files of
// 8 shards each (shards 0-3 and 4-7), and two of the four files alone to
// one file of their two shards: every table to its new shard.
func TestRepartitionChangesCount(t *testing.T) {
	dir := t.TempDir()
	src, guilds := shardedSource(t, dir)
	var four []ShardFile
	for s := 0; s < 4; s++ {
		r := ShardRange{Count: 4, First: s, Last: s}
		four = append(four, ShardFile{Path: filepath.Join(dir, "four-"+r.IDs()+".db"), Shards: r})
	}
	if _, err := Repartition([]string{src}, four, testTimeout); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, o := range four {
		paths = append(paths, o.Path)
	}
	eight := []ShardFile{
		{Path: filepath.Join(dir, "eight-0-3.db"), Shards: ShardRange{Count: 8, First: 0, Last: 3}},
		{Path: filepath.Join(dir, "eight-4-7.db"), Shards: ShardRange{Count: 8, First: 4, Last: 7}},
	}
	rep, err := Repartition(paths, eight, testTimeout)
	if err != nil {
		t.Fatalf("Repartition(4 files → 2 of 8 shards) = %v", err)
	}
	if rep.Before != rep.After || rep.After.Tables != 6 {
		t.Errorf("counts before %+v, after %+v; want equal, 6 tables", rep.Before, rep.After)
	}
	for _, o := range eight {
		for _, ch := range channelsIn(dump(t, o.Path)) {
			for c, g := range guilds {
				if hexID(c) != ch {
					continue
				}
				if _, owned, _ := o.Shards.Owns(g); !owned {
					t.Errorf("%s holds channel %s of guild %q, not of %v", o.Path, c, g, o.Shards)
				}
			}
		}
	}

	// Shards 2 and 3 of 4 alone into one file: the same guilds.
	pair := ShardFile{Path: filepath.Join(dir, "four-2-3.db"), Shards: ShardRange{Count: 4, First: 2, Last: 3}}
	rep, err = Repartition(paths[2:], []ShardFile{pair}, testTimeout)
	if err != nil {
		t.Fatalf("Repartition(shards 2 and 3 → one file) = %v", err)
	}
	if rep.After.Tables != 3 || rep.Channels[0] != 4 {
		t.Errorf("shards 2-3: %d tables, %d channels; want 3 and 4", rep.After.Tables, rep.Channels[0])
	}
}

// TestRepartitionRefuses: what does not fit is refused before anything is
// written, and a failure halfway leaves no output and no temporary file.
func TestRepartitionRefuses(t *testing.T) {
	dir := t.TempDir()
	src, _ := shardedSource(t, dir)
	split := func(n int) []ShardFile {
		var out []ShardFile
		for s := 0; s < n; s++ {
			r := ShardRange{Count: n, First: s, Last: s}
			out = append(out, ShardFile{Path: filepath.Join(dir, fmt.Sprintf("out-%d-of-%d.db", s, n)), Shards: r})
		}
		return out
	}
	quarters := split(4)
	if _, err := Repartition([]string{src}, quarters, testTimeout); err != nil {
		t.Fatal(err)
	}
	var quarterPaths []string
	for _, o := range quarters {
		quarterPaths = append(quarterPaths, o.Path)
	}
	existing := filepath.Join(dir, "existing.db")
	if err := os.WriteFile(existing, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	r4 := func(first, last int) ShardRange { return ShardRange{Count: 4, First: first, Last: last} }
	at := func(name string, r ShardRange) ShardFile { return ShardFile{Path: filepath.Join(dir, name), Shards: r} }

	tests := []struct {
		name    string
		sources []string
		outputs []ShardFile
		want    string
	}{
		{"an output exists", []string{src}, []ShardFile{{Path: existing}}, "exists"},
		{"an output is a source", []string{src}, []ShardFile{{Path: src}}, "named twice"},
		{"overlapping ranges", []string{src}, []ShardFile{at("a.db", r4(0, 2)), at("b.db", r4(2, 3))}, "shard 2 is in two outputs"},
		{"a shard without a file", []string{src}, []ShardFile{at("a.db", r4(0, 1)), at("b.db", r4(3, 3))}, "not every shard"},
		{"two counts", []string{src}, []ShardFile{at("a.db", r4(0, 1)), at("b.db", ShardRange{Count: 8, First: 4, Last: 7})}, "of 8 shards"},
		{"a whole output beside others", []string{src}, []ShardFile{at("a.db", ShardRange{}), at("b.db", r4(0, 1))}, "holds every guild"},
		{"some of the bot's files to another count", quarterPaths[:2], split(8), "name every file of the bot"},
		{"some of the bot's files merged whole", quarterPaths[:3], []ShardFile{at("m.db", ShardRange{})}, "name every file of the bot"},
		{"some files to other shards", quarterPaths[:2], []ShardFile{at("a.db", r4(1, 2))}, "the outputs shards 1-2"},
		{"a whole file with others", []string{src, quarterPaths[0]}, []ShardFile{at("m.db", ShardRange{})}, "holds every guild"},
		{"a shard in two files", []string{quarterPaths[0], quarterPaths[1], quarterPaths[2], quarterPaths[3], copyOf(t, quarterPaths[3], filepath.Join(dir, "dup.db"))}, []ShardFile{at("m.db", ShardRange{})}, "shard 3 is in two sources"},
		{"a channel in two files", []string{quarterPaths[0], quarterPaths[1], quarterPaths[3], restamped(t, copyOf(t, quarterPaths[3], filepath.Join(dir, "as-2.db")), "2-2/4")}, []ShardFile{at("m.db", ShardRange{})}, "is in " + quarterPaths[3] + " and in " + filepath.Join(dir, "as-2.db")},
	}
	for _, tt := range tests {
		before, _ := filepath.Glob(filepath.Join(dir, "*"))
		_, err := Repartition(tt.sources, tt.outputs, testTimeout)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Repartition = %v; want an error saying %q", tt.name, err, tt.want)
		}
		if after, _ := filepath.Glob(filepath.Join(dir, "*")); !slices.Equal(before, after) {
			t.Errorf("%s: the directory went from %v to %v; want nothing written", tt.name, before, after)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("the existing output was changed to %q", b)
	}
}

// copyOf copies the file src to dst and returns dst.
func copyOf(t *testing.T, src, dst string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestRepartitionRefusesWhatItCannotPlace: a table of a malformed guild id,
// a channel in two files, a meta key or bucket of unknown meaning, and a
// file a process holds stop the split, and it leaves nothing behind; a
// merge into one file takes any guild id.
func TestRepartitionRefusesWhatItCannotPlace(t *testing.T) {
	outputs := func(dir string) []ShardFile {
		return []ShardFile{
			{Path: filepath.Join(dir, "a.db"), Shards: ShardRange{Count: 2, First: 0, Last: 0}},
			{Path: filepath.Join(dir, "b.db"), Shards: ShardRange{Count: 2, First: 1, Last: 1}},
		}
	}
	file := func(t *testing.T, fn func(db *DB, path string)) (string, string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "source.db")
		db := mustOpenPath(t, path)
		// Many tables first, so the bad one comes after outputs were written.
		for i := 0; i < 20; i++ {
			ch := fmt.Sprintf("13110000000000003%02d", i)
			record(t, db, ch, func(tx *Tx, e *Event) error {
				tbl := newTable(ch)
				tbl.GuildID = guildOn(i%2, 2, i)
				return tx.PutTable(tbl)
			})
		}
		fn(db, path)
		return dir, path
	}
	tests := []struct {
		name  string
		setup func(db *DB, path string)
		want  error
		text  string
	}{
		{"a malformed guild id", func(db *DB, _ string) {
			record(t, db, "1311000000000000399", func(tx *Tx, e *Event) error {
				tbl := newTable("1311000000000000399") // guild "g1"
				return tx.PutTable(tbl)
			})
			db.Close()
		}, ErrBadGuildID, `table 1311000000000000399: "g1"`},
		{"no guild known", func(db *DB, _ string) {
			mustUpdate(t, db, func(tx *Tx) error { return tx.AppendEvent(&Event{ChannelID: "1311000000000000398", At: t0}) })
			db.Close()
		}, errNoGuild, "table 1311000000000000398"},
		{"an unknown meta key", func(db *DB, path string) {
			db.Close()
			rawUpdate(t, path, func(btx *bolt.Tx) error { return btx.Bucket(bucketMeta).Put([]byte("cache-epoch"), []byte("7")) })
		}, nil, `meta/"cache-epoch" is not known`},
		{"an unknown bucket", func(db *DB, path string) {
			db.Close()
			rawUpdate(t, path, func(btx *bolt.Tx) error { _, err := btx.CreateBucket([]byte("snapshots")); return err })
		}, nil, `bucket "snapshots" is not known`},
		{"a file held by a process", func(*DB, string) {}, ErrLocked, "locked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, path := file(t, tt.setup)
			_, err := Repartition([]string{path}, outputs(dir), 50*time.Millisecond)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Repartition = %v; want an error wrapping %v saying %q", err, tt.want, tt.text)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); !slices.Equal(left, []string{path}) {
				t.Errorf("left in the directory: %v; want only the source", left)
			}
		})
	}

	// A merge into one file places nothing, so any guild id goes.
	dir, path := file(t, func(db *DB, _ string) {
		record(t, db, "1311000000000000399", func(tx *Tx, e *Event) error { return tx.PutTable(newTable("1311000000000000399")) })
		db.Close()
	})
	rep, err := Repartition([]string{path}, []ShardFile{{Path: filepath.Join(dir, "m.db")}}, testTimeout)
	if err != nil || rep.After.Tables != 21 {
		t.Errorf("merge of a file with guild \"g1\" = %+v, %v; want 21 tables", rep.After, err)
	}
}

// restamped sets the meta/shards of the closed file path and returns path.
func restamped(t *testing.T, path, stamp string) string {
	rawUpdate(t, path, func(btx *bolt.Tx) error { return btx.Bucket(bucketMeta).Put(keyShards, []byte(stamp)) })
	return path
}

// rawUpdate changes a closed file with bbolt directly.
func rawUpdate(t *testing.T, path string, fn func(*bolt.Tx) error) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	if err := bdb.Update(fn); err != nil {
		t.Fatal(err)
	}
}
