package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/klauspost/compress/s2"
)

// How events are stored since schema version 3: what changed, not whole
// states.
//
// A command's event used to hold the whole before and after state of every
// character it touched (schema 1: JSON; schema 2: S2-compressed JSON). Since
// schema 3 it holds, per touched character and for the table, only what is
// needed to give those states back, relying on this: when an event is
// appended, the after state of what it changed is the record the file holds
// (the command wrote it in the same transaction), and every later change of
// that record is recorded by a later event whose before state is that after
// state. So, walking a table's events from the newest back, the after state
// of a record at an event is the before state of the next event that touched
// it, or the record itself for the newest, and the event only needs the patch
// back to the before state (delta.go), or nothing when it created the
// record. The walk (EachEventBackward) starts from the records as the walk's
// transaction holds them.
//
// A change is stored whole (its before and after records) when its after
// state is not the record the file holds at append time (an import writes
// its history before its characters, so it stores every change whole), and
// the before state whole when no patch gives it back exactly. A deleted
// character's before state is always whole: nothing after it holds it.
//
// Every checkpointEvery-th event of a table (its Seq a multiple of it) also
// holds a checkpoint: every record of the table as it stood after the event.
// A walk that starts in the middle of a long history (a /history page of
// older events, EachEventBefore) starts from the first checkpoint at or
// above where it starts, or from the records when there is none, and steps
// back over fewer than checkpointEvery events to get there, instead of over
// every newer event.
//
// The stored JSON embeds Event, and each stored change embeds Change, so a
// field added to either is stored and read back with no change here; the
// members that take another form here are shadowed by fields of the same
// JSON name.

// eventCompact is the first byte of an event stored since schema version 3:
// the rest is the S2 block encoding of a storedEvent's JSON.
const eventCompact byte = 0x02

// checkpointEvery is how many events apart a table's checkpoints are: a
// walk that starts below an event steps back over at most
// checkpointEvery-1 newer events first. A checkpoint costs about one copy of
// the table's records (compressed), so this is also what spreads that cost:
// at a table of 5 characters a few bytes an event.
const checkpointEvery = 256

// storedEvent is an event as stored since schema version 3.
type storedEvent struct {
	Event
	// ChannelID and Seq are the key's: shadowed so they are not stored.
	ChannelID json.RawMessage `json:"channel_id,omitempty"`
	Seq       json.RawMessage `json:"seq,omitempty"`
	// Changes are Event.Changes in their stored form (nil stays null).
	Changes []storedChange `json:"changes"`
	// Table is TableBefore and TableAfter in their stored form; nil when the
	// event left the table alone. The old names are shadowed.
	Table       *storedChange   `json:"table,omitempty"`
	TableBefore json.RawMessage `json:"table_before,omitempty"`
	TableAfter  json.RawMessage `json:"table_after,omitempty"`
	// Records is the event's checkpoint, set when its Seq is a multiple of
	// checkpointEvery.
	Records *checkpoint `json:"records,omitempty"`
}

// checkpoint is every record of a table as it stood after an event: the
// table's (nil when it had none) and each character's, by ascending id.
type checkpoint struct {
	Table json.RawMessage    `json:"table,omitempty"`
	Chars []checkpointRecord `json:"chars"`
}

// checkpointRecord is one character's record in a checkpoint.
type checkpointRecord struct {
	ID     uint64          `json:"id"`
	Record json.RawMessage `json:"record"`
}

// gmInboxKey is the JSON key of Table.GMInbox, which a table record holds
// only while the inbox has results.
var gmInboxKey = []byte(`"gm_inbox"`)

// historyTable returns the channel's table record as the history knows it:
// without its GM inbox, which no event records (Table.GMInbox), so that
// what the inbox holds never enters a checkpoint or an event's table
// states, nor makes the table the history leads to differ from the one
// stored. Nil when the channel has no table.
func historyTable(ch *channel) ([]byte, error) {
	v := ch.table()
	if v == nil || !bytes.Contains(v, gmInboxKey) {
		return v, nil
	}
	t, err := decodeTable(v)
	if err != nil {
		return nil, err
	}
	return encodeTable(t.Undoable())
}

// takeCheckpoint returns the records the channel holds now (its table as
// the history knows it, historyTable).
func takeCheckpoint(ch *channel) (*checkpoint, error) {
	table, err := historyTable(ch)
	if err != nil {
		return nil, err
	}
	cp := &checkpoint{Table: json.RawMessage(table), Chars: []checkpointRecord{}}
	err = ch.chars.forEach(func(k, v []byte) error {
		id, err := btoi(k)
		if err != nil {
			return err
		}
		cp.Chars = append(cp.Chars, checkpointRecord{ID: id, Record: v})
		return nil
	})
	return cp, err
}

// storedChange is one record's change in a storedEvent: a character's (ID
// set) or the table's. It embeds Change, so that a field added to Change
// is stored too; the members stored in another form are shadowed.
type storedChange struct {
	Change
	// CharacterID is shadowed: ID holds it.
	CharacterID json.RawMessage `json:"character_id,omitempty"`
	// ID is Change.CharacterID.
	ID uint64 `json:"id,omitempty"`
	// Name is Change.Name when it is not the name in the after state (or,
	// when there is none, in the before state).
	Name *string `json:"name,omitempty"`
	// Derived: the after state is the next state in the walk; then Was is
	// the patch back to the before state, or Created says there was none
	// (or Before holds it whole).
	Derived bool            `json:"derived,omitempty"`
	Created bool            `json:"created,omitempty"`
	Was     json.RawMessage `json:"was,omitempty"`
	// Before and After are whole encoded records, when stored so.
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// storeChange returns the stored form of a change from before to after
// (encoded records; nil: absent), where current is the record the file
// holds now (nil: none).
func storeChange(before, after, current []byte) storedChange {
	var sc storedChange
	if after != nil && bytes.Equal(after, current) {
		sc.Derived = true
		switch {
		case before == nil:
			sc.Created = true
		default:
			if p, ok := diff(after, before); ok && len(p) < len(before) {
				sc.Was = p
			} else {
				sc.Before = before
			}
		}
		return sc
	}
	sc.Before, sc.After = before, after
	return sc
}

// restore returns the encoded before and after records of sc, where next
// is the record's state after the event in the walk (nil: none).
func (sc storedChange) restore(next []byte) (before, after []byte, err error) {
	if !sc.Derived {
		return sc.Before, sc.After, nil
	}
	if next == nil {
		return nil, nil, fmt.Errorf("change of record %d: the record after it is missing", sc.ID)
	}
	switch {
	case sc.Created:
		return nil, next, nil
	case sc.Was != nil:
		before, err := patch(next, sc.Was)
		if err != nil {
			return nil, nil, fmt.Errorf("change of record %d: %w", sc.ID, err)
		}
		return before, next, nil
	default:
		return sc.Before, next, nil
	}
}

// encodeCompactEvent encodes e (its Seq set) for channel ch, whose
// records are the current states its changes are told from; st, when not
// nil, is the channel's state as the appending Tx sees it (the decoded
// form of those records), which spares encoding an after state that is the
// stored record.
func encodeCompactEvent(e *Event, ch *channel, st *channelState) ([]byte, error) {
	n := normEvent(e)
	se := storedEvent{Event: *n}
	if n.Changes != nil {
		se.Changes = make([]storedChange, len(n.Changes))
	}
	for i, c := range n.Changes {
		before, err := encodeRecord(c.Before, encodeCharacter)
		if err != nil {
			return nil, err
		}
		var current []byte
		if c.After != nil {
			current = ch.chars.get(itob(c.CharacterID))
		}
		var after []byte
		if st != nil && current != nil && reflect.DeepEqual(c.After, st.character(c.CharacterID)) {
			after = current // the record as stored decodes to exactly c.After
		} else if after, err = encodeRecord(c.After, encodeCharacter); err != nil {
			return nil, err
		}
		// Only the last change of a character can be told from the
		// record: an earlier one's after state is overwritten.
		if later(n.Changes, i) {
			current = nil
		}
		sc := storeChange(before, after, current)
		sc.Change = c
		sc.ID = c.CharacterID
		if name := changeName(c.Before, c.After); c.Name != name {
			sc.Name = &c.Name
		}
		se.Changes[i] = sc
	}
	if n.TableBefore != nil || n.TableAfter != nil {
		before, err := encodeRecord(n.TableBefore, encodeTable)
		if err != nil {
			return nil, err
		}
		after, err := encodeRecord(n.TableAfter, encodeTable)
		if err != nil {
			return nil, err
		}
		current, err := historyTable(ch)
		if err != nil {
			return nil, err
		}
		sc := storeChange(before, after, current)
		se.Table = &sc
	}
	if e.Seq%checkpointEvery == 0 {
		cp, err := takeCheckpoint(ch)
		if err != nil {
			return nil, fmt.Errorf("encode event %d at table %s: checkpoint: %w", e.Seq, e.ChannelID, err)
		}
		se.Records = cp
	}
	b, err := encode(&se)
	if err != nil {
		return nil, fmt.Errorf("encode event at table %s: %w", e.ChannelID, err)
	}
	out := make([]byte, 1+s2.MaxEncodedLen(len(b)))
	out[0] = eventCompact
	return out[:1+len(s2.Encode(out[1:], b))], nil
}

// later reports whether a change after changes[i] touches its character.
func later(changes []Change, i int) bool {
	for _, c := range changes[i+1:] {
		if c.CharacterID == changes[i].CharacterID {
			return true
		}
	}
	return false
}

// changeName is the name a Change carries by default: the after state's,
// else the before state's.
func changeName(before, after *Character) string {
	switch {
	case after != nil:
		return after.Name
	case before != nil:
		return before.Name
	}
	return ""
}

// encodeRecord encodes a record, nil for nil.
func encodeRecord[T any](r *T, enc func(*T) ([]byte, error)) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	return enc(r)
}

// history is the state of a channel's records during a walk back through
// its events: each record as it stood after the event about to be visited.
type history struct {
	channelID string
	// chars holds the records met so far, nil for one absent at that point.
	chars map[uint64][]byte
	table []byte
	// src is the channel's characters, read as the walk needs a record,
	// when the walk's transaction is read-only (nothing can change under
	// it); a writable one's are copied whole when the walk starts. Its
	// bucket is nil when the walk starts from no records.
	src recordSet
	// whole is set once the walk has passed an event of schema 1 or 2,
	// which it does not step back over: no compact event may come before
	// one of those.
	whole bool
	// verify makes the walk compare each checkpoint it passes with the
	// records it holds at that point (hpkeeper check).
	verify bool
	// stepped counts the events step went over.
	stepped int
}

// newHistory starts a walk from the records the channel ch holds now (nil:
// from none; its table as the history knows it, historyTable), in a
// transaction that is writable or not.
func newHistory(ch *channel, channelID string, writable bool) *history {
	h := &history{channelID: channelID, chars: map[uint64][]byte{}}
	if ch == nil {
		return h
	}
	table, err := historyTable(ch)
	if err != nil {
		table = ch.table() // a damaged record: the walk finds it so
	}
	if !writable {
		h.table, h.src = table, ch.chars
		return h
	}
	h.table = bytes.Clone(table)
	_ = ch.chars.forEach(func(k, v []byte) error {
		if id, err := btoi(k); err == nil {
			h.chars[id] = bytes.Clone(v)
		}
		return nil
	})
	return h
}

// historyAt starts a walk from the checkpoint cp of the event about to be
// visited.
func historyAt(cp *checkpoint, channelID string) *history {
	h := &history{channelID: channelID, chars: make(map[uint64][]byte, len(cp.Chars)), table: cp.Table}
	for _, r := range cp.Chars {
		h.chars[r.ID] = r.Record
	}
	return h
}

// seekHistory positions a walk over the events of channel ch at the newest
// event whose Seq is below before (0: the newest of all). It
// returns the cursor, that event's key and value (nil when there is none)
// and the history to decode it with. An event is read back from the events
// after it, so a walk that starts below the newest first steps back over
// the events from before up to the first checkpoint at or above its start
// (or up to the newest, when there is no such checkpoint): fewer than
// checkpointEvery events, their changes read but no record decoded. Below
// an event of schema 1 or 2 it steps over nothing: those hold whole states.
func seekHistory(ch *channel, before uint64, writable bool) (*recordCursor, []byte, []byte, *history, error) {
	channelID := ch.id
	c := ch.events.cursor()
	k, v := c.last()
	if k == nil || before == 0 {
		return c, k, v, newHistory(ch, channelID, writable), nil
	}
	newest, err := btoi(k)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("walk events at table %s: %w", channelID, err)
	}
	if before > newest {
		return c, k, v, newHistory(ch, channelID, writable), nil
	}
	c.seek(itob(before))
	if k, v = c.prev(); k == nil {
		return c, nil, nil, nil, nil // nothing below before
	}
	start, err := btoi(k)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("walk events at table %s: %w", channelID, err)
	}
	if !compact(v) {
		// Schema 1 or 2, and so is every older event: none is read
		// back from the records.
		return c, k, v, newHistory(nil, channelID, writable), nil
	}
	var h *history
	from := newest
	for s := (start + checkpointEvery - 1) / checkpointEvery * checkpointEvery; s < newest && h == nil; s += checkpointEvery {
		sv := ch.events.get(itob(s))
		if !compact(sv) {
			continue
		}
		se, err := parseCompact(sv, s, channelID)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if se.Records != nil {
			h, from = historyAt(se.Records, channelID), s
		}
	}
	if h == nil {
		h = newHistory(ch, channelID, writable)
	}
	for k, v = c.seek(itob(from)); k != nil; k, v = c.prev() {
		seq, err := btoi(k)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("walk events at table %s: %w", channelID, err)
		}
		if seq < before {
			break
		}
		if err := h.step(v, seq); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	return c, k, v, h, nil
}

// compact reports whether the stored event v is of schema 3 (eventCompact).
func compact(v []byte) bool {
	return len(v) > 0 && v[0] == eventCompact
}

// parseCompact decodes the stored form of the compact event v at seq.
func parseCompact(v []byte, seq uint64, channelID string) (*storedEvent, error) {
	js, err := s2.Decode(nil, v[1:])
	if err != nil {
		return nil, fmt.Errorf("event %d at table %s: %w", seq, channelID, err)
	}
	var se storedEvent
	if err := json.Unmarshal(js, &se); err != nil {
		return nil, fmt.Errorf("event %d at table %s: %w", seq, channelID, err)
	}
	return &se, nil
}

// record returns the record of character id as it stood after the event
// about to be visited, nil when it did not exist then.
func (h *history) record(id uint64) []byte {
	if v, ok := h.chars[id]; ok {
		return v
	}
	v := h.src.get(itob(id))
	h.chars[id] = v
	return v
}

// decode decodes the stored event v at seq, the newest not yet visited, and
// steps the walk back over it.
func (h *history) decode(v []byte, seq uint64) (*Event, error) {
	return h.visit(v, seq, true)
}

// step steps the walk back over the stored event v at seq, the newest not
// yet visited, without decoding its records.
func (h *history) step(v []byte, seq uint64) error {
	h.stepped++
	_, err := h.visit(v, seq, false)
	return err
}

// visit steps the walk back over the stored event v at seq and, when build
// is set, returns it decoded.
func (h *history) visit(v []byte, seq uint64, build bool) (*Event, error) {
	if !compact(v) {
		h.whole = true
		if !build {
			return nil, nil
		}
		return decodeEventAt(v, h.channelID, seq) // schema 1 or 2: whole states
	}
	if h.whole {
		return nil, fmt.Errorf("event %d at table %s: a compact event older than an event of schema 2", seq, h.channelID)
	}
	se, err := parseCompact(v, seq, h.channelID)
	if err != nil {
		return nil, err
	}
	if h.verify && se.Records != nil {
		if err := h.matches(se.Records); err != nil {
			return nil, fmt.Errorf("event %d at table %s: %w", seq, h.channelID, err)
		}
	}
	var e *Event
	if build {
		e = &se.Event
		e.ChannelID, e.Seq = h.channelID, seq
		e.Changes, e.TableBefore, e.TableAfter = nil, nil, nil
		if se.Changes != nil {
			e.Changes = make([]Change, len(se.Changes))
		}
	}
	// Back over the changes, newest first: a character's state before a
	// change is its state after the one before.
	for i := len(se.Changes) - 1; i >= 0; i-- {
		sc := se.Changes[i]
		before, after, err := sc.restore(h.record(sc.ID))
		if err != nil {
			return nil, fmt.Errorf("event %d at table %s: %w", seq, h.channelID, err)
		}
		h.chars[sc.ID] = before // nil: absent before the event
		if !build {
			continue
		}
		c := sc.Change // with any field this code does not know of
		c.CharacterID = sc.ID
		if c.Before, err = h.character(before, sc.ID); err != nil {
			return nil, fmt.Errorf("event %d at table %s: %w", seq, h.channelID, err)
		}
		if c.After, err = h.character(after, sc.ID); err != nil {
			return nil, fmt.Errorf("event %d at table %s: %w", seq, h.channelID, err)
		}
		c.Name = changeName(c.Before, c.After)
		if sc.Name != nil {
			c.Name = *sc.Name
		}
		e.Changes[i] = c
	}
	if sc := se.Table; sc != nil {
		before, after, err := sc.restore(h.table)
		if err != nil {
			return nil, fmt.Errorf("event %d at table %s: the table's %w", seq, h.channelID, err)
		}
		h.table = before
		if build {
			if e.TableBefore, err = h.tableRecord(before); err != nil {
				return nil, fmt.Errorf("event %d at table %s: %w", seq, h.channelID, err)
			}
			if e.TableAfter, err = h.tableRecord(after); err != nil {
				return nil, fmt.Errorf("event %d at table %s: %w", seq, h.channelID, err)
			}
		}
	}
	return e, nil
}

// matches returns an error unless the checkpoint cp holds exactly the
// records the walk holds: those of the event about to be visited.
func (h *history) matches(cp *checkpoint) error {
	if !bytes.Equal(h.table, cp.Table) {
		return errors.New("its checkpoint's table is not the one the history leads to")
	}
	want := make(map[uint64][]byte, len(cp.Chars))
	ids := make(map[uint64]bool, len(cp.Chars))
	for _, r := range cp.Chars {
		want[r.ID], ids[r.ID] = r.Record, true
	}
	for id := range h.chars {
		ids[id] = true
	}
	_ = h.src.forEach(func(k, _ []byte) error {
		if id, err := btoi(k); err == nil {
			ids[id] = true
		}
		return nil
	})
	for id := range ids {
		if !bytes.Equal(h.record(id), want[id]) {
			return fmt.Errorf("its checkpoint's character %d is not the one the history leads to", id)
		}
	}
	return nil
}

// character decodes a character record of an event, nil for nil.
func (h *history) character(b []byte, id uint64) (*Character, error) {
	if b == nil {
		return nil, nil
	}
	c, err := decodeCharacter(b)
	if err != nil {
		return nil, fmt.Errorf("character %d: %w", id, err)
	}
	return c, nil
}

// tableRecord decodes a table record of an event, nil for nil.
func (h *history) tableRecord(b []byte) (*Table, error) {
	if b == nil {
		return nil, nil
	}
	return decodeTable(b)
}
