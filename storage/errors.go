package storage

import (
	"errors"
	"fmt"

	berrors "go.etcd.io/bbolt/errors"
)

// Sentinel errors. Functions wrap them with context (the channel, id or name
// involved); test for them with errors.Is.
var (
	// ErrNotFound is returned when a table, character or event does not exist:
	// by Tx.Table, Tx.Character, Tx.CharacterByName, Tx.Event, Tx.PutCharacter and
	// Tx.DeleteCharacter, and by Tx.CreateCharacter when the channel has no table.
	ErrNotFound = errors.New("not found")

	// ErrNameTaken is returned by Tx.CreateCharacter, Tx.PutCharacter and
	// Tx.RevertEvent when another character at the same table already has the
	// name, compared case-insensitively.
	ErrNameTaken = errors.New("name already taken")

	// ErrConflict is returned by Tx.RevertEvent when a character or the table the
	// event touched has changed since the event (its current state differs from
	// the state the event left), so reverting would lose the later change. The
	// error returned is a *ConflictError naming what changed.
	ErrConflict = errors.New("changed since the event")

	// ErrLocked is returned by Open when another process (or another Open in
	// this process) holds the database file and the lock timeout passed.
	ErrLocked = errors.New("database file is locked by another process")

	// ErrSchemaTooNew is returned by Open when the file's schema version is
	// newer than SchemaVersion: it was written by a newer hpkeeper and this one
	// must not touch it.
	ErrSchemaTooNew = errors.New("database schema is newer than this program")

	// ErrNotAFile is returned (wrapped) by DB.Backup of a PostgreSQL
	// database: its copies are PostgreSQL's to make, with pg_dump or a
	// standby (docs/scaling.md), or a bbolt file of it with hpkeeper
	// migrate.
	ErrNotAFile = errors.New("a PostgreSQL database is backed up with pg_dump, not copied as a file")
	// ErrCommitFailed is wrapped by the error of an Update whose group's
	// commit failed: a full or failing disk, or a file found damaged (then
	// with ErrDamaged). Nothing its function wrote was saved, and the
	// tables read as before. DB.Health says whether commits still fail.
	ErrCommitFailed = errors.New("the commit failed, nothing was saved")

	// ErrClosed is returned (wrapped) by Update, View, Ping and Backup after
	// Close. It is bbolt's ErrDatabaseNotOpen.
	ErrClosed = berrors.ErrDatabaseNotOpen
)

// ConflictError is the error Tx.RevertEvent returns when the state the event
// left has changed since. errors.Is(err, ErrConflict) reports true for it.
type ConflictError struct {
	// Seq is the sequence number of the event that could not be reverted.
	Seq uint64
	// CharacterID is the id of the character that changed; 0 when it is the
	// table itself that changed (or, for the undo of a table's creation, the
	// table still has characters).
	CharacterID uint64
	// Name is the character's name as recorded in the event; "" for the table.
	Name string
}

// Error returns a message naming the event and the character or table, e.g.
// `revert event 12: character "Lister" (id 3): changed since the event`.
func (e *ConflictError) Error() string {
	if e.CharacterID == 0 {
		return fmt.Sprintf("revert event %d: table: %v", e.Seq, ErrConflict)
	}
	return fmt.Sprintf("revert event %d: character %q (id %d): %v", e.Seq, e.Name, e.CharacterID, ErrConflict)
}

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }
