package commands

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Per-user limits on expensive work (SECURITY.md, "Abuse"). Work is counted
// in units: a dice expression of more than FreeDice dice costs one unit per
// die it may roll (options expr and amount, rerolls and explosions counted
// as dice.Expr.Rolls says, and the hit dice of hd), and a /history page
// costs HistoryCost units. Each user has a bucket of WorkBurst units that
// refills at WorkPerMinute units a minute; a command whose cost does not fit
// is refused with CodeRateLimited before it does anything. Plain play (a few
// dice per command) costs nothing.
const (
	// FreeDice is the largest dice pool that costs nothing.
	FreeDice = 10
	// HistoryCost is the cost of one /history page, in units.
	HistoryCost = 50
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
	return &workLimiter{burst: float64(burst), perSecond: float64(perMinute) / 60, users: map[string]*workBucket{}}
}

// take spends cost units of user's allowance at now. It returns true when
// they were available; otherwise it spends nothing and returns how long the
// user must wait until they are.
func (l *workLimiter) take(user string, cost int, now time.Time) (bool, time.Duration) {
	if cost <= 0 {
		return true, 0
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

// AdvanceDayCost is what each whole day a /clock advance passes costs, in
// units: the longest advance (MaxAdvanceDays, which can hold the writer for
// tens of milliseconds at the largest hp-mp-wp table) takes 900 of the
// WorkBurst, so one user gets about one a minute; a week costs 70.
const AdvanceDayCost = 10

// FileCost is what a /table export or /table import costs, in units: each
// can read, encode or decode up to MaxImportSize (8 MiB, a few hundred
// milliseconds of CPU), so one user gets five a minute.
const FileCost = 200

// workCost is the cost in units of answering command request r.
func workCost(r *Request) int {
	switch {
	case r.Command == "history":
		return HistoryCost
	case r.Command == "clock":
		return advanceCost(r)
	case r.Command == "table" && (r.Subcommand == "export" || r.Subcommand == "import"):
		return FileCost
	}
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

// advanceCost is the cost of a /clock request: AdvanceDayCost for each
// whole day it moves the clock (n × unit, up to 10,000 × a day, cannot
// overflow).
func advanceCost(r *Request) int {
	if r.Options["action"] != "advance" {
		return 0
	}
	n, err := strconv.ParseInt(r.Options["amount"], 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	unit := clock.Round
	if u, ok := r.Options["unit"]; ok {
		if unit, err = clock.ParseUnit(u); err != nil {
			return 0
		}
	}
	rounds := n * unit.Rounds()
	if rounds > MaxAdvanceDays*clock.RoundsPerDay {
		return 0 // refused before any work (checkAdvance)
	}
	return int(rounds/clock.RoundsPerDay) * AdvanceDayCost
}

// limitWork spends the work of command request r from its user's allowance,
// or returns the CodeRateLimited error saying how long to wait.
func (s *Service) limitWork(r *Request) error {
	cost := workCost(r)
	ok, wait := s.limiter.take(r.UserID, cost, r.Now)
	if ok {
		return nil
	}
	secs := int(math.Ceil(wait.Seconds()))
	return Errorf(CodeRateLimited, "Slow down: that is a lot of dice, history or clock time for one minute (%d units; you may spend %d a minute). Try again in %d s. Nothing was changed.", cost, WorkPerMinute, secs)
}

// MaxModalText is the longest text a modal input may carry, in characters:
// Discord's own limit for a text input (SECURITY.md, "Input limits"). A
// modal submit with a longer value is refused before any handler runs; each
// handler still checks its own, smaller bound.
const MaxModalText = 4000

// checkModalValues refuses a modal submit whose values exceed MaxModalText.
func checkModalValues(r *Request) error {
	for _, v := range r.Values {
		if n := utf8.RuneCountInString(v); n > MaxModalText {
			return Errorf(CodeInvalid, "That text is %d characters long; at most %d. Nothing was changed.", n, MaxModalText)
		}
	}
	return nil
}
