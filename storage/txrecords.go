package storage

import "fmt"

// records returns the records of channelID below the seam (seam.go), for
// writing when write is set (which fails in a View).
func (tx *Tx) records(channelID string, write bool) (channelRecords, error) {
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
	return boltRecords(btx, channelID, tx.j, btx.Writable())
}

// eachChannel calls fn with the records of every channel that has any, in
// byte order of their ids, until fn fails. fn must not write.
func (tx *Tx) eachChannel(fn func(ch channelRecords) error) error {
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
