// Package worklimit keeps each user's allowance of expensive work, in
// units (SECURITY.md, "Abuse"): a bucket of burst units per user that
// refills at a steady rate, from which the kernel spends what a command
// costs before it runs (commands.Command.Cost, the kernel's work limit:
// commands/ratelimit.go says what costs what). A Limiter keeps the buckets
// of one process; over a store that replicas share (PostgreSQL) it spends
// from the allowances the store keeps (Share), so that a user has one
// allowance whichever replica answers; when that store cannot answer, the
// process's own buckets do, and a warning says so once a minute at most.
package worklimit

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// maxTrackedUsers is how many users' buckets are kept before full ones are
// forgotten (a full bucket is the same as no bucket).
const maxTrackedUsers = 4096

// Limiter is a token bucket per user id. It is safe for concurrent use.
type Limiter struct {
	mu        sync.Mutex
	burst     float64 // units
	perSecond float64 // units a second
	users     map[string]*bucket
	// shared, when set, spends from the allowances a shared store keeps
	// (Share) instead; on its error the process's own buckets answer,
	// warn saying so.
	shared Shared
	warn   zerolog.Sampler // one warning a minute
	// burstUnits and perMinute are burst and the rate as given to New, for
	// the shared store.
	burstUnits, perMinute int
	// swept is when full buckets were last swept away. Past maxTrackedUsers
	// a new user sweeps only a second or more away from it (either way:
	// concurrent requests' clocks interleave), so a crowd of active users
	// (whose buckets are not full, so a sweep frees nothing) costs one scan
	// a second instead of one per newcomer.
	swept  time.Time
	sweeps int // sweeps so far (for tests)
}

type bucket struct {
	units float64
	at    time.Time
}

// New returns a Limiter whose users may spend burst units at once, and
// regain perMinute units a minute.
func New(burst, perMinute int) *Limiter {
	return &Limiter{burst: float64(burst), perSecond: float64(perMinute) / 60, users: map[string]*bucket{},
		burstUnits: burst, perMinute: perMinute, warn: &zerolog.BurstSampler{Burst: 1, Period: time.Minute}}
}

// Shared is a store other processes use at the same time, which keeps each
// user's allowance for all of them (storage.DB over PostgreSQL: Shared and
// TakeWork).
type Shared interface {
	// Shared reports whether other processes use the store.
	Shared() bool
	// TakeWork spends cost units of user's allowance at now, of burst
	// units regaining perMinute a minute, as Limiter.Take does, or returns
	// the error of a store that could not answer (which the store counts:
	// storage.DB.WorkLimitFailures, hpkeeper_work_limit_fallbacks_total).
	TakeWork(user string, cost int, burst, perMinute int, now time.Time) (bool, time.Duration, error)
}

// Share makes l spend from the allowances s keeps when other processes use
// s (Shared); otherwise l keeps its own.
func (l *Limiter) Share(s Shared) {
	if s.Shared() {
		l.shared = s
	}
}

// Take spends cost units of user's allowance at now. It returns true when
// they were available; otherwise it spends nothing and returns how long the
// user must wait until they are. A cost of 0 or less is always available.
// When the shared store cannot answer, the process's own allowance does,
// and a warning goes to ctx's logger (zerolog.Ctx), once a minute at most.
func (l *Limiter) Take(ctx context.Context, user string, cost int, now time.Time) (bool, time.Duration) {
	if cost <= 0 {
		return true, 0
	}
	if l.shared != nil {
		ok, wait, err := l.shared.TakeWork(user, cost, l.burstUnits, l.perMinute, now)
		if err == nil {
			return ok, wait
		}
		log := zerolog.Ctx(ctx).Sample(l.warn)
		log.Warn().Err(err).Msg("the database could not answer for a user's work allowance: this process's own allowance answers (said once a minute; hpkeeper_work_limit_fallbacks_total counts each)")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.users[user]
	if b == nil {
		if since := now.Sub(l.swept); len(l.users) >= maxTrackedUsers && (since >= time.Second || since <= -time.Second) {
			l.forgetFull(now)
			l.sweeps++
			l.swept = now
		}
		b = &bucket{units: l.burst, at: now}
		l.users[user] = b
	}
	l.refill(b, now)
	c := float64(cost)
	if c > b.units {
		wait := time.Duration(math.Ceil((c-b.units)/l.perSecond*1000)) * time.Millisecond
		if c > l.burst {
			wait = time.Duration(math.Ceil(l.burst/l.perSecond*1000)) * time.Millisecond
		}
		return false, wait
	}
	b.units -= c
	return true, 0
}

func (l *Limiter) refill(b *bucket, now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.units = min(l.burst, b.units+d.Seconds()*l.perSecond)
		b.at = now
	}
}

// forgetFull drops the buckets that have refilled completely by now.
func (l *Limiter) forgetFull(now time.Time) {
	for id, b := range l.users {
		l.refill(b, now)
		if b.units >= l.burst {
			delete(l.users, id)
		}
	}
}
