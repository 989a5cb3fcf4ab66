package storage

import "fmt"

// Stopping with commands still running. A process that stops tells each
// command still running that it was cancelled, or that it was applied
// (bot's Endpoint.Close); to say so truly, it first stops the writes, so
// that no command can write after it is told (StopWrites), then asks
// whether each one's change was saved (InteractionApplied).

// StopWrites makes every Update from now on fail with an error wrapping
// ErrClosed, and returns once the Updates already begun (on a file, those
// queued for the writer) have committed or failed: from then on what is
// written stays as it is until Close. Views still run, and so do the
// saving of the replay guard (SaveReplayState) and the work allowances of
// a shared database. Calling it again does nothing more.
func (db *DB) StopWrites() {
	db.writes.Lock()
	db.stopped = true
	db.writes.Unlock()
	db.running.Wait()
}

// InteractionApplied reports whether the interaction id changed the table
// in channelID (Tx.RecordInteraction committed its record, kept
// InteractionTTL), and with it the record: the event it appended.
func (db *DB) InteractionApplied(channelID, id string) (Interaction, bool, error) {
	if db.pg != nil {
		in, found, err := db.pg.interaction(id)
		if err != nil {
			return Interaction{}, false, fmt.Errorf("interaction %s: %w", id, err)
		}
		return in, found, nil
	}
	var in Interaction
	found := false
	err := db.View(func(tx *Tx) error {
		btx, err := tx.read()
		if err != nil {
			return err
		}
		ch, err := openChannel(btx, channelID)
		if err != nil {
			return err
		}
		if v := interactions(ch).get([]byte(id)); v != nil {
			in, found = decodeInteraction(id, channelID, v), true
		}
		return nil
	})
	if err != nil {
		return Interaction{}, false, fmt.Errorf("interaction %s: %w", id, err)
	}
	return in, found, nil
}
