package commands

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Per-user limits on expensive work (SECURITY.md, "Abuse"). Work is counted
// in units: each command declares what it costs (Command.Cost: a /history
// page 50 units, a /clock advance 10 a day); a command that declares
// nothing costs the dice its options may roll (DiceCost: one unit per die
// of a pool of more than FreeDice, rerolls and explosions counted as
// dice.Expr.Rolls says). Each user has a bucket of WorkBurst units that
// refills at WorkPerMinute units a minute; a command whose cost does not
// fit is refused with CodeRateLimited before it does anything. Plain play
// (a few dice per command) costs nothing.
const (
	// FreeDice is the largest dice pool that costs nothing.
	FreeDice = 10
	// WorkBurst is how many units a user may spend at once: ten 100-dice
	// rolls, or twenty /history pages.
	WorkBurst = 1000
	// WorkPerMinute is how many units a user's allowance regains a minute.
	WorkPerMinute = 1000
)

// maxTrackedUsers is how many users' buckets are kept before full ones are
// forgotten (a full bucket is the same as no bucket).
const maxTrackedUsers = 4096

// workLimiter is a token bucket per user id. It is safe for concurrent use.
type workLimiter struct {
	mu        sync.Mutex
	burst     float64 // units
	perSecond float64 // units a second
	users     map[string]*workBucket
	// shared, when set, spends from a shared store's allowances (store.go);
	// on its error the process's own buckets answer, warn saying so.
	shared func(user string, cost, burst, perMinute int, now time.Time) (bool, time.Duration, error)
	warn   zerolog.Sampler // one warning a minute
	// swept is when full buckets were last swept away. Past maxTrackedUsers
	// a new user sweeps only a second or more away from it (either way:
	// concurrent requests' clocks interleave), so a crowd of active users
	// (whose buckets are not full, so a sweep frees nothing) costs one scan
	// a second instead of one per newcomer.
	swept  time.Time
	sweeps int // sweeps so far (for tests)
}

type workBucket struct {
	units float64
	at    time.Time
}

func newWorkLimiter(burst, perMinute int) *workLimiter {
	return &workLimiter{burst: float64(burst), perSecond: float64(perMinute) / 60, users: map[string]*workBucket{},
		warn: &zerolog.BurstSampler{Burst: 1, Period: time.Minute}}
}

// take spends cost units of user's allowance at now. It returns true when
// they were available; otherwise it spends nothing and returns how long the
// user must wait until they are. A warning goes to ctx's logger.
func (l *workLimiter) take(ctx context.Context, user string, cost int, now time.Time) (bool, time.Duration) {
	if cost <= 0 {
		return true, 0
	}
	if l.shared != nil {
		ok, wait, err := l.shared(user, cost, WorkBurst, WorkPerMinute, now)
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
		b = &workBucket{units: l.burst, at: now}
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

func (l *workLimiter) refill(b *workBucket, now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.units = min(l.burst, b.units+d.Seconds()*l.perSecond)
		b.at = now
	}
}

// forgetFull drops the buckets that have refilled completely by now.
func (l *workLimiter) forgetFull(now time.Time) {
	for id, b := range l.users {
		l.refill(b, now)
		if b.units >= l.burst {
			delete(l.users, id)
		}
	}
}

// DiceCost is the cost in units of the dice a command request's options
// roll: the dice of the expressions in expr and amount and the hit dice of
// hd, when they are more than FreeDice; 0 otherwise. It is the cost of a
// command that declares none (Command.Cost).
func DiceCost(r *Request) int {
	n := 0
	for _, opt := range []string{"expr", "amount"} {
		if v, ok := r.Options[opt]; ok {
			if e, err := dice.Parse(v); err == nil {
				n += e.Rolls() // rerolls and explosions count
			}
		}
	}
	if v, ok := r.Options["hd"]; ok {
		if hd, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && hd > 0 {
			n += hd
		}
	}
	if n <= FreeDice {
		return 0
	}
	return n
}

// FixedCost returns a Command.Cost of n units whatever the request.
func FixedCost(n int) func(*Request) int {
	return func(*Request) int { return n }
}

// limitWork is the kernel's step (Middleware) that spends the work of a
// command request from its user's allowance before its handler runs: cost
// is what the command declares (Command.Cost; nil: DiceCost). A request
// whose cost does not fit is refused with the CodeRateLimited error saying
// how long to wait, and spends nothing.
func limitWork(cost func(*Request) int) Middleware {
	if cost == nil {
		cost = DiceCost
	}
	return func(next HandlerFunc) HandlerFunc {
		return func(ctx context.Context, s *Service, r *Request) (*Response, error) {
			if err := s.spendWork(ctx, r, cost(r)); err != nil {
				return nil, err
			}
			return next(ctx, s, r)
		}
	}
}

// TakeWork spends units of the work allowance of r's user when they are
// there and reports true; otherwise it spends nothing and returns how long
// the user must wait for them. A handler spends with it what it costs
// beyond its command's Cost (an /odds chart).
func (s *Service) TakeWork(ctx context.Context, r *Request, units int) (ok bool, wait time.Duration) {
	return s.limiter.take(ctx, r.UserID, units, r.Now)
}

// spendWork spends cost units of work from the allowance of r's user, or
// returns the CodeRateLimited error saying how long to wait.
func (s *Service) spendWork(ctx context.Context, r *Request, cost int) error {
	ok, wait := s.TakeWork(ctx, r, cost)
	if ok {
		return nil
	}
	secs := int(math.Ceil(wait.Seconds()))
	return Errorf(CodeRateLimited, "Slow down: that is a lot of dice, history or clock time for one minute (%d units; you may spend %d a minute). Try again in %d s. Nothing was changed.", cost, WorkPerMinute, secs)
}
