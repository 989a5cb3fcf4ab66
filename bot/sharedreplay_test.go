package bot

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

var _ SharedReplayGuard = (*storage.DB)(nil)

// TestReplayRefusedOnAnotherReplica: two replicas (Endpoints over one
// PostgreSQL database) share the replay guard: a request answered by one
// is refused by the other, and by a replica started after the first was
// killed; a request the guard cannot record (the database closed) is not
// handled (503).
func TestReplayRefusedOnAnotherReplica(t *testing.T) {
	u := pgtest.NewDatabase(t)
	kp := newKeyPair(t)
	now := time.Now()
	replica := func() (*Endpoint, *storage.DB) {
		db, err := storage.OpenPostgres(u, storage.PostgresOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		svc := commands.New(db, dice.NewRandom(1), systems, features()...)
		ep, err := NewEndpoint(svc, kp.pub, zerolog.New(zerolog.NewTestWriter(t)), WithReplayStore(db), WithSharedReplays(db),
			WithClock(func() time.Time { return now }), WithFilesClient(offline), WithDeferAfter(0))
		if err != nil {
			t.Fatal(err)
		}
		return ep, db
	}
	a, _ := replica()
	b, dbB := replica()
	roll := fixture(t, "dm_roll.json")
	first := signed(kp, roll, now)
	post := func(ep *Endpoint, req *http.Request) int {
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := post(a, first); got != http.StatusOK {
		t.Fatalf("first request on replica a: %d", got)
	}
	s := &restartScenario{t: t, kp: kp, ep: b}
	if got := s.postSame(first, roll); got != http.StatusUnauthorized {
		t.Errorf("the same request on replica b: %d; want 401", got)
	}
	// Replica a is killed (nothing saved); a new one starts: the request
	// is still refused, and one signed before the start is not (no rule of
	// an unclean start is needed: every accepted request is in the guard).
	c, _ := replica()
	s.ep = c
	if got := s.postSame(first, roll); got != http.StatusUnauthorized {
		t.Errorf("the same request on a replica started after a kill: %d; want 401", got)
	}
	if got := s.post(roll, now.Add(-2*time.Second)); got != http.StatusOK {
		t.Errorf("a new request signed before the new replica started: %d; want 200", got)
	}
	dbB.Close()
	s.ep = b
	if got := s.post(roll, now.Add(time.Second)); got != http.StatusServiceUnavailable {
		t.Errorf("a request the guard cannot record: %d; want 503", got)
	}
}
