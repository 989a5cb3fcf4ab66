package storage

import (
	"fmt"

	berrors "go.etcd.io/bbolt/errors"
)

// records returns the records of channelID below the seam (seam.go), for
// writing when write is set (which fails in a View).
func (tx *Tx) records(channelID string, write bool) (channelRecords, error) {
	if tx.pg != nil {
		if err := tx.live(write); err != nil {
			return nil, err
		}
		return tx.pg.channel(channelID)
	}
	if write {
		btx, err := tx.write()
		if err != nil {
			return nil, err
		}
		return boltRecords(btx, channelID, tx.j, true)
	}
	btx, err := tx.read()
	if err != nil {
		return nil, err
	}
	if !tx.view {
		return boltRecords(btx, channelID, tx.j, btx.Writable())
	}
	// A View opens each channel's records once: a /history page reads
	// its index, its plan and its events, each through them.
	if ch := tx.opened; ch != nil && ch.id == channelID {
		return ch, nil
	}
	if ch := tx.openedMore[channelID]; ch != nil {
		return ch, nil
	}
	ch, err := boltRecords(btx, channelID, nil, false)
	if err != nil {
		return nil, err
	}
	switch {
	case tx.opened == nil:
		tx.opened = ch
	case tx.openedMore == nil:
		tx.openedMore = map[string]*channel{channelID: ch}
	default:
		tx.openedMore[channelID] = ch
	}
	return ch, nil
}

// eachChannel calls fn with the records of every channel that has any, in
// byte order of their ids, until fn fails. fn must not write.
func (tx *Tx) eachChannel(fn func(ch channelRecords) error) error {
	if tx.pg != nil {
		if err := tx.live(false); err != nil {
			return err
		}
		return tx.pg.eachChannel(fn)
	}
	btx, err := tx.read()
	if err != nil {
		return err
	}
	b, err := channelsBucket(btx)
	if err != nil {
		return err
	}
	return eachChannel(b, func(channelID string) error {
		ch, err := flatChannel(b, channelID)
		if err != nil {
			return err
		}
		return fn(ch)
	})
}

// live returns an error unless tx can still be used, and written to when
// write is set.
func (tx *Tx) live(write bool) error {
	switch {
	case tx.done:
		return errTxDone
	case write && tx.view:
		return berrors.ErrTxNotWritable
	}
	return nil
}

// nextID hands out the next id (kindCharacter) or seq (kindEvent) of ch.
func nextID(ch channelRecords, kind byte) (uint64, error) {
	n, err := ch.lastID(kind)
	if err != nil {
		return 0, err
	}
	n++
	if err := ch.setLastID(kind, n); err != nil {
		return 0, fmt.Errorf("hand out %d: %w", n, err)
	}
	return n, nil
}
