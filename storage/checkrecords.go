package storage

import (
	"fmt"
)

// checkChannel counts the records of one channel into rep and adds what is
// wrong with them to p, through the seam, for either backend: the table and
// every character decode, no id or seq in use is past its sequence (which
// would hand it out again), and every event is read back, newest first as
// the history is, each checkpoint compared with the walk at that point.
// What a backend keeps beside the records (bbolt's name index, PostgreSQL's
// name_key column) is its own check's.
func checkChannel(ch channelRecords, rep *Report, p *problems) {
	channelID := ch.channelID()
	v, err := ch.tableRecord()
	if err != nil {
		p.add(fmt.Errorf("table %s: %w", channelID, err))
	}
	if v != nil {
		if _, err := decodeTable(v); err != nil {
			p.add(fmt.Errorf("table %s: %w", channelID, err))
		}
		rep.Tables++
	}
	var lastChar uint64
	err = ch.eachCharacter(func(id uint64, v []byte) error {
		rep.Characters++
		lastChar = max(lastChar, id)
		if _, err := decodeCharacter(v); err != nil {
			p.add(fmt.Errorf("character %d at table %s: %w", id, channelID, err))
		}
		return nil
	})
	if err != nil {
		p.add(fmt.Errorf("characters at table %s: %w", channelID, err))
	}
	newest, _, err := ch.newestEvent()
	if err != nil {
		p.add(fmt.Errorf("events at table %s: %w", channelID, err))
	}
	for _, kind := range []struct {
		name  string
		kind  byte
		inUse uint64
	}{{"character id", kindCharacter, lastChar}, {"event seq", kindEvent, newest}} {
		seq, err := ch.lastID(kind.kind)
		if err != nil {
			p.add(fmt.Errorf("table %s: %s %w", channelID, kind.name, err))
			continue
		}
		if kind.inUse > seq {
			p.add(fmt.Errorf("table %s: %s %d is in use but the next to be handed out is %d", channelID, kind.name, kind.inUse, seq+1))
		}
	}
	h, err := startHistory(ch, channelID, false)
	if err != nil {
		p.add(fmt.Errorf("events at table %s: %w", channelID, err))
		return
	}
	h.verify = true // and every checkpoint agrees with the walk
	err = ch.eachEventBefore(0, func(seq uint64, d eventData) (bool, error) {
		rep.Events++
		if _, err := h.visit(d, seq, true); err != nil {
			// The error names the event and the table; the rest of the
			// walk cannot be trusted.
			p.add(err)
			h, _ = startHistory(nil, channelID, false)
			h.whole = true
		}
		return true, nil
	})
	if err != nil {
		p.add(fmt.Errorf("events at table %s: %w", channelID, err))
	}
}
