package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
	db.pg.loseCommit.Store(&pgLoseCommit{rollback: false})
	if err := db.Update(write("1")); err != nil {
		t.Errorf("committed, answer lost: %v; want nil (the interaction is there)", err)
	}
	db.pg.loseCommit.Store(&pgLoseCommit{rollback: true})
	if err := db.Update(write("2")); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrInteractionDone) {
		t.Errorf("not committed, answer lost: %v; want ErrUnavailable", err)
	}
	db.pg.loseCommit.Store(&pgLoseCommit{rollback: false})
	if err := db.Update(write("")); !errors.Is(err, ErrCommitUnknown) {
		t.Errorf("committed, answer lost, no interaction: %v; want ErrCommitUnknown", err)
	}
	db.pg.loseCommit.Store(nil)
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
	// A spend the database cannot answer is counted: the caller's own
	// limiter answers it (hpkeeper_work_limit_fallbacks_total).
	if n := dbs[1].WorkLimitFailures(); n != 0 {
		t.Errorf("WorkLimitFailures = %d after spends that were answered; want 0", n)
	}
	if err := dbs[1].Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dbs[1].TakeWork("u1", 600, 1000, 1000, now); err == nil {
		t.Fatal("TakeWork on a closed database answered")
	}
	if n := dbs[1].WorkLimitFailures(); n != 1 {
		t.Errorf("WorkLimitFailures = %d after a spend that failed; want 1", n)
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

// TestConcurrentFirstOpens: replicas started together on an empty
// database (a compose file starts three at once) all open it: the one
// that creates a table of the schema first wins, and the others read what
// it made instead of failing on the catalog's own unique keys. Several
// databases, so that the race is met.
func TestConcurrentFirstOpens(t *testing.T) {
	const databases, replicas = 4, 4
	for d := range databases {
		u := pgtest.NewDatabase(t)
		var wg sync.WaitGroup
		errs := make([]error, replicas)
		for r := range replicas {
			wg.Go(func() {
				db, err := OpenPostgres(u, PostgresOptions{})
				if err == nil {
					err = db.Close()
				}
				errs[r] = err
			})
		}
		wg.Wait()
		for r, err := range errs {
			if err != nil {
				t.Errorf("database %d, replica %d of %d opening together: %v", d, r, replicas, err)
			}
		}
	}
}

// TestCacheNeverServesALostWrite: a replica's cached state is never taken
// for another write's. A replica writes and caches its state; the write is
// then lost, as the last writes are when an asynchronously replicated
// primary fails over, or when the database is restored from a dump taken
// before it; another replica then makes a different write of the table.
// The row has been written as many times as when the first replica cached
// it, yet that replica reads the other's write, not its lost one: each
// write gives the row a version of its own.
func TestCacheNeverServesALostWrite(t *testing.T) {
	u := pgtest.NewDatabase(t)
	p, q := mustOpenPath(t, u), mustOpenPath(t, u)
	setupTable(t, p, "c1", "Lister")
	conn, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	exec := func(sqls ...string) {
		t.Helper()
		for _, s := range sqls {
			if _, err := conn.Exec(context.Background(), s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	// The dump, taken before the write that will be lost.
	exec(`CREATE TABLE dump_tables AS SELECT * FROM tables`,
		`CREATE TABLE dump_characters AS SELECT * FROM characters`,
		`CREATE TABLE dump_events AS SELECT * FROM events`)
	write := func(db *DB, hp int) {
		t.Helper()
		mustUpdate(t, db, func(tx *Tx) error {
			e := &Event{ChannelID: "c1", At: t0, Command: "/damage"}
			if err := changeCharacter(1, func(c *Character) { c.Sheet = sheet(hp) })(tx, e); err != nil {
				return err
			}
			return tx.AppendEvent(e)
		})
	}
	write(p, 50) // cached by p, then lost
	exec(`DELETE FROM events`, `DELETE FROM characters`, `DELETE FROM tables`,
		`INSERT INTO tables SELECT * FROM dump_tables`,
		`INSERT INTO characters SELECT * FROM dump_characters`,
		`INSERT INTO events SELECT * FROM dump_events`)
	write(q, 60)
	if got := readState(t, p, "c1").Characters[0].Sheet; string(got) != string(sheet(60)) {
		t.Errorf("the replica whose write was lost reads sheet %s; want %s, the database's", got, sheet(60))
	}
}

// TestAmbiguousCommitLookupWaitsForTheCommit: the lookup of an interaction
// after a COMMIT whose answer was lost waits for the transaction that may
// still be committing (it holds its table's row): it says "written" once
// that commits, instead of "not written" from before.
func TestAmbiguousCommitLookupWaitsForTheCommit(t *testing.T) {
	u := pgtest.NewDatabase(t)
	db := mustOpenPath(t, u)
	setupTable(t, db, "c1", "Lister")
	ctx := context.Background()
	// The transaction in flight: it holds the table's row and has written
	// the interaction's record, and its COMMIT is on its way.
	holder, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	for _, q := range []string{`BEGIN`, `SELECT version FROM tables WHERE channel_id = 'c1' FOR UPDATE`,
		`INSERT INTO interactions (id, channel_id, event_seq, at) VALUES ('1311000000000000009', 'c1', 2, current_timestamp)`} {
		if _, err := holder.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	type result struct {
		found bool
		err   error
	}
	res := make(chan result, 1)
	go func() {
		found, err := db.pg.interactionWritten(&Interaction{ID: "1311000000000000009", ChannelID: "c1"})
		res <- result{found, err}
	}()
	// Wait until the lookup waits for the lock, or answered.
	watch, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(ctx)
	for {
		select {
		case r := <-res:
			t.Fatalf("the lookup answered %v, %v while the transaction was in flight; want it to wait for it", r.found, r.err)
		default:
		}
		var waiting int
		if err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := holder.Exec(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	if r := <-res; r.err != nil || !r.found {
		t.Errorf("the lookup after the COMMIT = %v, %v; want found", r.found, r.err)
	}
}

// TestUpdateRunsAgainAfterADeadlock: on PostgreSQL an Update's function may
// run more than once (DB.Update): two Updates that lock two tables in
// opposite orders deadlock, PostgreSQL refuses one (40P01), and its
// function runs again from the start in a new transaction, which sees
// nothing of its first run; both Updates then succeed, each written once.
func TestUpdateRunsAgainAfterADeadlock(t *testing.T) {
	dbs := openReplicas(t, 2)
	setupTable(t, dbs[0], "c1", "Lister")
	setupTable(t, dbs[0], "c2", "Rimmer")
	var locked sync.WaitGroup
	locked.Add(2)
	var runs [2]int
	move := func(i int, first, second string) error {
		return dbs[i].Update(func(tx *Tx) error {
			runs[i]++
			a, err := tx.Table(first) // locks its row
			if err != nil {
				return err
			}
			if runs[i] == 1 {
				locked.Done()
				locked.Wait() // both hold their first table: each waits for the other's
			}
			b, err := tx.Table(second)
			if err != nil {
				return err
			}
			a.Clock++
			b.Clock++
			if err := tx.PutTable(a); err != nil {
				return err
			}
			return tx.PutTable(b)
		})
	}
	var wg sync.WaitGroup
	var errs [2]error
	wg.Go(func() { errs[0] = move(0, "c1", "c2") })
	wg.Go(func() { errs[1] = move(1, "c2", "c1") })
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Update %d: %v; want it run again until it commits", i, err)
		}
	}
	if runs[0]+runs[1] != 3 {
		t.Errorf("the functions ran %d and %d times; want one of them twice (refused once as a deadlock)", runs[0], runs[1])
	}
	for _, ch := range []string{"c1", "c2"} {
		if got := readState(t, dbs[0], ch).Table.Clock; got != 2 {
			t.Errorf("table %s: clock %d; want 2 (each Update written once)", ch, got)
		}
	}
}

// TestExpireInBatches: Expire deletes what is past its time a bounded
// number of rows per statement, again until none is left, so that no
// statement runs long or locks a backlog at once; what is still in its
// time stays.
func TestExpireInBatches(t *testing.T) {
	db := openReplicas(t, 1)[0]
	now := time.Now()
	for i := range 28 {
		at := now.Add(-2 * InteractionTTL) // past its time
		if i >= 25 {
			at = now
		}
		mustUpdate(t, db, func(tx *Tx) error {
			if err := tx.RecordInteraction(fmt.Sprintf("13110000000001%04d", i), "c1", at); err != nil {
				return err
			}
			return tx.PutTable(newTable("c1"))
		})
	}
	trips := db.RoundTrips()
	if err := db.pg.expire(now, 10); err != nil {
		t.Fatal(err)
	}
	if got := db.RoundTrips() - trips; got != 3 {
		t.Errorf("expire of 25 rows past their time, 10 a statement, took %d round trips; want 3", got)
	}
	var left int
	if err := db.pg.pool.QueryRow(context.Background(), `SELECT count(*) FROM interactions`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 3 {
		t.Errorf("%d interactions left; want the 3 in their time", left)
	}
}

// TestEachChannelInPages: on PostgreSQL a walk of every channel (hpkeeper
// check, migrate, Tables) reads the ids first and the rows a page at a
// time, not every table's record at once, and still visits them in byte
// order of their ids.
func TestEachChannelInPages(t *testing.T) {
	db := openReplicas(t, 1)[0]
	ids := []string{"c5", "C1", "c3", "b2", "c4"}
	for _, id := range ids {
		setupTable(t, db, id)
	}
	defer func(n int) { pgChannelPage = n }(pgChannelPage)
	pgChannelPage = 2
	var got []string
	trips := db.RoundTrips()
	mustView(t, db, func(tx *Tx) error {
		return tx.eachChannel(func(ch channelRecords) error {
			got = append(got, ch.channelID())
			return nil
		})
	})
	if want := []string{"C1", "b2", "c3", "c4", "c5"}; !slices.Equal(got, want) {
		t.Errorf("eachChannel visited %v; want %v", got, want)
	}
	if n := db.RoundTrips() - trips; n != 5 {
		t.Errorf("a View walking 5 channels, 2 a page, took %d round trips; want 5 (the ids, 3 pages, the end of its transaction)", n)
	}
}
