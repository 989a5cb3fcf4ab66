package storage

import (
	"errors"
	"fmt"
	"slices"
)

// Reading chosen events, paid for first.
//
// An event is read back from the events after it (eventcodec.go): to give
// event t, a walk starts from the first checkpoint above t (or from the
// records, when there is none below the newest event) and steps back over
// the events between, parsing each. The index (index.go) says which
// events a command shows; PlanEvents says what giving them will read,
// reading only the sizes of the events it will parse, and ReadEvents
// reads them. A command pays for the plan's Size before ReadEvents runs
// (the history feature does), so that what a read costs is what it reads.

// ReadSize is what a read of events parses: how many events, and the
// bytes of their JSON (decoded from the stored form: what the work is
// proportional to).
type ReadSize struct {
	Events int
	Bytes  int64
}

// add counts one event of size bytes into s.
func (s *ReadSize) add(size int) {
	s.Events++
	s.Bytes += int64(size)
}

// EventsPlan is how ReadEvents will give some events of one table: which
// walks it will make and what they parse. It is valid in the transaction
// that made it.
type EventsPlan struct {
	tx        *Tx
	channelID string
	runs      []readRun
	size      ReadSize
}

// readRun is one event of a plan, the newest first, and how the walk gets
// to it.
type readRun struct {
	// target is the event to give.
	target uint64
	// how the walk reaches it: alone, a whole event (schema 1 or 2, an
	// import's) that needs no walk; else from the checkpoint of event
	// checkpoint, from the channel's records when fromRecords, or on from
	// the run before (stepping over the events between).
	alone       bool
	checkpoint  uint64
	fromRecords bool
}

// Size returns what ReadEvents will parse.
func (p *EventsPlan) Size() ReadSize { return p.size }

// Len returns how many events ReadEvents will give.
func (p *EventsPlan) Len() int { return len(p.runs) }

// PlanEvents plans the reading of the events seqs of the channel's table
// (in any order; seqs of no event are left out), newest first: from a
// checkpoint, or on from the event read before it when that parses fewer
// events. It reads the sizes of the events the plan will parse, and no
// event.
func (tx *Tx) PlanEvents(channelID string, seqs []uint64) (*EventsPlan, error) {
	if err := tx.live(false); err != nil {
		return nil, err
	}
	ch, err := tx.records(channelID, false)
	if err != nil {
		return nil, fmt.Errorf("plan a read of events: %w", err)
	}
	newest, _, err := ch.newestEvent()
	if err != nil {
		return nil, fmt.Errorf("plan a read of events at table %s: %w", channelID, err)
	}
	p := &EventsPlan{tx: tx, channelID: channelID}
	seqs = slices.Clone(seqs)
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	slices.Reverse(seqs)
	var next uint64 // the next event the walk would step over; 0: no walk yet
	for _, t := range seqs {
		if t == 0 || t > newest {
			continue
		}
		run := readRun{target: t}
		// The first checkpoint at or above t, when below the newest event.
		cp := (t + checkpointEvery - 1) / checkpointEvery * checkpointEvery
		from := next
		switch {
		case next != 0 && next >= t && (cp >= next || cp >= newest):
			// On from the run before.
		case cp < newest:
			run.checkpoint, from = cp, cp
		default:
			run.fromRecords, from = true, newest
		}
		var sizes []eventSize
		err := ch.eventSizes(t, from, func(seq uint64, form eventForm, size int) error {
			sizes = append(sizes, eventSize{seq, form, size})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("plan a read of events at table %s: %w", channelID, err)
		}
		if len(sizes) == 0 || sizes[len(sizes)-1].seq != t {
			continue // no such event
		}
		if last := sizes[len(sizes)-1]; last.form != formCompact {
			// A whole event, and so is every older one: read alone.
			run = readRun{target: t, alone: true}
			p.size.add(last.size)
			p.runs = append(p.runs, run)
			next = 0
			continue
		}
		if run.checkpoint != 0 {
			p.size.add(sizes[0].size) // its records, parsed first
		}
		for _, s := range sizes {
			p.size.add(s.size)
		}
		p.runs = append(p.runs, run)
		next = t - 1
	}
	return p, nil
}

// eventSize is a size eventSizes gives.
type eventSize struct {
	seq  uint64
	form eventForm
	size int
}

// ReadEvents calls fn with each event of the plan p, made by PlanEvents
// in this transaction, newest first, until fn fails.
func (tx *Tx) ReadEvents(p *EventsPlan, fn func(*Event) error) error {
	if p.tx != tx {
		return errors.New("read events: the plan is another transaction's")
	}
	if err := tx.live(false); err != nil {
		return err
	}
	ch, err := tx.records(p.channelID, false)
	if err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	var h *history
	var before uint64 // where the walk of h goes on: below the event read last
	parsed := 0
	defer func() { tx.db.parsed.Add(int64(parsed)) }()
	count := func() {
		if h != nil {
			parsed += h.parsed
			h.parsed = 0
		}
	}
	defer count()
	for _, run := range p.runs {
		count()
		switch {
		case run.alone:
			d, err := ch.eventRecord(run.target)
			if err != nil {
				return fmt.Errorf("read event %d at table %s: %w", run.target, p.channelID, err)
			}
			// A whole event decodes alone: no records to walk back from.
			e, err := (&history{channelID: p.channelID}).visit(d, run.target, true)
			parsed++
			if err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
			h = nil
			continue
		case run.checkpoint != 0:
			sd, err := ch.eventRecord(run.checkpoint)
			if err != nil {
				return fmt.Errorf("read event %d at table %s: %w", run.checkpoint, p.channelID, err)
			}
			se, err := parseCompact(sd, run.checkpoint, p.channelID)
			if err != nil {
				return err
			}
			if se.Records == nil {
				return fmt.Errorf("event %d at table %s: no checkpoint", run.checkpoint, p.channelID)
			}
			h, before = historyAt(se.Records, p.channelID), run.checkpoint+1
			h.parsed++ // the checkpoint's
		case run.fromRecords:
			if h, err = startHistory(ch, p.channelID, !tx.view); err != nil {
				return err
			}
			before = 0
		case h == nil:
			return fmt.Errorf("read event %d at table %s: the plan walks on from no walk", run.target, p.channelID)
		}
		var found *Event
		err := ch.eachEventBefore(before, func(seq uint64, d eventData) (bool, error) {
			if seq > run.target {
				return true, h.step(d, seq)
			}
			e, err := h.visit(d, seq, true)
			found = e
			return false, err
		})
		if err != nil {
			return err
		}
		if found == nil {
			return fmt.Errorf("event %d at table %s: %w", run.target, p.channelID, ErrNotFound)
		}
		before = run.target
		if err := fn(found); err != nil {
			return err
		}
	}
	return nil
}

// ReadUnitBytes is how many bytes of events' JSON a read parses for one
// unit of a user's work allowance (the commands kernel's units): about a
// millisecond of CPU on the development machine (25 to 30 ms a MB,
// BENCHMARKS.md).
const ReadUnitBytes = 32 << 10

// Units returns what the read costs from a user's work allowance: one
// unit per ReadUnitBytes parsed, begun; 0 for a read of nothing.
func (s ReadSize) Units() int {
	return int((s.Bytes + ReadUnitBytes - 1) / ReadUnitBytes)
}
