package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// channelRecords are a channel's table and characters.
type channelRecords struct {
	Table      *storage.Table
	Characters []*storage.Character
}

// fileState reads every channel's records and newest event from a copy of
// db's file, opened with no cache: what the file itself holds.
func fileState(t *testing.T, db *storage.DB, dir string, n *int) (path string, recs map[string]channelRecords, last map[string]uint64) {
	t.Helper()
	*n++
	path = filepath.Join(dir, fmt.Sprintf("copy%d.db", *n))
	var buf bytes.Buffer
	if _, err := db.Backup(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	recs, last = readFile(t, path)
	return path, recs, last
}

// readFile reads every channel's records and newest event seq of a file.
func readFile(t *testing.T, path string) (map[string]channelRecords, map[string]uint64) {
	t.Helper()
	f, err := storage.Open(path, storage.Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, last := map[string]channelRecords{}, map[string]uint64{}
	err = f.View(func(tx *storage.Tx) error {
		tables, err := tx.Tables()
		if err != nil {
			return err
		}
		for _, tb := range tables {
			cs, err := tx.Characters(tb.ChannelID)
			if err != nil {
				return err
			}
			// The GM inbox is no part of what /undo puts back
			// (storage.Table.GMInbox).
			recs[tb.ChannelID] = channelRecords{Table: tb.Undoable(), Characters: cs}
			if last[tb.ChannelID], err = tx.LastEventSeq(tb.ChannelID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs, last
}

// TestUndoOfEveryCommandIsExact replays every console script and, after
// each line that recorded events, reverts those events (newest first) in a
// copy of the file as /undo does, from the events as stored (only what
// changed, read back from the records and the later events), and checks
// that every table and character of the reverted copy, read back from the
// file, is exactly what the file held before the line: every command kind
// of every system, its buttons and modals included.
func TestUndoOfEveryCommandIsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the database after every line")
	}
	scripts, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, script := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(script), ".txt"), func(t *testing.T) {
			in, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			db, err := storage.Open(filepath.Join(dir, "hpkeeper.db"), storage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			queue := dice.NewQueue(dice.NewRandom(1))
			svc := commands.New(db, queue, systems, features()...)
			svc.SetClock(func() time.Time { return fixedNow })
			var out bytes.Buffer
			c := New(svc, queue, &out, Options{})
			copies, reverted := 0, 0
			_, before, seqs := fileState(t, db, dir, &copies)
			for n, line := range strings.Split(string(in), "\n") {
				line = strings.TrimRight(line, " \t\r")
				if err := c.Exec(context.Background(), line); err != nil && !errors.Is(err, ErrNotUnderstood) {
					t.Fatalf("line %d %q: %v", n+1, line, err)
				}
				path, after, afterSeqs := fileState(t, db, dir, &copies)
				changed := false
				for ch, seq := range afterSeqs {
					if seq > seqs[ch] {
						changed = true
						revertSince(t, path, ch, seqs[ch], fmt.Sprintf("line %d %q", n+1, line))
						reverted++
					}
				}
				if changed {
					got, _ := readFile(t, path)
					for ch, want := range before {
						if !reflect.DeepEqual(got[ch], want) {
							t.Errorf("line %d %q, channel %s: reverted\n%s\nwant\n%s", n+1, line, ch, dump(got[ch]), dump(want))
						}
					}
					for ch := range got {
						if _, ok := before[ch]; !ok && got[ch].Table != nil {
							t.Errorf("line %d %q: channel %s has a table after reverting its setup", n+1, line, ch)
						}
					}
				}
				before, seqs = after, afterSeqs
			}
			if reverted == 0 {
				t.Error("no line recorded an event")
			}
			t.Logf("%d lines reverted exactly", reverted)
		})
	}
}

// revertSince reverts every event of channel ch after seq in the file at
// path, newest first, and commits.
func revertSince(t *testing.T, path, ch string, seq uint64, what string) {
	t.Helper()
	f, err := storage.Open(path, storage.Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = f.Update(func(tx *storage.Tx) error {
		var events []*storage.Event
		err := tx.EachEventBackward(ch, func(e *storage.Event) (bool, error) {
			if e.Seq <= seq {
				return false, nil
			}
			events = append(events, e)
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := tx.RevertEvent(e); err != nil {
				return fmt.Errorf("revert event %d (%s): %w", e.Seq, e.Command, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

func dump(r channelRecords) string {
	var b strings.Builder
	fmt.Fprintf(&b, "table %+v\n", r.Table)
	for _, c := range r.Characters {
		fmt.Fprintf(&b, "  %+v sheet %s\n", *c, c.Sheet)
	}
	return b.String()
}
