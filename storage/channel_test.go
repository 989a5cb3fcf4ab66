package storage

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestChannelsKeepToTheirKeys: channels whose ids are prefixes of one
// another ("c", "c1", "c10") share the channels bucket, and every read
// and walk of one stays within its own keys: its characters, its events
// newest first, its last event, a walk from the middle, and a channel with
// no records between them.
func TestChannelsKeepToTheirKeys(t *testing.T) {
	db := mustOpen(t)
	counts := map[string]int{"c": 1, "c1": 2, "c10": 3, "c2": 4}
	for _, ch := range []string{"c10", "c", "c2", "c1"} {
		setupTable(t, db, ch, fmt.Sprintf("Lister-%s", ch))
		appendEvents(t, db, ch, counts[ch])
	}
	mustView(t, db, func(tx *Tx) error {
		tables, err := tx.Tables()
		if err != nil {
			return err
		}
		var ids []string
		for _, tb := range tables {
			ids = append(ids, tb.ChannelID)
		}
		if fmt.Sprint(ids) != "[c c1 c10 c2]" {
			t.Errorf("Tables() = %v; want [c c1 c10 c2]", ids)
		}
		for ch, n := range counts {
			chars, err := tx.Characters(ch)
			if err != nil {
				return err
			}
			if len(chars) != 1 || chars[0].Name != "Lister-"+ch || chars[0].ID != 1 {
				t.Errorf("Characters(%s) = %v; want its own Lister, id 1", ch, charNames(chars))
			}
			var seqs []uint64
			err = tx.EachEventBackward(ch, func(e *Event) (bool, error) {
				if e.ChannelID != ch {
					t.Errorf("EachEventBackward(%s) gave an event of %s", ch, e.ChannelID)
				}
				seqs = append(seqs, e.Seq)
				return true, nil
			})
			if err != nil {
				return err
			}
			if len(seqs) != n || seqs[0] != uint64(n) || seqs[n-1] != 1 {
				t.Errorf("EachEventBackward(%s) gave seqs %v; want %d down to 1", ch, seqs, n)
			}
			if last, err := tx.LastEventSeq(ch); err != nil || last != uint64(n) {
				t.Errorf("LastEventSeq(%s) = %d, %v; want %d", ch, last, err, n)
			}
			var below []uint64
			err = tx.EachEventBefore(ch, 2, func(e *Event) (bool, error) {
				below = append(below, e.Seq)
				return true, nil
			})
			if err != nil {
				return err
			}
			if fmt.Sprint(below) != "[1]" {
				t.Errorf("EachEventBefore(%s, 2) gave %v; want [1]", ch, below)
			}
		}
		for _, ch := range []string{"c0", "c11", "c1 ", "d"} {
			if last, err := tx.LastEventSeq(ch); err != nil || last != 0 {
				t.Errorf("LastEventSeq(%s) (no records) = %d, %v; want 0", ch, last, err)
			}
			if _, err := tx.Table(ch); !errors.Is(err, ErrNotFound) {
				t.Errorf("Table(%s) (no records) error %v; want ErrNotFound", ch, err)
			}
			err := tx.EachEventBackward(ch, func(e *Event) (bool, error) {
				t.Errorf("EachEventBackward(%s) (no records) gave event %d of %s", ch, e.Seq, e.ChannelID)
				return true, nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err := db.Check(); err != nil {
		t.Error(err)
	}
}

// TestChannelIDWithZeroByteRefused: a channel id holding 0x00 would run
// into another channel's keys: reads and writes refuse it.
func TestChannelIDWithZeroByteRefused(t *testing.T) {
	bothBackends(t, testChannelIDWithZeroByteRefused)
}

func testChannelIDWithZeroByteRefused(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	err := db.Update(func(tx *Tx) error { return tx.PutTable(newTable("c1\x00t")) })
	if !errors.Is(err, errBadChannel) {
		t.Errorf("PutTable(c1\\x00t) error %v; want errBadChannel", err)
	}
	err = db.View(func(tx *Tx) error {
		_, err := tx.Table("c1\x00c")
		return err
	})
	if !errors.Is(err, errBadChannel) {
		t.Errorf("Table(c1\\x00c) error %v; want errBadChannel", err)
	}
}

// TestInspectAndPlaceTablesKeepToTheirKeys: channels whose ids are
// prefixes of one another ("1", "12", "120", "123"), on alternate shards,
// are each checked and counted alone by Inspect, and a split copies each
// channel's keys (and only its own) into the file of its shard, byte for
// byte; the merge back holds exactly the source's keys.
func TestInspectAndPlaceTablesKeepToTheirKeys(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "source.db")
	db := mustOpenPath(t, src)
	ids := []string{"1", "12", "120", "123"}
	for i, ch := range ids {
		tb := newTable(ch)
		tb.GuildID = guildOn(i%2, 2, i+1)
		mustUpdate(t, db, func(tx *Tx) error {
			if err := tx.PutTable(tb); err != nil {
				return err
			}
			for n := 0; n <= i; n++ {
				if err := tx.CreateCharacter(newCharacter(ch, fmt.Sprintf("Lister-%d", n), 3)); err != nil {
					return err
				}
			}
			return tx.AppendEvent(&Event{ChannelID: ch, At: t0, Command: "/table setup", TableAfter: tb})
		})
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Inspect(src, testTimeout)
	if err != nil {
		t.Fatalf("Inspect(source) = %v", err)
	}
	if want := (Counts{Tables: 4, Characters: 1 + 2 + 3 + 4, Events: 4}); (Counts{rep.Tables, rep.Characters, rep.Events}) != want {
		t.Errorf("Inspect(source) counted %+v; want %+v", rep, want)
	}

	want := dump(t, src)
	outputs := []ShardFile{
		{Path: filepath.Join(dir, "shard-0.db"), Shards: ShardRange{Count: 2, First: 0, Last: 0}},
		{Path: filepath.Join(dir, "shard-1.db"), Shards: ShardRange{Count: 2, First: 1, Last: 1}},
	}
	if _, err := repartition([]string{src}, outputs, testTimeout); err != nil {
		t.Fatalf("repartition(split in 2) = %v", err)
	}
	var paths []string
	for s, o := range outputs {
		paths = append(paths, o.Path)
		got := dump(t, o.Path)
		mine := map[string]string{}
		for i, ch := range ids {
			if i%2 != s {
				continue
			}
			prefix := "channels/" + hexID(ch) + "/"
			for k, v := range want {
				if strings.HasPrefix(k, prefix) {
					mine[k] = v
				}
			}
		}
		if !reflect.DeepEqual(got, mine) {
			t.Errorf("%s holds keys %v; want exactly those of its channels, %v", o.Path, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(mine)))
		}
	}
	merged := filepath.Join(dir, "merged.db")
	if _, err := repartition(paths, []ShardFile{{Path: merged}}, testTimeout); err != nil {
		t.Fatalf("repartition(merge) = %v", err)
	}
	if got := dump(t, merged); !reflect.DeepEqual(got, want) {
		t.Errorf("merged file holds keys %v; want the source's %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}
