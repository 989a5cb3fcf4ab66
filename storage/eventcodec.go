package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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

// CheckpointEvery is how many events apart a table's checkpoints are
// (eventcodec.go): a read of the events from one checkpoint down to the
// one before (PlanEvents of seqs n·CheckpointEvery+1 … (n+1)·CheckpointEvery)
// parses only them. /table export reads a history in such runs.
const CheckpointEvery = checkpointEvery

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
func historyTable(ch channelRecords) ([]byte, error) {
	v, err := ch.tableRecord()
	if err != nil || v == nil || !bytes.Contains(v, gmInboxKey) {
		return v, err
	}
	t, err := decodeTable(v)
	if err != nil {
		return nil, err
	}
	return encodeTable(t.Undoable())
}

// takeCheckpoint returns the records the channel holds now (its table as
// the history knows it, historyTable).
func takeCheckpoint(ch channelRecords) (*checkpoint, error) {
	t, err := historyTable(ch)
	if err != nil {
		return nil, err
	}
	cp := &checkpoint{Table: json.RawMessage(t), Chars: []checkpointRecord{}}
	err = ch.eachCharacter(func(id uint64, v []byte) error {
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
func encodeCompactEvent(e *Event, ch channelRecords, st *channelState) (eventData, error) {
	n := normEvent(e)
	se := storedEvent{Event: *n}
	if n.Changes != nil {
		se.Changes = make([]storedChange, len(n.Changes))
	}
	for i, c := range n.Changes {
		before, err := encodeRecord(c.Before, encodeCharacter)
		if err != nil {
			return eventData{}, err
		}
		var current []byte
		if c.After != nil {
			if current, err = ch.characterRecord(c.CharacterID); err != nil {
				return eventData{}, err
			}
		}
		var after []byte
		if st != nil && current != nil && reflect.DeepEqual(c.After, st.character(c.CharacterID)) {
			after = current // the record as stored decodes to exactly c.After
		} else if after, err = encodeRecord(c.After, encodeCharacter); err != nil {
			return eventData{}, err
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
			return eventData{}, err
		}
		after, err := encodeRecord(n.TableAfter, encodeTable)
		if err != nil {
			return eventData{}, err
		}
		current, err := historyTable(ch)
		if err != nil {
			return eventData{}, err
		}
		sc := storeChange(before, after, current)
		se.Table = &sc
	}
	if e.Seq%checkpointEvery == 0 {
		cp, err := takeCheckpoint(ch)
		if err != nil {
			return eventData{}, fmt.Errorf("encode event %d at table %s: checkpoint: %w", e.Seq, e.ChannelID, err)
		}
		se.Records = cp
	}
	b, err := encodeStoredEvent(&se)
	if err != nil {
		return eventData{}, fmt.Errorf("encode event at table %s: %w", e.ChannelID, err)
	}
	return eventData{form: formCompact, json: b}, nil
}

// storedEventSize is about how long se's JSON is: its raw records and
// strings, and room for the rest.
func storedEventSize(se *storedEvent) int {
	n := 256 + len(se.UserID) + len(se.UserName) + len(se.Command) + 2*len(se.Summary)
	for _, d := range se.Dice {
		n += len(d) + 3
	}
	for _, p := range se.Parts {
		n += 64 + 2*len(p.Summary)
		for _, d := range p.Dice {
			n += len(d) + 3
		}
	}
	for _, c := range se.Changes {
		n += 64 + len(c.Was) + len(c.Before) + len(c.After)
	}
	if t := se.Table; t != nil {
		n += 64 + len(t.Was) + len(t.Before) + len(t.After)
	}
	return n
}

// encodeStoredEvent encodes se: appended without encoding/json when it
// can be (appendStoredEvent, the same bytes), else by encode.
func encodeStoredEvent(se *storedEvent) ([]byte, error) {
	if b, ok := appendStoredEvent(make([]byte, 0, storedEventSize(se)), se); ok {
		return b, nil
	}
	return encode(se)
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
	// src is the channel's records, of which the walk reads a character
	// as it needs it, when the walk's transaction is read-only (nothing can
	// change under it); a writable one's are copied whole when the walk
	// starts. Nil when the walk starts from no records.
	src channelRecords
	// whole is set once the walk has passed an event of schema 1 or 2,
	// which it does not step back over: no compact event may come before
	// one of those.
	whole bool
	// verify makes the walk compare each checkpoint it passes with the
	// records it holds at that point (hpkeeper check).
	verify bool
	// stepped counts the events step went over; parsed every stored event
	// the walk parsed (stepped over, visited, or a checkpoint it started
	// from), for DB.EventsParsed.
	stepped, parsed int
}

// startHistory starts a walk from the records the channel ch holds now
// (nil: from none; its table as the history knows it, historyTable), in a
// transaction that is writable or not.
func startHistory(ch channelRecords, channelID string, writable bool) (*history, error) {
	h := &history{channelID: channelID, chars: map[uint64][]byte{}}
	if ch == nil {
		return h, nil
	}
	t, err := ch.tableRecord()
	if err != nil {
		return nil, err
	}
	if table, err := historyTable(ch); err == nil {
		t = table // else a damaged record: the walk finds it so
	}
	if !writable {
		h.table, h.src = t, ch
		return h, nil
	}
	h.table = bytes.Clone(t)
	err = ch.eachCharacter(func(id uint64, v []byte) error {
		h.chars[id] = bytes.Clone(v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
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

// seekHistory starts a walk over the events of channel ch below before (0:
// every event): it returns the history to visit the newest of them with,
// nil when there is none. An event is read back from the events after it,
// so a walk that starts below the newest first steps back over the events
// from before up to the first checkpoint at or above its start (or up to
// the newest, when there is no such checkpoint): fewer than
// checkpointEvery events, their changes read but no record decoded. Below
// an event of schema 1 or 2 it steps over nothing: those hold whole states.
func seekHistory(ch channelRecords, before uint64, writable bool) (*history, error) {
	channelID := ch.channelID()
	newest, _, err := ch.newestEvent()
	if err != nil {
		return nil, fmt.Errorf("walk events at table %s: %w", channelID, err)
	}
	if newest == 0 {
		return nil, nil
	}
	if before == 0 || before > newest {
		return startHistory(ch, channelID, writable)
	}
	var start uint64
	var sd eventData
	err = ch.eachEventBefore(before, func(seq uint64, d eventData) (bool, error) {
		start, sd = seq, d
		return false, nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk events at table %s: %w", channelID, err)
	}
	if start == 0 {
		return nil, nil // nothing below before
	}
	if sd.form != formCompact {
		// Schema 1 or 2, and so is every older event: none is read
		// back from the records.
		return startHistory(nil, channelID, writable)
	}
	var h *history
	from := newest
	for s := (start + checkpointEvery - 1) / checkpointEvery * checkpointEvery; s < newest && h == nil; s += checkpointEvery {
		sd, err := ch.eventRecord(s)
		if err != nil {
			return nil, err
		}
		if sd.form != formCompact {
			continue
		}
		se, err := parseCompact(sd, s, channelID)
		if err != nil {
			return nil, err
		}
		if se.Records != nil {
			h, from = historyAt(se.Records, channelID), s
			h.parsed++ // the checkpoint's
		}
	}
	if h == nil {
		if h, err = startHistory(ch, channelID, writable); err != nil {
			return nil, err
		}
	}
	err = ch.eachEventBefore(from+1, func(seq uint64, d eventData) (bool, error) {
		if seq < before {
			return false, nil
		}
		return true, h.step(d, seq)
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// compact reports whether the event v, as bbolt stores it, is of schema 3
// (eventCompact).
func compact(v []byte) bool {
	return len(v) > 0 && v[0] == eventCompact
}

// parseCompact decodes the stored form of the compact event d at seq.
func parseCompact(d eventData, seq uint64, channelID string) (*storedEvent, error) {
	js, err := d.decoded()
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
	var v []byte
	if h.src != nil {
		// An error reads as an absent record, which the walk then
		// reports as a change it cannot restore.
		v, _ = h.src.characterRecord(id)
	}
	h.chars[id] = v
	return v
}

// step steps the walk back over the stored event d at seq, the newest not
// yet visited, without decoding its records.
func (h *history) step(d eventData, seq uint64) error {
	h.stepped++
	_, err := h.visit(d, seq, false)
	return err
}

// visit steps the walk back over the stored event d at seq and, when build
// is set, returns it decoded.
func (h *history) visit(d eventData, seq uint64, build bool) (*Event, error) {
	h.parsed++
	if d.form != formCompact {
		h.whole = true
		if !build {
			return nil, nil
		}
		js, err := d.decoded()
		if err != nil {
			return nil, fmt.Errorf("event %d at table %s: %w", seq, h.channelID, err)
		}
		return decodeEventAt(js, h.channelID, seq) // schema 1 or 2: whole states
	}
	if h.whole {
		return nil, fmt.Errorf("event %d at table %s: a compact event older than an event of schema 2", seq, h.channelID)
	}
	se, err := parseCompact(d, seq, h.channelID)
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
	if h.src != nil {
		_ = h.src.eachCharacter(func(id uint64, _ []byte) error {
			ids[id] = true
			return nil
		})
	}
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
