package hpmpwp

import (
	"fmt"
	"strings"
)

// Cause is one reason a character is fatigued or exhausted (RULES.md §2.3).
type Cause struct {
	// Text names the cause, e.g. "HP 7 ≤ 50% of 15".
	Text string
	// Exhausting is set for the starred causes that make the character
	// exhausted, not only fatigued.
	Exhausting bool
}

// Causes returns every cause of fatigue and exhaustion that holds now, in
// the order of RULES.md §2.3. The 50% and 0 tests use the sheet's maxima
// without fatigue's own penalty (RULES.md §2.3 Reading), so fatigue cannot
// switch itself on and off. A character with MP max 0 has no mana and no
// MP cause (hpkeeper's reading: otherwise it would be exhausted forever).
func (c Character) Causes() []Cause {
	var out []Cause
	switch {
	case c.HP == 0:
		out = append(out, Cause{"HP 0", true})
	case 2*c.HP <= c.HPMax:
		out = append(out, Cause{fmt.Sprintf("HP %d ≤ 50%% of %d", c.HP, c.HPMax), false})
	}
	if c.MPMax > 0 {
		switch {
		case c.MP == 0:
			out = append(out, Cause{"MP 0", true})
		case 2*c.MP <= c.MPMax:
			out = append(out, Cause{fmt.Sprintf("MP %d ≤ 50%% of %d", c.MP, c.MPMax), false})
		}
	}
	switch {
	case c.WP <= 0:
		out = append(out, Cause{fmt.Sprintf("WP %d ≤ 0", c.WP), true})
	case c.WP < c.WPMax():
		out = append(out, Cause{fmt.Sprintf("WP %d < %d from wound damage", c.WP, c.WPMax()), false})
	}
	switch {
	case c.ExertionFailures >= 3:
		out = append(out, Cause{fmt.Sprintf("%d exertion failures", c.ExertionFailures), true})
	case c.ExertionFailures > 0:
		out = append(out, Cause{fmt.Sprintf("%d exertion failure%s", c.ExertionFailures, plural(c.ExertionFailures)), false})
	}
	switch c.Effect {
	case EffectExhausted:
		out = append(out, Cause{"a spell or effect the GM set", true})
	case EffectFatigued:
		out = append(out, Cause{"a spell or effect the GM set", false})
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// fatigue reports whether any cause of fatigue holds and whether a starred
// one does (RULES.md §2.3): what Causes lists, without its texts, so that
// the hourly walk asks it in nanoseconds.
func (c *Character) fatigue() (fatigued, exhausted bool) {
	exhausted = c.HP == 0 || c.MPMax > 0 && c.MP == 0 || c.WP <= 0 || c.ExertionFailures >= 3 || c.Effect == EffectExhausted
	fatigued = exhausted || 2*c.HP <= c.HPMax || c.MPMax > 0 && 2*c.MP <= c.MPMax || c.WP < c.WPMax() ||
		c.ExertionFailures > 0 || c.Effect == EffectFatigued
	return fatigued, exhausted
}

// Fatigued reports whether any cause of fatigue holds (RULES.md §2.3); an
// exhausted character is fatigued too.
func (c Character) Fatigued() bool {
	f, _ := c.fatigue()
	return f
}

// Exhausted reports whether any starred cause holds (RULES.md §2.3).
func (c Character) Exhausted() bool {
	_, e := c.fatigue()
	return e
}

// Condition returns "exhausted", "fatigued" or "" (RULES.md §2.3).
func (c Character) Condition() string {
	switch f, e := c.fatigue(); {
	case e:
		return "exhausted"
	case f:
		return "fatigued"
	}
	return ""
}

// Penalty returns the penalty to all six ability scores, in points
// (RULES.md §2.3, §2.6): 2 per exertion failure, and at least 2 while
// fatigued for any reason (the first exertion −2 is fatigue's own penalty,
// so other causes add no second −2). Exhaustion adds nothing more.
func (c Character) Penalty() int { return c.penalty() }

func (c *Character) penalty() int {
	p := 2 * c.ExertionFailures
	if f, _ := c.fatigue(); p == 0 && f {
		p = 2
	}
	return p
}

// Abilities returns the six effective ability scores Str, Dex, Con, Int,
// Wis, Cha after the penalty (RULES.md §2.3); they may be 0 or below.
func (c Character) Abilities() [6]int { return c.abilities() }

func (c *Character) abilities() [6]int {
	p := c.penalty()
	return [6]int{c.Str - p, c.Dex - p, c.Con - p, c.Int - p, c.Wis - p, c.Cha - p}
}

// lowestAbility is the lowest of Abilities.
func (c *Character) lowestAbility() int {
	return min(c.Str, c.Dex, c.Con, c.Int, c.Wis, c.Cha) - c.penalty()
}

// AbilityNames are the abbreviations of the six abilities in the order of
// Abilities.
var AbilityNames = [6]string{"Str", "Dex", "Con", "Int", "Wis", "Cha"}

// EffectiveHPMax returns the HP max lowered by the Con penalty (RULES.md
// §2.3): the sheet's HP max + level × (Con modifier after the penalty − Con
// modifier), never below FatigueFloor(HP max).
func (c Character) EffectiveHPMax() int { return c.effectiveHPMax(c.penalty()) }

// effectiveHPMax is EffectiveHPMax with the penalty p.
func (c *Character) effectiveHPMax(p int) int {
	return max(FatigueFloor(c.HPMax), c.HPMax+c.Level*(Modifier(c.Con-p)-Modifier(c.Con)))
}

// EffectiveMPMax returns the MP max lowered by the Wis penalty (RULES.md
// §2.3), never below FatigueFloor(MP max).
func (c Character) EffectiveMPMax() int { return c.effectiveMPMax(c.penalty()) }

// effectiveMPMax is EffectiveMPMax with the penalty p.
func (c *Character) effectiveMPMax(p int) int {
	return max(FatigueFloor(c.MPMax), c.MPMax+c.Level*(Modifier(c.Wis-p)-Modifier(c.Wis)))
}

// FatigueFloor returns the lowest value fatigue's penalty may lower a
// maximum of max points to (RULES.md §2.3 Reading): ⌊max / 2⌋ + 1, just
// above the 50% line, so that a character can always regenerate out of
// fatigue; max itself when that is lower (0 for a maximum of 0).
func FatigueFloor(max int) int { return min(max, max/2+1) }

// Settle applies what follows from the state without a roll: current HP and
// MP are capped at the lowered maxima (and not raised again when they
// recover; RULES.md §2.3), and WP at 0 or more end the disabled, dying and
// stable states (RULES.md §2.4); only a sleeper keeps a SleepUntil
// (RULES.md §2.6). Every rule here returns a settled
// character; sheet edits should settle too.
func (c Character) Settle() Character {
	c.settleIn(nil)
	return c
}

// settleIn is Settle in place, recording in out (when not nil) whether HP
// or MP were capped at the lowered maxima (RULES.md §2.3).
func (c *Character) settleIn(out *Outcome) {
	if c.State != Dead {
		if c.WP >= 0 {
			c.State, c.DyingSince, c.ChoicePending = Fine, 0, false
		} else if c.State == Fine {
			// WP below 0 without a save (a sheet edit): conscious and
			// disabled, the mildest negative state.
			c.State = Disabled
		}
	}
	if c.Activity != Sleep {
		c.SleepUntil = 0
	}
	// Capping can add a cause (HP 0) but not change the penalty: the
	// penalty is already ≥ 2 whenever a maximum is lowered.
	p := c.penalty()
	if hp := c.effectiveHPMax(p); c.HP > hp {
		c.HP = hp
		if out != nil {
			out.CappedHP = true
		}
	}
	if mp := c.effectiveMPMax(p); c.MP > mp {
		c.MP = mp
		if out != nil {
			out.CappedMP = true
		}
	}
}

// FatigueSummary renders fatigue for a reply (RULES.md §2.3): "" when the
// character is neither fatigued nor exhausted, else e.g. "exhausted (HP 7 ≤
// 50% of 15; WP -1 ≤ 0, exhausting): −2 to all abilities: Str 8 · Dex 12 …;
// HP max 15 → 13; MP max 4 → 3; one standard or move action a round", with
// no parentheses inside the causes' (issue 24).
func (c Character) FatigueSummary() string {
	causes := c.Causes()
	if len(causes) == 0 {
		return ""
	}
	var texts []string
	for _, k := range causes {
		t := k.Text
		if k.Exhausting {
			t += ", exhausting"
		}
		texts = append(texts, t)
	}
	ab := c.Abilities()
	var scores []string
	for i, n := range AbilityNames {
		scores = append(scores, fmt.Sprintf("%s %d", n, ab[i]))
	}
	s := fmt.Sprintf("%s (%s): −%d to all abilities: %s", c.Condition(), strings.Join(texts, "; "), c.Penalty(), strings.Join(scores, " · "))
	if h := c.EffectiveHPMax(); h != c.HPMax {
		s += fmt.Sprintf("; HP max %d → %d", c.HPMax, h)
	}
	if m := c.EffectiveMPMax(); m != c.MPMax {
		s += fmt.Sprintf("; MP max %d → %d", c.MPMax, m)
	}
	if c.Exhausted() {
		s += "; one standard or move action a round"
	} else {
		s += "; cannot run, charge or rage"
	}
	return s
}
