package storage

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestReadEventsIsTheWholeWalk: any set of events read by a plan is what
// the walk of the whole history gives, in a read and in a write
// transaction, from checkpoints and on from the event before, at a
// history of compact events and at one of an import's whole events under
// compact ones; the plan's size is what the read parses, fewer than
// checkpointEvery+2 events for each event given.
func TestReadEventsIsTheWholeWalk(t *testing.T) { bothBackends(t, testReadEventsIsTheWholeWalk) }

func testReadEventsIsTheWholeWalk(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x9ead))
	db := mustOpen(t)
	longHistory(t, db, "c1", 3*checkpointEvery+40, rng)
	importHistory(t, db, "c1", "c2", checkpointEvery+10)
	longHistory(t, db, "c2", checkpointEvery, rng)
	for _, ch := range []string{"c1", "c2"} {
		full := allEvents(t, db, ch)
		n := uint64(len(full))
		for try := range 40 {
			var asked []uint64
			k := 1 + rng.IntN(12)
			if try%4 == 0 {
				k = 1 // /undo's read: one event
			}
			for range k {
				asked = append(asked, 1+rng.Uint64N(n+2)) // some past the newest
			}
			var want []*Event
			for _, e := range full {
				if slices.Contains(asked, e.Seq) {
					want = append(want, e)
				}
			}
			read := func(tx *Tx) ([]*Event, ReadSize, int) {
				p, err := tx.PlanEvents(ch, asked)
				if err != nil {
					t.Fatalf("seed %d: PlanEvents(%v): %v", seed, asked, err)
				}
				var got []*Event
				if err := tx.ReadEvents(p, func(e *Event) error { got = append(got, e); return nil }); err != nil {
					t.Fatalf("seed %d: ReadEvents(%v): %v", seed, asked, err)
				}
				return got, p.Size(), p.Len()
			}
			var gotR, gotW []*Event
			var size ReadSize
			var runs int
			parsed := db.EventsParsed()
			mustView(t, db, func(tx *Tx) error { gotR, size, runs = read(tx); return nil })
			if got := db.EventsParsed() - parsed; got != int64(size.Events) {
				t.Errorf("seed %d: %s: ReadEvents(%v) parsed %d events; its plan said %d", seed, ch, asked, got, size.Events)
			}
			if err := db.Update(func(tx *Tx) error { gotW, _, _ = read(tx); return errRollback }); !errors.Is(err, errRollback) {
				t.Fatal(err)
			}
			for what, got := range map[string][]*Event{"read": gotR, "write": gotW} {
				if !reflect.DeepEqual(got, want) {
					t.Errorf("seed %d: %s: ReadEvents(%v) in a %s transaction gave %v; want %v", seed, ch, asked, what, seqs(got), seqs(want))
				}
			}
			if runs != len(want) || size.Events < len(want) || size.Events > len(want)*(checkpointEvery+2) || size.Bytes <= 0 && len(want) > 0 {
				t.Errorf("seed %d: %s: plan of %v: %d events, size %+v; want %d events, each parsing at most %d", seed, ch, asked, runs, size, len(want), checkpointEvery+2)
			}
		}
	}
}

// TestReadEventsCostsWhatItParses: the plan's size counts exactly the
// events the walks parse: the checkpoint's, the events stepped over, and
// the one given; an event a checkpoint holds is read from it.
func TestReadEventsCostsWhatItParses(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	appendEvents(t, db, "c1", 2*checkpointEvery+10) // newest: 522
	mustView(t, db, func(tx *Tx) error {
		for _, c := range []struct {
			seqs   []uint64
			events int
		}{
			{[]uint64{522}, 1},                  // from the records
			{[]uint64{520}, 3},                  // 522, 521 stepped over
			{[]uint64{512}, 2},                  // the checkpoint's records, then the event
			{[]uint64{257}, 1 + 256},            // from checkpoint 512: 512 … 258 stepped over, then 257
			{[]uint64{260, 258}, 1 + 253 + 2},   // one walk from 512 for both
			{[]uint64{511, 2}, 1 + 2 + 1 + 255}, // from 512 down to 511, then from 256 down to 2
			{[]uint64{600, 0}, 0},               // no such events
		} {
			p, err := tx.PlanEvents("c1", c.seqs)
			if err != nil {
				return err
			}
			if got := p.Size().Events; got != c.events {
				t.Errorf("PlanEvents(%v) parses %d events; want %d", c.seqs, got, c.events)
			}
		}
		return nil
	})
}
