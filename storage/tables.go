package storage

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

var errNoChannel = errors.New("empty channel id")

// tablesBucket returns the top-level tables bucket, which Open always creates.
func tablesBucket(btx *bolt.Tx) (*bolt.Bucket, error) {
	b := btx.Bucket(bucketTables)
	if b == nil {
		return nil, fmt.Errorf("bucket %q missing", bucketTables)
	}
	return b, nil
}

// channelBucket returns the channel's bucket, or nil when the channel has
// never been written to.
func channelBucket(btx *bolt.Tx, channelID string) (*bolt.Bucket, error) {
	if channelID == "" {
		return nil, errNoChannel
	}
	tables, err := tablesBucket(btx)
	if err != nil {
		return nil, err
	}
	return tables.Bucket([]byte(channelID)), nil
}

// channelBucket returns the channel's bucket and its nested buckets,
// creating (and journaling) whichever are missing.
func (j *journal) channelBucket(btx *bolt.Tx, channelID string) (*bolt.Bucket, error) {
	if channelID == "" {
		return nil, errNoChannel
	}
	tables, err := tablesBucket(btx)
	if err != nil {
		return nil, err
	}
	ch, err := j.bucket(tables, []byte(channelID))
	if err != nil {
		return nil, fmt.Errorf("create bucket for table %s: %w", channelID, err)
	}
	for _, name := range [][]byte{bucketChars, bucketNames, bucketEvents} {
		if _, err := j.bucket(ch, name); err != nil {
			return nil, fmt.Errorf("create bucket %q for table %s: %w", name, channelID, err)
		}
	}
	return ch, nil
}

// nested returns the named bucket inside the channel bucket ch, or nil when ch
// is nil or lacks it.
func nested(ch *bolt.Bucket, name []byte) *bolt.Bucket {
	if ch == nil {
		return nil
	}
	return ch.Bucket(name)
}

// hasTable reports whether the channel bucket ch holds a table record.
func hasTable(ch *bolt.Bucket) bool {
	return ch != nil && ch.Get(keyTable) != nil
}

// Table returns the table set up in the channel, or an error wrapping
// ErrNotFound when there is none.
func (tx *Tx) Table(channelID string) (*Table, error) {
	st, err := tx.state(channelID)
	if err != nil {
		return nil, fmt.Errorf("get table: %w", err)
	}
	if st.table == nil {
		return nil, fmt.Errorf("table %s: %w", channelID, ErrNotFound)
	}
	return st.table.Clone(), nil // the caller's copy
}

// getTable decodes the table in channel bucket ch (which may be nil).
func getTable(ch *bolt.Bucket, channelID string) (*Table, error) {
	if ch == nil {
		return nil, fmt.Errorf("table %s: %w", channelID, ErrNotFound)
	}
	v := ch.Get(keyTable)
	if v == nil {
		return nil, fmt.Errorf("table %s: %w", channelID, ErrNotFound)
	}
	t, err := decodeTable(v)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", channelID, err)
	}
	t.ChannelID = channelID
	return t, nil
}

// PutTable creates the table in channel t.ChannelID or replaces it. It does
// not touch the table's characters or events. It fails when t.ChannelID is
// empty or t.Clock is negative.
func (tx *Tx) PutTable(t *Table) error {
	btx, err := tx.write()
	if err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	ch, err := tx.j.channelBucket(btx, t.ChannelID)
	if err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	st, err := tx.writable(t.ChannelID)
	if err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	return putTable(tx.j, ch, st, t)
}

// putTable writes t into its channel bucket ch and its state st.
func putTable(j *journal, ch *bolt.Bucket, st *channelState, t *Table) error {
	if t.Clock < 0 {
		return fmt.Errorf("put table %s: negative clock %d", t.ChannelID, t.Clock)
	}
	if err := checkInitiative(t.Initiative); err != nil {
		return fmt.Errorf("put table %s: %w", t.ChannelID, err)
	}
	data, err := encodeTable(t)
	if err != nil {
		return err
	}
	if err := j.put(ch, keyTable, data); err != nil {
		return fmt.Errorf("put table %s: %w", t.ChannelID, err)
	}
	st.table = storedTable(t)
	return nil
}

// Tables returns every table, ordered by channel id (byte order). It reads
// the whole file's tables and is meant for small admin use.
func (tx *Tx) Tables() ([]*Table, error) {
	btx, err := tx.read()
	if err != nil {
		return nil, err
	}
	tables, err := tablesBucket(btx)
	if err != nil {
		return nil, err
	}
	var out []*Table
	c := tables.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil {
			continue // not a bucket
		}
		ch := tables.Bucket(k)
		if !hasTable(ch) {
			continue // history left after the table's creation was undone
		}
		t, err := getTable(ch, string(k))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// checkInitiative rejects a turn order that no code writes: combatants
// without a character, a character twice, a turn out of range, a start
// before the clock began.
func checkInitiative(o *Initiative) error {
	if o == nil {
		return nil
	}
	if o.Turn < 0 || o.Turn > len(o.Combatants) {
		return fmt.Errorf("turn order: turn %d out of 0..%d", o.Turn, len(o.Combatants))
	}
	if o.Start < 0 {
		return fmt.Errorf("turn order: negative start %d", o.Start)
	}
	seen := make(map[uint64]bool, len(o.Combatants))
	for i, c := range o.Combatants {
		if c.CharacterID == 0 || seen[c.CharacterID] {
			return fmt.Errorf("turn order: combatant %d has character id %d (zero or twice)", i, c.CharacterID)
		}
		seen[c.CharacterID] = true
	}
	return nil
}
