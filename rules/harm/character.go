// Package harm is the harm system: SOY Hybrid Harm, a port of The Shadow of
// Yesterday's old harm rules to its Fudge-dice checks (RULES.md §3). A
// character has ranked abilities, three pools (Vigor, Instinct, Reason) and
// a condition (Healthy, Bloody, Broken) with a harm counter.
//
// This file holds the character sheet (RULES.md §3.1); check.go has the
// checks (§3.1), harm.go the harm track (§3.2) and heal.go the healing
// (§3.3).
//
// The package is pure: every rule takes the character, its input and a
// dice.Source, and returns the new character and an outcome listing every
// check rolled. Rules never change the character they are called on.
package harm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// The innate abilities every character has (RULES.md §3.1), and the two
// optional abilities RULES.md names.
const (
	Endure    = "endure"
	React     = "react"
	Willpower = "willpower"
	FirstAid  = "first-aid"
	Counsel   = "counsel"
)

// Innate lists the innate abilities in the order of RULES.md §3.1.
var Innate = []string{Endure, React, Willpower}

// The pools (RULES.md §3.1).
const (
	Vigor    = "vigor"
	Instinct = "instinct"
	Reason   = "reason"
)

// Pools lists the pools in the order of RULES.md §3.1.
var Pools = []string{Vigor, Instinct, Reason}

// Limits of the sheet. RULES.md §3.1 allows ranks 0..6; the rest are
// hpkeeper's choices.
const (
	// MaxRank is the highest ability rank (ranks are 0..MaxRank).
	MaxRank = 6
	// MaxPool is the highest pool maximum (pools are 0..MaxPool).
	MaxPool = 20
	// DefaultPool is the maximum (and current value) of a pool not given at
	// creation. RULES.md gives none; TSoY characters start each pool at 3
	// before spreading extra points, so 3/3/3 is a playable default.
	DefaultPool = 3
	// MaxAbilities is the most abilities a character may have, innate ones
	// included, so that the sheet fits a Discord embed.
	MaxAbilities = 20
	// MaxNameLen is the longest ability name, in bytes.
	MaxNameLen = 24
)

// Ability is one of a character's abilities: its rank 0..MaxRank and the
// pool it draws on (RULES.md §3.1).
type Ability struct {
	Rank int
	Pool string
}

// Pool is one pool's points: Current 0..Max, Max 0..MaxPool (RULES.md §3.1).
type Pool struct {
	Current, Max int
}

// Condition is a character's state of harm (RULES.md §3.2); the zero value
// is Healthy.
type Condition int

// The conditions, from best to worst (RULES.md §3.2).
const (
	Healthy Condition = iota
	Bloody
	Broken
)

// String returns the condition's name in RULES.md §3.2: "Healthy", "Bloody"
// or "Broken".
func (c Condition) String() string {
	switch c {
	case Healthy:
		return "Healthy"
	case Bloody:
		return "Bloody"
	case Broken:
		return "Broken"
	}
	return fmt.Sprintf("Condition(%d)", int(c))
}

// ParseCondition returns the condition of RULES.md §3.2 named s (any case),
// or an error.
func ParseCondition(s string) (Condition, error) {
	for c := Healthy; c <= Broken; c++ {
		if strings.EqualFold(s, c.String()) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown condition %q (want Healthy, Bloody or Broken)", s)
}

// Character is a harm character sheet (RULES.md §3.1, §3.2). Abilities is
// keyed by lower-case name (see ValidName); Clone copies it before a change
// so that earlier values stay untouched.
type Character struct {
	// Abilities holds every ability by name; the innate ones are always
	// present.
	Abilities map[string]Ability
	// Vigor, Instinct and Reason are the pools.
	Vigor, Instinct, Reason Pool
	// Condition is Healthy, Bloody or Broken.
	Condition Condition
	// HarmCounter is the harm counter, ≥ 0 (RULES.md §3.2).
	HarmCounter int
	// TakenOut is set when harm reached the character while Broken: it is
	// out of the current conflict until the GM ends it (RULES.md §3.2).
	TakenOut bool
	// RestFrom is the clock time (in rounds) from which a day of rest
	// counts for the rest healing trigger (RULES.md §3.3): the creation of
	// the character, its last rest healing, or the last harm it checked
	// against, whichever is latest; each rest healing moves it a day on.
	RestFrom clock.Time
	// RestDays counts the days of rest the character took alone, while the
	// table's clock stood (RestDay), not yet used by a rest healing; harm
	// clears it (RULES.md §3.3).
	RestDays int
}

// New returns a Healthy character with harm counter 0 (RULES.md §3.2), the
// innate abilities at rank 0 (Unskilled) and every pool at
// DefaultPool/DefaultPool (§3.1).
func New() Character {
	c := Character{Abilities: map[string]Ability{}}
	for _, name := range Innate {
		pool, _ := PoolOf(name)
		c.Abilities[name] = Ability{Rank: 0, Pool: pool}
	}
	c.Vigor = Pool{Current: DefaultPool, Max: DefaultPool}
	c.Instinct, c.Reason = c.Vigor, c.Vigor
	return c
}

// Clone returns a copy of c that shares no map with it, so that a rule
// (RULES.md §3) can return a changed character and leave c untouched.
func (c Character) Clone() Character {
	abilities := make(map[string]Ability, len(c.Abilities))
	for k, v := range c.Abilities {
		abilities[k] = v
	}
	c.Abilities = abilities
	return c
}

// PoolOf returns the pool an ability draws on by RULES.md §3.1: Endure →
// Vigor, React → Instinct, Willpower, First Aid and Counsel → Reason. For
// those five fixed is true; any other ability names its pool when it is
// added, Vigor if it does not, and PoolOf returns Vigor with fixed false.
func PoolOf(ability string) (pool string, fixed bool) {
	switch ability {
	case Endure:
		return Vigor, true
	case React:
		return Instinct, true
	case Willpower, FirstAid, Counsel:
		return Reason, true
	}
	return Vigor, false
}

// IsInnate reports whether the ability is innate (RULES.md §3.1): Endure,
// React or Willpower. Innate abilities cannot be removed and keep their
// penalty die only while Broken (§3.2).
func IsInnate(ability string) bool {
	for _, n := range Innate {
		if n == ability {
			return true
		}
	}
	return false
}

// IsPool reports whether name is one of the pools of RULES.md §3.1.
func IsPool(name string) bool {
	for _, p := range Pools {
		if p == name {
			return true
		}
	}
	return false
}

// ValidName reports whether name can name an ability (RULES.md §3.1, where
// another ability is added as `climb=2:vigor`): 1..MaxNameLen
// characters, lower-case ASCII letters, digits and '-', starting with a
// letter, not ending with '-' and without "--" (e.g. "first-aid", "climb").
// Pool names are refused, since the stats keys vigor, instinct and reason set
// pools.
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLen || IsPool(name) {
		return false
	}
	if name[0] < 'a' || name[0] > 'z' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// RankLabel returns the name of a rank (RULES.md §3.1): 0 Unskilled, 1
// Apprentice, 2 Journeyman, 3 Master, 4 Grand Master. RULES.md names no
// higher rank, so 5 and 6 (allowed) and any other number show as "rank N".
func RankLabel(rank int) string {
	switch rank {
	case 0:
		return "Unskilled"
	case 1:
		return "Apprentice"
	case 2:
		return "Journeyman"
	case 3:
		return "Master"
	case 4:
		return "Grand Master"
	}
	return fmt.Sprintf("rank %d", rank)
}

// AbilityNames returns the character's ability names (RULES.md §3.1) in sheet
// order: the innate abilities (Endure, React, Willpower), then First Aid and Counsel
// when present, then the others alphabetically.
func (c Character) AbilityNames() []string {
	var out, rest []string
	for _, n := range []string{Endure, React, Willpower, FirstAid, Counsel} {
		if _, ok := c.Abilities[n]; ok {
			out = append(out, n)
		}
	}
	for n := range c.Abilities {
		switch n {
		case Endure, React, Willpower, FirstAid, Counsel:
		default:
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// PoolNamed returns a pointer to the pool called name (Vigor, Instinct or
// Reason, RULES.md §3.1), or nil for any other name.
func (c *Character) PoolNamed(name string) *Pool {
	switch name {
	case Vigor:
		return &c.Vigor
	case Instinct:
		return &c.Instinct
	case Reason:
		return &c.Reason
	}
	return nil
}

// Validate checks the sheet against RULES.md §3.1 and §3.2 and this
// package's limits, and returns an error naming the first problem.
func (c Character) Validate() error {
	for _, n := range Innate {
		if _, ok := c.Abilities[n]; !ok {
			return fmt.Errorf("the innate ability %s is missing", n)
		}
	}
	if len(c.Abilities) > MaxAbilities {
		return fmt.Errorf("a character has at most %d abilities, not %d", MaxAbilities, len(c.Abilities))
	}
	for _, n := range c.AbilityNames() {
		a := c.Abilities[n]
		if !ValidName(n) {
			return fmt.Errorf("%q is not an ability name (lower-case letters, digits and '-', at most %d)", n, MaxNameLen)
		}
		if a.Rank < 0 || a.Rank > MaxRank {
			return fmt.Errorf("rank of %s must be 0 to %d, not %d", n, MaxRank, a.Rank)
		}
		if !IsPool(a.Pool) {
			return fmt.Errorf("%s draws on an unknown pool %q", n, a.Pool)
		}
		if want, fixed := PoolOf(n); fixed && a.Pool != want {
			return fmt.Errorf("%s draws on %s, not %s", n, want, a.Pool)
		}
	}
	for _, name := range Pools {
		p := c.PoolNamed(name)
		if p.Max < 0 || p.Max > MaxPool {
			return fmt.Errorf("%s max must be 0 to %d, not %d", name, MaxPool, p.Max)
		}
		if p.Current < 0 || p.Current > p.Max {
			return fmt.Errorf("%s must be 0 to %d (its max), not %d", name, p.Max, p.Current)
		}
	}
	if c.Condition < Healthy || c.Condition > Broken {
		return fmt.Errorf("unknown condition %d", int(c.Condition))
	}
	if c.HarmCounter < 0 {
		return fmt.Errorf("harm counter must be 0 or more, not %d", c.HarmCounter)
	}
	if c.RestDays < 0 {
		return fmt.Errorf("days of rest must be 0 or more, not %d", c.RestDays)
	}
	return nil
}
