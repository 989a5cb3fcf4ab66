package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"
)

// The history's index in a bbolt file (index.go; the keys are in
// schema.go): an event's entry under kindEntry and its seq, and empty
// keys that find it by user (kindByUser, the user id after its length) and
// by character (kindByCharacter), and the seq of the undo under the seq of
// the event it undid (kindUndone). Each lookup is a seek and a walk of the
// keys it finds, newest first.

// encodeEntry returns en as its kindEntry value: the flags, the seq
// undone, the characters it is about and those it changed (each a uvarint
// count, then each 8-byte id) and the user id.
func encodeEntry(en EventEntry) []byte {
	v := make([]byte, 0, 1+8+2*binary.MaxVarintLen64+8*(len(en.Characters)+len(en.Changed))+len(en.UserID))
	v = append(v, byte(en.Flags))
	v = binary.BigEndian.AppendUint64(v, en.UndoOf)
	for _, ids := range [][]uint64{en.Characters, en.Changed} {
		v = binary.AppendUvarint(v, uint64(len(ids)))
		for _, c := range ids {
			v = binary.BigEndian.AppendUint64(v, c)
		}
	}
	return append(v, en.UserID...)
}

// decodeIDs decodes a uvarint count and that many 8-byte ids at the start
// of v, and returns them (nil for none) and the rest of v.
func decodeIDs(v []byte) ([]uint64, []byte, bool) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)-k)/8 {
		return nil, nil, false
	}
	v = v[k:]
	var ids []uint64
	if n > 0 {
		ids = make([]uint64, n)
		for i := range ids {
			ids[i] = binary.BigEndian.Uint64(v[8*i:])
		}
	}
	return ids, v[8*n:], true
}

// decodeEntry decodes the kindEntry value v of event seq.
func decodeEntry(seq uint64, v []byte) (EventEntry, error) {
	en := EventEntry{Seq: seq}
	if len(v) < 10 {
		return en, fmt.Errorf("index entry of event %d: %d bytes", seq, len(v))
	}
	en.Flags = EntryFlags(v[0])
	en.UndoOf = binary.BigEndian.Uint64(v[1:9])
	rest, ok := v[9:], true
	if en.Characters, rest, ok = decodeIDs(rest); ok {
		en.Changed, rest, ok = decodeIDs(rest)
	}
	if !ok {
		return en, fmt.Errorf("index entry of event %d: bad count of characters", seq)
	}
	en.UserID = string(rest)
	return en, nil
}

// userPrefix is the part of a kindByUser key after the kind that names
// user: its length, then its bytes.
func userPrefix(user string) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(user))), user...)
}

func (c *channel) writeEntry(en EventEntry) error {
	if err := c.canWrite(); err != nil {
		return err
	}
	seq := itob(en.Seq)
	if err := c.entries.put(c.j, seq, encodeEntry(en)); err != nil {
		return fmt.Errorf("index event %d: %w", en.Seq, err)
	}
	if err := c.byUser.put(c.j, append(userPrefix(en.UserID), seq...), []byte{}); err != nil {
		return fmt.Errorf("index event %d by user: %w", en.Seq, err)
	}
	for _, id := range en.Characters {
		if err := c.byCharacter.put(c.j, append(itob(id), seq...), []byte{}); err != nil {
			return fmt.Errorf("index event %d by character: %w", en.Seq, err)
		}
	}
	if en.UndoOf != 0 {
		// The newest undo of an event is the one kept (as PostgreSQL's
		// MAX), whichever order the entries are written in.
		if v := c.undone.get(itob(en.UndoOf)); v != nil {
			if by, err := btoi(v); err == nil && by > en.Seq {
				return nil
			}
		}
		if err := c.undone.put(c.j, itob(en.UndoOf), seq); err != nil {
			return fmt.Errorf("index event %d as undone: %w", en.UndoOf, err)
		}
	}
	return nil
}

func (c *channel) eachEntryBefore(before uint64, f EntryFilter, fn func(EventEntry) (bool, error)) error {
	// The keys to walk: every entry, or those of one character or user,
	// each ending in the event's seq.
	keys := c.entries
	switch {
	case f.CharacterID != 0:
		keys = recordSet{b: c.byCharacter.b, prefix: c.byCharacter.key(itob(f.CharacterID))}
	case f.ByUser:
		keys = recordSet{b: c.byUser.b, prefix: c.byUser.key(userPrefix(f.UserID))}
	}
	cur := keys.cursor()
	var k []byte
	if before == 0 {
		k, _ = cur.last()
	} else if k, _ = cur.seek(itob(before)); k != nil {
		k, _ = cur.prev()
	} else {
		k, _ = cur.last() // every key is below before
	}
	for ; k != nil; k, _ = cur.prev() {
		seq, err := btoi(k)
		if err != nil {
			return fmt.Errorf("index key %x: %w", k, err)
		}
		v := c.entries.get(k)
		if v == nil {
			return fmt.Errorf("event %d is in the index but has no entry", seq)
		}
		en, err := decodeEntry(seq, v)
		if err != nil {
			return err
		}
		if !f.keeps(en) {
			continue
		}
		if en.UndoneBy, err = c.undoneBy(seq); err != nil {
			return err
		}
		if more, err := fn(en); err != nil || !more {
			return err
		}
	}
	return nil
}

func (c *channel) undoneBy(seq uint64) (uint64, error) {
	v := c.undone.get(itob(seq))
	if v == nil {
		return 0, nil
	}
	by, err := btoi(v)
	if err != nil {
		return 0, fmt.Errorf("undo of event %d: %w", seq, err)
	}
	return by, nil
}

func (c *channel) indexSize() (indexCount, error) {
	var n indexCount
	count := func(r recordSet, to *int) error {
		return r.forEach(func(_, _ []byte) error { *to++; return nil })
	}
	err := errors.Join(count(c.byUser, &n.users), count(c.byCharacter, &n.characters), count(c.undone, &n.undone))
	return n, err
}

func (c *channel) eventSizes(low, high uint64, fn func(seq uint64, form eventForm, size int) error) error {
	cur := c.events.cursor()
	k, v := cur.seek(itob(high))
	switch {
	case k == nil:
		k, v = cur.last()
	case string(k) != string(itob(high)):
		k, v = cur.prev()
	}
	for ; k != nil; k, v = cur.prev() {
		seq, err := btoi(k)
		if err != nil {
			return fmt.Errorf("event key %x: %w", k, err)
		}
		if seq < low {
			return nil
		}
		size := len(v)
		if len(v) > 0 && (v[0] == eventCompact || v[0] == eventS2) {
			if size, err = s2.DecodedLen(v[1:]); err != nil {
				return fmt.Errorf("event %d: %w", seq, err)
			}
		}
		if err := fn(seq, boltEventData(v).form, size); err != nil {
			return err
		}
	}
	return nil
}
