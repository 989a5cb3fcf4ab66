package hpmpwp

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Hit is one hit of damage (RULES.md §2.2).
type Hit struct {
	// Amount is the damage rolled, in points, ≥ 1.
	Amount int
	// Crit is the critical multiplier, 2, 3 or 4; 0 for a normal hit. WP
	// additionally take Amount × (Crit − 1).
	Crit int
	// Nonlethal marks non-lethal damage (RULES.md §2.2, §2.4). A non-lethal
	// critical hit counts as lethal for the saves of §2.4.
	Nonlethal bool
}

// lethal reports whether the hit counts as lethal for RULES.md §2.4.
func (h Hit) lethal() bool { return !h.Nonlethal || h.Crit > 0 }

// TakeDamage applies a hit at clock time now (in rounds) with src rolling
// the saves (RULES.md §2.2, §2.4): damage takes HP first; damage beyond 0 HP,
// all damage at 0 HP and a critical hit's Amount × (Crit − 1) go to WP,
// temporary WP first. When the hit leaves WP below 0 (taking them there or
// finding them there) the character saves once as §2.4 says for its state.
// Errors: ErrDead, ErrChoicePending, ErrBadAmount (Amount < 1 or a Crit
// other than 0, 2, 3, 4), or the source's error.
func (c Character) TakeDamage(src dice.Source, hit Hit, now int64) (Character, Outcome, error) {
	out := Outcome{Before: c}
	switch {
	case c.State == Dead:
		return c, out, ErrDead
	case c.ChoicePending:
		return c, out, ErrChoicePending
	case hit.Amount < 1:
		return c, out, fmt.Errorf("%w: damage must be at least 1, not %d", ErrBadAmount, hit.Amount)
	case hit.Crit != 0 && (hit.Crit < 2 || hit.Crit > 4):
		return c, out, fmt.Errorf("%w: a critical multiplier is 2, 3 or 4, not %d", ErrBadAmount, hit.Crit)
	}
	toHP := min(hit.Amount, c.HP)
	c.HP -= toHP
	toWP := hit.Amount - toHP
	if toHP > 0 {
		out.line("%d damage to HP", toHP)
	}
	if toWP > 0 {
		out.line("%d damage beyond HP to WP", toWP)
	}
	if hit.Crit > 0 {
		extra := hit.Amount * (hit.Crit - 1)
		// As the rule says it: WP take the damage × (multiplier − 1) more.
		if hit.Crit == 2 {
			out.line("critical ×2: WP also take the damage once more: %d", extra)
		} else {
			out.line("critical ×%d: WP also take the damage %s more: %d × %d = %d", hit.Crit, map[int]string{3: "twice", 4: "three times"}[hit.Crit], hit.Crit-1, hit.Amount, extra)
		}
		toWP += extra
	}
	wasNegative := c.WP < 0
	c = c.loseWP(toWP, &out)
	if c.WP < 0 {
		kind := "lethal"
		if !hit.lethal() {
			kind = "non-lethal"
		}
		var err error
		if wasNegative {
			c, err = c.hitWhileNegative(src, now, hit.lethal(), &out)
		} else {
			c, err = c.reachNegative(src, now, hit.lethal(), kind, &out)
		}
		if err != nil {
			return out.Before, out, err
		}
	}
	c = c.settle(&out)
	out.After = c
	return c, out, nil
}

// loseWP takes n wound points, temporary WP first (RULES.md §2.2).
func (c Character) loseWP(n int, out *Outcome) Character {
	if n <= 0 {
		return c
	}
	fromTemp := min(n, c.TempWP)
	if fromTemp > 0 {
		c.TempWP -= fromTemp
		out.line("%d taken by temporary WP", fromTemp)
	}
	c.WP = max(MinWP, c.WP-(n-fromTemp))
	return c
}

// reachNegative resolves the save of a character whose WP just went from 0
// or more to below 0 (RULES.md §2.4): success → disabled, failure → dying,
// failure by 10 or more → dead. Non-lethal damage turns any failure into
// unconscious and stable with no further saves, even for a Die Hard
// character (hpkeeper's reading: the non-lethal clause wins, so no choice is
// offered). Die Hard turns a lethal failure that does not kill into a
// pending choice between acting disabled and falling unconscious (stable
// until chosen); failure by 10 or more still kills a Die Hard character
// (hpkeeper's reading: the feat removes dying, not death).
func (c Character) reachNegative(src dice.Source, now int64, lethal bool, kind string, out *Outcome) (Character, error) {
	bonus, fatigue := c.fortBonus()
	s, err := roll(src, "Fort", "reaching negative WP", bonus, fatigue, NegativeWPDC(c.WP))
	if err != nil {
		return c, err
	}
	out.save(&s)
	switch {
	case s.Success:
		c.State = Disabled
		out.line("becomes disabled: conscious and exhausted; a strenuous action (/strain) costs 1 WP and a save")
	case !lethal:
		c.State = Stable
		out.line("%s damage: unconscious and stable, no further saves", kind)
	case s.FailedBy10():
		c.State = Dead
		out.line("dies")
	case c.DieHard:
		c.State, c.ChoicePending = Stable, true
		out.line("Die Hard: must choose at once to act disabled or fall unconscious (stable); damage waits for the choice")
	default:
		c = c.becomeDying(now, out)
	}
	return c, nil
}

// becomeDying makes the character dying at clock time now (RULES.md §2.4),
// or, with Die Hard, stable and unconscious at once.
func (c Character) becomeDying(now int64, out *Outcome) Character {
	if c.DieHard {
		c.State = Stable
		out.line("Die Hard: stable and unconscious instead of dying")
		return c
	}
	if c.State != Dying {
		c.DyingSince = now
	}
	c.State = Dying
	out.line("is dying: unconscious, a stabilization save each round")
	return c
}

// hitWhileNegative resolves the save of a character hit while its WP were
// already below 0 (RULES.md §2.4). Disabled: failure by 10 or more → dead,
// else dying; with Die Hard success keeps it disabled and failure makes it
// stable (failure by 10 or more still kills). Dying: failure by 10 or more →
// dead, else still dying. Stable: as dying (RULES.md §2.4 Reading: a hit
// reopens the wounds, as in 3.5 a stable character that takes damage is
// dying again).
//
// A non-lethal hit (lethal false) never makes a character dying or dead
// (RULES.md §2.4 Reading: the non-lethal exception holds for every
// non-lethal hit at negative WP): a disabled character saves, and a
// failure by any margin leaves it unconscious and stable, a success
// disabled (hpkeeper's reading of the success, which the Reading leaves
// open: a save made cannot leave it worse off than a save failed, as
// with Die Hard); a dying character stays dying and a stable one stable,
// with no save, since none could change that.
func (c Character) hitWhileNegative(src dice.Source, now int64, lethal bool, out *Outcome) (Character, error) {
	if !lethal && c.State != Disabled {
		out.line("non-lethal damage: stays %s (no save: a non-lethal hit makes no one dying or dead)", c.State)
		return c, nil
	}
	bonus, fatigue := c.fortBonus()
	s, err := roll(src, "Fort", "hit at negative WP", bonus, fatigue, NegativeWPDC(c.WP))
	if err != nil {
		return c, err
	}
	out.save(&s)
	switch {
	case !lethal && s.Success:
		out.line("non-lethal damage: stays disabled")
	case !lethal:
		c.State = Stable
		out.line("non-lethal damage: unconscious and stable, no further saves")
	case s.FailedBy10():
		c.State = Dead
		out.line("dies")
	case c.State == Dying:
		out.line("is still dying")
	case c.DieHard && s.Success:
		out.line("Die Hard: stays %s", c.State)
	case c.DieHard:
		c.State = Stable
		out.line("Die Hard: falls unconscious, stable")
	default:
		c = c.becomeDying(now, out)
	}
	return c, nil
}

// Choose resolves a pending Die Hard choice (RULES.md §2.4): actDisabled
// makes the character conscious and disabled, otherwise it falls
// unconscious and stays stable. The error is ErrNoChoice when no choice is
// pending.
func (c Character) Choose(actDisabled bool) (Character, Outcome, error) {
	out := Outcome{Before: c}
	if !c.ChoicePending {
		return c, out, ErrNoChoice
	}
	c.ChoicePending = false
	if actDisabled {
		c.State = Disabled
		out.line("acts as disabled: conscious and exhausted; a strenuous action costs 1 WP")
	} else {
		c.State = Stable
		out.line("falls unconscious, stable")
	}
	c = c.settle(&out)
	out.After = c
	return c, out, nil
}
