package storage

import (
	"bytes"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// journal records how to undo every write one Update function makes inside a
// shared bbolt transaction (see group.go). When the function fails or panics,
// rollback undoes its writes newest first, so the transaction holds exactly
// what it held before the function ran and the other functions of the group
// can still commit. A nil *journal writes without recording (Open's
// migration).
type journal struct {
	undo []undoOp
}

// undoOp is one recorded write: in bucket b, key was absent (old == nil)
// or held old. Every write is a put or a delete of a key: a channel's id
// sequences are keys too (channel.go), and no write creates a bucket.
type undoOp struct {
	b   *bolt.Bucket
	key []byte
	old []byte
}

// put stores k=v in b, recording the previous value.
func (j *journal) put(b *bolt.Bucket, k, v []byte) error {
	var old []byte
	if j != nil {
		old = bytes.Clone(b.Get(k))
	}
	if err := b.Put(k, v); err != nil {
		return err
	}
	if j != nil {
		j.undo = append(j.undo, undoOp{b: b, key: k, old: old})
	}
	return nil
}

// del deletes k from b, recording the previous value.
func (j *journal) del(b *bolt.Bucket, k []byte) error {
	var old []byte
	if j != nil {
		old = bytes.Clone(b.Get(k))
	}
	if err := b.Delete(k); err != nil {
		return err
	}
	if j != nil && old != nil {
		j.undo = append(j.undo, undoOp{b: b, key: k, old: old})
	}
	return nil
}

// rollback undoes every recorded write, newest first, and empties the journal.
// An error means the transaction is in an unknown state and must not commit.
func (j *journal) rollback() error {
	var errs []error
	for i := len(j.undo) - 1; i >= 0; i-- {
		op := j.undo[i]
		var err error
		switch {
		case op.old == nil:
			err = op.b.Delete(op.key)
		default:
			err = op.b.Put(op.key, op.old)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("undo write of key %q: %w", op.key, err))
		}
	}
	j.undo = j.undo[:0]
	return errors.Join(errs...)
}
