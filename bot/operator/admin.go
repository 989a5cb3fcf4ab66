// Package operator is hpkeeper's surface for the people who run it: the
// health of the process (GET /healthz: the database, its writer and disk,
// the gateway's shards), its Prometheus metrics (GET /metrics: every name
// in metrics.go), a consistent backup of the database file (POST
// /admin/backup), and the build it runs (BuildInfo). Admin serves the
// routes on serve's interactions listener or on an admin listener of their
// own; the transports of package bot, the gateway's shards (ShardReporter)
// and the database's writer report to Metrics.
package operator

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/storage"
)

// The operator's HTTP routes, on the admin listener (Admin.Handler) or on
// serve's interactions listener (Admin.WithInteractions).
const (
	// PathHealth answers GET with 200 or 503 and a one-line JSON body.
	PathHealth = "/healthz"
	// PathMetrics answers GET with the metrics in the Prometheus text format.
	PathMetrics = "/metrics"
	// PathBackup answers POST with a consistent copy of the database file.
	PathBackup = "/admin/backup"
)

// HealthTimeout is how long GET /healthz waits for the database's writer to
// take a probe before answering 503.
const HealthTimeout = 2 * time.Second

// LowDiskBytes is the free space on the database's filesystem below which
// GET /healthz says "degraded" (still 200: commits succeed until the disk
// is full, storage.FullDiskBytes, 503): bbolt grows the file 16 MiB at a
// time, and reuses its free pages before that.
const LowDiskBytes = 64 << 20

// MinAdminToken is the shortest admin token NewAdmin accepts, in bytes.
const MinAdminToken = 16

// AdminDB is the database the admin routes check and copy; *storage.DB
// implements it.
type AdminDB interface {
	Ping(ctx context.Context) error
	Health() storage.Health
	Backup(w io.Writer, sized func(size int64)) (int64, error)
}

var _ AdminDB = (*storage.DB)(nil)

// Admin serves the operator's routes: GET /healthz (200 while the database
// is open and its writer takes work, else 503 with the reason; in gateway
// mode with each shard's state and heartbeat latency, see ObserveShards),
// GET /metrics (Metrics.Handler) and POST /admin/backup (the whole database
// file, application/octet-stream, one backup at a time). Who may use a route
// depends on the listener; see Handler and WithInteractions.
type Admin struct {
	db        AdminDB
	metrics   *Metrics
	log       zerolog.Logger
	tokenHash [sha256.Size]byte
	hasToken  bool
	backingUp chan struct{} // a one-slot semaphore
	// healthTimeout is HealthTimeout (shorter in tests).
	healthTimeout time.Duration
	shards        atomic.Pointer[ShardReporter]
	// version is what GET /healthz reports as "version" ("" leaves it out).
	version string
}

// SetBuildInfo makes GET /healthz name the program's version
// ("version":"v0.2.0"), so that a probe or an operator can tell which build
// answers. Call it before serving.
func (a *Admin) SetBuildInfo(b BuildInfo) { a.version = b.Version }

// ObserveShards makes GET /healthz report the gateway's shards: each
// shard's id, state (connecting, connected, resuming, down) and last
// heartbeat latency in milliseconds, and "status":"degraded" instead of
// "ok" while a shard is not connected. The shards never make it answer 503:
// discordgo reconnects each shard alone, and a health check that restarted
// the process for one shard would drop the others too and spend their
// session starts (Discord allows 1,000 a day). Alert on the per-shard
// hpkeeper_gateway_up instead.
func (a *Admin) ObserveShards(r ShardReporter) { a.shards.Store(&r) }

// health is GET /healthz's body.
type health struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Version is the program's BuildInfo.Version (SetBuildInfo).
	Version string        `json:"version,omitempty"`
	Shards  []shardHealth `json:"shards,omitempty"`
}

// shardHealth is one shard in GET /healthz.
type shardHealth struct {
	ID    int        `json:"id"`
	State ShardState `json:"state"`
	// HeartbeatMS is the last heartbeat's round trip, milliseconds.
	HeartbeatMS float64 `json:"heartbeat_ms"`
}

// NewAdmin returns the admin routes over db, serving m (which may be nil:
// /metrics then answers 404) with the hpkeeper_health_status gauge added. token is the bearer token that opens every
// route from any peer; "" means none. It returns an error when token is set
// but shorter than MinAdminToken.
func NewAdmin(db AdminDB, m *Metrics, token string, log zerolog.Logger) (*Admin, error) {
	a := &Admin{db: db, metrics: m, log: log, backingUp: make(chan struct{}, 1), healthTimeout: HealthTimeout}
	if token != "" {
		if len(token) < MinAdminToken {
			return nil, errors.New("admin token: shorter than 16 characters")
		}
		a.tokenHash, a.hasToken = sha256.Sum256([]byte(token)), true
	}
	if m != nil {
		m.reg.MustRegister(newHealthCollector(a))
	}
	return a, nil
}

// access says who may use a route.
type access int

const (
	// anyone may use the route.
	anyone access = iota
	// localOrToken: a direct loopback peer, or a request with the token.
	localOrToken
	// tokenOnly: only a request with the token.
	tokenOnly
)

// Handler returns the routes for a listener of their own (admin.listen,
// loopback by default): /healthz and /metrics for anyone who reaches the
// listener, /admin/backup for a direct loopback peer (no proxy headers) or a
// request with the bearer token. Other paths answer 404.
func (a *Admin) Handler() http.Handler {
	mux := http.NewServeMux()
	a.routes(mux, anyone, localOrToken)
	return mux
}

// WithInteractions returns the routes sharing serve's interactions
// listener, which the internet reaches through a proxy (so every proxied
// request may come from a loopback peer): /healthz for anyone; /metrics for
// a direct loopback peer (no proxy headers) or the bearer token;
// /admin/backup for the bearer token only, never for the peer's address
// alone. Every other request goes to endpoint.
func (a *Admin) WithInteractions(endpoint http.Handler) http.Handler {
	mux := http.NewServeMux()
	a.routes(mux, localOrToken, tokenOnly)
	mux.Handle("/", endpoint)
	return mux
}

func (a *Admin) routes(mux *http.ServeMux, metrics, backup access) {
	mux.HandleFunc("GET "+PathHealth, a.health)
	if a.metrics != nil {
		mux.Handle("GET "+PathMetrics, a.guard(metrics, a.metrics.Handler()))
	}
	mux.Handle("POST "+PathBackup, a.guard(backup, http.HandlerFunc(a.backup)))
}

// The health states, worst last: GET /healthz's "status" and the
// hpkeeper_health_status gauge's label.
const (
	// healthOK: everything works (200).
	healthOK = "ok"
	// healthDegraded: something is wrong that can heal by itself. With
	// 200, the bot still answers and saves: a shard is reconnecting, the
	// disk is nearly full. With 503, changes cannot be saved: commits
	// fail, the disk is full, or the writer does not answer.
	healthDegraded = "degraded"
	// healthUnavailable: the database is closed, or its file was found
	// damaged while in use (503); only a restart, after hpkeeper check,
	// helps.
	healthUnavailable = "unavailable"
)

// assessment is the health of the process: an HTTP status, a state and
// the reasons, worst first.
type assessment struct {
	code    int
	status  string
	reasons []string
}

// worse records a state of code and status for reason, keeping the worst.
func (as *assessment) worse(code int, status, reason string) {
	rank := map[string]int{healthOK: 0, healthDegraded: 1, healthUnavailable: 2}
	if rank[status] > rank[as.status] || rank[status] == rank[as.status] && code > as.code {
		as.code, as.status = code, status
		as.reasons = append([]string{reason}, as.reasons...)
		return
	}
	as.reasons = append(as.reasons, reason)
}

// assess judges the database's health from h (and the error of a writer
// probe, nil when none was made), logging the details the answer leaves
// out (paths, error texts).
func (a *Admin) assess(h storage.Health, pingErr error) assessment {
	as := assessment{code: http.StatusOK, status: healthOK}
	switch {
	case h.Closed || errors.Is(pingErr, storage.ErrClosed):
		as.worse(http.StatusServiceUnavailable, healthUnavailable, "database closed")
	case h.Fault != nil || errors.Is(pingErr, storage.ErrDamaged):
		as.worse(http.StatusServiceUnavailable, healthUnavailable, "database file damaged: stop, run hpkeeper check, restore the last backup")
	case errors.Is(pingErr, storage.ErrUnavailable):
		// A PostgreSQL server that does not answer: the pool reconnects
		// by itself once it does.
		as.worse(http.StatusServiceUnavailable, healthUnavailable, "database unavailable")
	}
	if h.CommitErr != nil {
		as.worse(http.StatusServiceUnavailable, healthDegraded, fmt.Sprintf("changes cannot be saved: commits failing for %s (%s)",
			time.Since(h.FailingSince).Round(time.Second), diskTrouble(h.CommitErr)))
	}
	if errors.Is(pingErr, context.DeadlineExceeded) || pingErr == nil && h.Busy > a.healthTimeout {
		as.worse(http.StatusServiceUnavailable, healthDegraded, "database writer not answering within "+a.healthTimeout.String())
	}
	switch free := float64(h.FreeBytes) / (1 << 20); {
	case h.FreeBytes < 0:
	case h.FreeBytes < storage.FullDiskBytes:
		as.worse(http.StatusServiceUnavailable, healthDegraded, fmt.Sprintf("disk full: %.1f MiB free beside the database", free))
	case h.FreeBytes < LowDiskBytes:
		as.worse(http.StatusOK, healthDegraded, fmt.Sprintf("disk nearly full: %.1f MiB free beside the database", free))
	}
	return as
}

// diskTrouble names what a failed commit met, from a fixed set (the
// answer of GET /healthz carries no error text).
func diskTrouble(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "disk full"
	case errors.Is(err, syscall.EDQUOT):
		return "disk quota exceeded"
	case errors.Is(err, syscall.EROFS):
		return "read-only filesystem"
	case errors.Is(err, syscall.EIO):
		return "I/O error"
	case errors.Is(err, storage.ErrDamaged):
		return "file damaged"
	case errors.Is(err, storage.ErrUnavailable), errors.Is(err, storage.ErrCommitUnknown):
		return "database unavailable"
	}
	return "see the log"
}

// health answers GET /healthz.
func (a *Admin) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), a.healthTimeout)
	defer cancel()
	// The probe first: while commits fail, it makes the writer try one,
	// so Health below already shows a disk that takes writes again.
	pingErr := a.db.Ping(ctx)
	h := a.db.Health()
	as := a.assess(h, pingErr)
	body := health{Status: as.status, Version: a.version}
	if r := a.shards.Load(); r != nil {
		shards := (*r).ShardStatus()
		if len(shards) == 0 {
			as.worse(http.StatusOK, healthDegraded, "shard count not known yet")
		}
		for _, s := range shards {
			body.Shards = append(body.Shards, shardHealth{ID: s.ID, State: s.State, HeartbeatMS: float64(s.HeartbeatLatency.Microseconds()) / 1000})
			if s.State != ShardConnected {
				as.worse(http.StatusOK, healthDegraded, fmt.Sprintf("shard %d %s", s.ID, s.State))
			}
		}
		body.Status = as.status
	}
	if as.status != healthOK {
		body.Reason = strings.Join(as.reasons, "; ")
	}
	if as.code != http.StatusOK {
		ev := a.log.Warn().Str("status", as.status).Str("reason", body.Reason)
		if pingErr != nil {
			ev = ev.AnErr("ping", pingErr)
		}
		ev = ev.AnErr("fault", h.Fault).AnErr("commit", h.CommitErr)
		ev.Msg("health check failed")
	}
	status := as.code
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// backup answers POST /admin/backup with the database file.
func (a *Admin) backup(w http.ResponseWriter, r *http.Request) {
	select {
	case a.backingUp <- struct{}{}:
		defer func() { <-a.backingUp }()
	default:
		http.Error(w, "a backup is already running; try again when it is done", http.StatusConflict)
		return
	}
	// A large file takes longer than the server's write timeout.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	start := time.Now()
	started := false
	n, err := a.db.Backup(w, func(size int64) {
		started = true
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="hpkeeper-backup.db"`)
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
	})
	if errors.Is(err, storage.ErrNotAFile) {
		http.Error(w, err.Error()+" (docs/scaling.md)", http.StatusNotImplemented)
		return
	}
	a.metrics.backedUp(err)
	if err != nil {
		a.log.Error().Err(err).Int64("bytes", n).Str("remote", r.RemoteAddr).Msg("backup failed")
		if !started {
			http.Error(w, "backup failed", http.StatusInternalServerError)
		}
		return // the client sees a body shorter than its Content-Length
	}
	a.log.Info().Int64("bytes", n).Dur("took", time.Since(start)).Str("remote", r.RemoteAddr).Msg("backup sent")
}

// guard lets a request through to h when rule allows it; else it answers
// 401 (the token is configured and was missing or wrong) or 403 (no token
// is configured).
func (a *Admin) guard(rule access, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rule == anyone || a.bearer(r) || (rule == localOrToken && directLoopback(r)) {
			h.ServeHTTP(w, r)
			return
		}
		a.log.Warn().Str("remote", r.RemoteAddr).Str("path", r.URL.Path).Msg("admin request refused")
		if !a.hasToken {
			http.Error(w, "forbidden: this route needs the admin token (admin.token or HPKEEPER_ADMIN_TOKEN) from here", http.StatusForbidden)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="hpkeeper admin"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
}

// bearer reports whether r carries "Authorization: Bearer <token>" with the
// configured token, compared in constant time (over SHA-256 digests, so the
// token's length does not show either).
func (a *Admin) bearer(r *http.Request) bool {
	if !a.hasToken {
		return false
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return subtle.ConstantTimeCompare(sum[:], a.tokenHash[:]) == 1
}

// proxyHeaders are headers a reverse proxy adds: a request carrying one of
// them came from elsewhere, whatever its peer address.
var proxyHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip", "Via"}

// directLoopback reports whether r comes from a loopback address (127.0.0.0/8
// or ::1) and carries no proxy header.
func directLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return false
	}
	for _, h := range proxyHeaders {
		if _, ok := r.Header[h]; ok {
			return false
		}
	}
	return true
}
