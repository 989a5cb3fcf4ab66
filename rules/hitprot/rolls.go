package hitprot

import (
	"errors"
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Purposes of a roll that hit dice may be added to (RULES.md §1.6).
const (
	PurposeAttack = "attack"
	PurposeDamage = "damage"
	PurposeSave   = "save"
	PurposeSpell  = "spell"
	PurposeOther  = "other"
)

// ErrTooManyHD: more hit dice than the one-die rule allows for this class
// and roll (RULES.md §1.6).
var ErrTooManyHD = errors.New("too many hit dice for this roll")

// Unlimited is what HDLimit returns when any number of hit dice may be added.
const Unlimited = -1

// HDLimit is how many hit dice a character of the class may add to one roll
// (RULES.md §1.6): one, except a fighter's melee attack or melee damage roll,
// a cleric's save and a magic-user's spell roll, which take any number
// (Unlimited; still never more than the character has).
func HDLimit(class, purpose string, melee bool) int {
	switch {
	case class == Fighter && melee && (purpose == PurposeAttack || purpose == PurposeDamage):
		return Unlimited
	case class == Cleric && purpose == PurposeSave:
		return Unlimited
	case class == MagicUser && purpose == PurposeSpell:
		return Unlimited
	}
	return 1
}

// AddHD spends n hit dice on a roll for purpose (melee: a melee roll) and
// rolls them (RULES.md §1.6): n d(hit die). The dice are spent whatever the
// roll's outcome. It returns ErrDead, ErrTooManyHD or ErrNoHD (more than the
// character has), wrapped with the numbers.
func (c Character) AddHD(src dice.Source, n int, purpose string, melee bool) (Character, dice.Result, error) {
	if c.Status == Dead {
		return c, dice.Result{}, ErrDead
	}
	if n <= 0 {
		return c, dice.Result{}, nil
	}
	if lim := HDLimit(c.Class, purpose, melee); lim != Unlimited && n > lim {
		return c, dice.Result{}, refuse(ErrTooManyHD, "one hit die per %s roll%s for class %s (asked %d)", purpose, meleeWord(melee), c.Class, n)
	}
	if n > c.HD {
		return c, dice.Result{}, refuse(ErrNoHD, "asked %d, has %d", n, c.HD)
	}
	r, err := dice.MustParse(fmt.Sprintf("%dd%d", n, c.HitDie)).Roll(src)
	if err != nil {
		return c, dice.Result{}, err
	}
	c = c.clone()
	c.HD -= n
	return c, r, nil
}

func meleeWord(melee bool) string {
	if melee {
		return " (melee)"
	}
	return ""
}

// Save rolls a saving throw of the category (RULES.md §0.4, §1.2): d20 + hd
// hit dice (one, or any number for a cleric; §1.6) + bonus, passing when the
// total is ≥ the character's target; a natural 1 or 20 means nothing
// special. It returns ErrDead, an unknown category error, or AddHD's errors.
func (c Character) Save(src dice.Source, category string, hd, bonus int) (Character, SaveResult, error) {
	if c.Status == Dead {
		return c, SaveResult{}, ErrDead
	}
	target, err := c.SaveTarget(category)
	if err != nil {
		return c, SaveResult{}, err
	}
	if lim := HDLimit(c.Class, PurposeSave, false); lim != Unlimited && hd > lim {
		return c, SaveResult{}, refuse(ErrTooManyHD, "one hit die per save for class %s (asked %d)", c.Class, hd)
	}
	if hd > c.HD {
		return c, SaveResult{}, refuse(ErrNoHD, "asked %d, has %d", hd, c.HD)
	}
	r, err := dice.MustParse("1d20").Roll(src)
	if err != nil {
		return c, SaveResult{}, err
	}
	c, h, err := c.AddHD(src, hd, PurposeSave, false)
	if err != nil {
		return c, SaveResult{}, err
	}
	s := SaveResult{Category: category, Target: target, Roll: r, HD: h, Bonus: bonus, Total: r.Total + h.Total + bonus}
	s.Passed = s.Total >= target
	return c, s, nil
}

// SpendHD spends n hit dice without rolling them (/spend resource:hd). It
// returns ErrDead, or ErrNoHD when n is more than the character has.
func (c Character) SpendHD(n int) (Character, error) {
	if c.Status == Dead {
		return c, ErrDead
	}
	if n < 1 || n > c.HD {
		return c, refuse(ErrNoHD, "asked %d, has %d", n, c.HD)
	}
	c = c.clone()
	c.HD -= n
	return c, nil
}
