package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Moving between backends (hpkeeper migrate). Every channel of one database
// is copied into another, record by record through the seam (seam.go),
// whatever their backends: the table, each character (indexed by its
// name), each event in the form it is stored in, and both sequences. A
// channel is copied in one transaction of the destination, so it is there
// whole or not at all; a copy that stops (Ctrl-C, a lost connection) is
// resumed by running it again: a channel the destination holds already is
// compared instead of copied. Every channel copied is read back from the
// destination and compared with the source, byte for byte.

// CopyReport is what CopyDatabase did.
type CopyReport struct {
	// Channels counts the channels copied (and checked); Present those the
	// destination held already (and were checked equal).
	Channels, Present int
	// Tables, Characters and Events count the records of every channel of
	// the source (copied or present).
	Tables, Characters, Events int
}

// ErrCopyConflict is returned (wrapped) by CopyDatabase when the
// destination holds a channel that is not the source's: it is never
// overwritten.
var ErrCopyConflict = errors.New("the destination holds this table with other records")

// CopyDatabase copies every channel of src into dst (both open DBs, of any
// backends) until ctx is done, calling progress (when not nil) after each
// channel. It returns what it did, and an error wrapping ctx's when it was
// stopped (what it copied stays: run it again to go on), ErrCopyConflict
// when dst holds a channel other than src's, or the error of either
// database. Nothing of src is written. No process may write to either
// while it runs: src is read in one snapshot, and a channel written to dst
// meanwhile would not be the source's.
func CopyDatabase(ctx context.Context, src, dst *DB, progress func(channelID string, r CopyReport)) (*CopyReport, error) {
	rep := &CopyReport{}
	err := src.View(func(stx *Tx) error {
		return stx.eachChannel(func(s channelRecords) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			id := s.channelID()
			copied := false
			err := dst.Update(func(dtx *Tx) error {
				d, err := dtx.records(id, true)
				if err != nil {
					return err
				}
				empty, err := emptyChannel(d)
				if err != nil || !empty {
					return err
				}
				copied = true
				return copyChannel(s, d)
			})
			if err != nil {
				return fmt.Errorf("copy table %s: %w", id, err)
			}
			err = dst.View(func(dtx *Tx) error {
				d, err := dtx.records(id, false)
				if err != nil {
					return err
				}
				return sameChannel(s, d, rep)
			})
			if err != nil {
				if copied {
					return fmt.Errorf("check table %s after copying it: %w", id, err)
				}
				return fmt.Errorf("table %s: %w: %w", id, ErrCopyConflict, err)
			}
			if copied {
				rep.Channels++
			} else {
				rep.Present++
			}
			if progress != nil {
				progress(id, *rep)
			}
			return nil
		})
	})
	return rep, err
}

// emptyChannel reports whether ch holds no record at all.
func emptyChannel(ch channelRecords) (bool, error) {
	t, err := ch.tableRecord()
	if err != nil || t != nil {
		return false, err
	}
	for _, kind := range []byte{kindCharacter, kindEvent} {
		if n, err := ch.lastID(kind); err != nil || n != 0 {
			return false, err
		}
	}
	if seq, _, err := ch.newestEvent(); err != nil || seq != 0 {
		return false, err
	}
	chars := 0
	err = ch.eachCharacter(func(uint64, []byte) error { chars++; return nil })
	return chars == 0, err
}

// copyChannel writes every record of s into the empty channel d.
func copyChannel(s, d channelRecords) error {
	t, err := s.tableRecord()
	if err != nil {
		return err
	}
	if t != nil {
		if err := d.writeTable(bytes.Clone(t)); err != nil {
			return err
		}
	}
	err = s.eachCharacter(func(id uint64, rec []byte) error {
		c, err := decodeCharacter(rec)
		if err != nil {
			return fmt.Errorf("character %d: %w", id, err)
		}
		return d.writeCharacter(id, string(nameKey(c.Name)), "", bytes.Clone(rec))
	})
	if err != nil {
		return err
	}
	for _, kind := range []byte{kindCharacter, kindEvent} {
		n, err := s.lastID(kind)
		if err != nil {
			return err
		}
		if n != 0 {
			if err := d.setLastID(kind, n); err != nil {
				return err
			}
		}
	}
	entries, err := indexEntries(s)
	if err != nil {
		return err
	}
	return s.eachEventBefore(0, func(seq uint64, e eventData) (bool, error) {
		js, err := e.decoded()
		if err != nil {
			return false, fmt.Errorf("event %d: %w", seq, err)
		}
		meta, err := metaOfJSON(js)
		if err != nil {
			return false, fmt.Errorf("event %d: %w", seq, err)
		}
		en, ok := entries[seq]
		if !ok {
			return false, fmt.Errorf("event %d has no entry in the index", seq)
		}
		meta.entry = en
		e.json = bytes.Clone(js)
		e.raw = bytes.Clone(e.raw)
		return true, d.writeEvent(seq, meta, e)
	})
}

// indexEntries returns the index entries of every event of ch, by seq.
func indexEntries(ch channelRecords) (map[uint64]EventEntry, error) {
	entries := map[uint64]EventEntry{}
	err := ch.eachEntryBefore(0, EntryFilter{}, func(en EventEntry) (bool, error) {
		entries[en.Seq] = en
		return true, nil
	})
	return entries, err
}

// metaOfJSON reads the eventMeta of an event's JSON, in either form (a
// storedEvent embeds Event's fields).
func metaOfJSON(js []byte) (eventMeta, error) {
	var e struct {
		At       time.Time `json:"at"`
		UserID   string    `json:"user_id"`
		UserName string    `json:"user_name"`
		Command  string    `json:"command"`
		Summary  string    `json:"summary"`
		UndoOf   uint64    `json:"undo_of"`
	}
	if err := json.Unmarshal(js, &e); err != nil {
		return eventMeta{}, err
	}
	return eventMeta{at: e.At.UTC(), userID: e.UserID, userName: e.UserName, command: e.Command, summary: e.Summary, undoOf: e.UndoOf}, nil
}

// sameChannel returns an error naming the first record in which s and d
// differ, and counts s's records into rep when they are the same.
func sameChannel(s, d channelRecords, rep *CopyReport) error {
	ts, err := s.tableRecord()
	if err != nil {
		return err
	}
	td, err := d.tableRecord()
	if err != nil {
		return err
	}
	if !bytes.Equal(ts, td) {
		return errors.New("the table records differ")
	}
	for _, kind := range []struct {
		name string
		kind byte
	}{{"character id", kindCharacter}, {"event seq", kindEvent}} {
		a, err := s.lastID(kind.kind)
		if err != nil {
			return err
		}
		b, err := d.lastID(kind.kind)
		if err != nil {
			return err
		}
		if a != b {
			return fmt.Errorf("the last %s handed out is %d in the source, %d in the destination", kind.name, a, b)
		}
	}
	chars := map[uint64][]byte{}
	if err := d.eachCharacter(func(id uint64, rec []byte) error { chars[id] = bytes.Clone(rec); return nil }); err != nil {
		return err
	}
	n := 0
	err = s.eachCharacter(func(id uint64, rec []byte) error {
		n++
		if !bytes.Equal(chars[id], rec) {
			return fmt.Errorf("character %d differs", id)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n != len(chars) {
		return fmt.Errorf("%d characters in the source, %d in the destination", n, len(chars))
	}
	type sourceEvent struct {
		form eventForm
		json []byte
	}
	events := map[uint64]sourceEvent{}
	err = d.eachEventBefore(0, func(seq uint64, e eventData) (bool, error) {
		js, err := e.decoded()
		events[seq] = sourceEvent{e.form, bytes.Clone(js)}
		return err == nil, err
	})
	if err != nil {
		return err
	}
	m := 0
	err = s.eachEventBefore(0, func(seq uint64, e eventData) (bool, error) {
		m++
		js, err := e.decoded()
		if err != nil {
			return false, err
		}
		if got := events[seq]; got.form != e.form || !bytes.Equal(got.json, js) {
			return false, fmt.Errorf("event %d differs", seq)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if m != len(events) {
		return fmt.Errorf("%d events in the source, %d in the destination", m, len(events))
	}
	se, err := indexEntries(s)
	if err != nil {
		return err
	}
	de, err := indexEntries(d)
	if err != nil {
		return err
	}
	for seq, en := range se {
		if got, ok := de[seq]; !ok || !sameEntry(got, en) {
			return fmt.Errorf("the index entries of event %d differ", seq)
		}
	}
	if len(se) != len(de) {
		return fmt.Errorf("%d index entries in the source, %d in the destination", len(se), len(de))
	}
	if ts != nil {
		rep.Tables++
	}
	rep.Characters += n
	rep.Events += m
	return nil
}
