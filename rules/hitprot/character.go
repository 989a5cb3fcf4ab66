// Package hitprot is the hit-protection system: Hit Protection & Hit Dice
// (RULES.md §1). A character has one die's worth of HP; levels add hit dice,
// which are spent to soak damage, rest and boost rolls.
package hitprot

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// Classes with rules of their own (RULES.md §1.1, §1.6). Any other word is a
// class too, treated as "other".
const (
	Fighter   = "fighter"
	Cleric    = "cleric"
	MagicUser = "magic-user"
	Thief     = "thief"
)

// Save categories (RULES.md §1.2), in table order.
const (
	SaveDeath     = "death"
	SaveWands     = "wands"
	SaveParalysis = "paralysis"
	SaveBreath    = "breath"
	SaveSpells    = "spells"
)

// SaveCategories lists the save categories in the order of RULES.md §1.2.
var SaveCategories = []string{SaveDeath, SaveWands, SaveParalysis, SaveBreath, SaveSpells}

// HitDice are the allowed hit die sizes (RULES.md §1.1).
var HitDice = []int{4, 6, 8, 10, 12}

// MaxLevel is the highest level (RULES.md §1.1).
const MaxLevel = 20

// Character is a hit-protection character sheet (RULES.md §1.1).
type Character struct {
	// Class is fighter, cleric, magic-user, thief or any other word.
	Class string
	// Level is 1..20.
	Level int
	// HitDie is the number of sides of the hit die: 4, 6, 8, 10 or 12.
	HitDie int
	// HP is the current hit points, 0..HitDie.
	HP int
	// HD is the number of hit dice left, 0..Level.
	HD int
	// Saves overrides the class's save targets per category (d20 ≥ target);
	// a category not in the map uses DefaultSaves.
	Saves map[string]int
	// Init is the initiative bonus, added to the 1d6 of an initiative roll
	// (RULES.md §0.6); 0 by default.
	Init int

	// Status is where the character stands in the 0-HP rules (RULES.md §1.3).
	Status Status
	// ZeroType is the type of the damage that brought the character to 0 HP
	// (fire, acid, lightning or other); it picks the Critical Wound save of the
	// first injury roll (RULES.md §1.4).
	ZeroType string
	// FateRevealed is set once a down character has been attended and its
	// injury rolled (RULES.md §1.3 item 6).
	FateRevealed bool
	// Untreated is the number of untreated wounds; any blocks restoring HP
	// (RULES.md §1.4).
	Untreated int
	// Mobility is the mobility handicap of a Nasty or Severe Wound, until
	// treated (RULES.md §1.4).
	Mobility bool
	// Scars counts the permanent scars of Severe Wounds (RULES.md §1.4).
	Scars int
	// StunnedUntil is the clock round at which a stun ends (0: not stunned).
	StunnedUntil clock.Time
	// NoRestoreUntil is the clock round at which the no-restoring period ends
	// (0: none); HP cannot be restored before it (RULES.md §1.4).
	NoRestoreUntil clock.Time
	// Bleeds are the running bleed-out countdowns (RULES.md §1.4).
	Bleeds []Bleed
	// Limbs are the limbs lost or out of use (RULES.md §1.4).
	Limbs []Limb
	// DownHits counts the non-lethal hits recorded against the character
	// while down (RULES.md §1.3 item 6: recorded, no other effect).
	DownHits int
	// DeathCause says how a dead character died.
	DeathCause string
	// HeroicAction is the heroic action of a Heroic Death (RULES.md §1.3).
	HeroicAction string
}

// Status is a character's standing in the 0-HP rules (RULES.md §1.3).
type Status int

// The statuses of RULES.md §1.3.
const (
	// Up is normal play (HP above 0, or never reduced to 0 since the last
	// recovery).
	Up Status = iota
	// Choosing: the character has just reached 0 HP and its 0-HP choice is
	// pending; damage is refused until it is made.
	Choosing
	// StayingUp: the player chose Stay Up; the character fights on at 0 HP and
	// every hit is damage + 1d6 on the injury table.
	StayingUp
	// Down: the player chose Go Down; its fate is hidden until attended, and
	// lethal damage kills it.
	Down
	// Dead: no further damage, rests or rolls (RULES.md §1.3 item 7).
	Dead
)

// String names the status as replies show it.
func (s Status) String() string {
	switch s {
	case Up:
		return "up"
	case Choosing:
		return "0-HP choice pending"
	case StayingUp:
		return "staying up"
	case Down:
		return "down"
	case Dead:
		return "dead"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ParseStatus is the inverse of Status.String; unknown text is Up.
func ParseStatus(s string) Status {
	for st := Up; st <= Dead; st++ {
		if st.String() == s {
			return st
		}
	}
	return Up
}

// Bleed is a bleed-out countdown (RULES.md §1.4): the character dies at the
// clock round DiesAt unless attended as Wound allows.
type Bleed struct {
	// Wound is the band that started it: CriticalWound (any attend stops it),
	// FatalWoundI (only a skilled healer or healing magic) or FatalWoundII
	// (nothing stops it).
	Wound Band
	// DiesAt is the clock round of death.
	DiesAt clock.Time
}

// DiesIn says, at clock round now, when the bleed-out kills, in rounds,
// as a turn order counts them: "dies in 2 rounds" (at the end of the
// second round end from now; RULES.md §1.4 counts its 2d4 in rounds).
func (b Bleed) DiesIn(now clock.Time) string {
	return "dies in " + rounds(max(int(b.DiesAt-now), 0))
}

// Stunned says, at clock round now, how long c stays stunned, in rounds:
// "stunned for 3 more rounds" (it acts again once the clock reaches
// StunnedUntil); "" when it is not stunned.
func (c Character) Stunned(now clock.Time) string {
	if c.StunnedUntil <= now {
		return ""
	}
	if n := int(c.StunnedUntil - now); n > 1 {
		return fmt.Sprintf("stunned for %d more rounds", n)
	}
	return "stunned for 1 more round"
}

// Limb is a limb lost or out of use (RULES.md §1.4).
type Limb struct {
	// Name is "left arm", "right arm", "left leg" or "right leg".
	Name string
	// Lost is set when the limb is gone for good; otherwise only its use is
	// lost until Until.
	Lost bool
	// Until is the clock round at which the use of the limb comes back (0 when
	// Lost).
	Until clock.Time
}

// clone returns c with its own copies of every map and slice, so that a rule
// can change the copy without touching the caller's value.
func (c Character) clone() Character {
	if c.Saves != nil {
		s := make(map[string]int, len(c.Saves))
		for k, v := range c.Saves {
			s[k] = v
		}
		c.Saves = s
	}
	c.Bleeds = append([]Bleed(nil), c.Bleeds...)
	c.Limbs = append([]Limb(nil), c.Limbs...)
	if len(c.Bleeds) == 0 {
		c.Bleeds = nil
	}
	if len(c.Limbs) == 0 {
		c.Limbs = nil
	}
	return c
}

// DefaultHitDie is the hit die of a class: fighter d8, cleric d6, magic-user
// d4, thief d4, any other class d6 (RULES.md §1.1).
func DefaultHitDie(class string) int {
	switch class {
	case Fighter:
		return 8
	case MagicUser, Thief:
		return 4
	}
	return 6
}

// saveRow is one line of RULES.md §1.2: from level minLevel up, the targets
// for death, wands, paralysis, breath, spells.
type saveRow struct {
	minLevel int
	targets  [5]int
}

// saveTable is RULES.md §1.2 by class; "other" classes use the fighter rows.
var saveTable = map[string][]saveRow{
	Fighter: {
		{1, [5]int{12, 13, 14, 15, 16}},
		{4, [5]int{10, 11, 12, 13, 14}},
		{7, [5]int{8, 9, 10, 10, 12}},
		{10, [5]int{6, 7, 8, 8, 10}},
	},
	Cleric: {
		{1, [5]int{11, 12, 14, 16, 15}},
		{5, [5]int{9, 10, 12, 14, 12}},
		{9, [5]int{6, 7, 9, 11, 9}},
	},
	MagicUser: {
		{1, [5]int{13, 14, 13, 16, 15}},
		{6, [5]int{11, 12, 11, 14, 12}},
		{11, [5]int{8, 9, 8, 11, 8}},
	},
	Thief: {
		{1, [5]int{13, 14, 13, 16, 15}},
		{5, [5]int{12, 13, 11, 14, 13}},
		{9, [5]int{10, 11, 9, 12, 10}},
	},
}

// DefaultSaves returns the save targets of a class at a level (RULES.md
// §1.2), by category. Classes other than cleric, magic-user and thief use the
// fighter rows; levels below 1 count as 1.
func DefaultSaves(class string, level int) map[string]int {
	rows, ok := saveTable[class]
	if !ok {
		rows = saveTable[Fighter]
	}
	row := rows[0]
	for _, r := range rows {
		if level >= r.minLevel {
			row = r
		}
	}
	out := make(map[string]int, len(SaveCategories))
	for i, cat := range SaveCategories {
		out[cat] = row.targets[i]
	}
	return out
}

// SaveTarget is the number a d20 must reach to pass a save of the category:
// the character's override, else the class default (RULES.md §1.2). It
// returns an error for an unknown category.
func (c Character) SaveTarget(category string) (int, error) {
	if t, ok := c.Saves[category]; ok {
		return t, nil
	}
	t, ok := DefaultSaves(c.Class, c.Level)[category]
	if !ok {
		return 0, fmt.Errorf("unknown save category %q", category)
	}
	return t, nil
}

// New returns a character of the class and level with its default hit die,
// all its hit dice, and HP 0 (the caller rolls or sets HP; RULES.md §1.1).
func New(class string, level int) Character {
	return Character{Class: class, Level: level, HitDie: DefaultHitDie(class), HD: level}
}

// Validate checks the ranges of RULES.md §1.1 and returns an error naming the
// first field out of range.
func (c Character) Validate() error {
	if c.Level < 1 || c.Level > MaxLevel {
		return fmt.Errorf("level must be 1 to %d, not %d", MaxLevel, c.Level)
	}
	okDie := false
	for _, d := range HitDice {
		okDie = okDie || d == c.HitDie
	}
	if !okDie {
		return fmt.Errorf("hit die must be d4, d6, d8, d10 or d12, not d%d", c.HitDie)
	}
	if c.HP < 0 || c.HP > c.HitDie {
		return fmt.Errorf("HP must be 0 to %d (one d%d's worth), not %d", c.HitDie, c.HitDie, c.HP)
	}
	if c.HD < 0 || c.HD > c.Level {
		return fmt.Errorf("HD must be 0 to %d (the level), not %d", c.Level, c.HD)
	}
	for cat, t := range c.Saves {
		if t < 1 || t > 20 {
			return fmt.Errorf("save target for %s must be 1 to 20, not %d", cat, t)
		}
	}
	return nil
}
