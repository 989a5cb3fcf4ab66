package storage

import (
	"encoding/json"
	"fmt"
)

// AppendEvent appends e to the history of the table in channel e.ChannelID
// and assigns e.Seq (the next number at that table: 1, 2, 3 …); e.Seq's value
// on entry is ignored. Events are never rewritten. The channel need not have a
// table, so the undo of a table's creation can still be recorded.
//
// Append an event after the writes it records, in the same Update: a change
// whose After is the record the file holds is stored as the patch back to its
// Before (eventcodec.go), and read back from the records and the events
// after it. Every later write of that record must be recorded by a later
// event of its own (every Tx write method of this package is, through
// commands.Mutation); a change whose After is not the stored record is kept
// whole.
func (tx *Tx) AppendEvent(e *Event) error {
	ch, err := tx.records(e.ChannelID, true)
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	seq, err := nextID(ch, kindEvent)
	if err != nil {
		return fmt.Errorf("append event at table %s: %w", e.ChannelID, err)
	}
	n := *e
	n.Seq = seq
	var st *channelState
	if ts := tx.states[e.ChannelID]; ts != nil {
		st = ts.st
	}
	data, err := encodeCompactEvent(&n, ch, st)
	if err != nil {
		return err
	}
	if err := ch.writeEvent(seq, metaOf(&n), data); err != nil {
		return fmt.Errorf("append event %d at table %s: %w", seq, e.ChannelID, err)
	}
	e.Seq = seq
	return tx.boltAppended(e.ChannelID, seq)
}

// EncodedEvent is an event encoded as AppendEvent stores it (EncodeEvent),
// for AppendEncodedEvents.
type EncodedEvent struct {
	channelID string
	seq       uint64
	meta      eventMeta
	data      eventData
}

// EncodeEvent encodes e, whose ChannelID and Seq are those it will have, for
// AppendEncodedEvents. It needs no transaction: a caller that appends many
// events (/table import) encodes them before its write transaction, so that
// the single writer only stores them. The event is stored whole (before and
// after states, as schema 2 stored every event), so it is read back without
// the records: AppendEncodedEvents is for a channel with no history yet,
// whose later events are newer.
func EncodeEvent(e *Event) (EncodedEvent, error) {
	js, err := encode(normEvent(e))
	if err != nil {
		return EncodedEvent{}, fmt.Errorf("encode event at table %s: %w", e.ChannelID, err)
	}
	d := eventData{form: formWhole, json: js}
	if d.raw, err = boltEvent(d); err != nil {
		return EncodedEvent{}, err
	}
	return EncodedEvent{channelID: e.ChannelID, seq: e.Seq, meta: metaOf(e), data: d}, nil
}

// AppendEncodedEvents appends the events evs (EncodeEvent) to the history
// of the table in channelID, in order: each must be of that channel and
// carry the next seq there, or nothing more is appended and the error says
// which did not. A history whose newest event AppendEvent stored (which is
// read back from the records) takes none: whole events go below those.
func (tx *Tx) AppendEncodedEvents(channelID string, evs []EncodedEvent) error {
	ch, err := tx.records(channelID, true)
	if err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	if len(evs) == 0 {
		return nil
	}
	_, newest, err := ch.newestEvent()
	if err != nil {
		return fmt.Errorf("append events at table %s: %w", channelID, err)
	}
	if newest == formCompact {
		return fmt.Errorf("append events at table %s: its history has events read back from the records; whole events cannot follow them", channelID)
	}
	for _, e := range evs {
		last, err := ch.lastID(kindEvent)
		if err != nil {
			return fmt.Errorf("append events at table %s: %w", channelID, err)
		}
		if e.channelID != channelID || e.seq != last+1 {
			return fmt.Errorf("append events at table %s: event %d of table %s is not the next (%d)", channelID, e.seq, e.channelID, last+1)
		}
		if err := ch.setLastID(kindEvent, e.seq); err != nil {
			return fmt.Errorf("append event at table %s: %w", channelID, err)
		}
		if err := ch.writeEvent(e.seq, e.meta, e.data); err != nil {
			return fmt.Errorf("append event %d at table %s: %w", e.seq, channelID, err)
		}
		if err := tx.boltAppended(channelID, e.seq); err != nil {
			return err
		}
	}
	return nil
}

// Event returns event seq of the channel's table, or an error wrapping
// ErrNotFound. An event is read back from the events after it (see
// AppendEvent): this is the first event of EachEventBefore(seq+1).
func (tx *Tx) Event(channelID string, seq uint64) (*Event, error) {
	var found *Event
	err := tx.EachEventBefore(channelID, seq+1, func(e *Event) (bool, error) {
		if e.Seq == seq {
			found = e
		}
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("get event: %w", err)
	}
	if found == nil {
		return nil, fmt.Errorf("event %d at table %s: %w", seq, channelID, ErrNotFound)
	}
	return found, nil
}

// decodeEventAt decodes the JSON of an event with whole states (schema 1
// and 2, formWhole), setting its channel and seq from where it was found.
func decodeEventAt(js []byte, channelID string, seq uint64) (*Event, error) {
	var e Event
	if err := json.Unmarshal(js, &e); err != nil {
		return nil, fmt.Errorf("event %d at table %s: decode event: %w", seq, channelID, err)
	}
	e.ChannelID, e.Seq = channelID, seq
	return &e, nil
}

// LastEventSeq returns the Seq of the newest event of the channel's table, 0
// when it has none.
func (tx *Tx) LastEventSeq(channelID string) (uint64, error) {
	ch, err := tx.records(channelID, false)
	if err != nil {
		return 0, fmt.Errorf("last event: %w", err)
	}
	seq, _, err := ch.newestEvent()
	if err != nil {
		return 0, fmt.Errorf("last event at table %s: %w", channelID, err)
	}
	return seq, nil
}

// EachEventBackward calls fn with each event of the channel's table, newest
// first, until fn returns more == false or an error (which it returns). fn may
// use tx, including appending events: those appended during the walk are not
// visited. The walk reads the events back from the channel's records as they
// stood when it began (see AppendEvent).
func (tx *Tx) EachEventBackward(channelID string, fn func(*Event) (more bool, err error)) error {
	return tx.EachEventBefore(channelID, 0, fn)
}

// EachEventBefore is EachEventBackward from the newest event whose Seq is
// below before (0: from the newest of all), so that a page of an old part
// of a long history is read without decoding the events after it. It gives
// exactly the events EachEventBackward gives below before. As an event is
// read back from the events after it, the walk first steps back over fewer
// than 256 newer events (to the first checkpoint at or above its start,
// eventcodec.go), reading their changes but decoding none of their records:
// its work is bounded by what fn takes, not by the length of the history.
func (tx *Tx) EachEventBefore(channelID string, before uint64, fn func(*Event) (more bool, err error)) error {
	if err := tx.live(false); err != nil {
		return err
	}
	ch, err := tx.records(channelID, false)
	if err != nil {
		return fmt.Errorf("walk events: %w", err)
	}
	h, err := seekHistory(ch, before, !tx.view)
	if err != nil || h == nil {
		return err
	}
	return ch.eachEventBefore(before, func(seq uint64, d eventData) (bool, error) {
		e, err := h.visit(d, seq, true)
		if err != nil {
			return false, err
		}
		return fn(e)
	})
}
