package bot

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Replays across replicas. Any number of serve processes may answer one
// bot's interactions over one shared database (PostgreSQL), behind a load
// balancer. A signed request accepted by one of them must be refused by
// every other, and by each of them after a crash: so each accepted
// request's key is recorded in the database, durably, before the request
// is handled (storage.DB.AcceptRequest). The Endpoint's own guard still
// answers a replay to the same process without a round trip; the saved
// state of a graceful stop (replay.go) is then not needed, and no rule
// refuses the requests signed before an unclean start.

// SharedReplayGuard is the replay guard every replica of a shared database
// records accepted requests in; *storage.DB implements it.
type SharedReplayGuard interface {
	// AcceptRequest records the request whose signature begins with key,
	// refused as stale after expires, and reports whether it had been
	// accepted before, by any process.
	AcceptRequest(key [16]byte, expires time.Time) (replayed bool, err error)
}

// WithSharedReplays makes the Endpoint record every request it accepts in
// g, which the other replicas share, and refuse one that any of them
// accepted before. A request that cannot be recorded (the database is
// unreachable) is answered 503: it is not handled.
func WithSharedReplays(g SharedReplayGuard) EndpointOption {
	return func(e *Endpoint) { e.shared = g }
}

// acceptShared records the request in the shared guard, when there is
// one; it answers the request and returns false when the request must not
// be handled: a replay (401, as the Endpoint's own guard answers one) or a
// guard that cannot say (503).
func (e *Endpoint) acceptShared(w http.ResponseWriter, r *http.Request, sig []byte, stamp string) bool {
	if e.shared == nil {
		return true
	}
	sec, _ := strconv.ParseInt(strings.TrimSpace(stamp), 10, 64)
	replayed, err := e.shared.AcceptRequest([16]byte(sig[:16]), time.Unix(sec, 0).Add(MaxClockSkew))
	switch {
	case err != nil:
		e.log.Error().Err(err).Str("remote", r.RemoteAddr).Msg("interaction request not handled: the shared replay guard cannot be reached")
		http.Error(w, "database unavailable", http.StatusServiceUnavailable)
		return false
	case replayed:
		e.log.Warn().Str("remote", r.RemoteAddr).Msg("interaction request replayed (accepted before by this or another replica)")
		http.Error(w, "request already received", http.StatusUnauthorized)
		return false
	}
	return true
}
