package storage

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// openReplicas opens n DBs on one new PostgreSQL database, as n serve
// replicas would, each with its own state cache.
func openReplicas(t *testing.T, n int) []*DB {
	t.Helper()
	u := pgtest.NewDatabase(t)
	dbs := make([]*DB, n)
	for i := range dbs {
		dbs[i] = mustOpenPath(t, u)
	}
	return dbs
}

// TestReplicasNeverLoseAnUpdate: three processes' DBs on one database
// change one table's clock and one character at once, each change a read
// and a write of the table: every increment is there at the end (the row
// lock serialises them), each replica reads the others' writes (its cache
// is checked against the row's version), and the history holds one event
// per change.
func TestReplicasNeverLoseAnUpdate(t *testing.T) {
	dbs := openReplicas(t, 3)
	setupTable(t, dbs[0], "c1", "Lister")
	const each = 40
	var wg sync.WaitGroup
	errs := make(chan error, len(dbs))
	for r, db := range dbs {
		wg.Go(func() {
			for i := range each {
				err := db.Update(func(tx *Tx) error {
					tb, err := tx.Table("c1")
					if err != nil {
						return err
					}
					c, err := tx.CharacterByName("c1", "Lister")
					if err != nil {
						return err
					}
					before := *c
					tb.Clock++
					c.OwnerName = fmt.Sprintf("replica %d, change %d", r, i)
					if err := tx.PutTable(tb); err != nil {
						return err
					}
					if err := tx.PutCharacter(c); err != nil {
						return err
					}
					return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Command: "/clock", Changes: []Change{{CharacterID: c.ID, Before: &before, After: c}}})
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for r, db := range dbs {
		var clock int64
		var events int
		mustView(t, db, func(tx *Tx) error {
			tb, err := tx.Table("c1")
			if err != nil {
				return err
			}
			clock = tb.Clock
			return tx.EachEventBackward("c1", func(*Event) (bool, error) { events++; return true, nil })
		})
		if want := int64(len(dbs) * each); clock != want {
			t.Errorf("replica %d reads clock %d; want %d (an update lost)", r, clock, want)
		}
		if want := len(dbs) * each; events != want {
			t.Errorf("replica %d reads %d events; want %d", r, events, want)
		}
	}
}

// TestReplicaCacheFollowsTheOthersWrites: a replica that has cached a table
// reads another replica's later write, not its cache.
func TestReplicaCacheFollowsTheOthersWrites(t *testing.T) {
	dbs := openReplicas(t, 2)
	setupTable(t, dbs[0], "c1", "Lister")
	before := readState(t, dbs[1], "c1") // now in replica 1's cache
	mustUpdate(t, dbs[0], func(tx *Tx) error {
		c, err := tx.CharacterByName("c1", "Lister")
		if err != nil {
			return err
		}
		c.Sheet = sheet(99)
		return tx.PutCharacter(c)
	})
	after := readState(t, dbs[1], "c1")
	if string(after.Characters[0].Sheet) != string(sheet(99)) {
		t.Errorf("replica 1 reads sheet %s after replica 0 wrote %s (it read %s before)", after.Characters[0].Sheet, sheet(99), before.Characters[0].Sheet)
	}
}

// TestInteractionAppliedOnce: an interaction recorded with its write is
// refused when it comes again, on the same replica or another, and nothing
// of the second Update is written; its error names the event written the
// first time.
func TestInteractionAppliedOnce(t *testing.T) {
	dbs := openReplicas(t, 2)
	setupTable(t, dbs[0], "c1", "Lister")
	damage := func(tx *Tx) error {
		if err := tx.RecordInteraction("1311000000000000001", "c1", t0); err != nil {
			return err
		}
		c, err := tx.CharacterByName("c1", "Lister")
		if err != nil {
			return err
		}
		before := *c
		c.OwnerName += "!"
		if err := tx.PutCharacter(c); err != nil {
			return err
		}
		return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Command: "/damage", Changes: []Change{{CharacterID: c.ID, Before: &before, After: c}}})
	}
	mustUpdate(t, dbs[0], damage)
	for r, db := range dbs {
		err := db.Update(damage)
		var done *InteractionDoneError
		if !errors.As(err, &done) || !errors.Is(err, ErrInteractionDone) {
			t.Fatalf("replica %d: the same interaction again: %v; want an *InteractionDoneError", r, err)
		}
		if done.Done.EventSeq != 1 || done.Done.ChannelID != "c1" {
			t.Errorf("replica %d: refused as %+v; want event 1 at c1", r, done.Done)
		}
	}
	if got := readState(t, dbs[1], "c1").Characters[0].OwnerName; got != "Lister's player!" {
		t.Errorf("owner name %q after the interaction came three times; want one change", got)
	}
}

// TestAmbiguousCommitResolved: an Update whose COMMIT's answer is lost
// returns nil when its interaction is found written, and ErrUnavailable
// (nothing written) when it is not; one without an interaction says it
// cannot tell (ErrCommitUnknown).
func TestAmbiguousCommitResolved(t *testing.T) {
	db := openReplicas(t, 1)[0]
	setupTable(t, db, "c1", "Lister")
	write := func(id string) func(tx *Tx) error {
		return func(tx *Tx) error {
			if err := tx.RecordInteraction(id, "c1", t0); err != nil {
				return err
			}
			tb, err := tx.Table("c1")
			if err != nil {
				return err
			}
			tb.Clock++
			return tx.PutTable(tb)
		}
	}
	defer func() { pgLoseCommit = nil }()
	pgLoseCommit = &struct{ rollback bool }{false}
	if err := db.Update(write("1")); err != nil {
		t.Errorf("committed, answer lost: %v; want nil (the interaction is there)", err)
	}
	pgLoseCommit.rollback = true
	if err := db.Update(write("2")); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrInteractionDone) {
		t.Errorf("not committed, answer lost: %v; want ErrUnavailable", err)
	}
	pgLoseCommit.rollback = false
	if err := db.Update(write("")); !errors.Is(err, ErrCommitUnknown) {
		t.Errorf("committed, answer lost, no interaction: %v; want ErrCommitUnknown", err)
	}
	pgLoseCommit = nil
	if got := readState(t, db, "c1").Table.Clock; got != 2 {
		t.Errorf("clock %d; want 2 (the first and the third Update written, the second not)", got)
	}
}

// TestSharedReplayGuardAndWorkLimits: a request accepted by one replica is
// a replay to another; a user's work allowance is one across replicas.
func TestSharedReplayGuardAndWorkLimits(t *testing.T) {
	dbs := openReplicas(t, 2)
	key := [16]byte{1, 2, 3}
	exp := time.Now().Add(5 * time.Minute)
	if replayed, err := dbs[0].AcceptRequest(key, exp); err != nil || replayed {
		t.Fatalf("first AcceptRequest = %v, %v; want false, nil", replayed, err)
	}
	if replayed, err := dbs[1].AcceptRequest(key, exp); err != nil || !replayed {
		t.Fatalf("AcceptRequest of the same request on another replica = %v, %v; want true, nil", replayed, err)
	}
	now := time.Now()
	for i, db := range dbs {
		ok, _, err := db.TakeWork("u1", 600, 1000, 1000, now)
		if err != nil {
			t.Fatal(err)
		}
		if want := i == 0; ok != want {
			t.Errorf("replica %d: TakeWork(600 of 1000) = %v; want %v", i, ok, want)
		}
	}
	ok, wait, err := dbs[1].TakeWork("u1", 600, 1000, 1000, now.Add(12*time.Second))
	if err != nil || !ok || wait != 0 {
		t.Errorf("after 12 s of refill (200 units): TakeWork(600) = %v, %v, %v; want true", ok, wait, err)
	}
	if err := dbs[0].Expire(now.Add(2 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if replayed, err := dbs[1].AcceptRequest(key, exp.Add(3*time.Hour)); err != nil || replayed {
		t.Errorf("AcceptRequest after the entry expired = %v, %v; want false, nil", replayed, err)
	}
}

func TestPostgresSchemaVersion(t *testing.T) {
	if PostgresSchemaVersion != pgSchemaVersion {
		t.Errorf("PostgresSchemaVersion = %d; the last migration is %d", PostgresSchemaVersion, pgSchemaVersion)
	}
	for i, m := range pgMigrations {
		if m.version != i+1 {
			t.Errorf("migration %d has version %d; want %d (in order, none skipped)", i, m.version, i+1)
		}
	}
}

// TestViewReadsAloneThenInASnapshot: a View's first read is one statement
// of its own; when it reads more (the history), its snapshot begins then,
// and the records the walk starts from are read again in it: a change
// another replica commits between the two reads is in the history the
// View walks, decoded from the records of the same snapshot, while the
// state it read first stays as it was (as a bbolt View's cached state may).
func TestViewReadsAloneThenInASnapshot(t *testing.T) {
	dbs := openReplicas(t, 2)
	setupTable(t, dbs[0], "c1", "Lister")
	change := func(db *DB, hp int) {
		mustUpdate(t, db, func(tx *Tx) error {
			e := &Event{ChannelID: "c1", At: t0, Command: "/damage"}
			if err := changeCharacter(1, func(c *Character) { c.Sheet = sheet(hp) })(tx, e); err != nil {
				return err
			}
			return tx.AppendEvent(e)
		})
	}
	change(dbs[0], 7)
	trips := dbs[1].RoundTrips()
	var first *Character
	var events []*Event
	mustView(t, dbs[1], func(tx *Tx) error {
		var err error
		if first, err = tx.Character("c1", 1); err != nil {
			return err
		}
		if got := dbs[1].RoundTrips() - trips; got != 1 {
			t.Errorf("a View's first read took %d round trips; want 1", got)
		}
		change(dbs[0], 5) // another replica, between the two reads
		return tx.EachEventBackward("c1", func(e *Event) (bool, error) {
			events = append(events, e)
			return true, nil
		})
	})
	if string(first.Sheet) != string(sheet(7)) {
		t.Errorf("the first read: sheet %s; want %s", first.Sheet, sheet(7))
	}
	if len(events) != 2 || string(events[0].Changes[0].After.Sheet) != string(sheet(5)) ||
		string(events[0].Changes[0].Before.Sheet) != string(sheet(7)) || string(events[1].Changes[0].Before.Sheet) != string(sheet(3)) {
		t.Fatalf("the history walked after the other replica's change: %d events; want the two changes 3 → 7 → 5", len(events))
	}
}
