package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
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

// dump returns every key of a file's channels with its value: under
// channels/ as "channels/<channel>/<kind and key>" → bytes, or in a file
// of schema 3 and older under tables/, with every bucket's sequence, as
// "tables/<channel>/<bucket>/<key>" → bytes (ids and keys in hex).
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
		if b := btx.Bucket(bucketTables); b != nil { // schema 3 and older
			walk("tables/", b)
		}
		if b := btx.Bucket(bucketChannels); b != nil {
			return b.ForEach(func(k, v []byte) error {
				ch, rest, _ := bytes.Cut(k, []byte{0})
				out[fmt.Sprintf("channels/%x/%x", ch, rest)] = string(v)
				return nil
			})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// channelsIn returns the channel ids (hex) of a dump.
func channelsIn(d map[string]string) []string {
	seen := map[string]bool{}
	for k := range d {
		rest, ok := strings.CutPrefix(k, "tables/")
		if !ok {
			rest, ok = strings.CutPrefix(k, "channels/")
		}
		if ok {
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

// shardOfGuild is the tests' own oracle of Discord's shard formula,
// (guild_id >> 22) % count with DMs on shard 0: the one hpkeeper uses is
// bot/discord's, which imports this package.
func shardOfGuild(t *testing.T, guild string, count int) int {
	t.Helper()
	if guild == "" {
		return 0
	}
	id, err := strconv.ParseUint(guild, 10, 64)
	if err != nil {
		t.Fatalf("guild %q: %v", guild, err)
	}
	return int(id>>22) % count
}

// byShard places tables as hpkeeper shard does (cmd/hpkeeper/shard.go),
// for the tests of the copy: each in the output whose range holds its
// guild's shard (strconv's error for a guild id that is no number), and
// every table in the one output of a merge without reading its guild. It
// takes any shares of the sources: cmd/hpkeeper tests the tool's own
// checks.
type byShard []ShardFile

func (byShard) Check([]ShardRange) error { return nil }

func (p byShard) Place(guild func() (string, error)) (int, error) {
	if len(p) == 1 && p[0].Shards.Whole() {
		return 0, nil
	}
	g, err := guild()
	if err != nil {
		return 0, err
	}
	var id uint64
	if g != "" {
		if id, err = strconv.ParseUint(g, 10, 64); err != nil {
			return 0, err
		}
	}
	for i, o := range p {
		if s := int(id>>22) % o.Shards.Count; s >= o.Shards.First && s <= o.Shards.Last {
			return i, nil
		}
	}
	return 0, fmt.Errorf("guild %q is in no output", g)
}

// quarterFiles returns four outputs in dir, one for each shard of 4, named
// prefix and the shard: "shard-2.db".
func quarterFiles(dir, prefix string) []ShardFile {
	var out []ShardFile
	for s := 0; s < 4; s++ {
		r := ShardRange{Count: 4, First: s, Last: s}
		out = append(out, ShardFile{Path: filepath.Join(dir, prefix+r.IDs()+".db"), Shards: r})
	}
	return out
}

// repartition places every table of sources in the outputs byShard, as
// hpkeeper shard does.
func repartition(sources []string, outputs []ShardFile, timeout time.Duration) (*PlaceReport, error) {
	return PlaceTables(context.Background(), sources, outputs, byShard(outputs), timeout)
}

// TestPlaceTablesSplitAndMerge splits one file into four by shard and
// merges the four back: every table lands in the file of its guild's shard,
// the counts before and after are equal, the merged file holds every key,
// value and sequence of the source byte for byte (and so every record
// decodes equal), the ids and event numbers carry on, and the replay guard
// of the process that stopped is left behind.
func TestPlaceTablesSplitAndMerge(t *testing.T) {
	dir := t.TempDir()
	src, guilds := shardedSource(t, dir)
	want := dump(t, src)
	outputs := quarterFiles(dir, "shard-")
	rep, err := repartition([]string{src}, outputs, testTimeout)
	if err != nil {
		t.Fatalf("repartition(split into 4) = %v", err)
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
			if got := shardOfGuild(t, guild, 4); got != s {
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
	rep, err = repartition(paths, []ShardFile{{Path: merged}}, testTimeout)
	if err != nil {
		t.Fatalf("repartition(merge the 4) = %v", err)
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

// TestPlaceTablesChangesCount moves four files of 4 shards to two files of
// 8 shards each (shards 0-3 and 4-7), and two of the four files alone to
// one file of their two shards: every table to its new shard.
func TestPlaceTablesChangesCount(t *testing.T) {
	dir := t.TempDir()
	src, guilds := shardedSource(t, dir)
	four := quarterFiles(dir, "four-")
	if _, err := repartition([]string{src}, four, testTimeout); err != nil {
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
	rep, err := repartition(paths, eight, testTimeout)
	if err != nil {
		t.Fatalf("repartition(4 files → 2 of 8 shards) = %v", err)
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
				if sh := shardOfGuild(t, g, o.Shards.Count); sh < o.Shards.First || sh > o.Shards.Last {
					t.Errorf("%s holds channel %s of guild %q, not of %v", o.Path, c, g, o.Shards)
				}
			}
		}
	}

	// Shards 2 and 3 of 4 alone into one file: the same guilds.
	pair := ShardFile{Path: filepath.Join(dir, "four-2-3.db"), Shards: ShardRange{Count: 4, First: 2, Last: 3}}
	rep, err = repartition(paths[2:], []ShardFile{pair}, testTimeout)
	if err != nil {
		t.Fatalf("repartition(shards 2 and 3 → one file) = %v", err)
	}
	if rep.After.Tables != 3 || rep.Channels[0] != 4 {
		t.Errorf("shards 2-3: %d tables, %d channels; want 3 and 4", rep.After.Tables, rep.Channels[0])
	}
}

// TestPlaceTablesRefuses: what does not fit is refused before anything is
// written (the placement's refusal of the sources' shares included), and
// a failure halfway leaves no output and no temporary file.
func TestPlaceTablesRefuses(t *testing.T) {
	dir := t.TempDir()
	src, _ := shardedSource(t, dir)
	quarters := quarterFiles(dir, "out-")
	if _, err := repartition([]string{src}, quarters, testTimeout); err != nil {
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
	at := func(name string, r ShardRange) ShardFile { return ShardFile{Path: filepath.Join(dir, name), Shards: r} }
	var held []ShardRange // what the refusing placement was shown

	tests := []struct {
		name      string
		sources   []string
		outputs   []ShardFile
		placement Placement
		want      string
	}{
		{"an output exists", []string{src}, []ShardFile{{Path: existing}}, nil, "exists"},
		{"an output is a source", []string{src}, []ShardFile{{Path: src}}, nil, "named twice"},
		{"the placement refuses the sources", []string{quarterPaths[1], quarterPaths[3]}, []ShardFile{at("m.db", ShardRange{})},
			refusing{&held}, "not these shares"},
		{"a channel in two files", []string{quarterPaths[0], quarterPaths[1], quarterPaths[3], restamped(t, copyOf(t, quarterPaths[3], filepath.Join(dir, "as-2.db")), "2-2/4")}, []ShardFile{at("m.db", ShardRange{})}, nil, "is in " + quarterPaths[3] + " and in " + filepath.Join(dir, "as-2.db")},
	}
	for _, tt := range tests {
		before, _ := filepath.Glob(filepath.Join(dir, "*"))
		p := tt.placement
		if p == nil {
			p = byShard(tt.outputs)
		}
		_, err := PlaceTables(context.Background(), tt.sources, tt.outputs, p, testTimeout)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: PlaceTables = %v; want an error saying %q", tt.name, err, tt.want)
		}
		if after, _ := filepath.Glob(filepath.Join(dir, "*")); !slices.Equal(before, after) {
			t.Errorf("%s: the directory went from %v to %v; want nothing written", tt.name, before, after)
		}
	}
	if want := []ShardRange{quarters[1].Shards, quarters[3].Shards}; !slices.Equal(held, want) {
		t.Errorf("the placement was shown the shares %v; want the sources' meta/shards %v", held, want)
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("the existing output was changed to %q", b)
	}
}

// refusing is a placement that notes the shares of the sources it is
// shown and refuses them.
type refusing struct{ held *[]ShardRange }

func (r refusing) Check(held []ShardRange) error {
	*r.held = held
	return errors.New("not these shares")
}

func (refusing) Place(func() (string, error)) (int, error) {
	return 0, errors.New("placed after a refusal")
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

// TestPlaceTablesRefusesWhatItCannotPlace: a table the placement refuses
// (whose guild id is no number), a table whose guild no record names, a
// meta key or bucket of unknown meaning, and a file a process holds stop
// the split, and it leaves nothing behind; a merge into one file takes any
// guild id. (cmd/hpkeeper.TestShardRefusesAMalformedGuild: hpkeeper
// shard's own refusal of a guild id that is not a snowflake.)
func TestPlaceTablesRefusesWhatItCannotPlace(t *testing.T) {
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
		{"a guild the placement refuses", func(db *DB, _ string) {
			record(t, db, "1311000000000000399", func(tx *Tx, e *Event) error {
				tbl := newTable("1311000000000000399") // guild "g1"
				return tx.PutTable(tbl)
			})
			db.Close()
		}, strconv.ErrSyntax, `table 1311000000000000399: strconv.ParseUint: parsing "g1"`},
		{"no guild known", func(db *DB, _ string) {
			mustUpdate(t, db, func(tx *Tx) error { return tx.AppendEvent(&Event{ChannelID: "1311000000000000398", At: t0}) })
			db.Close()
		}, ErrNoGuild, "table 1311000000000000398"},
		{"an unknown meta key", func(db *DB, path string) {
			db.Close()
			rawUpdate(t, path, func(btx *bolt.Tx) error { return btx.Bucket(bucketMeta).Put([]byte("cache-epoch"), []byte("7")) })
		}, nil, `meta/"cache-epoch" is not known`},
		{"an unknown bucket", func(db *DB, path string) {
			db.Close()
			rawUpdate(t, path, func(btx *bolt.Tx) error { _, err := btx.CreateBucket([]byte("snapshots")); return err })
		}, nil, `bucket "snapshots" is not known`},
		// The layout of schema 3 in a file of schema 4: its channels
		// would not be copied, nor counted.
		{"a tables bucket beside the channels bucket", func(db *DB, path string) {
			db.Close()
			rawUpdate(t, path, func(btx *bolt.Tx) error {
				tables, err := btx.CreateBucket(bucketTables)
				if err != nil {
					return err
				}
				ch, err := tables.CreateBucket([]byte("1311000000000000397"))
				if err != nil {
					return err
				}
				return ch.Put(keyTable, []byte(`{"guild_id":"`+guildOn(0, 2, 97)+`"}`))
			})
		}, nil, `bucket "tables" of schema 3 and older in a file of schema version 5`},
		{"a file held by a process", func(*DB, string) {}, ErrLocked, "locked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, path := file(t, tt.setup)
			_, err := repartition([]string{path}, outputs(dir), 50*time.Millisecond)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("PlaceTables = %v; want an error wrapping %v saying %q", err, tt.want, tt.text)
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
	rep, err := repartition([]string{path}, []ShardFile{{Path: filepath.Join(dir, "m.db")}}, testTimeout)
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

// TestPlaceTablesOfLongHistories splits a file whose tables (one on each
// of 4 shards) have long histories of compact events, checkpoints
// included, into 4 and merges the 4 back: every file checks clean, every
// record and event decodes equal to the source's, and in every file each
// event, reverted newest first, gives back exactly the state before it,
// down to the empty channel.
func TestPlaceTablesOfLongHistories(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x5a4d))
	dir := t.TempDir()
	src := filepath.Join(dir, "source.db")
	db, err := Open(src, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	var channels []string
	var outputs []ShardFile
	for s := range 4 {
		ch := fmt.Sprintf("13110000000000003%02d", s)
		channels = append(channels, ch)
		mustUpdate(t, db, func(tx *Tx) error {
			tbl := newTable(ch)
			tbl.GuildID = guildOn(s, 4, 7)
			return tx.AppendEvent(&Event{ChannelID: ch, At: t0, TableAfter: tbl, Changes: []Change{}})
		})
		mustUpdate(t, db, func(tx *Tx) error { // the setup's write comes after its event: kept whole
			tbl := newTable(ch)
			tbl.GuildID = guildOn(s, 4, 7)
			return tx.PutTable(tbl)
		})
		longHistory(t, db, ch, checkpointEvery+20+rng.IntN(40), rng)
		r := ShardRange{Count: 4, First: s, Last: s}
		outputs = append(outputs, ShardFile{Path: filepath.Join(dir, "shard-"+r.IDs()+".db"), Shards: r})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	want := readRecords(t, src, channels)
	if _, err := repartition([]string{src}, outputs, testTimeout); err != nil {
		t.Fatalf("seed %d: split into 4: %v", seed, err)
	}
	merged := filepath.Join(dir, "merged.db")
	var paths []string
	for _, o := range outputs {
		paths = append(paths, o.Path)
	}
	if _, err := repartition(paths, []ShardFile{{Path: merged}}, testTimeout); err != nil {
		t.Fatalf("seed %d: merge the 4: %v", seed, err)
	}
	for i, path := range append(paths, merged) {
		held := channels
		if path != merged {
			held = channels[i : i+1]
		}
		got := readRecords(t, path, held)
		db := mustOpenPath(t, path)
		for _, ch := range held {
			if !reflect.DeepEqual(got[ch], want[ch]) {
				t.Errorf("seed %d: %s: channel %s decodes otherwise than in the source", seed, path, ch)
			}
			revertsExactly(t, db, ch)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// revertsExactly reverts every event of the channel in db, newest first,
// in one Update that it rolls back: each must revert with no conflict to
// exactly its before states, and the channel ends empty.
func revertsExactly(t *testing.T, db *DB, ch string) {
	t.Helper()
	events := allEvents(t, db, ch)
	err := db.Update(func(tx *Tx) error {
		for _, e := range events {
			if err := tx.RevertEvent(e); err != nil {
				return fmt.Errorf("revert event %d: %w", e.Seq, err)
			}
			for _, c := range e.Changes {
				got, err := tx.Character(ch, c.CharacterID)
				if c.Before == nil {
					if !errors.Is(err, ErrNotFound) {
						return fmt.Errorf("event %d created character %d; after its revert: %v, %v", e.Seq, c.CharacterID, got, err)
					}
					continue
				}
				if err != nil {
					return err
				}
				if same, err := sameCharacter(got, c.Before, ch); err != nil || !same {
					return fmt.Errorf("event %d: character %d reverts to %+v; want %+v", e.Seq, c.CharacterID, got, c.Before)
				}
			}
			if e.TableBefore != nil || e.TableAfter != nil {
				got, err := tx.Table(ch)
				if errors.Is(err, ErrNotFound) {
					got = nil
				} else if err != nil {
					return err
				}
				if same, err := sameTable(got, e.TableBefore, ch); err != nil || !same {
					return fmt.Errorf("event %d: the table reverts to %+v; want %+v", e.Seq, got, e.TableBefore)
				}
			}
		}
		if chars, err := tx.Characters(ch); err != nil || len(chars) != 0 {
			return fmt.Errorf("after reverting every event: characters %v, %v; want none", chars, err)
		}
		if _, err := tx.Table(ch); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("after reverting every event: table %v; want none", err)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Errorf("%s: channel %s: %v", db.path, ch, err)
	}
}

// TestPlaceTablesOfASchema2File: a file of schema 2 (its events whole,
// testdata/schema2.db) is merged as it is, without a migration first: the
// output keeps schema 2 and the counts, and the first Open migrates it and
// reads every event as the source's own Open does.
func TestPlaceTablesOfASchema2File(t *testing.T) {
	dir := t.TempDir()
	src := copyOf(t, filepath.Join("testdata", "schema2.db"), filepath.Join(dir, "schema2.db"))
	out := filepath.Join(dir, "merged.db")
	rep, err := repartition([]string{src}, []ShardFile{{Path: out}}, testTimeout)
	if err != nil {
		t.Fatalf("repartition(schema 2 file) = %v", err)
	}
	if v := rep.Outputs[0].SchemaVersion; v != 2 || rep.After != rep.Before || rep.After.Events == 0 {
		t.Errorf("output: schema %d, counts %+v (source %+v); want schema 2 and the source's counts", v, rep.After, rep.Before)
	}
	var channels []string
	bdb, err := openReadOnly(src, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	_ = bdb.View(func(btx *bolt.Tx) error {
		return btx.Bucket(bucketTables).ForEachBucket(func(k []byte) error {
			channels = append(channels, string(k))
			return nil
		})
	})
	bdb.Close()
	if a, b := readRecords(t, src, channels), readRecords(t, out, channels); !reflect.DeepEqual(a, b) {
		t.Errorf("the merged schema 2 file decodes otherwise than the source")
	}
	if r, err := Inspect(out, testTimeout); err != nil || r.SchemaVersion != SchemaVersion {
		t.Errorf("merged file after its first Open: %+v, %v; want schema %d", r, err, SchemaVersion)
	}
}
