package commands

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Per-user limits on expensive work (SECURITY.md, "Abuse"). Work is counted
// in units: each command declares what it costs (Command.Cost: a /history
// page 50 units, a /clock advance 10 a day); a command that declares
// nothing costs the dice its options may roll (DiceCost: one unit per die
// of a pool of more than FreeDice, rerolls and explosions counted as
// dice.Expr.Rolls says). Each user has a bucket of WorkBurst units that
// refills at WorkPerMinute units a minute (a worklimit.Limiter); a command
// whose cost does not fit is refused with CodeRateLimited before it does
// anything. Plain play (a few dice per command) costs nothing.
const (
	// FreeDice is the largest dice pool that costs nothing.
	FreeDice = 10
	// WorkBurst is how many units a user may spend at once: ten 100-dice
	// rolls, or twenty /history pages.
	WorkBurst = 1000
	// WorkPerMinute is how many units a user's allowance regains a minute.
	WorkPerMinute = 1000
)

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
	return s.limiter.Take(ctx, r.UserID, units, r.Now)
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
