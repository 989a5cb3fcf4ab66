package storage

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// maxCheckErrors caps how many inconsistencies Check reports.
const maxCheckErrors = 10

// Check verifies the consistency of the whole file in one read transaction
// (bbolt's Tx.Check: every page reachable exactly once, no page both free and
// in use, keys in order). It returns nil for a consistent file, or an error
// naming the path and joining up to ten of the inconsistencies found. It
// reads every page, so it takes time proportional to the file size: use it in
// tests and offline checks, not per request.
func (db *DB) Check() error {
	var found []error
	err := db.bolt.View(func(btx *bolt.Tx) error {
		for e := range btx.Check() {
			if len(found) < maxCheckErrors {
				found = append(found, e)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check %s: %w", db.path, err)
	}
	if len(found) > 0 {
		return fmt.Errorf("check %s: inconsistent file: %w", db.path, errors.Join(found...))
	}
	return nil
}
