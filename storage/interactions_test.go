package storage

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// damageOnce is an Update function of interaction id at channel c1: it
// records the interaction and changes character 1, with an event.
func damageOnce(id string, at time.Time) func(tx *Tx) error {
	return func(tx *Tx) error {
		if err := tx.RecordInteraction(id, "c1", at); err != nil {
			return err
		}
		e := &Event{ChannelID: "c1", At: at, Command: "/damage"}
		if err := changeCharacter(1, func(c *Character) { c.OwnerName += "!" })(tx, e); err != nil {
			return err
		}
		return tx.AppendEvent(e)
	}
}

// TestInteractionRecordedWithItsChange: an interaction is recorded in the
// transaction of its change, and refused when it comes again, after a
// reopen too, naming the event it wrote; an Update that changes nothing
// records nothing; the records pass the check.
func TestInteractionRecordedWithItsChange(t *testing.T) {
	bothBackends(t, testInteractionRecordedWithItsChange)
}

func testInteractionRecordedWithItsChange(t *testing.T) {
	path := newStore(t)
	db := mustOpenPath(t, path)
	setupTable(t, db, "c1", "Lister")
	now := time.Now().UTC()
	mustUpdate(t, db, damageOnce("1311000000000000001", now))
	// Nothing changed: nothing recorded, so the same id still applies.
	mustUpdate(t, db, func(tx *Tx) error { return tx.RecordInteraction("1311000000000000002", "c1", now) })
	mustUpdate(t, db, damageOnce("1311000000000000002", now))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = mustOpenPath(t, path)
	for id, seq := range map[string]uint64{"1311000000000000001": 1, "1311000000000000002": 2} {
		err := db.Update(damageOnce(id, now))
		var done *InteractionDoneError
		if !errors.As(err, &done) || done.Done.EventSeq != seq {
			t.Errorf("interaction %s again after a reopen: %v; want an *InteractionDoneError naming event %d", id, err, seq)
		}
	}
	if got := readState(t, db, "c1").Characters[0].OwnerName; got != "Lister's player!!" {
		t.Errorf("owner name %q; want two changes", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := inspectStore(path); err != nil {
		t.Errorf("check with the interactions recorded: %v", err)
	}
}

// TestInteractionRefusedUpFront: both backends refuse an interaction
// applied before at RecordInteraction, before the rest of the Update runs,
// whatever it would do: a rerun that writes nothing, or fails on the state
// the first run left, is told that the interaction was applied, not its
// own outcome. On PostgreSQL the record is read with the table's row, under
// its lock, in the same round trip.
func TestInteractionRefusedUpFront(t *testing.T) {
	bothBackends(t, testInteractionRefusedUpFront)
}

func testInteractionRefusedUpFront(t *testing.T) {
	db := mustOpenPath(t, newStore(t))
	setupTable(t, db, "c1", "Lister")
	now := time.Now().UTC()
	mustUpdate(t, db, damageOnce("1311000000000000001", now))
	ranOn := errors.New("the Update ran past RecordInteraction")
	trips := db.RoundTrips()
	err := db.Update(func(tx *Tx) error {
		if err := tx.RecordInteraction("1311000000000000001", "c1", now); err != nil {
			return err
		}
		return ranOn
	})
	var done *InteractionDoneError
	if !errors.As(err, &done) || done.Done.EventSeq != 1 {
		t.Errorf("an applied interaction again, its rerun failing: %v; want an *InteractionDoneError naming event 1", err)
	}
	if onPostgres(t) {
		// The lock and the record in one round trip, the rollback in another.
		if got := db.RoundTrips() - trips; got > 2 {
			t.Errorf("the refusal took %d round trips; want at most 2", got)
		}
	}
}

// TestInteractionRecordsPruned: on a bbolt file, each change of a channel
// deletes a bounded number of its interaction records older than
// InteractionTTL.
func TestInteractionRecordsPruned(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	old := time.Now().Add(-2 * InteractionTTL)
	for i := range interactionPrune + 4 {
		mustUpdate(t, db, damageOnce(fmt.Sprintf("13110000000000001%02d", i), old))
	}
	count := func() int {
		n := 0
		mustView(t, db, func(tx *Tx) error {
			btx, err := tx.read()
			if err != nil {
				return err
			}
			ch, err := openChannel(btx, "c1")
			if err != nil {
				return err
			}
			return interactions(ch).forEach(func(k, v []byte) error { n++; return nil })
		})
		return n
	}
	if n := count(); n != interactionPrune+4 {
		t.Fatalf("%d records; want %d", n, interactionPrune+4)
	}
	mustUpdate(t, db, damageOnce("1311000000000000200", time.Now()))
	if n := count(); n != 4+1 {
		t.Errorf("%d records after a change now; want %d (%d pruned, at most)", n, 5, interactionPrune)
	}
}
