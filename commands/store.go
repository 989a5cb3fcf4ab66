package commands

import (
	"errors"

	"github.com/hpkeeper/hpkeeper/commands/worklimit"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Store is where a Service keeps the tables: *storage.DB, over a bbolt file
// (one process) or PostgreSQL (any number of replicas). A storage.Tx is
// the same on both: the backends part below it (docs/architecture.md).
type Store interface {
	// View runs fn in a read-only transaction (storage.DB.View).
	View(fn func(*storage.Tx) error) error
	// Update runs fn in one atomic change, committed when fn returns nil;
	// on PostgreSQL fn may run again from the start (storage.DB.Update).
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
// second coming is refused (CodeConflict) before fn runs, naming its event.
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
			return Errorf(CodeConflict, "This command was applied already, the first time it reached the bot. It was not applied again.")
		}
		return Errorf(CodeConflict, "This command was applied already, the first time it reached the bot, as #%d: `/history before:#%d` shows it. It was not applied again.", done.Done.EventSeq, done.Done.EventSeq+1)
	}
	return err
}

// Unavailable is the reply to a command the database could not answer: its
// server unreachable, restarting or failing over (storage.ErrUnavailable).
const Unavailable = "The tables cannot be reached right now (the database is not answering); nothing was changed. Please try again in a moment."

// CommitUnknown is the reply to a change whose commit was sent but never
// answered (storage.ErrCommitUnknown): it may or may not have been saved.
const CommitUnknown = "The database stopped answering while saving this: it may or may not have been saved. Look at /history before trying again."
