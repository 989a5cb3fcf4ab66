package storage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// longHistory appends n events to the table in channel ch, as commands
// make them, chosen by rng: the table's setup (again after an undo of it),
// creations, changes of a sheet, the hidden flag or the name, two characters
// in one event, deletions, table changes (the clock, a turn order), parts,
// and undos of the event before, recorded as /undo records them. It runs
// them 25 to an Update.
func longHistory(tb testing.TB, db *DB, ch string, n int, rng *rand.Rand) {
	tb.Helper()
	var last *Event // the newest event, nil after an undo
	for done := 0; done < n; {
		mustUpdate(tb, db, func(tx *Tx) error {
			for i := 0; i < 25 && done < n; i, done = i+1, done+1 {
				e, err := historyStep(tx, ch, rng, last)
				if err != nil {
					return fmt.Errorf("event %d: %w", done+1, err)
				}
				last = e
			}
			return nil
		})
	}
}

// historyStep appends one event of longHistory in tx and returns it as
// stored, or nil when it was an undo.
func historyStep(tx *Tx, ch string, rng *rand.Rand, last *Event) (*Event, error) {
	e := &Event{ChannelID: ch, At: t0, UserID: "u-gm", Command: "/test", Dice: []string{"d20 [7] = 7"}}
	tbl, err := tx.Table(ch)
	if errors.Is(err, ErrNotFound) {
		tbl = newTable(ch)
		e.TableAfter = tbl
		if err := tx.PutTable(tbl); err != nil {
			return nil, err
		}
		return appendStored(tx, e)
	}
	if err != nil {
		return nil, err
	}
	chars, err := tx.Characters(ch)
	if err != nil {
		return nil, err
	}
	seq, err := tx.LastEventSeq(ch)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("N%d", seq+1) // never taken: one a seq
	switch k := rng.IntN(10); {
	case k == 0 && last != nil && last.UndoOf == 0:
		// The event before: nothing changed since, so it reverts.
		if err := tx.RevertEvent(last); err != nil {
			return nil, err
		}
		e.UndoOf, e.TableBefore, e.TableAfter = last.Seq, last.TableAfter, last.TableBefore
		for i := len(last.Changes) - 1; i >= 0; i-- {
			c := last.Changes[i]
			e.Changes = append(e.Changes, Change{CharacterID: c.CharacterID, Name: c.Name, Before: c.After, After: c.Before})
		}
		if err := tx.AppendEvent(e); err != nil {
			return nil, err
		}
		return nil, nil
	case k <= 2 || len(chars) < 2:
		c := newCharacter(ch, name, rng.IntN(20))
		c.Hidden = rng.IntN(3) == 0
		if err := tx.CreateCharacter(c); err != nil {
			return nil, err
		}
		e.Changes = append(e.Changes, Change{CharacterID: c.ID, Name: c.Name, After: c})
	case k == 3 && len(chars) > 3:
		c := chars[rng.IntN(len(chars))]
		if err := tx.DeleteCharacter(ch, c.ID); err != nil {
			return nil, err
		}
		e.Changes = append(e.Changes, Change{CharacterID: c.ID, Name: c.Name, Before: c})
	case k == 4:
		after := tbl.Clone()
		after.Clock += int64(rng.IntN(10))
		switch rng.IntN(3) {
		case 0:
			after.Initiative = nil
		default:
			after.Initiative = &Initiative{Combatants: []Combatant{{CharacterID: chars[0].ID, Initiative: rng.IntN(20), Join: 1, Roll: "given"}},
				Start: after.Clock, Joins: 1, Underway: rng.IntN(2) == 0}
		}
		if err := tx.PutTable(after); err != nil {
			return nil, err
		}
		e.TableBefore, e.TableAfter = tbl, after
	default:
		// One character changed, or two in one event.
		picked := []*Character{chars[rng.IntN(len(chars))]}
		if k == 5 {
			if other := chars[rng.IntN(len(chars))]; other.ID != picked[0].ID {
				picked = append(picked, other)
			}
		}
		for _, before := range picked {
			after := copyCharacter(before)
			after.Sheet = sheet(rng.IntN(30))
			switch rng.IntN(4) {
			case 0:
				after.Hidden = !after.Hidden
			case 1:
				after.Name = fmt.Sprintf("%s-%d", name, before.ID)
			}
			if err := tx.PutCharacter(after); err != nil {
				return nil, err
			}
			e.Changes = append(e.Changes, Change{CharacterID: after.ID, Name: before.Name, Before: before, After: after})
			if after.Hidden {
				e.Parts = append(e.Parts, EventPart{Characters: []uint64{after.ID}, Hidden: true, Summary: "hidden: " + after.Name})
			}
		}
	}
	return appendStored(tx, e)
}

// appendStored appends e and returns it as the history reads it back.
func appendStored(tx *Tx, e *Event) (*Event, error) {
	if err := tx.AppendEvent(e); err != nil {
		return nil, err
	}
	return tx.Event(e.ChannelID, e.Seq)
}

// allEvents returns the channel's events as EachEventBackward gives them,
// newest first.
func allEvents(tb testing.TB, db *DB, ch string) []*Event {
	tb.Helper()
	var out []*Event
	mustView(tb, db, func(tx *Tx) error {
		return tx.EachEventBackward(ch, func(e *Event) (bool, error) {
			out = append(out, e)
			return true, nil
		})
	})
	return out
}

// TestEachEventBeforeIsTheWholeWalk: a page of the history that starts
// below any event (EachEventBefore) gives exactly the events the walk from
// the newest gives there, in a read transaction and in a write one; on a
// history of compact events and on one that begins with whole events (an
// import) and goes on compact; and it steps over fewer than checkpointEvery
// newer events to start, wherever it starts. The file checks clean after
// (Inspect compares every checkpoint with the walk).
func TestEachEventBeforeIsTheWholeWalk(t *testing.T) {
	bothBackends(t, testEachEventBeforeIsTheWholeWalk)
}

func testEachEventBeforeIsTheWholeWalk(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0xc4ec))
	path := newStore(t)
	db, err := openStore(path)
	if err != nil {
		t.Fatal(err)
	}
	longHistory(t, db, "c1", 3*checkpointEvery+40, rng)
	// c2: an imported history of whole events, then the table's own.
	imported := allEvents(t, db, "c1")[:checkpointEvery+10]
	var encoded []EncodedEvent
	for i := range imported {
		e := *imported[len(imported)-1-i]
		e.ChannelID, e.Seq = "c2", uint64(i+1)
		enc, err := EncodeEvent(&e)
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, enc)
	}
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.PutTable(newTable("c2")); err != nil {
			return err
		}
		return tx.AppendEncodedEvents("c2", encoded)
	})
	longHistory(t, db, "c2", 2*checkpointEvery, rng)

	for _, ch := range []string{"c1", "c2"} {
		full := allEvents(t, db, ch) // newest first: full[i].Seq == n-i
		n := uint64(len(full))
		below := func(before uint64) []*Event {
			if before == 0 || before > n {
				return full
			}
			return full[n-before+1:]
		}
		befores := map[uint64]bool{0: true, 1: true, 2: true, n: true, n + 1: true, n + 5: true}
		for s := uint64(checkpointEvery); s <= n+checkpointEvery; s += checkpointEvery {
			for d := uint64(0); d <= 4; d++ {
				befores[s+d-2] = true
			}
		}
		for b := uint64(3); b < n; b += 1 + rng.Uint64N(20) {
			befores[b] = true
		}
		for before := range befores {
			// The first three of the page, in a read and in a write
			// transaction, and, for some, the whole page.
			limit := 3
			if before%29 == 0 {
				limit = len(full)
			}
			page := func(tx *Tx) []*Event {
				var got []*Event
				if err := tx.EachEventBefore(ch, before, func(e *Event) (bool, error) {
					got = append(got, e)
					return len(got) < limit, nil
				}); err != nil {
					t.Fatalf("seed %d: %s: EachEventBefore(%d): %v", seed, ch, before, err)
				}
				return got
			}
			want := below(before)[:min(limit, len(below(before)))]
			var read, written []*Event
			mustView(t, db, func(tx *Tx) error { read = page(tx); return nil })
			if err := db.Update(func(tx *Tx) error { written = page(tx); return errRollback }); !errors.Is(err, errRollback) {
				t.Fatal(err)
			}
			for what, got := range map[string][]*Event{"read": read, "write": written} {
				if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Errorf("seed %d: %s: EachEventBefore(%d) in a %s transaction gave %d events, not the %d the whole walk gives there (first %v)",
						seed, ch, before, what, len(got), len(want), seqs(got))
				}
			}
			// The bound: fewer than checkpointEvery events stepped over.
			mustView(t, db, func(tx *Tx) error {
				chb, err := tx.records(ch, false)
				if err != nil {
					return err
				}
				h, err := seekHistory(chb, before, false)
				if err != nil {
					return err
				}
				if h != nil && h.stepped >= checkpointEvery {
					t.Errorf("%s: EachEventBefore(%d) stepped over %d events of %d; want fewer than %d", ch, before, h.stepped, n, checkpointEvery)
				}
				return nil
			})
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := inspectStore(path); err != nil {
		t.Errorf("seed %d: Inspect: %v", seed, err)
	}
}

func seqs(es []*Event) []uint64 {
	var out []uint64
	for _, e := range es[:min(len(es), 5)] {
		out = append(out, e.Seq)
	}
	return out
}

// TestInspectFindsACheckpointThatDisagrees: a record written behind the
// history's back (no event records it) makes the checkpoint before it
// disagree with the walk from the newest, and hpkeeper check says so.
func TestInspectFindsACheckpointThatDisagrees(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	setupTable(t, db, "c1", "Lister", "Rimmer")
	mustUpdate(t, db, func(tx *Tx) error {
		for i := range checkpointEvery + 3 {
			e := &Event{ChannelID: "c1", At: t0}
			if err := changeCharacter(1, func(c *Character) { c.Sheet = sheet(i) })(tx, e); err != nil {
				return err
			}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(path, testTimeout); err != nil {
		t.Fatalf("Inspect before the stray write: %v", err)
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if err := bdb.Update(func(btx *bolt.Tx) error {
		return btx.Bucket(bucketChannels).Put(channelKey("c1", kindCharacter, itob(2)), []byte(`{"name":"Rimmer","created_at":"2025-03-01T20:16:30.123456789Z","sheet":{"hp":1}}`))
	}); err != nil {
		t.Fatal(err)
	}
	if err := bdb.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Inspect(path, testTimeout)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("event %d", checkpointEvery)) || !strings.Contains(err.Error(), "checkpoint's character 2") {
		t.Errorf("Inspect after a write no event records = %v; want the checkpoint of event %d named", err, checkpointEvery)
	}
}
