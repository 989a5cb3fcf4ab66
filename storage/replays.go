package storage

import (
	"bytes"
	"fmt"
)

// The HTTP interactions endpoint refuses a signed request it accepted
// before, also after a restart (SECURITY.md, promise 5). Its replay guard
// lives in memory; at a graceful stop it is saved here, and the next start
// takes it back, deleting it in the same transaction, so that a process
// killed later finds none and applies its own rule for a crash. The bytes
// are the endpoint's encoding; this package only keeps them.

// SaveReplayState stores state, the replay guard of the HTTP endpoint at a
// graceful stop, replacing any stored before, in one durable transaction.
//
// On a shared database (Shared) every accepted request is recorded as it is
// accepted (AcceptRequest): there is nothing to save, and it returns nil.
func (db *DB) SaveReplayState(state []byte) error {
	if db.Shared() {
		return nil
	}
	return db.Update(func(tx *Tx) error {
		btx, err := tx.write()
		if err != nil {
			return err
		}
		if err := tx.j.put(btx.Bucket(bucketMeta), keyReplayGuard, bytes.Clone(state)); err != nil {
			return fmt.Errorf("save replay guard: %w", err)
		}
		return nil
	})
}

// TakeReplayState returns the state SaveReplayState stored, and deletes it
// in the same durable transaction. It returns an empty, non-nil state for a
// file Open created, which nothing was ever served from, and nil when there
// is none (the last process did not stop gracefully, or an older program
// wrote the file). On a shared database (Shared), whose guard is recorded
// request by request (AcceptRequest), it returns an empty state: nothing
// accepted before is left to refuse by a rule of the endpoint's own.
func (db *DB) TakeReplayState() ([]byte, error) {
	if db.Shared() {
		return []byte{}, nil
	}
	var state []byte
	err := db.Update(func(tx *Tx) error {
		btx, err := tx.write()
		if err != nil {
			return err
		}
		meta := btx.Bucket(bucketMeta)
		v := meta.Get(keyReplayGuard)
		if v == nil {
			return nil
		}
		state = bytes.Clone(v)
		if err := tx.j.del(meta, keyReplayGuard); err != nil {
			return fmt.Errorf("take replay guard: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return state, nil
}
