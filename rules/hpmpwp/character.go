// Package hpmpwp is the hp-mp-wp system: the Universal HP/MP/WP system, a
// D&D 3.5 house system built on Unearthed Arcana's vitality and wound points
// and its alternate death and dying rules (RULES.md §2). A character has hit
// points (HP), mana points (MP) rolled on a class's mana die, and wound points
// (WP) equal to its Con score.
//
// This file holds the character sheet (RULES.md §2.1); damage, fatigue,
// dying and recovery (§2.2–§2.6) build on it.
package hpmpwp

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// DefaultClass is the class of a character created without one (RULES.md
// §2.1).
const DefaultClass = "fighter"

// Ranges of the sheet's numbers (RULES.md §2.1). RULES.md fixes the level
// range and the defaults; the other bounds are hpkeeper's, wide enough for
// any 3.5 character and narrow enough to catch typing errors.
const (
	// MinLevel and MaxLevel bound the total character level.
	MinLevel = 1
	MaxLevel = 40
	// MinScore and MaxScore bound an ability score; DefaultScore is the
	// score of an ability not given.
	MinScore     = 1
	MaxScore     = 50
	DefaultScore = 10
	// MaxPoints is the highest HP max or MP max.
	MaxPoints = 9999
	// MinWP is the lowest WP a sheet may hold. RULES.md §2.4 has no death
	// threshold; at −100 the Fort save DC is 30.
	MinWP = -100
	// MinSave and MaxSave bound the Fort and Will save bonuses.
	MinSave = -20
	MaxSave = 40
)

// Feat names as the stats key `feats` takes them (RULES.md §2.1, §2.4).
const (
	Endurance = "endurance"
	DieHard   = "die-hard"
)

// Character is an hp-mp-wp character sheet (RULES.md §2.1). The zero value
// is not valid; start from New.
type Character struct {
	// Class decides the mana die (see ManaDie); any lower-case word.
	Class string
	// Level is the total character level, MinLevel..MaxLevel.
	Level int
	// Str, Dex, Con, Int, Wis and Cha are the ability scores,
	// MinScore..MaxScore. Con is also the WP maximum.
	Str, Dex, Con, Int, Wis, Cha int
	// HPMax is the hit point maximum, given by the player as usual in 3.5,
	// 1..MaxPoints; HP is the current hit points, 0..HPMax.
	HPMax, HP int
	// MPMax is the mana point maximum (see MPMax), 0..MaxPoints; MP is the
	// current mana points, 0..MPMax.
	MPMax, MP int
	// WP is the current wound points, MinWP..WPMax(); below 0 the rules of
	// RULES.md §2.4 apply.
	WP int
	// TempWP is the temporary wound points granted by a temporary Con
	// increase (the stats key temp-con), 0..MaxScore; damage to WP takes
	// them first (RULES.md §2.2).
	TempWP int
	// Fort and Will are the save bonuses (base + ability modifier + other),
	// MinSave..MaxSave.
	Fort, Will int
	// Endurance and DieHard record the feats of the same names (RULES.md
	// §2.4, §2.6).
	Endurance, DieHard bool
	// Init is the initiative bonus, added with the Dex modifier to the d20
	// of an initiative roll (RULES.md §0.6); 0 by default.
	Init int

	// State is the negative-WP state (RULES.md §2.4): Fine while WP ≥ 0,
	// else Disabled, Dying or Stable; Dead is final.
	State State
	// DyingSince is the clock value (in rounds) at which the character
	// became dying; the per-round save's DC grows with the rounds since
	// (RULES.md §2.4). Meaningful only while State is Dying.
	DyingSince int64
	// ChoicePending is set while a Die Hard character that failed its save
	// on reaching negative WP has not yet chosen between acting disabled and
	// falling unconscious (RULES.md §2.4); damage to it is refused meanwhile.
	ChoicePending bool
	// Effect is the fatigue or exhaustion a spell or effect imposes until
	// the GM clears it (RULES.md §2.3).
	Effect Effect

	// Activity is what the character does as hours pass (RULES.md §2.6).
	Activity Activity
	// HoursWorked and HoursAwake count the hours (≥ 0) worked and spent
	// awake since the character last slept them off (RULES.md §2.6).
	HoursWorked, HoursAwake int
	// ExertionSaves is the number of exertion saves made since the
	// character last slept it off; ExertionFailures the failures among them
	// not yet slept off, each −2 to all abilities (RULES.md §2.6).
	ExertionSaves, ExertionFailures int
	// SleepUntil is the clock value (in rounds) before which a sleeper does
	// not wake on its own even with nothing left to sleep off: a night's
	// rest puts the table to sleep for 8 hours (RULES.md §2.6; see
	// NightRest). 0: no such time. Meaningful only while Activity is Sleep.
	SleepUntil int64
}

// New returns a character of the class and level with every ability at
// DefaultScore, HP max hpMax with full HP, full WP (the Con score), no saves
// bonuses, no feats and MP max 0: the caller rolls MP max (RollMPMax, or
// ManaDice and MPMax) or takes it from the player (RULES.md §2.1).
func New(class string, level, hpMax int) Character {
	return Character{
		Class: class, Level: level,
		Str: DefaultScore, Dex: DefaultScore, Con: DefaultScore,
		Int: DefaultScore, Wis: DefaultScore, Cha: DefaultScore,
		HPMax: hpMax, HP: hpMax,
		WP: DefaultScore,
	}
}

// Modifier returns the modifier of an ability score, ⌊(score − 10)/2⌋
// (RULES.md §2): 10 and 11 give +0, 9 gives −1, 7 gives −2, 14 gives +2.
func Modifier(score int) int {
	d := score - 10
	if d < 0 {
		return -((1 - d) / 2)
	}
	return d / 2
}

// WPMax returns the wound point maximum: the Con score (RULES.md §2.1).
// Temporary WP (TempWP) come on top of it.
func (c Character) WPMax() int { return c.Con }

// Feats returns the character's feats (RULES.md §2.1) in the order
// endurance, die-hard.
func (c Character) Feats() []string {
	var out []string
	if c.Endurance {
		out = append(out, Endurance)
	}
	if c.DieHard {
		out = append(out, DieHard)
	}
	return out
}

// NormalizeClass returns a class name (RULES.md §2.1) as the sheet stores it:
// lower case, with spaces and underscores as '-' ("Psychic Warrior" →
// "psychic-warrior").
func NormalizeClass(class string) string {
	class = strings.ToLower(strings.TrimSpace(class))
	return strings.NewReplacer(" ", "-", "_", "-").Replace(class)
}

// Classes lists the classes RULES.md §2.1 names (by mana die, largest
// first); any other class is a class too, with a d4 mana die.
var Classes = []string{"sorcerer", "psion", "wilder", "cleric", "druid", "wizard", "bard", "psychic-warrior",
	"paladin", "ranger", "barbarian", "fighter", "monk", "rogue", "soulknife"}

// ManaDie returns the number of sides of a class's mana die (RULES.md §2.1):
// d12 sorcerer, psion, wilder; d10 cleric, druid, wizard; d8 bard, psychic
// warrior; d6 paladin, ranger; d4 barbarian, fighter, monk, rogue, soulknife
// and any other class. The class is normalised first (see NormalizeClass),
// so "Psychic Warrior" and "psychic-warrior" both give 8.
func ManaDie(class string) int {
	switch NormalizeClass(class) {
	case "sorcerer", "psion", "wilder":
		return 12
	case "cleric", "druid", "wizard":
		return 10
	case "bard", "psychic-warrior":
		return 8
	case "paladin", "ranger":
		return 6
	}
	return 4
}

// ManaDice returns the expression that rolls n of the class's mana dice at
// once, "nd<die>", the roll of n levels above the first (RULES.md §2.1).
// n must be 1..dice.MaxDice.
func ManaDice(class string, n int) dice.Expr {
	return dice.Expr{Terms: []dice.Term{{Sign: 1, Count: n, Sides: ManaDie(class)}}}
}

// MPDice returns the dice expression whose total is the MP max that n
// levels rolled on the class's mana die give a character of Wis score wis,
// with level 1's as well when first is set (RULES.md §2.1), so that a
// reply shows the sum with its parts: the n dice, then one number, the
// die's maximum at level 1 and the Wis modifier of every level, annotated
// with them, e.g. "2d10+16 [d10 max at level 1, Wis +2 a level]". Each
// level counts at least 1: under a negative modifier each die below 1 − the
// modifier is raised to it (mi), and level 1's maximum likewise. Its total
// is MPMax(class, wis, faces) when first, else MPGain(wis, faces...). n
// must be 1..dice.MaxDice.
func MPDice(class string, wis, n int, first bool) (dice.Expr, error) {
	die, mod := ManaDie(class), Modifier(wis)
	floor := 1 - mod // the least face that counts: face + mod ≥ 1
	s := fmt.Sprintf("%dd%d", n, die)
	if floor > 1 {
		s += fmt.Sprintf("mi%d", floor)
	}
	k, levels := n*mod, "a level"
	var why []string
	if first {
		k += max(die, floor) + mod
		why = append(why, fmt.Sprintf("d%d max at level 1", die))
	}
	if mod != 0 {
		why = append(why, fmt.Sprintf("Wis %+d %s", mod, levels))
	}
	if k != 0 || len(why) > 0 {
		s += fmt.Sprintf("%+d", k)
	}
	if len(why) > 0 {
		s += " [" + strings.Join(why, ", ") + "]"
	}
	return dice.Parse(s)
}

// MPGain returns the MP max gained by the levels whose mana die faces are
// given (RULES.md §2.1): each level gives its face + the Wis modifier of the
// score wis, and at least 1.
func MPGain(wis int, faces ...int) int {
	mod, total := Modifier(wis), 0
	for _, f := range faces {
		total += max(1, f+mod)
	}
	return total
}

// MPMax returns the MP max of a character of the class with Wis score wis
// whose levels above the first rolled the given mana die faces, one per
// level, so that the level is len(faces)+1 (RULES.md §2.1): the mana die's
// maximum + Wis modifier at level 1, then each face + Wis modifier, at least
// 1 per level.
func MPMax(class string, wis int, faces []int) int {
	return MPGain(wis, ManaDie(class)) + MPGain(wis, faces...)
}

// RollMPMax rolls the MP max of a character of the class, level and Wis
// score wis with src (RULES.md §2.1): level 1 takes the mana die's maximum,
// each further level rolls one mana die (all of them as one roll,
// MPDice(class, wis, level−1, true), whose total is the MP max), each level
// adding the Wis modifier and at least 1. It returns the total and the
// roll, whose Result is zero at level 1 (nothing is rolled). The error is
// that of the source, or one for a level outside MinLevel..MaxLevel.
func RollMPMax(class string, level, wis int, src dice.Source) (int, dice.Result, error) {
	if level < MinLevel || level > MaxLevel {
		return 0, dice.Result{}, fmt.Errorf("level must be %d to %d, not %d", MinLevel, MaxLevel, level)
	}
	if level == 1 {
		return MPMax(class, wis, nil), dice.Result{}, nil
	}
	e, err := MPDice(class, wis, level-1, true)
	if err != nil {
		return 0, dice.Result{}, err
	}
	res, err := e.Roll(src)
	if err != nil {
		return 0, dice.Result{}, err
	}
	return res.Total, res, nil
}

// Validate checks the ranges of RULES.md §2.1 (and this package's bounds)
// and returns an error naming the first field out of range.
func (c Character) Validate() error {
	if c.Class == "" {
		return fmt.Errorf("class must not be empty")
	}
	if c.Level < MinLevel || c.Level > MaxLevel {
		return fmt.Errorf("level must be %d to %d, not %d", MinLevel, MaxLevel, c.Level)
	}
	for _, a := range []struct {
		name  string
		score int
	}{{"Str", c.Str}, {"Dex", c.Dex}, {"Con", c.Con}, {"Int", c.Int}, {"Wis", c.Wis}, {"Cha", c.Cha}} {
		if a.score < MinScore || a.score > MaxScore {
			return fmt.Errorf("%s must be %d to %d, not %d", a.name, MinScore, MaxScore, a.score)
		}
	}
	if c.HPMax < 1 || c.HPMax > MaxPoints {
		return fmt.Errorf("HP max must be 1 to %d, not %d", MaxPoints, c.HPMax)
	}
	if c.HP < 0 || c.HP > c.HPMax {
		return fmt.Errorf("HP must be 0 to %d (the HP max), not %d", c.HPMax, c.HP)
	}
	if c.MPMax < 0 || c.MPMax > MaxPoints {
		return fmt.Errorf("MP max must be 0 to %d, not %d", MaxPoints, c.MPMax)
	}
	if c.MP < 0 || c.MP > c.MPMax {
		return fmt.Errorf("MP must be 0 to %d (the MP max), not %d", c.MPMax, c.MP)
	}
	if c.WP < MinWP || c.WP > c.WPMax() {
		return fmt.Errorf("WP must be %d to %d (the Con score), not %d", MinWP, c.WPMax(), c.WP)
	}
	if c.TempWP < 0 || c.TempWP > MaxScore {
		return fmt.Errorf("temporary WP must be 0 to %d, not %d", MaxScore, c.TempWP)
	}
	if c.Fort < MinSave || c.Fort > MaxSave {
		return fmt.Errorf("Fort must be %+d to %+d, not %+d", MinSave, MaxSave, c.Fort)
	}
	if c.Will < MinSave || c.Will > MaxSave {
		return fmt.Errorf("Will must be %+d to %+d, not %+d", MinSave, MaxSave, c.Will)
	}
	if c.State < Fine || c.State > Dead {
		return fmt.Errorf("state %d is not a state", int(c.State))
	}
	if c.Effect < NoEffect || c.Effect > EffectExhausted {
		return fmt.Errorf("effect %d is not an effect", int(c.Effect))
	}
	if c.Activity < Awake || c.Activity > Sleep {
		return fmt.Errorf("activity %d is not an activity", int(c.Activity))
	}
	if c.HoursWorked < 0 || c.HoursAwake < 0 || c.ExertionSaves < 0 || c.ExertionFailures < 0 || c.ExertionFailures > c.ExertionSaves {
		return fmt.Errorf("hours and exertion counts must be ≥ 0, failures at most the saves made")
	}
	return nil
}
