package storage

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// record runs op in one Update the way a command does: it changes state and
// appends the event describing the change, which it returns as stored.
func record(tb testing.TB, db *DB, channelID string, op func(tx *Tx, e *Event) error) *Event {
	tb.Helper()
	e := &Event{ChannelID: channelID, At: t0, UserID: "u-gm", Command: "/test"}
	mustUpdate(tb, db, func(tx *Tx) error {
		if err := op(tx, e); err != nil {
			return err
		}
		return tx.AppendEvent(e)
	})
	var stored *Event
	mustView(tb, db, func(tx *Tx) error {
		var err error
		stored, err = tx.Event(channelID, e.Seq)
		return err
	})
	return stored
}

// undo reverts e and appends the undo event in one Update, recording what
// it changed back as /undo does (every write is recorded by an event:
// AppendEvent).
func undo(db *DB, e *Event) error {
	return db.Update(func(tx *Tx) error {
		if err := tx.RevertEvent(e); err != nil {
			return err
		}
		u := &Event{ChannelID: e.ChannelID, At: t0, UndoOf: e.Seq, TableBefore: e.TableAfter, TableAfter: e.TableBefore}
		for i := len(e.Changes) - 1; i >= 0; i-- {
			c := e.Changes[i]
			u.Changes = append(u.Changes, Change{CharacterID: c.CharacterID, Name: c.Name, Before: c.After, After: c.Before})
		}
		return tx.AppendEvent(u)
	})
}

// changeCharacter records a change of character id made by edit.
func changeCharacter(id uint64, edit func(c *Character)) func(tx *Tx, e *Event) error {
	return func(tx *Tx, e *Event) error {
		before, err := tx.Character(e.ChannelID, id)
		if err != nil {
			return err
		}
		after, err := tx.Character(e.ChannelID, id)
		if err != nil {
			return err
		}
		edit(after)
		if err := tx.PutCharacter(after); err != nil {
			return err
		}
		e.Changes = append(e.Changes, Change{CharacterID: id, Name: before.Name, Before: before, After: after})
		return nil
	}
}

func createCharacter(name string) func(tx *Tx, e *Event) error {
	return func(tx *Tx, e *Event) error {
		c := newCharacter(e.ChannelID, name, 6)
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		e.Changes = append(e.Changes, Change{CharacterID: c.ID, Name: name, After: c})
		return nil
	}
}

func deleteCharacterOp(id uint64) func(tx *Tx, e *Event) error {
	return func(tx *Tx, e *Event) error {
		before, err := tx.Character(e.ChannelID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteCharacter(e.ChannelID, id); err != nil {
			return err
		}
		e.Changes = append(e.Changes, Change{CharacterID: id, Name: before.Name, Before: before})
		return nil
	}
}

func changeTable(edit func(t *Table)) func(tx *Tx, e *Event) error {
	return func(tx *Tx, e *Event) error {
		before, err := tx.Table(e.ChannelID)
		if err != nil {
			return err
		}
		after, err := tx.Table(e.ChannelID)
		if err != nil {
			return err
		}
		edit(after)
		if err := tx.PutTable(after); err != nil {
			return err
		}
		e.TableBefore, e.TableAfter = before, after
		return nil
	}
}

func TestRevertEventRestoresPriorState(t *testing.T) {
	bothBackends(t, testRevertEventRestoresPriorState)
}

func testRevertEventRestoresPriorState(t *testing.T) {
	tests := []struct {
		name string
		op   func(tx *Tx, e *Event) error
	}{
		{"create", createCharacter("Holly")},
		{"sheet change", changeCharacter(2, func(c *Character) { c.Sheet = sheet(0) })},
		{"rename", changeCharacter(2, func(c *Character) { c.Name = "Arnold" })},
		{"rename case only", changeCharacter(2, func(c *Character) { c.Name = "RIMMER" })},
		{"delete", deleteCharacterOp(2)},
		{"delete first", deleteCharacterOp(1)},
		{"clock", changeTable(func(t *Table) { t.Clock += 600 })},
		{"options and gms", changeTable(func(t *Table) {
			t.Options["catch-breath"] = "off"
			t.GMs = append(t.GMs, "u-2")
		})},
		{"several", func(tx *Tx, e *Event) error {
			for _, op := range []func(*Tx, *Event) error{
				changeCharacter(1, func(c *Character) { c.Sheet = sheet(1) }),
				changeCharacter(3, func(c *Character) { c.Name = "Bob" }),
				deleteCharacterOp(2),
				createCharacter("Rimmer"), // takes the deleted one's name
				changeCharacter(1, func(c *Character) { c.Sheet = sheet(0) }),
				changeTable(func(t *Table) { t.Clock++ }),
			} {
				if err := op(tx, e); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			setupTable(t, db, "c1", "Lister", "Rimmer", "Kryten")
			setupTable(t, db, "c2", "Cat")
			before, other := readState(t, db, "c1"), readState(t, db, "c2")

			e := record(t, db, "c1", tt.op)
			if changed := readState(t, db, "c1"); reflect.DeepEqual(changed, before) {
				t.Fatal("the operation changed nothing; the test would prove nothing")
			}
			if err := undo(db, e); err != nil {
				t.Fatalf("RevertEvent(%s) error: %v", tt.name, err)
			}
			assertState(t, readState(t, db, "c1"), before)
			assertState(t, readState(t, db, "c2"), other)

			// Ids stay unique: the next character gets a fresh id.
			mustUpdate(t, db, func(tx *Tx) error {
				c := newCharacter("c1", "Talkie", 1)
				if err := tx.CreateCharacter(c); err != nil {
					return err
				}
				for _, old := range before.Characters {
					if c.ID <= old.ID {
						t.Errorf("new ID %d after revert reuses or precedes old ID %d", c.ID, old.ID)
					}
				}
				return nil
			})
		})
	}
}

func TestRevertEventTableCreation(t *testing.T) { bothBackends(t, testRevertEventTableCreation) }

func testRevertEventTableCreation(t *testing.T) {
	db := mustOpen(t)
	e := record(t, db, "c1", func(tx *Tx, e *Event) error {
		tbl := newTable("c1")
		if err := tx.PutTable(tbl); err != nil {
			return err
		}
		e.TableAfter = tbl
		return nil
	})
	if err := undo(db, e); err != nil {
		t.Fatalf("RevertEvent(table creation) error: %v", err)
	}
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Table("c1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Table after undoing its creation: error = %v; want ErrNotFound", err)
		}
		if last, err := tx.LastEventSeq("c1"); err != nil || last != 2 {
			t.Errorf("LastEventSeq = %d, %v; want 2 (history kept)", last, err)
		}
		return nil
	})

	// With characters at the table the creation cannot be undone.
	e = record(t, db, "c1", func(tx *Tx, e *Event) error {
		tbl := newTable("c1")
		if err := tx.PutTable(tbl); err != nil {
			return err
		}
		e.TableAfter = tbl
		return nil
	})
	record(t, db, "c1", createCharacter("Lister"))
	before := readState(t, db, "c1")
	err := undo(db, e)
	var ce *ConflictError
	if !errors.Is(err, ErrConflict) || !errors.As(err, &ce) || ce.CharacterID != 0 {
		t.Errorf("RevertEvent(table creation) with a character left: error = %v; want a table ConflictError", err)
	}
	assertState(t, readState(t, db, "c1"), before)
}

func TestRevertEventConflict(t *testing.T) { bothBackends(t, testRevertEventConflict) }

func testRevertEventConflict(t *testing.T) {
	tests := []struct {
		name     string
		first    func(tx *Tx, e *Event) error
		later    func(tx *Tx, e *Event) error
		wantID   uint64 // 0: the table
		wantName string
	}{
		{
			name:     "character changed since",
			first:    changeCharacter(2, func(c *Character) { c.Sheet = sheet(1) }),
			later:    changeCharacter(2, func(c *Character) { c.Sheet = sheet(0) }),
			wantID:   2,
			wantName: "Rimmer",
		},
		{
			name:     "character renamed since",
			first:    changeCharacter(2, func(c *Character) { c.Sheet = sheet(1) }),
			later:    changeCharacter(2, func(c *Character) { c.Name = "Arnold" }),
			wantID:   2,
			wantName: "Rimmer",
		},
		{
			name:     "created character changed since",
			first:    createCharacter("Holly"),
			later:    changeCharacter(4, func(c *Character) { c.Sheet = sheet(2) }),
			wantID:   4,
			wantName: "Holly",
		},
		{
			name:     "created character deleted since",
			first:    createCharacter("Holly"),
			later:    deleteCharacterOp(4),
			wantID:   4,
			wantName: "Holly",
		},
		{
			name:     "changed character deleted since",
			first:    changeCharacter(1, func(c *Character) { c.Sheet = sheet(1) }),
			later:    deleteCharacterOp(1),
			wantID:   1,
			wantName: "Lister",
		},
		{
			name:  "clock advanced since",
			first: changeTable(func(t *Table) { t.Clock = 10 }),
			later: changeTable(func(t *Table) { t.Clock = 20 }),
		},
		{
			name: "second of several changes conflicts",
			first: func(tx *Tx, e *Event) error {
				if err := changeCharacter(1, func(c *Character) { c.Sheet = sheet(1) })(tx, e); err != nil {
					return err
				}
				return changeCharacter(3, func(c *Character) { c.Sheet = sheet(1) })(tx, e)
			},
			later:    changeCharacter(3, func(c *Character) { c.Sheet = sheet(2) }),
			wantID:   3,
			wantName: "Kryten",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			setupTable(t, db, "c1", "Lister", "Rimmer", "Kryten")
			e := record(t, db, "c1", tt.first)
			record(t, db, "c1", tt.later)
			before := readState(t, db, "c1")
			lastBefore := lastSeq(t, db, "c1")

			err := undo(db, e)
			if !errors.Is(err, ErrConflict) {
				t.Fatalf("RevertEvent after a later change: error = %v; want ErrConflict", err)
			}
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *ConflictError", err)
			}
			if ce.Seq != e.Seq || ce.CharacterID != tt.wantID || ce.Name != tt.wantName {
				t.Errorf("ConflictError = %+v; want Seq %d, CharacterID %d, Name %q", ce, e.Seq, tt.wantID, tt.wantName)
			}
			if tt.wantName != "" && !strings.Contains(err.Error(), tt.wantName) {
				t.Errorf("error %q does not name the character %q", err, tt.wantName)
			}
			assertState(t, readState(t, db, "c1"), before)
			if got := lastSeq(t, db, "c1"); got != lastBefore {
				t.Errorf("LastEventSeq after refused undo = %d; want %d", got, lastBefore)
			}
			// The conflict is reported even when RevertEvent's error is
			// ignored: nothing was changed before it was detected.
			mustUpdate(t, db, func(tx *Tx) error {
				if err := tx.RevertEvent(e); !errors.Is(err, ErrConflict) {
					t.Errorf("second RevertEvent error = %v; want ErrConflict", err)
				}
				return nil
			})
			assertState(t, readState(t, db, "c1"), before)
		})
	}
}

func TestRevertEventNameTaken(t *testing.T) { bothBackends(t, testRevertEventNameTaken) }

func testRevertEventNameTaken(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister", "Rimmer")
	e := record(t, db, "c1", deleteCharacterOp(2))
	record(t, db, "c1", createCharacter("RIMMER"))
	before := readState(t, db, "c1")
	if err := undo(db, e); !errors.Is(err, ErrNameTaken) {
		t.Errorf("RevertEvent of a delete whose name is taken: error = %v; want ErrNameTaken", err)
	}
	assertState(t, readState(t, db, "c1"), before)

	// A rename back onto a name taken since fails the same way.
	e = record(t, db, "c1", changeCharacter(1, func(c *Character) { c.Name = "Dave" }))
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", "lister", 1)) })
	before = readState(t, db, "c1")
	if err := undo(db, e); !errors.Is(err, ErrNameTaken) {
		t.Errorf("RevertEvent of a rename whose old name is taken: error = %v; want ErrNameTaken", err)
	}
	assertState(t, readState(t, db, "c1"), before)
}

func TestRevertEventInvalid(t *testing.T) { bothBackends(t, testRevertEventInvalid) }

func testRevertEventInvalid(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	var lister *Character
	mustView(t, db, func(tx *Tx) error {
		var err error
		lister, err = tx.Character("c1", 1)
		return err
	})
	tests := []struct {
		name string
		e    *Event
	}{
		{"no channel", &Event{Seq: 1}},
		{"id 0", &Event{ChannelID: "c1", Changes: []Change{{Name: "x", After: lister}}}},
		{"no states", &Event{ChannelID: "c1", Changes: []Change{{CharacterID: 1}}}},
		{"id mismatch", &Event{ChannelID: "c1", Changes: []Change{{CharacterID: 2, After: lister}}}},
	}
	before := readState(t, db, "c1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := db.Update(func(tx *Tx) error { return tx.RevertEvent(tt.e) })
			if err == nil || errors.Is(err, ErrConflict) {
				t.Errorf("RevertEvent(%s) error = %v; want an invalid-event error", tt.name, err)
			}
		})
	}
	assertState(t, readState(t, db, "c1"), before)
}

func lastSeq(tb testing.TB, db *DB, channelID string) uint64 {
	tb.Helper()
	var seq uint64
	mustView(tb, db, func(tx *Tx) error {
		var err error
		seq, err = tx.LastEventSeq(channelID)
		return err
	})
	return seq
}
