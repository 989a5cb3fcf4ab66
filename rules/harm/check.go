package harm

import (
	"errors"
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Fudge dice per check (RULES.md §3.1): 3dF, or 4dF with the table option.
const (
	// DefaultFudgeDice is the number of Fudge dice of a check.
	DefaultFudgeDice = 3
	// AltFudgeDice is the number with the table option fudge-dice 4.
	AltFudgeDice = 4
	// MaxModDice is the most bonus or penalty dice a check may carry after
	// cancelling, so that an expression stays within RULES.md §0.3's 100
	// dice.
	MaxModDice = 20
)

// The errors of this package. Each is returned wrapped with details a
// player can read; errors.Is finds the sentinel.
var (
	// ErrNoAbility: a check names an ability the character does not have.
	ErrNoAbility = errors.New("no such ability")
	// ErrWrongPool: a pool point is spent on a check from a pool other than
	// the one the ability draws on (RULES.md §3.1).
	ErrWrongPool = errors.New("wrong pool")
	// ErrPoolEmpty: a pool lacks the points a spending needs (a bonus die,
	// a Broken action, the pools healing trigger; RULES.md §3.1–§3.3).
	ErrPoolEmpty = errors.New("not enough pool points")
	// ErrBadFudgeDice: a check asks for other than 3 or 4 Fudge dice.
	ErrBadFudgeDice = errors.New("fudge dice must be 3 or 4")
	// ErrTooManyDice: a check would carry more than MaxModDice bonus or
	// penalty dice.
	ErrTooManyDice = errors.New("too many bonus or penalty dice")
	// ErrTakenOut: a character taken out of the conflict makes no checks
	// until the conflict ends (RULES.md §3.2 Reading).
	ErrTakenOut = errors.New("taken out of the conflict: makes no checks until it ends")
)

// Mod is a number of bonus dice (Dice > 0) or penalty dice (Dice < 0) on a
// check and why it applies, e.g. {-1, "Bloody"} or {2, "First Aid SL 2"}
// (RULES.md §3.1).
type Mod struct {
	Dice int
	Why  string
}

// Check is a check before it is rolled (RULES.md §3.1): FudgeDice (3 or 4)
// Fudge dice plus the ability's Rank, with the bonus and penalty dice of
// Mods.
type Check struct {
	// Ability names the ability checked, e.g. "endure".
	Ability string
	// Rank is the ability's rank, 0..MaxRank.
	Rank int
	// FudgeDice is 3 (3dF) or 4 (table option fudge-dice 4); 0 means 3.
	FudgeDice int
	// Mods are the bonus and penalty dice, with their reasons.
	Mods []Mod
}

// Bonus returns the number of bonus dice of k before cancelling.
func (k Check) Bonus() int {
	n := 0
	for _, m := range k.Mods {
		n += max(m.Dice, 0)
	}
	return n
}

// Penalty returns the number of penalty dice of k before cancelling.
func (k Check) Penalty() int {
	n := 0
	for _, m := range k.Mods {
		n += max(-m.Dice, 0)
	}
	return n
}

// Net returns the bonus dice minus the penalty dice: bonus and penalty dice
// cancel one for one (RULES.md §3.1), so a positive Net is that many bonus
// dice and a negative one that many penalty dice.
func (k Check) Net() int { return k.Bonus() - k.Penalty() }

func (k Check) fudge() int {
	if k.FudgeDice == 0 {
		return DefaultFudgeDice
	}
	return k.FudgeDice
}

// Expr returns the dice expression of k (RULES.md §3.1): NdF + rank with N
// the Fudge dice, and with n net bonus dice (N+n)dFkhN + rank (the highest N
// count), with n net penalty dice (N+n)dFklN + rank; e.g. "3dF+2",
// "4dFkh3+1", "4dFkl3". A rank of 0 adds no term. It fails with
// ErrBadFudgeDice or ErrTooManyDice.
func (k Check) Expr() (dice.Expr, error) {
	n := k.fudge()
	if n != DefaultFudgeDice && n != AltFudgeDice {
		return dice.Expr{}, fmt.Errorf("%w, not %d", ErrBadFudgeDice, n)
	}
	net := k.Net()
	if net > MaxModDice || net < -MaxModDice {
		return dice.Expr{}, fmt.Errorf("%w: %d, at most %d", ErrTooManyDice, abs(net), MaxModDice)
	}
	t := dice.Term{Sign: 1, Count: n, Sides: 3, Fudge: true}
	switch {
	case net > 0:
		t.Count, t.Keep, t.KeepN = n+net, dice.KeepHighest, n
	case net < 0:
		t.Count, t.Keep, t.KeepN = n-net, dice.KeepLowest, n
	}
	e := dice.Expr{Terms: []dice.Term{t}}
	if k.Rank > 0 {
		e.Terms = append(e.Terms, dice.Term{Sign: 1, Const: k.Rank})
	} else if k.Rank < 0 {
		e.Terms = append(e.Terms, dice.Term{Sign: -1, Const: -k.Rank})
	}
	return e, e.Validate()
}

// CheckResult is a rolled check (RULES.md §3.1): the check, the roll with
// every Fudge die kept and dropped, the Total (dice plus rank, may be below
// 0) and the success level SL = max(Total, 0).
type CheckResult struct {
	Check Check
	Roll  dice.Result
	Total int
	SL    int
}

// Roll rolls k with src and returns its success level (RULES.md §3.1):
// below 0 counts as 0. Errors are those of Expr and of src (tests script
// faces with dice.NewScripted, Fudge faces as -1, 0 and 1).
func (k Check) Roll(src dice.Source) (CheckResult, error) {
	e, err := k.Expr()
	if err != nil {
		return CheckResult{}, err
	}
	res, err := e.Roll(src)
	if err != nil {
		return CheckResult{}, err
	}
	return CheckResult{Check: k, Roll: res, Total: res.Total, SL: max(res.Total, 0)}, nil
}

// ConditionPenalty returns the penalty dice the character's condition puts
// on a check of ability (RULES.md §3.2): Bloody, 1 except on the innate
// abilities (Endure, React, Willpower); Broken, 1 on every check; Healthy, 0.
func (c Character) ConditionPenalty(ability string) int {
	switch c.Condition {
	case Bloody:
		if IsInnate(ability) {
			return 0
		}
		return 1
	case Broken:
		return 1
	}
	return 0
}

// check returns the Check of ability for c with its condition's penalty die
// (RULES.md §3.1, §3.2) and the extra mods, or ErrNoAbility.
func (c Character) check(ability string, fudge int, mods ...Mod) (Check, error) {
	a, ok := c.Abilities[ability]
	if !ok {
		return Check{}, fmt.Errorf("%w: %s", ErrNoAbility, ability)
	}
	k := Check{Ability: ability, Rank: a.Rank, FudgeDice: fudge}
	if p := c.ConditionPenalty(ability); p > 0 {
		k.Mods = append(k.Mods, Mod{Dice: -p, Why: c.Condition.String()})
	}
	for _, m := range mods {
		if m.Dice != 0 {
			k.Mods = append(k.Mods, m)
		}
	}
	return k, nil
}

// PoolChange is a change of one pool's current points (RULES.md §3.1): its
// name, the points before and after, and why (e.g. "bonus die", "Broken
// action", "healing", "day of rest").
type PoolChange struct {
	Pool          string
	Before, After int
	Why           string
}

// Action is a check the character chooses to make (RULES.md §3.1, §3.2;
// /roll as:… ability:…).
type Action struct {
	// Ability is the ability checked.
	Ability string
	// Pool, when not "", spends 1 point of that pool for 1 bonus die; it
	// must be the pool the ability draws on.
	Pool string
	// FudgeDice is 3 or 4 (0 means 3).
	FudgeDice int
	// Mods are further bonus or penalty dice the GM grants.
	Mods []Mod
}

// ActionOutcome is what an action did: the pool points spent (the Broken
// action's cost first, then the bonus die's point) and the check.
type ActionOutcome struct {
	Spent []PoolChange
	Check CheckResult
}

// Act makes a check the character chooses to make (RULES.md §3.1, §3.2):
// 3dF + rank with the condition's penalty die. Spending a point of the
// ability's pool (a.Pool) gives one bonus die. While Broken the action
// itself costs 1 point of the ability's pool, which Act spends. It fails,
// changing nothing, with ErrTakenOut, ErrNoAbility, ErrWrongPool,
// ErrPoolEmpty (naming the pool and the points needed) or an error of the
// check or of src.
//
// **Reading:** the point for a bonus die comes from the pool the ability
// draws on ("each ability draws on one pool"), and a Broken character
// spending one pays 2 points: the action's cost and the bonus die.
//
// **Reading** (RULES.md §3.2): a character taken out makes no checks until
// the conflict ends: none it chooses to make, so it neither acts nor,
// through Help, gives First Aid or Counsel, and nothing is rolled or
// spent. The checks the rules call for are not refused: its initiative (a
// turn order skips it anyway), and its healing check (hpkeeper's reading:
// healing a character out of the conflict does not touch the conflict, and
// a day of rest taken alone is healed with while the conflict goes on).
func (c Character) Act(src dice.Source, a Action) (Character, ActionOutcome, error) {
	if c.TakenOut {
		return c, ActionOutcome{}, ErrTakenOut
	}
	n, spent, res, err := c.rollCheck(src, a.Ability, a.Pool, a.FudgeDice, true, a.Mods...)
	if err != nil {
		return c, ActionOutcome{}, err
	}
	return n, ActionOutcome{Spent: spent, Check: res}, nil
}

// rollCheck makes a check of ability for c (RULES.md §3.1, §3.2), the one
// way every rule rolls a check: the condition's penalty die, the extra
// mods, and, when pool is not "", 1 point of pool for 1 bonus die (at most
// once a check); pool must be the pool the ability draws on. An action
// (a check the character chooses to make) of a Broken character also costs
// 1 point of that pool; harm and healing checks are not actions. It returns
// a copy of c with the points spent, the changes (the Broken action's cost
// first, then the bonus die's point) and the rolled check, or fails,
// changing nothing, with ErrNoAbility, ErrWrongPool, ErrPoolEmpty or an
// error of the check or of src.
func (c Character) rollCheck(src dice.Source, ability, pool string, fudge int, action bool, mods ...Mod) (Character, []PoolChange, CheckResult, error) {
	ab, ok := c.Abilities[ability]
	if !ok {
		return c, nil, CheckResult{}, fmt.Errorf("%w: %s", ErrNoAbility, ability)
	}
	if err := c.checkPool(ability, pool); err != nil {
		return c, nil, CheckResult{}, err
	}
	var whys []string
	if action && c.Condition == Broken {
		whys = append(whys, "Broken action")
	}
	mods = append([]Mod(nil), mods...)
	if pool != "" {
		whys = append(whys, "bonus die")
		mods = append(mods, Mod{Dice: 1, Why: title(ab.Pool) + " point"})
	}
	k, err := c.check(ability, fudge, mods...)
	if err != nil {
		return c, nil, CheckResult{}, err
	}
	n, spent, err := c.spendFrom(ab.Pool, whys)
	if err != nil {
		return c, nil, CheckResult{}, err
	}
	res, err := k.Roll(src)
	if err != nil {
		return c, nil, CheckResult{}, err
	}
	return n, spent, res, nil
}

// checkPool checks that a point of pool may buy a bonus die on a check of
// ability (RULES.md §3.1): pool is "" (no point) or the pool the ability
// draws on; otherwise ErrWrongPool (or ErrNoAbility).
func (c Character) checkPool(ability, pool string) error {
	if pool == "" {
		return nil
	}
	ab, ok := c.Abilities[ability]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoAbility, ability)
	}
	if pool != ab.Pool {
		return fmt.Errorf("%w: %s draws on %s, not %s", ErrWrongPool, ability, ab.Pool, pool)
	}
	return nil
}

// spendFrom spends 1 point of pool per reason in whys, on a copy of c, or
// fails with ErrPoolEmpty.
func (c Character) spendFrom(pool string, whys []string) (Character, []PoolChange, error) {
	n := c.Clone()
	if len(whys) == 0 {
		return n, nil, nil
	}
	p := n.PoolNamed(pool)
	if p.Current < len(whys) {
		return c, nil, fmt.Errorf("%w: %s needs %d %s (%s) and has %d", ErrPoolEmpty,
			joinAnd(whys), len(whys), plural(len(whys), "point", "points"), pool, p.Current)
	}
	var out []PoolChange
	for _, why := range whys {
		out = append(out, PoolChange{Pool: pool, Before: p.Current, After: p.Current - 1, Why: why})
		p.Current--
	}
	return n, out, nil
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
