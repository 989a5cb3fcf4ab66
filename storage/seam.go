package storage

import "time"

// The storage seam.
//
// Everything a Tx does to a table, its characters and its history is
// written once, above this seam: the checks of a write (names, turn order,
// clock), the event codec and its checkpoints (eventcodec.go), undo's two
// phases (the revert and the undo event, revert.go), the decoded channel
// states (cache.go) and the check of a channel's records (check.go). Below
// the seam a backend keeps one channel's records as bytes, keyed as schema 4
// keys them: the table record, the characters by id (with the
// case-insensitive name index), the events by seq, and the two sequences
// that hand out ids and seqs. Two backends implement it:
//
//   - bbolt (channel.go): the keys of the channels bucket, each write
//     journaled so that a failed function of a group commit is undone alone
//     (group.go);
//   - PostgreSQL (postgres.go): rows of the tables, characters and events
//     tables, written by one SQL transaction per command that holds the
//     table's row lock.
//
// A backend never interprets a record: the bytes it is given are the bytes
// it gives back, so that the patches events store (delta.go) and the
// checkpoints they hold apply the same way over either, and a record copied
// from one backend to the other (hpkeeper migrate) compares equal byte for
// byte.

// channelRecords is one channel's records in one transaction of a backend.
// Byte slices it returns are valid until the transaction ends or, in a
// writable transaction, until its next write: copy what must live longer.
// Its write methods fail in a read-only transaction.
type channelRecords interface {
	// channelID returns the channel id.
	channelID() string

	// tableRecord returns the encoded table, nil when the channel has none.
	tableRecord() ([]byte, error)
	// writeTable stores the encoded table rec.
	writeTable(rec []byte) error
	// removeTable removes the table record, keeping the channel's
	// characters, history and sequences.
	removeTable() error

	// characterRecord returns the encoded character id, nil when absent.
	characterRecord(id uint64) ([]byte, error)
	// eachCharacter calls fn with every character's id and record, by
	// ascending id, until fn fails. fn must not write.
	eachCharacter(fn func(id uint64, rec []byte) error) error
	// writeCharacter stores rec as character id, found under the name index
	// key key; oldKey, when not "" and not key, is the key it was found under
	// before, which no longer finds it. Uniqueness of keys is the caller's.
	writeCharacter(id uint64, key, oldKey string, rec []byte) error
	// removeCharacter removes character id, and key from the name index
	// when key finds that character.
	removeCharacter(id uint64, key string) error

	// lastID returns the last id (kindCharacter) or seq (kindEvent) handed
	// out, 0 before the first; setLastID sets it.
	lastID(kind byte) (uint64, error)
	setLastID(kind byte, n uint64) error

	// writeEvent stores the event seq, which is new: meta are the fields an
	// operator reads of it (a backend may keep them beside d), d its stored
	// form.
	writeEvent(seq uint64, meta eventMeta, d eventData) error
	// eventRecord returns event seq, the zero eventData when absent.
	eventRecord(seq uint64) (eventData, error)
	// newestEvent returns the seq and the form of the newest event, 0 and
	// formNone when there is none.
	newestEvent() (uint64, eventForm, error)
	// eachEventBefore calls fn with every event whose seq is below before
	// (0: every event), newest first, until fn returns false or an error.
	// fn may write in a writable transaction; events it appends are not
	// visited.
	eachEventBefore(before uint64, fn func(seq uint64, d eventData) (bool, error)) error
}

// eventForm is how a stored event holds its states.
type eventForm byte

const (
	// formNone is the form of an absent event.
	formNone eventForm = iota
	// formWhole: the event's JSON with whole before and after states
	// (schema 1 and 2, and the history /table import writes).
	formWhole
	// formCompact: a storedEvent's JSON, what changed (eventcodec.go).
	formCompact
)

// eventData is a stored event above the seam: its form and its JSON, or
// the bytes bbolt keeps, whose JSON is decoded when asked for (decoded).
type eventData struct {
	form eventForm
	json []byte
	// raw, when set, is the event as bbolt stores it (boltrecords.go): read
	// from the file, or encoded ahead of the write transaction
	// (EncodeEvent), so that the writer only stores it.
	raw []byte
}

// decoded returns the event's JSON.
func (d eventData) decoded() ([]byte, error) {
	if d.json != nil || d.raw == nil {
		return d.json, nil
	}
	return boltEventJSON(d.raw)
}

// eventMeta is what a backend may keep of an event beside its JSON for an
// operator to query (the PostgreSQL events table's columns).
type eventMeta struct {
	at               time.Time // UTC
	userID, userName string
	command, summary string
	undoOf           uint64
}

// metaOf returns e's eventMeta.
func metaOf(e *Event) eventMeta {
	return eventMeta{at: e.At.UTC(), userID: e.UserID, userName: e.UserName,
		command: e.Command, summary: e.Summary, undoOf: e.UndoOf}
}
