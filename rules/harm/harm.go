package harm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Kind is the kind of a harm, which picks the innate ability checked against
// it (RULES.md §3.2); the zero value is Physical.
type Kind int

// The kinds of harm (RULES.md §3.2).
const (
	Physical Kind = iota // checked with Endure
	Social               // checked with React
	Mental               // checked with Willpower
)

// String returns "physical", "social" or "mental".
func (k Kind) String() string {
	switch k {
	case Physical:
		return "physical"
	case Social:
		return "social"
	case Mental:
		return "mental"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Ability returns the innate ability a harm of kind k is checked with
// (RULES.md §3.2): Endure (physical), React (social), Willpower (mental).
func (k Kind) Ability() string {
	switch k {
	case Social:
		return React
	case Mental:
		return Willpower
	}
	return Endure
}

// ParseKind returns the kind named s (any case): physical, social or mental.
func ParseKind(s string) (Kind, error) {
	for k := Physical; k <= Mental; k++ {
		if strings.EqualFold(strings.TrimSpace(s), k.String()) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kind of harm %q (want physical, social or mental)", s)
}

// ErrNoHarm: harm of success level below 1 (RULES.md §3.2 deals harm of
// SL ≥ 1 only).
var ErrNoHarm = errors.New("harm needs a success level of 1 or more")

// Harm is harm dealt to a character (RULES.md §3.2).
type Harm struct {
	// SL is the success level of the harm, ≥ 1.
	SL int
	// Kind picks the check: Endure, React or Willpower.
	Kind Kind
	// FudgeDice is 3 or 4 (0 means 3) for the check.
	FudgeDice int
	// At is the clock time (rounds) of the harm; a day of rest counts from
	// it (RULES.md §3.3).
	At clock.Time
	// Pool, when not "", spends 1 point of that pool for 1 bonus die on the
	// check (RULES.md §3.1); it must be the pool of the ability checked:
	// Vigor (Endure, physical), Instinct (React, social) or Reason
	// (Willpower, mental).
	Pool string
}

// HarmOutcome is what a harm did (RULES.md §3.2).
type HarmOutcome struct {
	Harm Harm
	// TakenOut: the character was Broken and is taken out of the conflict;
	// nothing else changed and no check was made.
	TakenOut bool
	// CounterBefore is the harm counter before the harm, Counter the
	// counter checked against (CounterBefore + SL) and CounterAfter the
	// counter after (Counter, or 0 when the condition worsened).
	CounterBefore, Counter, CounterAfter int
	// Before and After are the conditions; they differ when the check
	// failed.
	Before, After Condition
	// Check is the Endure, React or Willpower check (zero when TakenOut).
	Check CheckResult
	// Spent is the pool point Harm.Pool spent for a bonus die (none when
	// TakenOut: no check is made).
	Spent []PoolChange
}

// Worsened reports whether the harm worsened the condition.
func (o HarmOutcome) Worsened() bool { return o.After != o.Before }

// TakeHarm deals harm h to the character (RULES.md §3.2). If it is Broken,
// it is taken out of the conflict and nothing else changes. Otherwise the
// SL is added to the harm counter and the character checks the innate
// ability of h's kind, with its condition's penalty dice and, with h.Pool,
// a bonus die for a point of that pool (§3.1; the harm check is not an
// action, so Broken costs nothing more): a total ≥ the counter leaves
// condition and counter as they are; a total below worsens the condition
// one step (Healthy → Bloody → Broken) and resets the counter to 0. The
// harm also restarts the day of rest (RestFrom = h.At, and the days of rest
// taken alone, RestDays, no longer count). It fails, changing nothing,
// with ErrNoHarm for an SL below 1, ErrWrongPool, ErrPoolEmpty, or an error
// of the check or of src.
func (c Character) TakeHarm(src dice.Source, h Harm) (Character, HarmOutcome, error) {
	if h.SL < 1 {
		return c, HarmOutcome{}, fmt.Errorf("%w, not %d", ErrNoHarm, h.SL)
	}
	if err := c.checkPool(h.Kind.Ability(), h.Pool); err != nil {
		return c, HarmOutcome{}, err
	}
	out := HarmOutcome{Harm: h, Before: c.Condition, After: c.Condition,
		CounterBefore: c.HarmCounter, Counter: c.HarmCounter, CounterAfter: c.HarmCounter}
	if c.Condition == Broken {
		n := c.Clone()
		n.TakenOut, out.TakenOut = true, true
		return n, out, nil
	}
	out.Counter = c.HarmCounter + h.SL
	n, spent, res, err := c.rollCheck(src, h.Kind.Ability(), h.Pool, h.FudgeDice, false)
	if err != nil {
		return c, HarmOutcome{}, err
	}
	out.Check, out.Spent = res, spent
	n.HarmCounter, n.RestFrom, n.RestDays = out.Counter, h.At, 0
	if out.Check.Total < out.Counter {
		n.Condition, n.HarmCounter = c.Condition+1, 0
	}
	out.After, out.CounterAfter = n.Condition, n.HarmCounter
	return n, out, nil
}

// EndConflict clears taken out (RULES.md §3.2: the GM ends the conflict) and
// reports whether it was set.
func (c Character) EndConflict() (Character, bool) {
	if !c.TakenOut {
		return c, false
	}
	n := c.Clone()
	n.TakenOut = false
	return n, true
}
