package storage

import (
	"bytes"
	"fmt"
)

// RevertEvent restores the state recorded in e as it was before e (RULES.md
// §0.5). For each Change, in reverse order: Before == nil (the event created
// the character) deletes character CharacterID; After == nil (the event
// deleted it) re-creates it with its original id and name, failing with
// ErrNameTaken if the name has been taken since; otherwise Before is put back.
// Then a non-nil TableBefore is put back, and TableBefore == nil with a
// non-nil TableAfter (the event created the table) removes the table record,
// keeping the channel's history and id sequences.
//
// Before changing anything it checks that every touched character (and the
// table, if TableBefore or TableAfter is set) is exactly in the state the event
// left, comparing encoded records: a character's After, or absent when After is
// nil; the table's TableAfter, or absent when TableAfter is nil. Otherwise it
// returns a *ConflictError (wrapping ErrConflict) naming the first character
// that changed, or the table, and writes nothing. Undoing a table's creation
// while the table still has characters is a conflict too.
//
// RevertEvent does not append the undo event; the caller does, in the same
// Update. Any other error may leave the revert half done: return it from the
// Update function so that nothing is written.
func (tx *Tx) RevertEvent(e *Event) error {
	op := fmt.Sprintf("revert event %d", e.Seq)
	if err := tx.live(true); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := validateEvent(e); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	cur, err := tx.state(e.ChannelID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := checkRevert(cur, e); err != nil {
		return err
	}
	if len(e.Changes) == 0 && e.TableBefore == nil && e.TableAfter == nil {
		return nil
	}
	ch, err := tx.records(e.ChannelID, true)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	st, err := tx.writable(e.ChannelID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	for i := len(e.Changes) - 1; i >= 0; i-- {
		c := e.Changes[i]
		switch {
		case c.Before == nil:
			err = deleteCharacter(op, ch, st, c.CharacterID)
		case c.After == nil:
			err = restoreCharacter(op, ch, st, inChannel(c.Before, e.ChannelID))
		default:
			err = replaceCharacter(op, ch, st, inChannel(c.Before, e.ChannelID))
		}
		if err != nil {
			return err
		}
	}
	switch {
	case e.TableBefore != nil:
		t := *e.TableBefore
		t.ChannelID = e.ChannelID
		if st.table != nil {
			t.GMInbox = st.table.Clone().GMInbox // not undone (Table.GMInbox)
		}
		if err := putTable(ch, st, &t); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	case e.TableAfter != nil:
		if err := ch.removeTable(); err != nil {
			return fmt.Errorf("%s: remove table: %w", op, err)
		}
		st.table = nil
	}
	return nil
}

// validateEvent rejects events whose changes cannot be reverted.
func validateEvent(e *Event) error {
	if e.ChannelID == "" {
		return errNoChannel
	}
	for i, c := range e.Changes {
		switch {
		case c.CharacterID == 0:
			return fmt.Errorf("change %d: character id 0", i)
		case c.Before == nil && c.After == nil:
			return fmt.Errorf("change %d (character %d): neither before nor after state", i, c.CharacterID)
		case c.Before != nil && c.Before.ID != c.CharacterID:
			return fmt.Errorf("change %d (character %d): before state has id %d", i, c.CharacterID, c.Before.ID)
		case c.After != nil && c.After.ID != c.CharacterID:
			return fmt.Errorf("change %d (character %d): after state has id %d", i, c.CharacterID, c.After.ID)
		}
	}
	return nil
}

// checkRevert returns a *ConflictError when the channel's state st is not
// the state e left.
func checkRevert(st *channelState, e *Event) error {
	// When a character appears in several changes, the current state must
	// match its last change and the revert ends at its first change's Before.
	last := make(map[uint64]int, len(e.Changes))
	first := make(map[uint64]int, len(e.Changes))
	for i, c := range e.Changes {
		last[c.CharacterID] = i
		if _, ok := first[c.CharacterID]; !ok {
			first[c.CharacterID] = i
		}
	}
	for i, c := range e.Changes {
		if last[c.CharacterID] != i {
			continue
		}
		same, err := sameCharacter(st.character(c.CharacterID), c.After, e.ChannelID)
		if err != nil {
			return fmt.Errorf("revert event %d: %w", e.Seq, err)
		}
		if !same {
			name := c.Name
			if name == "" && c.After != nil {
				name = c.After.Name
			}
			return &ConflictError{Seq: e.Seq, CharacterID: c.CharacterID, Name: name}
		}
	}
	if e.TableBefore == nil && e.TableAfter == nil {
		return nil
	}
	same, err := sameTable(st.table, e.TableAfter, e.ChannelID)
	if err != nil {
		return fmt.Errorf("revert event %d: %w", e.Seq, err)
	}
	if !same {
		return &ConflictError{Seq: e.Seq}
	}
	if e.TableBefore == nil {
		// Undoing the table's creation: no character may be left behind.
		remaining := make(map[uint64]bool, len(st.chars))
		for _, c := range st.chars {
			remaining[c.ID] = true
		}
		for id, i := range first {
			remaining[id] = e.Changes[i].Before != nil
		}
		for _, left := range remaining {
			if left {
				return &ConflictError{Seq: e.Seq}
			}
		}
	}
	return nil
}

// inChannel returns a copy of c placed in the channel.
func inChannel(c *Character, channelID string) *Character {
	n := *c
	n.ChannelID = channelID
	return &n
}

// sameCharacter reports whether a and b (either may be nil) encode the same,
// ignoring their ChannelID fields.
func sameCharacter(a, b *Character, channelID string) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	ea, err := encodeCharacter(inChannel(a, channelID))
	if err != nil {
		return false, err
	}
	eb, err := encodeCharacter(inChannel(b, channelID))
	if err != nil {
		return false, err
	}
	return bytes.Equal(ea, eb), nil
}

// sameTable reports whether a and b (either may be nil) encode the same,
// ignoring their ChannelID fields and GM inboxes (Table.GMInbox).
func sameTable(a, b *Table, channelID string) (bool, error) {
	if a == nil || b == nil {
		return a == nil && b == nil, nil
	}
	ta, tb := *a.Undoable(), *b.Undoable()
	ta.ChannelID, tb.ChannelID = channelID, channelID
	ea, err := encodeTable(&ta)
	if err != nil {
		return false, err
	}
	eb, err := encodeTable(&tb)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ea, eb), nil
}
