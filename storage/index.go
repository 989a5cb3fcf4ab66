package storage

import (
	"fmt"
	"slices"
)

// The history's index (schema 5 of a file, version 6 of PostgreSQL's
// schema).
//
// An event is read back from the events after it (eventcodec.go), so a
// question asked of the history by walking it ("the newest event this
// player may undo", "the events that touched Goblin") decodes every event
// it passes: at a table of 600 events of 50 characters, half a second of
// CPU for a player with nothing to undo. The index answers those questions
// without decoding an event. Each event has an entry, written with it in
// the same transaction: who made it, the event it undid, and facts about
// what it changed (EntryFlags), with the characters it changed; and the
// entries are found by seq, by user, by character, and by the event they
// undid. Only the events an answer shows are then decoded (EventsAt), and
// what that reads is known before it is read (EventsReadSize), so a
// command pays for it first.
//
// Below the seam each backend keeps the entries its own way: bbolt as keys
// of the channel's records (boltindex.go), PostgreSQL as columns of the
// events table and rows of event_characters (pgindex.go). The entries are
// facts, not rules: which event /undo may revert is the history feature's
// to decide from them.

// EntryFlags are facts about an event that its index entry holds.
type EntryFlags uint8

const (
	// EntryCharacters: the event changed at least one character.
	EntryCharacters EntryFlags = 1 << iota
	// EntryTableCreated: the event created the table (no table before it).
	EntryTableCreated
	// EntryTableRemoved: the event removed the table (none after it).
	EntryTableRemoved
	// EntryTableChanged: the event changed the table's settings (a table
	// before and after it).
	EntryTableChanged
	// EntrySystemChanged: the event changed the table's rule system (its
	// settings, with another system after).
	EntrySystemChanged
	// EntryAuthorOwns: every state of a character the event holds, before
	// and after, belongs to the event's user (true of an event that changed
	// no character).
	EntryAuthorOwns
	// EntryHidden: the event holds something players read by its word
	// only: a state of a hidden character, or a part written hidden.
	EntryHidden
)

// EventEntry is an event's entry in the history's index.
type EventEntry struct {
	// Seq is the event's.
	Seq uint64
	// UserID is the id of the user who made the event (Event.UserID).
	UserID string
	// UndoOf is the seq of the event it undid, 0 for none (Event.UndoOf).
	UndoOf uint64
	// Flags are the facts about what it changed.
	Flags EntryFlags
	// Characters are the ids of the characters it is about, ascending,
	// each once; nil when none: those it changed, and those a part of it
	// is about (a timer that fired and changed nothing).
	Characters []uint64
	// Changed are those of Characters it changed (Event.Changes),
	// ascending; nil when none.
	Changed []uint64
	// UndoneBy is the seq of the event that undid it, 0 for none: set by
	// EventEntries (the index knows it), not by EntryOf (the event cannot).
	UndoneBy uint64
}

// Has reports whether every flag of f is set in the entry.
func (en EventEntry) Has(f EntryFlags) bool { return en.Flags&f == f }

// EntryOf returns the index entry of e (whose Seq is set).
func EntryOf(e *Event) EventEntry {
	en := EventEntry{Seq: e.Seq, UserID: e.UserID, UndoOf: e.UndoOf, Flags: EntryAuthorOwns}
	about := func(id uint64) {
		if !slices.Contains(en.Characters, id) {
			en.Characters = append(en.Characters, id)
		}
	}
	for _, c := range e.Changes {
		en.Flags |= EntryCharacters
		about(c.CharacterID)
		if !slices.Contains(en.Changed, c.CharacterID) {
			en.Changed = append(en.Changed, c.CharacterID)
		}
		for _, st := range []*Character{c.Before, c.After} {
			if st != nil && st.OwnerID != e.UserID {
				en.Flags &^= EntryAuthorOwns
			}
			if st != nil && st.Hidden {
				en.Flags |= EntryHidden
			}
		}
	}
	for _, p := range e.Parts {
		for _, id := range p.Characters {
			about(id)
		}
		if p.Hidden {
			en.Flags |= EntryHidden
		}
	}
	slices.Sort(en.Characters)
	slices.Sort(en.Changed)
	switch {
	case e.TableBefore == nil && e.TableAfter != nil:
		en.Flags |= EntryTableCreated
	case e.TableBefore != nil && e.TableAfter == nil:
		en.Flags |= EntryTableRemoved
	case e.TableBefore != nil:
		en.Flags |= EntryTableChanged
		if e.TableBefore.System != e.TableAfter.System {
			en.Flags |= EntrySystemChanged
		}
	}
	return en
}

// EntryFilter chooses the entries Tx.EventEntries gives; its zero value
// chooses every one.
type EntryFilter struct {
	// ByUser keeps the events that UserID made.
	ByUser bool
	UserID string
	// CharacterID, when not 0, keeps the events about that character
	// (EventEntry.Characters).
	CharacterID uint64
	// SystemChanges keeps the events that changed the table's rule system
	// (EntrySystemChanged).
	SystemChanges bool
}

// keeps reports whether the filter keeps en.
func (f EntryFilter) keeps(en EventEntry) bool {
	switch {
	case f.ByUser && en.UserID != f.UserID,
		f.CharacterID != 0 && !slices.Contains(en.Characters, f.CharacterID),
		f.SystemChanges && !en.Has(EntrySystemChanged):
		return false
	}
	return true
}

// EventEntries calls fn with the index entry of each event of the
// channel's table below before (0: every event) that f keeps, newest
// first, until fn returns more == false or an error (which it returns).
// It decodes no event: the cost of a step is an entry's few bytes (and, on
// PostgreSQL, a round trip per page of them).
func (tx *Tx) EventEntries(channelID string, f EntryFilter, before uint64, fn func(EventEntry) (more bool, err error)) error {
	if err := tx.live(false); err != nil {
		return err
	}
	ch, err := tx.records(channelID, false)
	if err != nil {
		return fmt.Errorf("index of events: %w", err)
	}
	if err := ch.eachEntryBefore(before, f, fn); err != nil {
		return fmt.Errorf("index of events at table %s: %w", channelID, err)
	}
	return nil
}

// UndoneBy returns the seq of the event that undid event seq of the
// channel's table, 0 when none did.
func (tx *Tx) UndoneBy(channelID string, seq uint64) (uint64, error) {
	if err := tx.live(false); err != nil {
		return 0, err
	}
	ch, err := tx.records(channelID, false)
	if err != nil {
		return 0, fmt.Errorf("index of events: %w", err)
	}
	by, err := ch.undoneBy(seq)
	if err != nil {
		return 0, fmt.Errorf("index of events at table %s: %w", channelID, err)
	}
	return by, nil
}

// checkIndex adds to p what is wrong with the index of the channel ch,
// whose events decoded to the entries want (by seq): each event's entry
// must be what its event says, none may be left without an event, and the
// entries must be found by user, by character and by the event they
// undid, exactly.
func checkIndex(ch channelRecords, want map[uint64]EventEntry, p *problems) {
	channelID := ch.channelID()
	seen := 0
	users := map[string][]uint64{}
	chars := map[uint64][]uint64{}
	undoneBy := map[uint64]uint64{}
	err := ch.eachEntryBefore(0, EntryFilter{}, func(en EventEntry) (bool, error) {
		seen++
		if en.UndoneBy != 0 {
			undoneBy[en.Seq] = en.UndoneBy
		}
		w, ok := want[en.Seq]
		switch {
		case !ok:
			p.add(fmt.Errorf("table %s: the index has an entry for event %d, which does not exist", channelID, en.Seq))
		case !sameEntry(en, w):
			p.add(fmt.Errorf("table %s: the index entry of event %d is %+v; the event says %+v", channelID, en.Seq, en, w))
		}
		return true, nil
	})
	if err != nil {
		p.add(fmt.Errorf("index of events at table %s: %w", channelID, err))
		return
	}
	if seen != len(want) {
		p.add(fmt.Errorf("table %s: %d events, %d entries in the index", channelID, len(want), seen))
	}
	for _, en := range want {
		users[en.UserID] = append(users[en.UserID], en.Seq)
		for _, c := range en.Characters {
			chars[c] = append(chars[c], en.Seq)
		}
		if en.UndoOf == 0 {
			continue
		}
		by, err := ch.undoneBy(en.UndoOf)
		switch {
		case err != nil || by < en.Seq:
			p.add(fmt.Errorf("table %s: the index does not say event %d undid event %d (%v)", channelID, en.Seq, en.UndoOf, err))
		case undoneBy[en.UndoOf] != by:
			if _, ok := want[en.UndoOf]; ok { // an undo of no event of this table is found by nothing else
				p.add(fmt.Errorf("table %s: the index entry of event %d says event %d undid it, not %d", channelID, en.UndoOf, undoneBy[en.UndoOf], by))
			}
		}
	}
	found := func(what string, f EntryFilter, seqs []uint64) {
		slices.Sort(seqs)
		var got []uint64
		err := ch.eachEntryBefore(0, f, func(en EventEntry) (bool, error) {
			got = append(got, en.Seq)
			return true, nil
		})
		slices.Reverse(got)
		if err != nil || !slices.Equal(got, seqs) {
			p.add(fmt.Errorf("table %s: the index finds events %v by %s, which are %v (%v)", channelID, got, what, seqs, err))
		}
	}
	for u, seqs := range users {
		found(fmt.Sprintf("user %q", u), EntryFilter{ByUser: true, UserID: u}, seqs)
	}
	for c, seqs := range chars {
		found(fmt.Sprintf("character %d", c), EntryFilter{CharacterID: c}, seqs)
	}
	if n, err := ch.indexSize(); err != nil {
		p.add(fmt.Errorf("index of events at table %s: %w", channelID, err))
	} else if w := indexSizeOf(want); n != w {
		p.add(fmt.Errorf("table %s: the index holds %d user, %d character and %d undo references; its events make %d, %d and %d", channelID, n.users, n.characters, n.undone, w.users, w.characters, w.undone))
	}
}

// indexCount counts the references of an index: by user, by character,
// and to the events undone (each undone event once).
type indexCount struct{ users, characters, undone int }

// indexSizeOf is the indexCount of the entries want.
func indexSizeOf(want map[uint64]EventEntry) indexCount {
	var n indexCount
	undone := map[uint64]bool{}
	for _, en := range want {
		n.users++
		n.characters += len(en.Characters)
		if en.UndoOf != 0 {
			undone[en.UndoOf] = true
		}
	}
	n.undone = len(undone)
	return n
}

// sameEntry reports whether a and b are the same entry, UndoneBy aside.
func sameEntry(a, b EventEntry) bool {
	return a.Seq == b.Seq && a.UserID == b.UserID && a.UndoOf == b.UndoOf && a.Flags == b.Flags &&
		slices.Equal(a.Characters, b.Characters) && slices.Equal(a.Changed, b.Changed)
}

// indexChannel writes the index entry of every event of the channel ch,
// whose index is empty: the migration to schema 5 and PostgreSQL's
// backfill. It decodes every event once, newest first.
func indexChannel(ch channelRecords) error {
	h, err := startHistory(ch, ch.channelID(), true)
	if err != nil {
		return err
	}
	return ch.eachEventBefore(0, func(seq uint64, d eventData) (bool, error) {
		e, err := h.visit(d, seq, true)
		if err != nil {
			return false, err
		}
		return true, ch.writeEntry(EntryOf(e))
	})
}
