package storage

import (
	"fmt"

	"github.com/klauspost/compress/s2"
	bolt "go.etcd.io/bbolt"
)

// The bbolt side of the seam (seam.go): a channel's keys of the channels
// bucket (channel.go) as channelRecords. Writes go through the channel's
// journal, so that a failed function of a group commit is undone alone.

var _ channelRecords = (*channel)(nil)

// boltRecords returns the records of channelID in btx for the seam: for
// writing, with j recording each write (nil: unrecorded), when writable.
func boltRecords(btx *bolt.Tx, channelID string, j *journal, writable bool) (*channel, error) {
	ch, err := openChannel(btx, channelID)
	if err != nil {
		return nil, err
	}
	ch.j, ch.writable = j, writable
	return ch, nil
}

func (c *channel) channelID() string { return c.id }

func (c *channel) tableRecord() ([]byte, error) { return c.table(), nil }

func (c *channel) writeTable(rec []byte) error {
	if err := c.canWrite(); err != nil {
		return err
	}
	return c.putTable(c.j, rec)
}

func (c *channel) removeTable() error {
	if err := c.canWrite(); err != nil {
		return err
	}
	return c.deleteTable(c.j)
}

// canWrite fails unless the channel was opened for writing.
func (c *channel) canWrite() error {
	if !c.writable {
		return fmt.Errorf("table %s: write in a read-only transaction", c.id)
	}
	return nil
}

func (c *channel) characterRecord(id uint64) ([]byte, error) { return c.chars.get(itob(id)), nil }

func (c *channel) eachCharacter(fn func(id uint64, rec []byte) error) error {
	return c.chars.forEach(func(k, v []byte) error {
		id, err := btoi(k)
		if err != nil {
			return fmt.Errorf("list characters at table %s: %w", c.id, err)
		}
		return fn(id, v)
	})
}

func (c *channel) writeCharacter(id uint64, key, oldKey string, rec []byte) error {
	if err := c.canWrite(); err != nil {
		return err
	}
	if oldKey != "" && oldKey != key {
		if err := c.names.del(c.j, []byte(oldKey)); err != nil {
			return fmt.Errorf("unindex name %q: %w", oldKey, err)
		}
	}
	if err := c.chars.put(c.j, itob(id), rec); err != nil {
		return fmt.Errorf("put character %d: %w", id, err)
	}
	if err := c.names.put(c.j, []byte(key), itob(id)); err != nil {
		return fmt.Errorf("index character name %q: %w", key, err)
	}
	return nil
}

func (c *channel) removeCharacter(id uint64, key string) error {
	if err := c.canWrite(); err != nil {
		return err
	}
	// Remove the index entry only if it points at this character, so a
	// damaged index cannot make us unindex someone else.
	if v := c.names.get([]byte(key)); v != nil {
		if other, err := btoi(v); err == nil && other == id {
			if err := c.names.del(c.j, []byte(key)); err != nil {
				return fmt.Errorf("unindex name %q: %w", key, err)
			}
		}
	}
	return c.chars.del(c.j, itob(id))
}

// sequenceOf returns the record set whose sequence kind names.
func (c *channel) sequenceOf(kind byte) (recordSet, error) {
	switch kind {
	case kindCharacter:
		return c.chars, nil
	case kindEvent:
		return c.events, nil
	}
	return recordSet{}, fmt.Errorf("no sequence of kind %q", kind)
}

func (c *channel) lastID(kind byte) (uint64, error) {
	r, err := c.sequenceOf(kind)
	if err != nil {
		return 0, err
	}
	return r.sequence()
}

func (c *channel) setLastID(kind byte, n uint64) error {
	if err := c.canWrite(); err != nil {
		return err
	}
	r, err := c.sequenceOf(kind)
	if err != nil {
		return err
	}
	return r.setSequence(c.j, n)
}

func (c *channel) writeEvent(seq uint64, _ eventMeta, d eventData) error {
	if err := c.canWrite(); err != nil {
		return err
	}
	v, err := boltEvent(d)
	if err != nil {
		return fmt.Errorf("event %d at table %s: %w", seq, c.id, err)
	}
	return c.events.put(c.j, itob(seq), v)
}

func (c *channel) eventRecord(seq uint64) (eventData, error) {
	return boltEventData(c.events.get(itob(seq))), nil
}

func (c *channel) newestEvent() (uint64, eventForm, error) {
	k, v := c.events.cursor().last()
	if k == nil {
		return 0, formNone, nil
	}
	seq, err := btoi(k)
	if err != nil {
		return 0, formNone, fmt.Errorf("last event at table %s: %w", c.id, err)
	}
	return seq, boltEventData(v).form, nil
}

func (c *channel) eachEventBefore(before uint64, fn func(seq uint64, d eventData) (bool, error)) error {
	cur := c.events.cursor()
	k, v := cur.last()
	if k != nil && before != 0 {
		last, err := btoi(k)
		if err != nil {
			return fmt.Errorf("walk events at table %s: %w", c.id, err)
		}
		if last >= before {
			// A record at or after before exists, so seek lands on one.
			cur.seek(itob(before))
			k, v = cur.prev()
		}
	}
	for k != nil {
		seq, err := btoi(k)
		if err != nil {
			return fmt.Errorf("walk events at table %s: %w", c.id, err)
		}
		more, err := fn(seq, boltEventData(v))
		if err != nil || !more {
			return err
		}
		if c.writable {
			// fn may have written to the bucket, which invalidates the
			// cursor: position it again from the key just visited.
			cur = c.events.cursor()
			cur.seek(itob(seq))
		}
		k, v = cur.prev()
	}
	return nil
}

// boltEventData reads an event as bbolt stores it (raw, decoded when
// asked for): schema 1's plain JSON, schema 2's eventS2 and schema 3's
// eventCompact (S2-compressed JSON).
func boltEventData(v []byte) eventData {
	switch {
	case len(v) == 0:
		return eventData{}
	case v[0] == eventCompact:
		return eventData{form: formCompact, raw: v}
	}
	return eventData{form: formWhole, raw: v}
}

// boltEventJSON returns the JSON of an event as bbolt stores it.
func boltEventJSON(v []byte) ([]byte, error) {
	if len(v) > 0 && (v[0] == eventCompact || v[0] == eventS2) {
		js, err := s2.Decode(nil, v[1:])
		if err != nil {
			return nil, fmt.Errorf("decode event: %w", err)
		}
		return js, nil
	}
	return v, nil
}

// boltEvent returns d as bbolt stores it: S2-compressed JSON after the
// byte of its form.
func boltEvent(d eventData) ([]byte, error) {
	if d.raw != nil {
		return d.raw, nil // bbolt's own form already
	}
	var first byte
	switch d.form {
	case formWhole:
		first = eventS2
	case formCompact:
		first = eventCompact
	default:
		return nil, fmt.Errorf("event of no form")
	}
	out := make([]byte, 1+s2.MaxEncodedLen(len(d.json)))
	out[0] = first
	return out[:1+len(s2.Encode(out[1:], d.json))], nil
}
