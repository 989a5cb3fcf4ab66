package bot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

var _ ReplayStore = (*storage.DB)(nil)

func TestReplayStateRoundTrip(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	key := func(i int) (k [16]byte) {
		binary.BigEndian.PutUint64(k[:8], uint64(i))
		return k
	}
	stamp := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	var g replayGuard
	g.refuseBefore(now.Add(-time.Hour))
	g.record(key(1), stamp(0), now)
	g.record(key(2), stamp(-4*time.Minute), now)
	g.record(key(3), stamp(-6*time.Minute), now.Add(-2*time.Minute)) // expires at now-1m
	state, n := g.close(now)
	if n != 2 {
		t.Fatalf("close saved %d entries; want 2 (one had expired)", n)
	}
	if v := g.record(key(4), stamp(0), now); v != replayClosed {
		t.Errorf("record after close = %v; want replayClosed", v)
	}
	var h replayGuard
	got, err := h.restore(state, now.Add(30*time.Second))
	if err != nil || got != 2 {
		t.Fatalf("restore = %d, %v; want 2 entries", got, err)
	}
	if !h.notBefore.Equal(now.Add(-time.Hour)) {
		t.Errorf("restored limit %v; want %v", h.notBefore, now.Add(-time.Hour))
	}
	later := now.Add(30 * time.Second)
	for _, tt := range []struct {
		key  int
		ts   string
		want replayVerdict
	}{
		{1, stamp(0), replaySeen},
		{2, stamp(-4 * time.Minute), replaySeen},
		{3, stamp(-6 * time.Minute), replayNew}, // expired, forgotten (the freshness check refuses it)
		{5, stamp(0), replayNew},
		{6, stamp(-2 * time.Hour), replayBeforeStart},
	} {
		if v := h.record(key(tt.key), tt.ts, later); v != tt.want {
			t.Errorf("record(key %d) after restore = %v; want %v", tt.key, v, tt.want)
		}
	}
	for _, bad := range [][]byte{nil, {2}, state[:len(state)-1], append(append([]byte{}, state...), 0)} {
		var b replayGuard
		if _, err := b.restore(bad, now); !errors.Is(err, errReplayState) || len(b.seen) != 0 {
			t.Errorf("restore(%d bytes) = %v with %d entries; want errReplayState and none", len(bad), err, len(b.seen))
		}
	}
}

// restartScenario is one Endpoint over a real bbolt file, restarted at will.
type restartScenario struct {
	t    *testing.T
	path string
	kp   keyPair
	now  time.Time
	db   *storage.DB
	ep   *Endpoint
}

// start opens the file and a new Endpoint over it at clock now.
func (s *restartScenario) start(now time.Time) {
	s.t.Helper()
	s.now = now
	svc, db := openService(s.t, s.path, nil)
	s.db = db
	ep, err := NewEndpoint(svc, s.kp.pub, zerolog.New(zerolog.NewTestWriter(s.t)), WithReplayStore(db),
		WithClock(func() time.Time { return s.now }), WithFilesClient(offline), WithDeferAfter(0))
	if err != nil {
		s.t.Fatal(err)
	}
	s.ep = ep
}

// stop stops the Endpoint, gracefully (Close saves the guard) or as a kill
// would (nothing saved), and closes the file.
func (s *restartScenario) stop(graceful bool) {
	s.t.Helper()
	if graceful {
		if err := s.ep.Close(); err != nil {
			s.t.Fatal(err)
		}
	}
	if err := s.db.Close(); err != nil {
		s.t.Fatal(err)
	}
}

// post sends body signed at ts and returns the status.
func (s *restartScenario) post(body []byte, ts time.Time) int {
	rec := httptest.NewRecorder()
	s.ep.ServeHTTP(rec, signed(s.kp, body, ts))
	return rec.Code
}

// postSame sends the very bytes and headers of req again.
func (s *restartScenario) postSame(req *http.Request, body []byte) int {
	again := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	again.Header = req.Header.Clone()
	rec := httptest.NewRecorder()
	s.ep.ServeHTTP(rec, again)
	return rec.Code
}

func TestReplaysRefusedAcrossRestarts(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	roll := fixture(t, "dm_roll.json")
	for _, graceful := range []bool{true, false} {
		name := map[bool]string{true: "graceful stop", false: "kill"}[graceful]
		t.Run(name, func(t *testing.T) {
			s := &restartScenario{t: t, path: filepath.Join(t.TempDir(), "hpkeeper.db"), kp: newKeyPair(t)}
			s.start(t0)
			first := signed(s.kp, roll, t0.Add(10*time.Second))
			s.now = t0.Add(10 * time.Second)
			rec := httptest.NewRecorder()
			s.ep.ServeHTTP(rec, first)
			if rec.Code != 200 {
				t.Fatalf("first request: %d %s", rec.Code, rec.Body)
			}
			s.stop(graceful)

			restart := t0.Add(20 * time.Second)
			s.start(restart)
			if got := s.postSame(first, roll); got != http.StatusUnauthorized {
				t.Errorf("the same request after a restart: %d; want 401", got)
			}
			// A request signed just before the restart that arrives after it
			// (in flight): answered after a graceful stop; refused after a
			// kill, the price of the rule without a saved guard.
			inFlight := http.StatusOK
			if !graceful {
				inFlight = http.StatusUnauthorized
			}
			if got := s.post(roll, restart.Add(-time.Second)); got != inFlight {
				t.Errorf("a request signed 1 s before the restart: %d; want %d", got, inFlight)
			}
			if got := s.post(roll, restart.Add(RestartClockSkew+time.Second)); got != http.StatusOK {
				t.Errorf("a request signed after the restart: %d; want 200", got)
			}
			// A graceful restart soon after keeps refusing it.
			s.now = restart.Add(time.Minute)
			s.stop(true)
			s.start(restart.Add(2 * time.Minute))
			if got := s.postSame(first, roll); got != http.StatusUnauthorized {
				t.Errorf("the same request after a second, graceful restart: %d; want 401", got)
			}
			s.stop(true)
		})
	}
}

func TestReplayStoreUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	svc, db := openService(t, path, nil)
	defer db.Close()
	if err := db.SaveReplayState([]byte("garbage")); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	kp := newKeyPair(t)
	ep, err := NewEndpoint(svc, kp.pub, zerolog.Nop(), WithReplayStore(db), WithClock(func() time.Time { return now }), WithFilesClient(offline), WithDeferAfter(0))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ep.ServeHTTP(rec, signed(kp, fixture(t, "dm_roll.json"), now.Add(-time.Second)))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("request signed before a start with an unreadable saved guard: %d; want 401 (as after a crash)", rec.Code)
	}
	if err := ep.Close(); err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	ep.ServeHTTP(rec, signed(kp, fixture(t, "dm_roll.json"), now.Add(5*time.Second)))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("request after Close: %d; want 503", rec.Code)
	}
}

type failingStore struct{}

func (failingStore) TakeReplayState() ([]byte, error) { return nil, errors.New("disk on fire") }
func (failingStore) SaveReplayState([]byte) error     { return errors.New("disk on fire") }

func TestReplayStoreFails(t *testing.T) {
	if _, err := NewEndpoint(&stubHandler{resp: &commands.Response{}}, newKeyPair(t).pub, zerolog.Nop(), WithReplayStore(failingStore{})); err == nil {
		t.Error("NewEndpoint with a store that cannot be read = nil error; want an error")
	}
}

// TestNewDatabaseHasNoLimit: the first start on a new file refuses nothing
// for its age (no request was ever accepted against it); the first start
// after a kill does.
func TestNewDatabaseHasNoLimit(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	s := &restartScenario{t: t, path: filepath.Join(t.TempDir(), "hpkeeper.db"), kp: newKeyPair(t)}
	s.start(t0)
	if got := s.post(fixture(t, "dm_roll.json"), t0.Add(-time.Second)); got != http.StatusOK {
		t.Errorf("first start on a new file, request signed 1 s before it: %d; want 200", got)
	}
	s.stop(false)
	s.start(t0.Add(time.Minute))
	if got := s.post(fixture(t, "dm_roll.json"), t0.Add(time.Minute-time.Second)); got != http.StatusUnauthorized {
		t.Errorf("start after a kill, request signed 1 s before it: %d; want 401", got)
	}
	s.stop(true)
}

// fullGuard returns a guard holding maxReplayEntries fresh requests at now.
func fullGuard(now time.Time) *replayGuard {
	g := &replayGuard{}
	ts := strconv.FormatInt(now.Unix(), 10)
	for i := range maxReplayEntries {
		var k [16]byte
		binary.BigEndian.PutUint64(k[:8], uint64(i))
		g.record(k, ts, now)
	}
	return g
}

// BenchmarkReplayGuardSave measures a graceful stop's save of a full guard
// (maxReplayEntries requests, the most it holds): encoding and one durable
// bbolt write.
func BenchmarkReplayGuardSave(b *testing.B) {
	now := time.Unix(1_800_000_000, 0)
	_, db := openService(b, filepath.Join(b.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	g := fullGuard(now)
	b.ResetTimer()
	for b.Loop() {
		g.closed = false
		state, _ := g.close(now)
		if err := db.SaveReplayState(state); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(state)), "bytes")
	}
}

// BenchmarkReplayGuardRestore measures the next start's take and decoding
// of a full guard.
func BenchmarkReplayGuardRestore(b *testing.B) {
	now := time.Unix(1_800_000_000, 0)
	_, db := openService(b, filepath.Join(b.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	state, _ := fullGuard(now).close(now)
	for b.Loop() {
		b.StopTimer()
		if err := db.SaveReplayState(state); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		got, err := db.TakeReplayState()
		if err != nil {
			b.Fatal(err)
		}
		var g replayGuard
		if n, err := g.restore(got, now); err != nil || n != maxReplayEntries {
			b.Fatalf("restore = %d, %v", n, err)
		}
	}
}
