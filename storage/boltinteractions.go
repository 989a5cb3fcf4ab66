package storage

import (
	"encoding/binary"
	"fmt"
	"time"
)

// A bbolt file keeps each state-changing interaction among its channel's
// records (schema.go: <channel id> 0x00 'i' <interaction id>), written in
// the same transaction as the change, so that no crash separates them: a
// request applied before a SIGKILL is refused when it comes again after
// the restart (issue 26), whatever the endpoint's replay guard remembers.
// The records move with their channel (shard split and merge) and are
// pruned as the channel is written: each RecordInteraction deletes up to
// interactionPrune of the channel's records older than InteractionTTL,
// oldest first (Discord's ids grow with time).

// interactionPrune bounds the old records one RecordInteraction deletes,
// so that the pruning's work per command is bounded.
const interactionPrune = 16

// boltRecordInteraction returns an *InteractionDoneError when the
// interaction was recorded before; else it remembers it, to be recorded
// with the first event the Update appends at its channel (boltAppended):
// an Update that changes nothing records nothing, as on PostgreSQL.
func (tx *Tx) boltRecordInteraction(in *Interaction) error {
	btx, err := tx.write()
	if err != nil {
		return err
	}
	ch, err := openChannel(btx, in.ChannelID)
	if err != nil {
		return fmt.Errorf("record interaction %s: %w", in.ID, err)
	}
	if v := interactions(ch).get([]byte(in.ID)); v != nil {
		done := Interaction{ID: in.ID, ChannelID: in.ChannelID}
		if len(v) == 16 {
			done.EventSeq = binary.BigEndian.Uint64(v[:8])
			done.At = time.Unix(0, int64(binary.BigEndian.Uint64(v[8:]))).UTC()
		}
		return &InteractionDoneError{Done: done}
	}
	tx.boltInteraction = in
	return nil
}

// interactions returns the interaction records of channel ch.
func interactions(ch *channel) recordSet {
	return recordSet{b: ch.b, prefix: channelKey(ch.id, kindInteraction, nil)}
}

// boltAppended records the interaction this Update recorded
// (boltRecordInteraction) with the event seq it appended at channelID, and
// prunes up to interactionPrune of the channel's records past their time,
// oldest first.
func (tx *Tx) boltAppended(channelID string, seq uint64) error {
	in := tx.boltInteraction
	if in == nil || in.ChannelID != channelID || tx.pg != nil {
		return nil
	}
	btx, err := tx.write()
	if err != nil {
		return err
	}
	ch, err := openChannel(btx, channelID)
	if err != nil {
		return err
	}
	recs := interactions(ch)
	if in.EventSeq == 0 { // the first event: prune once
		var old [][]byte
		c := recs.cursor()
		for k, v := c.first(); k != nil && len(old) < interactionPrune; k, v = c.next() {
			if len(v) != 16 || time.Unix(0, int64(binary.BigEndian.Uint64(v[8:]))).After(in.At.Add(-InteractionTTL)) {
				break
			}
			old = append(old, append([]byte(nil), k...))
		}
		for _, k := range old {
			if err := recs.del(tx.j, k); err != nil {
				return fmt.Errorf("record interaction %s: %w", in.ID, err)
			}
		}
	}
	in.EventSeq = seq
	v := make([]byte, 16)
	binary.BigEndian.PutUint64(v[:8], in.EventSeq)
	binary.BigEndian.PutUint64(v[8:], uint64(in.At.UnixNano()))
	if err := recs.put(tx.j, []byte(in.ID), v); err != nil {
		return fmt.Errorf("record interaction %s: %w", in.ID, err)
	}
	return nil
}
