package storage

import (
	"errors"
	"fmt"
)

var errNoChannel = errors.New("empty channel id")

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

// getTable decodes the channel's table, failing with ErrNotFound when it
// has none.
func getTable(ch channelRecords) (*Table, error) {
	v, err := ch.tableRecord()
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", ch.channelID(), err)
	}
	if v == nil {
		return nil, fmt.Errorf("table %s: %w", ch.channelID(), ErrNotFound)
	}
	t, err := decodeTable(v)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", ch.channelID(), err)
	}
	t.ChannelID = ch.channelID()
	return t, nil
}

// PutTable creates the table in channel t.ChannelID or replaces it. It does
// not touch the table's characters or events. It fails when t.ChannelID is
// empty or t.Clock is negative.
func (tx *Tx) PutTable(t *Table) error {
	ch, err := tx.records(t.ChannelID, true)
	if err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	st, err := tx.writable(t.ChannelID)
	if err != nil {
		return fmt.Errorf("put table: %w", err)
	}
	return putTable(ch, st, t)
}

// putTable writes t into its channel ch and its state st.
func putTable(ch channelRecords, st *channelState, t *Table) error {
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
	if err := ch.writeTable(data); err != nil {
		return fmt.Errorf("put table %s: %w", t.ChannelID, err)
	}
	st.table = storedTable(t)
	return nil
}

// Tables returns every table, ordered by channel id (byte order). It reads
// every table of the database and is meant for small admin use.
func (tx *Tx) Tables() ([]*Table, error) {
	var out []*Table
	err := tx.eachChannel(func(ch channelRecords) error {
		v, err := ch.tableRecord()
		if err != nil || v == nil {
			return err // nil: history left after the table's creation was undone
		}
		t, err := getTable(ch)
		if err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, err
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
