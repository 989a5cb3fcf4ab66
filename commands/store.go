package commands

import (
	"errors"

	"github.com/hpkeeper/hpkeeper/commands/worklimit"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Store is where a Service keeps the tables: *storage.DB, over a bbolt file
// (one process) or PostgreSQL (any number of replicas). View runs a read,
// Update one atomic change (storage.DB.View, storage.DB.Update).
type Store interface {
	View(fn func(*storage.Tx) error) error
	Update(fn func(*storage.Tx) error) error
}

var (
	_ Store = (*storage.DB)(nil)
	// A shared database keeps each user's work allowance (ratelimit.go).
	_ worklimit.Shared = (*storage.DB)(nil)
)

// Update runs fn in one atomic change of the store for request r, and
// records r's interaction with it (storage.Tx.RecordInteraction): a request
// applied once is never applied again, on this process or another, and its
// second coming is refused with CodeConflict, naming the event it wrote.
// Every change a command makes goes through it (Mutate does): a feature
// that writes a transaction of its own (/undo, /table import) calls it, not
// DB().Update.
func (s *Service) Update(r *Request, fn func(tx *storage.Tx) error) error {
	err := s.db.Update(func(tx *storage.Tx) error {
		if err := tx.RecordInteraction(r.InteractionID, r.ChannelID, r.Now); err != nil {
			return err
		}
		return fn(tx)
	})
	var done *storage.InteractionDoneError
	if errors.As(err, &done) {
		if done.Done.EventSeq == 0 {
			return Errorf(CodeConflict, "This command was applied already; it was not applied again.")
		}
		return Errorf(CodeConflict, "This command was applied already (#%d in /history); it was not applied again.", done.Done.EventSeq)
	}
	return err
}

// Unavailable is the reply to a command the database could not answer: its
// server unreachable, restarting or failing over (storage.ErrUnavailable).
const Unavailable = "The tables cannot be reached right now (the database is not answering); nothing was changed. Please try again in a moment."

// CommitUnknown is the reply to a change whose commit was sent but never
// answered (storage.ErrCommitUnknown): it may or may not have been saved.
const CommitUnknown = "The database stopped answering while saving this: it may or may not have been saved. Look at /history before trying again."

// storeMessage returns the reply to an internal error of the store, "" for
// any other.
func storeMessage(err error) string {
	switch {
	case errors.Is(err, storage.ErrCommitUnknown):
		return CommitUnknown
	case errors.Is(err, storage.ErrUnavailable):
		return Unavailable
	}
	return ""
}
