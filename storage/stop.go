package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

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
		ctx, cancel := context.WithTimeout(context.Background(), db.pg.timeout)
		defer cancel()
		var in Interaction
		var seq int64
		err := db.pg.pool.QueryRow(ctx, `SELECT id, channel_id, event_seq, at FROM interactions WHERE id = $1`, id).
			Scan(&in.ID, &in.ChannelID, &seq, &in.At)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return Interaction{}, false, nil
		case err != nil:
			return Interaction{}, false, fmt.Errorf("interaction %s: %w", id, pgUnavailable(err))
		}
		in.EventSeq, in.At = uint64(seq), in.At.UTC()
		return in, true, nil
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
		v := interactions(ch).get([]byte(id))
		if v == nil {
			return nil
		}
		found = true
		in = Interaction{ID: id, ChannelID: channelID}
		if len(v) == 16 {
			in.EventSeq = binary.BigEndian.Uint64(v[:8])
			in.At = time.Unix(0, int64(binary.BigEndian.Uint64(v[8:]))).UTC()
		}
		return nil
	})
	if err != nil {
		return Interaction{}, false, fmt.Errorf("interaction %s: %w", id, err)
	}
	return in, found, nil
}
