package harm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Trigger is what allows a healing check (RULES.md §3.3).
type Trigger int

// The healing triggers (RULES.md §3.3).
const (
	// FirstAidHelp: another character's First Aid check (physical harm).
	FirstAidHelp Trigger = iota + 1
	// CounselHelp: another character's Counsel check (mental or social harm).
	CounselHelp
	// DayOfRest: the clock has passed a day (RoundsPerDay rounds) since the
	// character's RestFrom.
	DayOfRest
	// PoolPoints: spending PoolCost pool points in any mix.
	PoolPoints
)

// PoolCost is the pool points the PoolPoints trigger spends (RULES.md §3.3).
const PoolCost = 5

// String returns the trigger's name as /heal trigger: takes it: "first-aid",
// "counsel", "rest" or "pools".
func (t Trigger) String() string {
	switch t {
	case FirstAidHelp:
		return "first-aid"
	case CounselHelp:
		return "counsel"
	case DayOfRest:
		return "rest"
	case PoolPoints:
		return "pools"
	}
	return fmt.Sprintf("Trigger(%d)", int(t))
}

// ParseTrigger returns the trigger named s (any case): first-aid, counsel,
// rest or pools.
func ParseTrigger(s string) (Trigger, error) {
	for t := FirstAidHelp; t <= PoolPoints; t++ {
		if strings.EqualFold(strings.TrimSpace(s), t.String()) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown healing trigger %q (want first-aid, counsel, rest or pools)", s)
}

// HelperAbility returns the ability another character checks for the
// trigger (RULES.md §3.3): First Aid or Counsel, or "" for the others.
func (t Trigger) HelperAbility() string {
	switch t {
	case FirstAidHelp:
		return FirstAid
	case CounselHelp:
		return Counsel
	}
	return ""
}

// DefaultAbility returns the innate ability of the healing check when none
// is chosen: Willpower after Counsel (mental or social harm), Endure
// otherwise. RULES.md §3.3 asks for "a fitting innate ability"; the player
// or GM picks another with Healing.Ability.
func (t Trigger) DefaultAbility() string {
	if t == CounselHelp {
		return Willpower
	}
	return Endure
}

// The errors of healing (RULES.md §3.3), returned wrapped with details.
var (
	// ErrNothingToHeal: the character is Healthy with harm counter 0.
	ErrNothingToHeal = errors.New("nothing to heal")
	// ErrNotInnate: the healing check names an ability that is not innate.
	ErrNotInnate = errors.New("the healing check uses an innate ability")
	// ErrRestTooSoon: a day has not passed since the character's RestFrom.
	ErrRestTooSoon = errors.New("a day of rest has not passed")
	// ErrBadSpend: the pools trigger's mix is not PoolCost points of known
	// pools.
	ErrBadSpend = errors.New("the pools trigger spends 5 points")
)

// NeedsHealing reports whether a healing check can change anything (RULES.md
// §3.3): the character is Bloody or Broken, or its harm counter is above 0.
func (c Character) NeedsHealing() bool { return c.Condition != Healthy || c.HarmCounter > 0 }

// Help makes the helper's First Aid or Counsel check for the trigger t
// (RULES.md §3.3); its SL becomes the patient's bonus dice. It is an action
// of the helper (Act), with the helper's condition penalty and, while the
// helper is Broken, the cost of 1 Reason point. pool, when not "", spends 1
// point of it for 1 bonus die (§3.1): it must be Reason, the pool First Aid
// and Counsel draw on.
//
// **Reading:** RULES.md §3.2 calls an action "a check the character chooses
// to make"; giving First Aid or Counsel is one, so it costs a Broken helper
// a point like any other.
func (c Character) Help(src dice.Source, t Trigger, fudge int, pool string) (Character, ActionOutcome, error) {
	ability := t.HelperAbility()
	if ability == "" {
		return c, ActionOutcome{}, fmt.Errorf("%v is not First Aid or Counsel", t)
	}
	return c.Act(src, Action{Ability: ability, Pool: pool, FudgeDice: fudge})
}

// Healing is a healing check and its trigger (RULES.md §3.3).
type Healing struct {
	// Trigger is what allows the check.
	Trigger Trigger
	// Ability is the innate ability checked; "" means Trigger.DefaultAbility.
	Ability string
	// HelpSL is the success level of the helper's First Aid or Counsel
	// check (FirstAidHelp, CounselHelp): that many bonus dice.
	HelpSL int
	// Spend chooses the points of the PoolPoints trigger by pool name; they
	// must add up to PoolCost. Nil takes them one by one from the fullest
	// pool (ties: Vigor, Instinct, Reason).
	Spend map[string]int
	// Now is the clock time (rounds), for DayOfRest.
	Now clock.Time
	// FudgeDice is 3 or 4 (0 means 3).
	FudgeDice int
	// Pool, when not "", spends 1 point of that pool for 1 bonus die on the
	// healing check (RULES.md §3.1); it must be the pool of Ability:
	// Vigor (Endure), Instinct (React) or Reason (Willpower).
	Pool string
}

// HealOutcome is what a healing did (RULES.md §3.3).
type HealOutcome struct {
	Healing Healing
	// Spent lists the pool points spent: first the point Healing.Pool
	// spent for a bonus die ("bonus die"), then those PoolPoints spent,
	// one entry per pool ("healing").
	Spent []PoolChange
	// Check is the healing check.
	Check CheckResult
	// Before and After are the conditions, CounterBefore and CounterAfter
	// the harm counters.
	Before, After               Condition
	CounterBefore, CounterAfter int
	// RestFrom is the character's RestFrom before the healing (DayOfRest):
	// the day of rest used up is the one from RestFrom, unless RestAlone.
	RestFrom clock.Time
	// RestAlone: DayOfRest used up a day of rest the character took alone
	// (Character.RestDays) rather than a day on the clock.
	RestAlone bool
}

// Heal uses trigger h.Trigger and makes the healing check (RULES.md §3.3):
// h.Ability (innate) with the condition's penalty die, after First Aid or
// Counsel h.HelpSL bonus dice, and with h.Pool a bonus die for a point of
// the ability's pool (§3.1; spent before the PoolPoints trigger's 5). With
// SL ≥ 1 the condition improves one step (Broken → Bloody → Healthy) and
// the harm counter drops by the SL, not below 0; with SL 0 nothing changes,
// but the trigger is used up all the same (the points are spent, the day of
// rest is gone). A healing check is not an action: it costs nothing while
// Broken.
//
// Every whole day on the clock since RestFrom is one DayOfRest (§3.3:
// three days of rest are three triggers): using one moves RestFrom a day
// on. When none is left, a day of rest taken alone (RestDays, see RestDay)
// is used instead.
//
// A character taken out of the conflict still makes its healing check:
// the check is not one it chooses to make, and the Reading of RULES.md
// §3.2 keeps it from checks of its own (see Act), so that, resting a day
// alone (RestDay) while the conflict goes on, it can heal.
//
// It fails, changing nothing, with ErrNothingToHeal, ErrNotInnate,
// ErrRestTooSoon (naming when the day of rest ends), ErrBadSpend,
// ErrWrongPool, ErrPoolEmpty, or an error of the check or of src.
func (c Character) Heal(src dice.Source, h Healing) (Character, HealOutcome, error) {
	if h.Ability == "" {
		h.Ability = h.Trigger.DefaultAbility()
	}
	out := HealOutcome{Healing: h, Before: c.Condition, After: c.Condition,
		CounterBefore: c.HarmCounter, CounterAfter: c.HarmCounter, RestFrom: c.RestFrom}
	if !c.NeedsHealing() {
		return c, out, fmt.Errorf("%w: Healthy with harm counter 0", ErrNothingToHeal)
	}
	if !IsInnate(h.Ability) {
		return c, out, fmt.Errorf("%w (endure, react or willpower), not %s", ErrNotInnate, h.Ability)
	}
	if err := c.checkPool(h.Ability, h.Pool); err != nil {
		return c, out, err
	}
	n := c.Clone()
	if h.Pool != "" {
		// The bonus die's point first, so that the PoolPoints trigger takes
		// its 5 from what is left.
		var err error
		if n, out.Spent, err = n.spendFrom(h.Pool, []string{"bonus die"}); err != nil {
			return c, out, err
		}
	}
	var mods []Mod
	switch h.Trigger {
	case FirstAidHelp, CounselHelp:
		if h.HelpSL < 0 {
			return c, out, fmt.Errorf("help success level %d is below 0", h.HelpSL)
		}
		mods = append(mods, Mod{Dice: h.HelpSL, Why: fmt.Sprintf("%s SL %d", title(h.Trigger.HelperAbility()), h.HelpSL)})
	case DayOfRest:
		switch ends := c.RestFrom + clock.RoundsPerDay; {
		case h.Now >= ends:
			n.RestFrom = ends
		case c.RestDays > 0:
			n.RestDays--
			out.RestAlone = true
		default:
			return c, out, fmt.Errorf("%w: it started at %v and ends at %v", ErrRestTooSoon, c.RestFrom, ends)
		}
	case PoolPoints:
		spent, err := n.spendPools(h.Spend)
		if err != nil {
			return c, out, err
		}
		out.Spent = append(out.Spent, spent...)
	default:
		return c, out, fmt.Errorf("unknown healing trigger %d", int(h.Trigger))
	}
	if h.Pool != "" {
		mods = append(mods, Mod{Dice: 1, Why: title(h.Pool) + " point"})
	}
	k, err := c.check(h.Ability, h.FudgeDice, mods...)
	if err != nil {
		return c, out, err
	}
	if out.Check, err = k.Roll(src); err != nil {
		return c, out, err
	}
	if sl := out.Check.SL; sl >= 1 {
		if n.Condition > Healthy {
			n.Condition--
		}
		n.HarmCounter = max(n.HarmCounter-sl, 0)
	}
	out.After, out.CounterAfter = n.Condition, n.HarmCounter
	return n, out, nil
}

// spendPools spends PoolCost points from c's pools (RULES.md §3.3): as
// chosen by mix, or one by one from the fullest pool when mix is nil.
func (c *Character) spendPools(mix map[string]int) ([]PoolChange, error) {
	total := 0
	for _, name := range Pools {
		total += c.PoolNamed(name).Current
	}
	if mix == nil {
		if total < PoolCost {
			return nil, fmt.Errorf("%w: healing needs %d pool points and there are %d", ErrPoolEmpty, PoolCost, total)
		}
		mix = map[string]int{}
		left := map[string]int{}
		for _, name := range Pools {
			left[name] = c.PoolNamed(name).Current
		}
		for range PoolCost {
			best := ""
			for _, name := range Pools {
				if best == "" || left[name] > left[best] {
					best = name
				}
			}
			left[best]--
			mix[best]++
		}
	}
	sum := 0
	for name, n := range mix {
		if !IsPool(name) {
			return nil, fmt.Errorf("%w: %q is not vigor, instinct or reason", ErrBadSpend, name)
		}
		if n < 0 {
			return nil, fmt.Errorf("%w: %d %s is below 0", ErrBadSpend, n, name)
		}
		sum += n
	}
	if sum != PoolCost {
		return nil, fmt.Errorf("%w in all, not %d", ErrBadSpend, sum)
	}
	var out []PoolChange
	for _, name := range Pools {
		n := mix[name]
		if n == 0 {
			continue
		}
		p := c.PoolNamed(name)
		if p.Current < n {
			return nil, fmt.Errorf("%w: %s has %d, not %d", ErrPoolEmpty, name, p.Current, n)
		}
		out = append(out, PoolChange{Pool: name, Before: p.Current, After: p.Current - n, Why: "healing"})
		p.Current -= n
	}
	return out, nil
}

// RefreshPools fills every pool (RULES.md §3.1) to its maximum, as a day of
// rest does (RULES.md §3.3 Reading: /rest kind:day, or the clock passing a
// whole day outside a conflict, see PassTime), and returns the pools that
// changed.
func (c Character) RefreshPools() (Character, []PoolChange) {
	n := c.Clone()
	var out []PoolChange
	for _, name := range Pools {
		p := n.PoolNamed(name)
		if p.Current != p.Max {
			out = append(out, PoolChange{Pool: name, Before: p.Current, After: p.Max, Why: "day of rest"})
			p.Current = p.Max
		}
	}
	return n, out
}

// RestDay is a day of rest the character takes alone while the table's
// clock stands (/rest kind:day target:…; RULES.md §3.3): its pools refill as
// RefreshPools does and it counts as one DayOfRest for this character only
// (RestDays + 1). It returns the pools that changed.
//
// **Reading:** RULES.md §3.3's day of rest is "the clock passes a day"; a
// GM resting one character would otherwise move the whole table's clock,
// ending every conflict and giving every character a day of rest. As with
// hit-protection's night for a target, the clock does not move.
func (c Character) RestDay() (Character, []PoolChange) {
	n, changes := c.RefreshPools()
	n.RestDays++
	return n, changes
}

// DaysOfRest returns how many days of rest the table's clock completes for
// the character as it moves from the clock time from to to (RULES.md §3.3):
// how many of the whole days since RestFrom end in (from, to]. They are the
// days that DayOfRest healings count, so a day of rest on the clock falls
// a whole day after the last harm the character checked against (or its
// creation, or a day after the one its last rest healing used).
func (c Character) DaysOfRest(from, to clock.Time) int {
	from = max(from, c.RestFrom)
	if to <= from {
		return 0
	}
	return int(int64(to-c.RestFrom)/clock.RoundsPerDay - int64(from-c.RestFrom)/clock.RoundsPerDay)
}

// PassTime is the table's clock moving from from to to outside a conflict
// (RULES.md §3.3 Reading): when it completes a day of rest (DaysOfRest),
// every pool refills to its maximum, as /rest kind:day refills them, and
// that day is a DayOfRest healing trigger as every day on the clock is. It
// returns the character, the pools that changed and the days of rest
// completed. Time inside a conflict (a move by rounds, RULES.md §3.2.4) is
// not a rest: the caller does not pass it here.
func (c Character) PassTime(from, to clock.Time) (Character, []PoolChange, int) {
	days := c.DaysOfRest(from, to)
	if days == 0 {
		return c, nil, 0
	}
	n, changes := c.RefreshPools()
	return n, changes, days
}

// RestHealings returns how many DayOfRest healings the character may make at
// clock time now (RULES.md §3.3): the whole days since RestFrom plus the
// days of rest taken alone (RestDays).
func (c Character) RestHealings(now clock.Time) int {
	days := 0
	if now > c.RestFrom {
		days = int(int64(now-c.RestFrom) / clock.RoundsPerDay)
	}
	return days + c.RestDays
}

// Spend spends n ≥ 1 points of pool (RULES.md §3.1; /spend), or fails with
// ErrPoolEmpty.
func (c Character) Spend(pool string, n int) (Character, PoolChange, error) {
	if !IsPool(pool) {
		return c, PoolChange{}, fmt.Errorf("%q is not vigor, instinct or reason", pool)
	}
	if n < 1 {
		return c, PoolChange{}, fmt.Errorf("spend at least 1 point, not %d", n)
	}
	m := c.Clone()
	p := m.PoolNamed(pool)
	if p.Current < n {
		return c, PoolChange{}, fmt.Errorf("%w: %s has %d, not %d", ErrPoolEmpty, pool, p.Current, n)
	}
	ch := PoolChange{Pool: pool, Before: p.Current, After: p.Current - n, Why: "spent"}
	p.Current -= n
	return m, ch, nil
}

// title shows an ability or pool name as a title: "first-aid" → "First
// Aid".
func title(name string) string {
	words := strings.Split(name, "-")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
