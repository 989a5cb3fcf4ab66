package storage

import (
	"fmt"
	"strings"
)

// nameKey is the name index key for a character name: the name lower-cased,
// so that names are unique case-insensitively ("lister" finds "Lister").
func nameKey(name string) []byte {
	return []byte(strings.ToLower(name))
}

// Character returns the character with the given id at the channel's table, or
// an error wrapping ErrNotFound.
func (tx *Tx) Character(channelID string, id uint64) (*Character, error) {
	st, err := tx.state(channelID)
	if err != nil {
		return nil, fmt.Errorf("get character: %w", err)
	}
	c := st.character(id)
	if c == nil {
		return nil, fmt.Errorf("character %d at table %s: %w", id, channelID, ErrNotFound)
	}
	return copyCharacter(c), nil
}

// CharacterByName returns the character at the channel's table whose name
// equals name case-insensitively, or an error wrapping ErrNotFound.
func (tx *Tx) CharacterByName(channelID, name string) (*Character, error) {
	st, err := tx.state(channelID)
	if err != nil {
		return nil, fmt.Errorf("get character: %w", err)
	}
	var c *Character
	if name != "" {
		c = st.named(string(nameKey(name)))
	}
	if c == nil {
		return nil, fmt.Errorf("character %q at table %s: %w", name, channelID, ErrNotFound)
	}
	return copyCharacter(c), nil
}

// Characters returns every character at the channel's table ordered by ID
// (creation order); nil when there are none or the channel has no table.
func (tx *Tx) Characters(channelID string) ([]*Character, error) {
	st, err := tx.state(channelID)
	if err != nil {
		return nil, fmt.Errorf("list characters: %w", err)
	}
	if len(st.chars) == 0 {
		return nil, nil
	}
	out := make([]*Character, len(st.chars))
	for i, c := range st.chars {
		out[i] = copyCharacter(c)
	}
	return out, nil
}

// charRecords returns the records of a channel for writing and the
// channel's state as this function's own copy, failing with ErrNotFound
// when the channel has no table.
func (tx *Tx) charRecords(op, channelID string) (channelRecords, *channelState, error) {
	if err := tx.live(true); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	st, err := tx.state(channelID)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	if st.table == nil {
		return nil, nil, fmt.Errorf("%s: table %s: %w", op, channelID, ErrNotFound)
	}
	ch, err := tx.records(channelID, true)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	if st, err = tx.writable(channelID); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	return ch, st, nil
}

// CreateCharacter adds c to the table in channel c.ChannelID and assigns c.ID
// (the next id at that table: 1, 2, 3 …, never reused). c.ID's value on entry
// is ignored; the other fields are stored as given (CreatedAt in UTC). It
// fails with ErrNameTaken when another character there has the same name
// case-insensitively, with ErrNotFound when the channel has no table, and when
// the name is empty. Name rules (length, characters) are the caller's.
func (tx *Tx) CreateCharacter(c *Character) error {
	const op = "create character"
	ch, st, err := tx.charRecords(op, c.ChannelID)
	if err != nil {
		return err
	}
	if c.Name == "" {
		return fmt.Errorf("%s: empty name", op)
	}
	if st.named(string(nameKey(c.Name))) != nil {
		return fmt.Errorf("%s: character %q: %w", op, c.Name, ErrNameTaken)
	}
	id, err := nextID(ch, kindCharacter)
	if err != nil {
		return fmt.Errorf("%s %q: %w", op, c.Name, err)
	}
	n := *c
	n.ID = id
	if err := putCharacterRecord(ch, st, &n, ""); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	c.ID = id
	return nil
}

// SkipCharacterIDs makes the next id CreateCharacter assigns at the table in
// channelID larger than last, as if characters 1 … last had been created and
// deleted (ids are never reused); an id already past last stays. It fails
// with ErrNotFound when the channel has no table. /table import uses it to
// keep an export's ids in time linear in its characters, not in its ids.
func (tx *Tx) SkipCharacterIDs(channelID string, last uint64) error {
	const op = "skip character ids"
	ch, _, err := tx.charRecords(op, channelID)
	if err != nil {
		return err
	}
	seq, err := ch.lastID(kindCharacter)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if seq >= last {
		return nil
	}
	if err := ch.setLastID(kindCharacter, last); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// putCharacterRecord writes c under its id, indexed by its name (and no
// longer by oldKey, when not ""), and puts it in the channel's state st. It
// does not check for clashes.
func putCharacterRecord(ch channelRecords, st *channelState, c *Character, oldKey string) error {
	data, err := encodeCharacter(c)
	if err != nil {
		return err
	}
	stored, err := storedCharacter(c)
	if err != nil {
		return err
	}
	if err := ch.writeCharacter(c.ID, string(nameKey(c.Name)), oldKey, data); err != nil {
		return fmt.Errorf("put character %d: %w", c.ID, err)
	}
	st.setCharacter(stored)
	return nil
}

// PutCharacter replaces the existing character c.ID at the table in channel
// c.ChannelID with c. A rename updates the name index; changing only the case
// of the name is allowed. It fails with ErrNameTaken when another character
// there has the new name, and with ErrNotFound when the character (or the
// table) does not exist.
func (tx *Tx) PutCharacter(c *Character) error {
	const op = "put character"
	ch, st, err := tx.charRecords(op, c.ChannelID)
	if err != nil {
		return err
	}
	return replaceCharacter(op, ch, st, c)
}

// replaceCharacter replaces the stored character c.ID with c, moving its name
// index entry when the name changed (case-insensitively).
func replaceCharacter(op string, ch channelRecords, st *channelState, c *Character) error {
	if c.Name == "" {
		return fmt.Errorf("%s %d: empty name", op, c.ID)
	}
	old := st.character(c.ID)
	if old == nil {
		return fmt.Errorf("%s: character %d at table %s: %w", op, c.ID, c.ChannelID, ErrNotFound)
	}
	oldKey, newKey := string(nameKey(old.Name)), string(nameKey(c.Name))
	if oldKey != newKey {
		if other := st.named(newKey); other != nil && other.ID != c.ID {
			return fmt.Errorf("%s %d: character %q: %w", op, c.ID, c.Name, ErrNameTaken)
		}
	}
	if err := putCharacterRecord(ch, st, c, oldKey); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// DeleteCharacter removes character id from the channel's table. Its id is
// not reused. It fails with ErrNotFound when the character (or the table)
// does not exist.
func (tx *Tx) DeleteCharacter(channelID string, id uint64) error {
	const op = "delete character"
	ch, st, err := tx.charRecords(op, channelID)
	if err != nil {
		return err
	}
	return deleteCharacter(op, ch, st, id)
}

// deleteCharacter removes character id and its name index entry.
func deleteCharacter(op string, ch channelRecords, st *channelState, id uint64) error {
	old := st.character(id)
	if old == nil {
		return fmt.Errorf("%s: character %d at table %s: %w", op, id, ch.channelID(), ErrNotFound)
	}
	if err := ch.removeCharacter(id, string(nameKey(old.Name))); err != nil {
		return fmt.Errorf("%s %d: %w", op, id, err)
	}
	st.removeCharacter(id)
	return nil
}

// restoreCharacter re-creates a deleted character c under its original id,
// failing with ErrNameTaken when its name has been taken since.
func restoreCharacter(op string, ch channelRecords, st *channelState, c *Character) error {
	if c.Name == "" {
		return fmt.Errorf("%s %d: empty name", op, c.ID)
	}
	if st.character(c.ID) != nil {
		return fmt.Errorf("%s %d: character exists", op, c.ID)
	}
	if st.named(string(nameKey(c.Name))) != nil {
		return fmt.Errorf("%s %d: character %q: %w", op, c.ID, c.Name, ErrNameTaken)
	}
	// Keep ids unique even if the id was never handed out by this
	// channel's sequence (an event copied from elsewhere).
	seq, err := ch.lastID(kindCharacter)
	if err != nil {
		return fmt.Errorf("%s %d: %w", op, c.ID, err)
	}
	if c.ID > seq {
		if err := ch.setLastID(kindCharacter, c.ID); err != nil {
			return fmt.Errorf("%s %d: %w", op, c.ID, err)
		}
	}
	if err := putCharacterRecord(ch, st, c, ""); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
