package operator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/operator/operatortest"
	"github.com/hpkeeper/hpkeeper/storage"
)

const testAdminToken = "s3cret-admin-token-0123456789"

// fakeAdminDB is a healthy database whose backup is the bytes "copy",
// optionally waiting for release first.
type fakeAdminDB struct {
	release chan struct{}
	started chan struct{}
}

func (fakeAdminDB) Ping(context.Context) error { return nil }

func (fakeAdminDB) Health() storage.Health { return storage.Health{FreeBytes: -1} }

func (f fakeAdminDB) Backup(w io.Writer, sized func(int64)) (int64, error) {
	if f.started != nil {
		f.started <- struct{}{}
		<-f.release
	}
	sized(4)
	n, err := io.WriteString(w, "copy")
	return int64(n), err
}

// TestAdminAccess checks who may use each route on each listener, with a
// request built by hand so that a peer from the internet (203.0.113.7) can
// be named without leaving loopback.
func TestAdminAccess(t *testing.T) {
	endpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "interactions", http.StatusTeapot) })
	const (
		direct  = "127.0.0.1:40000"
		direct6 = "[::1]:40000"
		remote  = "203.0.113.7:40000"
		proxied = "proxied" // loopback peer with X-Forwarded-For
	)
	type row struct {
		route, peer, auth string
		want              int
	}
	bearer, wrong := "Bearer "+testAdminToken, "Bearer not-the-token-at-all-000"
	common := []row{
		{"GET /healthz", remote, "", 200},
		{"GET /healthz", proxied, "", 200},
		{"GET /metrics", remote, bearer, 200},
		{"POST /admin/backup", remote, bearer, 200},
		{"POST /admin/backup", remote, wrong, 401},
		{"POST /admin/backup", remote, "", 401},
		{"POST /admin/backup", proxied, "", 401},
		{"POST /admin/backup", remote, "Basic " + testAdminToken, 401},
	}
	tests := []struct {
		name    string
		handler func(*Admin) http.Handler
		token   string
		rows    []row
	}{
		{"admin listener", (*Admin).Handler, testAdminToken, append([]row{
			{"GET /metrics", remote, "", 200},
			{"POST /admin/backup", direct, "", 200},
			{"POST /admin/backup", direct6, "", 200},
			{"POST /", remote, "", 404},
			{"GET /admin/backup", direct, bearer, 405},
		}, common...)},
		{"admin listener without token", (*Admin).Handler, "", []row{
			{"POST /admin/backup", direct, "", 200},
			{"POST /admin/backup", remote, "", 403},
			{"POST /admin/backup", remote, bearer, 403},
			{"POST /admin/backup", proxied, "", 403},
		}},
		{"interactions listener", func(a *Admin) http.Handler { return a.WithInteractions(endpoint) }, testAdminToken, append([]row{
			{"GET /metrics", direct, "", 200},
			{"GET /metrics", remote, "", 401},
			{"GET /metrics", proxied, "", 401},
			{"POST /admin/backup", direct, "", 401},
			{"POST /", remote, "", 418},
			{"POST /interactions", remote, "", 418},
			{"POST /healthz", remote, "", 418},
		}, common...)},
		{"interactions listener without token", func(a *Admin) http.Handler { return a.WithInteractions(endpoint) }, "", []row{
			{"GET /metrics", direct, "", 200},
			{"GET /metrics", remote, "", 403},
			{"POST /admin/backup", direct, "", 403},
			{"POST /admin/backup", remote, bearer, 403},
		}},
	}
	for _, tt := range tests {
		a, err := NewAdmin(fakeAdminDB{}, NewMetrics(), tt.token, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		h := tt.handler(a)
		for _, r := range tt.rows {
			method, path, _ := strings.Cut(r.route, " ")
			req := httptest.NewRequest(method, path, nil)
			req.RemoteAddr = r.peer
			if r.peer == proxied {
				req.RemoteAddr = direct
				req.Header.Set("X-Forwarded-For", "203.0.113.7")
			}
			if r.auth != "" {
				req.Header.Set("Authorization", r.auth)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != r.want {
				t.Errorf("%s: %s from %s with %q = %d %q; want %d", tt.name, r.route, r.peer, r.auth, rec.Code, rec.Body.String(), r.want)
			}
			if rec.Code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("%s: %s: 401 without WWW-Authenticate", tt.name, r.route)
			}
		}
	}
}

func TestNewAdminRefusesShortToken(t *testing.T) {
	if _, err := NewAdmin(fakeAdminDB{}, nil, "short", zerolog.Nop()); err == nil {
		t.Error("NewAdmin accepted a 5-character token")
	}
}

// TestAdminOneBackupAtATime: a second backup while one runs is refused with
// 409 and the first completes.
func TestAdminOneBackupAtATime(t *testing.T) {
	db := fakeAdminDB{release: make(chan struct{}), started: make(chan struct{}, 1)}
	a, err := NewAdmin(db, nil, "", zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	h := a.Handler()
	post := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, PathBackup, nil)
		req.RemoteAddr = "127.0.0.1:1"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	var wg sync.WaitGroup
	var first *httptest.ResponseRecorder
	wg.Add(1)
	go func() { defer wg.Done(); first = post() }()
	<-db.started
	if rec := post(); rec.Code != http.StatusConflict {
		t.Errorf("second backup while one runs = %d; want 409", rec.Code)
	}
	close(db.release)
	wg.Wait()
	if first.Code != 200 || first.Body.String() != "copy" || first.Header().Get("Content-Length") != "4" {
		t.Errorf("first backup = %d %q (Content-Length %s); want 200 \"copy\" with its length", first.Code, first.Body, first.Header().Get("Content-Length"))
	}
}

// getHealth returns the status and the one-line JSON body of GET /healthz,
// which in serve has string fields only.
func getHealth(t *testing.T, c *http.Client, base string) (int, map[string]string) {
	t.Helper()
	var body map[string]string
	return operatortest.ReadHealth(t, c, base, &body), body
}

// servedAdmin is the operator's routes as serve has them: over a real
// database file, the writer's commits observed, on the listener of the
// interactions endpoint (Admin.WithInteractions; the endpoint answers 418
// here), on loopback.
type servedAdmin struct {
	path   string
	db     *storage.DB
	srv    *httptest.Server
	client *http.Client
	logs   *bytes.Buffer // read it with logged
}

// newServedAdmin returns the routes of a new database file, token opening
// them as on serve.
func newServedAdmin(t *testing.T, token string) (*servedAdmin, *Metrics, *Admin) {
	t.Helper()
	s := &servedAdmin{path: filepath.Join(t.TempDir(), "hpkeeper.db"), logs: &bytes.Buffer{}}
	m := NewMetrics()
	db, err := storage.Open(s.path, storage.Options{Timeout: time.Second, OnCommit: m.ObserveCommit})
	if err != nil {
		t.Fatal(err)
	}
	s.db = db
	t.Cleanup(func() { db.Close() })
	m.ObserveDB(db)
	admin, err := NewAdmin(db, m, token, zerolog.New(zerolog.SyncWriter(s.logs)))
	if err != nil {
		t.Fatal(err)
	}
	endpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "interactions", http.StatusTeapot) })
	s.srv = httptest.NewServer(admin.WithInteractions(m.InstrumentEndpoint(endpoint)))
	t.Cleanup(s.srv.Close)
	s.client = &http.Client{Timeout: 30 * time.Second}
	return s, m, admin
}

// logged closes the server, which waits for its handlers, and returns
// what they logged.
func (s *servedAdmin) logged() string {
	s.srv.Close()
	return s.logs.String()
}

// TestHealthz: 200 while the database is open and the writer takes work;
// 503 "degraded" while the writer is stuck in an Update, and "unavailable"
// once the database is closed.
func TestHealthz(t *testing.T) {
	s, _, admin := newServedAdmin(t, "")
	admin.healthTimeout = 500 * time.Millisecond // short, yet long enough for an idle writer on a busy machine
	if status, body := getHealth(t, s.client, s.srv.URL); status != 200 || body["status"] != "ok" {
		t.Errorf("healthy: %d %v; want 200 ok", status, body)
	}
	entered, gate := make(chan struct{}), make(chan struct{})
	go s.db.Update(func(*storage.Tx) error { close(entered); <-gate; return nil })
	<-entered
	status, body := getHealth(t, s.client, s.srv.URL)
	close(gate)
	if status != 503 || body["status"] != "degraded" || !strings.Contains(body["reason"], "writer not answering") {
		t.Errorf("writer stuck: %d %v; want 503 naming the writer", status, body)
	}
	if status, body := getHealth(t, s.client, s.srv.URL); status != 200 {
		t.Errorf("writer free again: %d %v; want 200", status, body)
	}
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
	if status, body := getHealth(t, s.client, s.srv.URL); status != 503 || body["status"] != "unavailable" || body["reason"] != "database closed" {
		t.Errorf("database closed: %d %v; want 503 \"database closed\"", status, body)
	}
	if logs := s.logged(); !strings.Contains(logs, s.path) {
		t.Errorf("the health failure is not logged with the database path:\n%s", logs)
	}
}

// TestAdminBackupOverHTTP takes a backup through serve's shared listener
// with the token: the body is the database, sound and complete.
func TestAdminBackupOverHTTP(t *testing.T) {
	s, m, _ := newServedAdmin(t, testAdminToken)
	// A table set up and a character created, as the bot writes them.
	at := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	err := s.db.Update(func(tx *storage.Tx) error {
		tbl := &storage.Table{ChannelID: "1311000000000000100", System: "harm", GMs: []string{"1311000000000001001"}, CreatedAt: at}
		if err := tx.PutTable(tbl); err != nil {
			return err
		}
		return tx.AppendEvent(&storage.Event{ChannelID: tbl.ChannelID, At: at, Command: "/table setup system:harm", TableAfter: tbl})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.db.Update(func(tx *storage.Tx) error {
		c := &storage.Character{ChannelID: "1311000000000000100", Name: "Eve", OwnerID: "1311000000000001002", Sheet: []byte(`{}`), CreatedAt: at}
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		return tx.AppendEvent(&storage.Event{ChannelID: c.ChannelID, At: at, Command: "/char create name:Eve", Changes: []storage.Change{{CharacterID: c.ID, Name: c.Name, After: c}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+PathBackup, nil)
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("backup from loopback without the token on the interactions listener = %d; want 401", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, s.srv.URL+PathBackup, nil)
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err = s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || strconv.Itoa(len(b)) != resp.Header.Get("Content-Length") {
		t.Fatalf("backup: %d, %d bytes (Content-Length %s), %v", resp.StatusCode, len(b), resp.Header.Get("Content-Length"), err)
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := storage.Inspect(path, time.Second)
	if err != nil || rep.Tables != 1 || rep.Characters != 1 || rep.Events != 2 {
		t.Errorf("Inspect(copy) = %+v, %v; want 1 table, 1 character, 2 events", rep, err)
	}
	// The handler counts the backup once the last byte is sent, which may be
	// after this side has read it.
	v := 0.0
	// The deadline is for a counter that never moves; a loaded machine may
	// take a while to run the handler's last line.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if v = operatortest.Sample(operatortest.Gather(t, m.Registry()), MetricBackups, LabelOutcome, OutcomeOK); v == 1 {
			break
		}
	}
	if v != 1 {
		t.Errorf("%s{outcome=ok} = %v; want 1", MetricBackups, v)
	}
}

// healthDB is a database whose health the test sets.
type healthDB struct {
	fakeAdminDB
	h    atomic.Pointer[storage.Health]
	ping atomic.Pointer[error]
}

func (d *healthDB) Health() storage.Health { return *d.h.Load() }

func (d *healthDB) Ping(context.Context) error {
	if p := d.ping.Load(); p != nil {
		return *p
	}
	return nil
}

// TestHealthzTellsTheTruth: GET /healthz and the hpkeeper_health_status
// gauge say what the database's state is, in words from a fixed set (no
// path, no error text): commits failing on a full disk, a writer that does
// not answer, a file found damaged, a disk nearly full; and "ok" again once
// the state is.
func TestHealthzTellsTheTruth(t *testing.T) {
	db := &healthDB{}
	m := NewMetrics()
	a, err := NewAdmin(db, m, "", zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	a.healthTimeout = 100 * time.Millisecond
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	enospc := fmt.Errorf("commit /secret/path.db: %w: write /secret/path.db: %w", storage.ErrCommitFailed, syscall.ENOSPC)
	deadline := fmt.Errorf("ping: the writer did not answer a probe: %w", context.DeadlineExceeded)
	damaged := fmt.Errorf("ping: %w", &storage.DamageError{Path: "/secret/path.db", Problems: []string{"x"}, Count: 1})
	for _, tc := range []struct {
		name   string
		h      storage.Health
		ping   error
		code   int
		status string
		reason string
	}{
		{"sound", storage.Health{FreeBytes: 10 << 30}, nil, 200, "ok", ""},
		{"commits failing on a full disk", storage.Health{CommitErr: enospc, FailingSince: time.Now().Add(-90 * time.Second), FreeBytes: 0}, nil,
			503, "degraded", "changes cannot be saved: commits failing for 1m30s (disk full); disk full: 0.0 MiB free beside the database"},
		{"disk full, the last commit saved in the file's free pages", storage.Health{FreeBytes: 4096}, nil, 503, "degraded", "disk full: 0.0 MiB free beside the database"},
		{"commits failing, disk freed", storage.Health{CommitErr: fmt.Errorf("%w: %w", storage.ErrCommitFailed, syscall.EIO), FailingSince: time.Now(), FreeBytes: -1}, nil,
			503, "degraded", "changes cannot be saved: commits failing for 0s (I/O error)"},
		{"disk nearly full, commits succeed", storage.Health{FreeBytes: 3 << 20}, nil, 200, "degraded", "disk nearly full: 3.0 MiB free beside the database"},
		{"writer stuck", storage.Health{Busy: time.Minute, FreeBytes: -1}, deadline, 503, "degraded", "database writer not answering within 100ms"},
		{"file damaged in use", storage.Health{Fault: damaged, FreeBytes: -1}, damaged, 503, "unavailable", "database file damaged: stop, run hpkeeper check, restore the last backup"},
		{"closed", storage.Health{Closed: true, FreeBytes: -1}, storage.ErrClosed, 503, "unavailable", "database closed"},
		{"recovered", storage.Health{FreeBytes: 10 << 30}, nil, 200, "ok", ""},
	} {
		db.h.Store(&tc.h)
		db.ping.Store(&tc.ping)
		code, body := getHealth(t, srv.Client(), srv.URL)
		if code != tc.code || body["status"] != tc.status || body["reason"] != tc.reason {
			t.Errorf("%s: %d %v; want %d %s %q", tc.name, code, body, tc.code, tc.status, tc.reason)
		}
		if strings.Contains(body["reason"], "secret") {
			t.Errorf("%s: the answer carries the error text: %q", tc.name, body["reason"])
		}
		// The gauge, judged without a probe, agrees.
		fam := operatortest.Gather(t, m.Registry())[MetricHealth]
		if fam == nil || len(fam.Metric) != 3 {
			t.Fatalf("%s: %s = %v; want three series", tc.name, MetricHealth, fam)
		}
		for _, mt := range fam.Metric {
			want := 0.0
			if mt.Label[0].GetValue() == tc.status {
				want = 1
			}
			if mt.Gauge.GetValue() != want {
				t.Errorf("%s: %s{status=%q} = %v; want %v", tc.name, MetricHealth, mt.Label[0].GetValue(), mt.Gauge.GetValue(), want)
			}
		}
	}
}
