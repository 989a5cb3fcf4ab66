package storage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Idempotency. A state-changing interaction records its Discord
// interaction id in the transaction of its write, so that no crash and no
// lost answer separates the two: a request applied once is refused when it
// comes again (a replay, or a retry on another replica), and an Update
// whose COMMIT's answer was lost learns from the record whether it was
// written (ErrCommitUnknown).

// InteractionTTL is how long an interaction's record is kept: well past
// the 15 minutes its token lets a bot answer it, and past the 5 minutes in
// which the HTTP endpoint accepts its signature.
const InteractionTTL = time.Hour

// Interaction is a state-changing interaction as its write recorded it.
type Interaction struct {
	// ID is Discord's interaction id.
	ID string
	// ChannelID is the table it changed.
	ChannelID string
	// EventSeq is the event it appended there, 0 when it appended none.
	EventSeq uint64
	// At is when it was recorded (UTC).
	At time.Time
}

// ErrInteractionDone is returned (as an *InteractionDoneError) by an Update
// that recorded an interaction recorded before: its command was applied
// already, and nothing of this Update was written.
var ErrInteractionDone = errors.New("interaction already applied")

// InteractionDoneError is the error of an Update whose interaction was
// applied before; errors.Is(err, ErrInteractionDone) reports true for it.
type InteractionDoneError struct {
	// Done is the record of the earlier application.
	Done Interaction
}

// Error says which interaction and which event.
func (e *InteractionDoneError) Error() string {
	return fmt.Sprintf("interaction %s at table %s: %v (event %d)", e.Done.ID, e.Done.ChannelID, ErrInteractionDone, e.Done.EventSeq)
}

// Unwrap returns ErrInteractionDone.
func (e *InteractionDoneError) Unwrap() error { return ErrInteractionDone }

// RecordInteraction records, with this Update's write, that the
// interaction id changes the table in channelID at the time at. When the
// Update commits, the record names the newest event it appended there.
// When the interaction was recorded before, this call returns an
// *InteractionDoneError, on both backends, before the Update does
// anything else; return it, and the Update writes nothing. (On PostgreSQL
// the record is read with the channel's row, under its lock, in the round
// trip that reads the channel anyway; the record's key refuses a second
// one at the commit too.) An Update that writes nothing records nothing.
// Call it once per Update, from the function, before anything else.
func (tx *Tx) RecordInteraction(id, channelID string, at time.Time) error {
	if id == "" {
		return nil
	}
	if tx.done {
		return errTxDone
	}
	if tx.view {
		return fmt.Errorf("record interaction %s: read-only transaction", id)
	}
	in := &Interaction{ID: id, ChannelID: channelID, At: at.UTC()}
	if tx.pg != nil {
		return tx.pg.recordInteraction(in)
	}
	return tx.boltRecordInteraction(in)
}

// recordInteraction remembers in, to be written with the commit, and
// returns an *InteractionDoneError when it was recorded before: read with
// the channel's row under its lock (pgTx.channel), or alone when this
// transaction read the channel already.
func (t *pgTx) recordInteraction(in *Interaction) error {
	t.interaction = in
	if _, read := t.chans[in.ChannelID]; read {
		b := &pgx.Batch{}
		t.queueInteraction(b)
		if err := t.send(b); err != nil {
			return fmt.Errorf("record interaction %s: %w", in.ID, err)
		}
	} else if _, err := t.channel(in.ChannelID); err != nil {
		return fmt.Errorf("record interaction %s: %w", in.ID, err)
	}
	if t.applied != nil {
		return &InteractionDoneError{Done: *t.applied}
	}
	return nil
}

// queueInteraction queues the reading of the record of t's interaction
// into t.applied.
func (t *pgTx) queueInteraction(b *pgx.Batch) {
	id := t.interaction.ID
	b.Queue(`SELECT channel_id, event_seq, at FROM interactions WHERE id = $1`, id).
		Query(func(rows pgx.Rows) error {
			for rows.Next() {
				done := Interaction{ID: id}
				var seq int64
				if err := rows.Scan(&done.ChannelID, &seq, &done.At); err != nil {
					return err
				}
				done.EventSeq, done.At = uint64(seq), done.At.UTC()
				t.applied = &done
			}
			return rows.Err()
		})
}

// pgInteractionDone turns the refusal of an Update's interaction record
// (its key, a unique violation) into an *InteractionDoneError; other
// errors pass.
func (db *DB) pgInteractionDone(tx *Tx, err error) error {
	var pgErr *pgconn.PgError
	if tx == nil || tx.pg.interaction == nil || !errors.As(err, &pgErr) ||
		pgErr.Code != pgUniqueViolation || pgErr.TableName != "interactions" {
		return err
	}
	id := tx.pg.interaction.ID
	ctx, cancel := context.WithTimeout(context.Background(), db.pg.timeout)
	defer cancel()
	var done Interaction
	var seq int64
	qerr := db.pg.pool.QueryRow(ctx, `SELECT id, channel_id, event_seq, at FROM interactions WHERE id = $1`, id).
		Scan(&done.ID, &done.ChannelID, &seq, &done.At)
	if errors.Is(qerr, pgx.ErrNoRows) {
		return err // expired meanwhile: say what the database said
	}
	if qerr != nil {
		return errors.Join(err, pgUnavailable(qerr))
	}
	done.EventSeq, done.At = uint64(seq), done.At.UTC()
	return &InteractionDoneError{Done: done}
}
