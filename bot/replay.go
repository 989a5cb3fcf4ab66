package bot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Replays. The Endpoint accepts a signed request once: its replay guard
// remembers every accepted signature until the request's timestamp is more
// than MaxClockSkew old, when the freshness check refuses it anyway. The
// guard lives in memory, so a restart must not give a captured request a
// second life (SECURITY.md, promise 5). Two rules cover the two ways a
// process stops, without a disk write per request:
//
//   - A graceful stop (SIGTERM, SIGINT) saves the guard through the
//     ReplayStore once the listener has drained (Endpoint.Close), and the
//     next start takes it back: the same signatures stay refused for their
//     whole window, and requests that were in flight during the restart are
//     answered.
//   - After any other stop (SIGKILL, a crash, power loss) nothing was saved:
//     the new Endpoint refuses every request signed before its own start
//     plus RestartClockSkew. Each request accepted before the crash was
//     signed before it, so before this start; RestartClockSkew covers
//     Discord's clock running up to that much ahead of ours. The price is
//     that requests signed in about the first RestartClockSkew (plus up to
//     one second, timestamps being whole seconds) after an unclean start
//     are refused too.
//
// The limit of a start after a crash carries over into the state saved at
// the next graceful stop, so a clean restart soon after an unclean one
// still refuses what the crashed process accepted. A new database file
// (storage.Open created it) was never served from: its first start has no
// limit.

// RestartClockSkew is how far ahead of the Endpoint's clock Discord's may
// run for the rule that protects against replays after an unclean stop:
// such a start refuses requests signed before it plus RestartClockSkew.
const RestartClockSkew = time.Second

// ReplayStore keeps the replay guard's state across a graceful restart;
// *storage.DB implements it. The state is opaque bytes of this package's
// encoding.
type ReplayStore interface {
	// TakeReplayState returns the state SaveReplayState stored, or nil when
	// none is, and deletes it durably in the same transaction. An empty,
	// non-nil state says the store is new: nothing was ever served from it.
	TakeReplayState() ([]byte, error)
	// SaveReplayState stores state durably, replacing any stored before.
	SaveReplayState(state []byte) error
}

// WithReplayStore makes the Endpoint keep its replay guard in store across
// restarts: NewEndpoint takes the state saved by the last graceful stop (or,
// finding none, refuses requests signed before its start plus
// RestartClockSkew), and Close saves it. Without it the guard lives in
// memory only.
func WithReplayStore(store ReplayStore) EndpointOption {
	return func(e *Endpoint) { e.store = store }
}

// restoreReplays takes the saved guard from the store, if the Endpoint has
// one. It returns an error only when the store cannot be read; a state it
// cannot decode is logged and treated as none.
func (e *Endpoint) restoreReplays() error {
	if e.store == nil || e.shared != nil {
		return nil
	}
	now := e.now()
	state, err := e.store.TakeReplayState()
	if err != nil {
		return fmt.Errorf("take replay guard: %w", err)
	}
	if state != nil && len(state) == 0 {
		e.log.Info().Msg("new database: no request was served from it before")
		return nil
	}
	if state != nil {
		n, err := e.replays.restore(state, now)
		if err == nil {
			e.log.Info().Int("requests", n).Msg("replay guard restored from the last graceful stop")
			return nil
		}
		e.log.Warn().Err(err).Msg("saved replay guard unreadable; treating the last stop as unclean")
	}
	e.replays.refuseBefore(now.Add(RestartClockSkew))
	e.log.Info().Time("not_before", now.Add(RestartClockSkew)).
		Msg("no replay guard saved (first start, or the last stop was not graceful): refusing requests signed before this start")
	return nil
}

// Close ends the Endpoint's work once its server has stopped serving it:
// it waits for the answers and files still being sent (Wait): up to
// StopGrace for the deferred commands still running, which are then told
// whether they were applied (inflight.go, WithSettler); then it stops
// accepting requests (503 from now on) and saves the replay guard to the
// ReplayStore, if there is one. It returns the store's error.
func (e *Endpoint) Close() error {
	if !waitFor(&e.followUps.wg, StopGrace) {
		e.inflight.settle(e.log) // inflight.go: the deferred commands still running are told
	}
	e.Wait()
	state, n := e.replays.close(e.now())
	if e.store == nil || e.shared != nil {
		return nil
	}
	start := time.Now()
	if err := e.store.SaveReplayState(state); err != nil {
		return fmt.Errorf("save replay guard: %w", err)
	}
	e.log.Info().Int("requests", n).Int("bytes", len(state)).Dur("took", time.Since(start)).Msg("replay guard saved")
	return nil
}

// replayGuard remembers the requests accepted while they are fresh, so the
// same signed request is accepted once. A request is keyed by the first 16
// bytes of its Ed25519 signature (unforgeable, so distinct requests never
// share a key) and forgotten once its own timestamp is more than MaxClockSkew
// old, when the freshness check refuses it anyway. At most maxReplayEntries
// are kept (about 6 MB); past that the oldest are forgotten first, which only
// narrows replay protection under a flood far beyond Discord's traffic. It is
// safe for concurrent use.
type replayGuard struct {
	mu    sync.Mutex
	seen  map[[16]byte]struct{}
	order []seenSignature // in arrival order
	// notBefore refuses requests signed before it (zero: none), after a
	// start that found no saved guard.
	notBefore time.Time
	// closed refuses everything once the guard has been saved.
	closed bool
}

// maxReplayEntries bounds the memory of replayGuard.
const maxReplayEntries = 100_000

// seenSignature is one accepted request's key and when it expires, in Unix
// seconds (a request's timestamp is whole seconds): 24 bytes an entry, not
// the 40 of a time.Time, for up to maxReplayEntries of them.
type seenSignature struct {
	key     [16]byte
	expires int64
}

// expiredAt reports whether s has expired at now.
func (s seenSignature) expiredAt(now time.Time) bool { return now.After(time.Unix(s.expires, 0)) }

// replayVerdict is what record says of a request.
type replayVerdict int

const (
	replayNew         replayVerdict = iota // accepted
	replaySeen                             // accepted before: a replay
	replayBeforeStart                      // signed before an unclean start
	replayClosed                           // the guard has been saved
)

// record records the request whose decoded Ed25519 signature starts with
// key (its first 16 bytes), signed with timestamp ts (Unix seconds), as
// accepted at now, unless it was accepted before, was signed before the
// guard's limit, or the guard is closed; it says which.
func (g *replayGuard) record(key [16]byte, ts string, now time.Time) replayVerdict {
	sec, _ := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	signed := time.Unix(sec, 0)
	expires := signed.Add(MaxClockSkew)
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.closed:
		return replayClosed
	case signed.Before(g.notBefore):
		return replayBeforeStart
	}
	if g.seen == nil {
		g.seen = map[[16]byte]struct{}{}
	}
	n := 0
	for n < len(g.order) && (g.order[n].expiredAt(now) || len(g.order)-n >= maxReplayEntries) {
		delete(g.seen, g.order[n].key)
		n++
	}
	g.order = g.order[n:] // append reallocates, dropping the forgotten prefix
	if _, dup := g.seen[key]; dup {
		return replaySeen
	}
	g.seen[key] = struct{}{}
	g.order = append(g.order, seenSignature{key, expires.Unix()})
	return replayNew
}

// refuseBefore makes the guard refuse requests signed before t.
func (g *replayGuard) refuseBefore(t time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.notBefore = t
}

// The saved state (replayStateVersion 1), big-endian: the version byte, the
// limit (Unix nanoseconds, 0 for none), the number of entries, then each
// entry's 16-byte key and expiry (Unix seconds).
const (
	replayStateVersion = 1
	replayStateHeader  = 1 + 8 + 8
	replayStateEntry   = 16 + 8
)

// errReplayState is the error for a saved state restore cannot read.
var errReplayState = errors.New("malformed replay guard state")

// close stops the guard (record answers replayClosed from now on) and
// returns its state with the n entries not expired at now.
func (g *replayGuard) close(now time.Time) (state []byte, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	var live []seenSignature
	for _, s := range g.order {
		if _, ok := g.seen[s.key]; ok && !s.expiredAt(now) {
			live = append(live, s)
		}
	}
	state = make([]byte, replayStateHeader, replayStateHeader+len(live)*replayStateEntry)
	state[0] = replayStateVersion
	if !g.notBefore.IsZero() {
		binary.BigEndian.PutUint64(state[1:9], uint64(g.notBefore.UnixNano()))
	}
	binary.BigEndian.PutUint64(state[9:17], uint64(len(live)))
	for _, s := range live {
		state = append(state, s.key[:]...)
		state = binary.BigEndian.AppendUint64(state, uint64(s.expires))
	}
	return state, len(live)
}

// restore loads state, as close returned it, into the empty guard, and
// returns how many entries not expired at now it holds. It returns an
// error wrapping errReplayState, loading nothing, when state is not of
// that form.
func (g *replayGuard) restore(state []byte, now time.Time) (int, error) {
	if len(state) < replayStateHeader || state[0] != replayStateVersion {
		return 0, fmt.Errorf("%w: %d bytes, version %v", errReplayState, len(state), state[:min(1, len(state))])
	}
	count := binary.BigEndian.Uint64(state[9:17])
	if rest := uint64(len(state) - replayStateHeader); count > rest/replayStateEntry || rest%replayStateEntry != 0 || count*replayStateEntry != rest {
		return 0, fmt.Errorf("%w: %d entries in %d bytes", errReplayState, count, len(state))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if nb := int64(binary.BigEndian.Uint64(state[1:9])); nb != 0 {
		g.notBefore = time.Unix(0, nb)
	}
	g.seen = make(map[[16]byte]struct{}, count)
	n := 0
	for p := state[replayStateHeader:]; len(p) > 0; p = p[replayStateEntry:] {
		s := seenSignature{key: [16]byte(p[:16]), expires: int64(binary.BigEndian.Uint64(p[16:24]))}
		if s.expiredAt(now) {
			continue
		}
		g.seen[s.key] = struct{}{}
		g.order = append(g.order, s)
		n++
	}
	return n, nil
}
