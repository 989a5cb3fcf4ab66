package storage

import (
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
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

// getCharacter decodes character id from chars (which may be nil).
func getCharacter(chars *bolt.Bucket, channelID string, id uint64) (*Character, error) {
	var v []byte
	if chars != nil {
		v = chars.Get(itob(id))
	}
	if v == nil {
		return nil, fmt.Errorf("character %d at table %s: %w", id, channelID, ErrNotFound)
	}
	c, err := decodeCharacter(v)
	if err != nil {
		return nil, fmt.Errorf("character %d at table %s: %w", id, channelID, err)
	}
	c.ChannelID, c.ID = channelID, id
	return c, nil
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

// charBuckets returns the chars and names buckets of a channel for writing
// and the channel's state as this function's own copy, failing with
// ErrNotFound when the channel has no table.
func (tx *Tx) charBuckets(op, channelID string) (chars, names *bolt.Bucket, st *channelState, err error) {
	btx, err := tx.write()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	if st, err = tx.state(channelID); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	if st.table == nil {
		return nil, nil, nil, fmt.Errorf("%s: table %s: %w", op, channelID, ErrNotFound)
	}
	// PutTable creates the nested buckets with the table; create them here
	// too in case a future migration leaves a table without them.
	ch, err := tx.j.channelBucket(btx, channelID)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	if st, err = tx.writable(channelID); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	return ch.Bucket(bucketChars), ch.Bucket(bucketNames), st, nil
}

// CreateCharacter adds c to the table in channel c.ChannelID and assigns c.ID
// (the next id at that table: 1, 2, 3 …, never reused). c.ID's value on entry
// is ignored; the other fields are stored as given (CreatedAt in UTC). It
// fails with ErrNameTaken when another character there has the same name
// case-insensitively, with ErrNotFound when the channel has no table, and when
// the name is empty. Name rules (length, characters) are the caller's.
func (tx *Tx) CreateCharacter(c *Character) error {
	const op = "create character"
	chars, names, st, err := tx.charBuckets(op, c.ChannelID)
	if err != nil {
		return err
	}
	if c.Name == "" {
		return fmt.Errorf("%s: empty name", op)
	}
	if st.named(string(nameKey(c.Name))) != nil {
		return fmt.Errorf("%s: character %q: %w", op, c.Name, ErrNameTaken)
	}
	id, err := tx.j.nextSeq(chars)
	if err != nil {
		return fmt.Errorf("%s %q: %w", op, c.Name, err)
	}
	n := *c
	n.ID = id
	if err := putCharacterRecord(tx.j, chars, names, st, &n); err != nil {
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
	chars, _, _, err := tx.charBuckets(op, channelID)
	if err != nil {
		return err
	}
	if chars.Sequence() >= last {
		return nil
	}
	if err := tx.j.setSeq(chars, last); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// putCharacterRecord writes c under its id, indexes its name and puts it in
// the channel's state st. It does not check for clashes or remove an old name.
func putCharacterRecord(j *journal, chars, names *bolt.Bucket, st *channelState, c *Character) error {
	data, err := encodeCharacter(c)
	if err != nil {
		return err
	}
	stored, err := storedCharacter(c)
	if err != nil {
		return err
	}
	if err := j.put(chars, itob(c.ID), data); err != nil {
		return fmt.Errorf("put character %d: %w", c.ID, err)
	}
	if err := j.put(names, nameKey(c.Name), itob(c.ID)); err != nil {
		return fmt.Errorf("index character name %q: %w", c.Name, err)
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
	chars, names, st, err := tx.charBuckets(op, c.ChannelID)
	if err != nil {
		return err
	}
	return replaceCharacter(tx.j, op, chars, names, st, c)
}

// replaceCharacter replaces the stored character c.ID with c, moving its name
// index entry when the name changed (case-insensitively).
func replaceCharacter(j *journal, op string, chars, names *bolt.Bucket, st *channelState, c *Character) error {
	if c.Name == "" {
		return fmt.Errorf("%s %d: empty name", op, c.ID)
	}
	old := st.character(c.ID)
	if old == nil {
		return fmt.Errorf("%s: character %d at table %s: %w", op, c.ID, c.ChannelID, ErrNotFound)
	}
	oldKey, newKey := nameKey(old.Name), nameKey(c.Name)
	if string(oldKey) != string(newKey) {
		if other := st.named(string(newKey)); other != nil && other.ID != c.ID {
			return fmt.Errorf("%s %d: character %q: %w", op, c.ID, c.Name, ErrNameTaken)
		}
		if err := j.del(names, oldKey); err != nil {
			return fmt.Errorf("%s %d: unindex name %q: %w", op, c.ID, old.Name, err)
		}
	}
	if err := putCharacterRecord(j, chars, names, st, c); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// DeleteCharacter removes character id from the channel's table. Its id is
// not reused. It fails with ErrNotFound when the character (or the table)
// does not exist.
func (tx *Tx) DeleteCharacter(channelID string, id uint64) error {
	const op = "delete character"
	chars, names, st, err := tx.charBuckets(op, channelID)
	if err != nil {
		return err
	}
	return deleteCharacter(tx.j, op, chars, names, st, channelID, id)
}

// deleteCharacter removes character id and its name index entry.
func deleteCharacter(j *journal, op string, chars, names *bolt.Bucket, st *channelState, channelID string, id uint64) error {
	old := st.character(id)
	if old == nil {
		return fmt.Errorf("%s: character %d at table %s: %w", op, id, channelID, ErrNotFound)
	}
	key := nameKey(old.Name)
	// Remove the index entry only if it points at this character, so a
	// damaged index cannot make us unindex someone else.
	if v := names.Get(key); v != nil {
		if other, err := btoi(v); err == nil && other == id {
			if err := j.del(names, key); err != nil {
				return fmt.Errorf("%s %d: unindex name %q: %w", op, id, old.Name, err)
			}
		}
	}
	if err := j.del(chars, itob(id)); err != nil {
		return fmt.Errorf("%s %d: %w", op, id, err)
	}
	st.removeCharacter(id)
	return nil
}

// restoreCharacter re-creates a deleted character c under its original id,
// failing with ErrNameTaken when its name has been taken since.
func restoreCharacter(j *journal, op string, chars, names *bolt.Bucket, st *channelState, c *Character) error {
	if c.Name == "" {
		return fmt.Errorf("%s %d: empty name", op, c.ID)
	}
	if st.character(c.ID) != nil {
		return fmt.Errorf("%s %d: character exists", op, c.ID)
	}
	if st.named(string(nameKey(c.Name))) != nil {
		return fmt.Errorf("%s %d: character %q: %w", op, c.ID, c.Name, ErrNameTaken)
	}
	// Keep ids unique even if the id was never handed out by this file's
	// sequence (an event copied from elsewhere).
	if c.ID > chars.Sequence() {
		if err := j.setSeq(chars, c.ID); err != nil {
			return fmt.Errorf("%s %d: %w", op, c.ID, err)
		}
	}
	if err := putCharacterRecord(j, chars, names, st, c); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
