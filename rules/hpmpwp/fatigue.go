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
		out = append(out, Cause{fmt.Sprintf("WP %d < %d (wound damage)", c.WP, c.WPMax()), false})
	}
	switch {
	case c.ExertionFailures >= 3:
		out = append(out, Cause{fmt.Sprintf("%d exertion failures", c.ExertionFailures), true})
	case c.ExertionFailures > 0:
		out = append(out, Cause{fmt.Sprintf("%d exertion failure%s", c.ExertionFailures, plural(c.ExertionFailures)), false})
	}
	switch c.Effect {
	case EffectExhausted:
		out = append(out, Cause{"a spell or effect (GM)", true})
	case EffectFatigued:
		out = append(out, Cause{"a spell or effect (GM)", false})
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Fatigued reports whether any cause of fatigue holds (RULES.md §2.3); an
// exhausted character is fatigued too.
func (c Character) Fatigued() bool { return len(c.Causes()) > 0 }

// Exhausted reports whether any starred cause holds (RULES.md §2.3).
func (c Character) Exhausted() bool {
	for _, k := range c.Causes() {
		if k.Exhausting {
			return true
		}
	}
	return false
}

// Condition returns "exhausted", "fatigued" or "" (RULES.md §2.3).
func (c Character) Condition() string {
	switch {
	case c.Exhausted():
		return "exhausted"
	case c.Fatigued():
		return "fatigued"
	}
	return ""
}

// Penalty returns the penalty to all six ability scores, in points
// (RULES.md §2.3, §2.6): 2 per exertion failure, and at least 2 while
// fatigued for any reason (the first exertion −2 is fatigue's own penalty,
// so other causes add no second −2). Exhaustion adds nothing more.
func (c Character) Penalty() int {
	p := 2 * c.ExertionFailures
	if p == 0 && c.Fatigued() {
		p = 2
	}
	return p
}

// Abilities returns the six effective ability scores Str, Dex, Con, Int,
// Wis, Cha after the penalty (RULES.md §2.3); they may be 0 or below.
func (c Character) Abilities() [6]int {
	p := c.Penalty()
	return [6]int{c.Str - p, c.Dex - p, c.Con - p, c.Int - p, c.Wis - p, c.Cha - p}
}

// AbilityNames are the abbreviations of the six abilities in the order of
// Abilities.
var AbilityNames = [6]string{"Str", "Dex", "Con", "Int", "Wis", "Cha"}

// EffectiveHPMax returns the HP max lowered by the Con penalty (RULES.md
// §2.3): the sheet's HP max + level × (Con modifier after the penalty − Con
// modifier), never below FatigueFloor(HP max).
func (c Character) EffectiveHPMax() int {
	return max(FatigueFloor(c.HPMax), c.HPMax+c.Level*(Modifier(c.Con-c.Penalty())-Modifier(c.Con)))
}

// EffectiveMPMax returns the MP max lowered by the Wis penalty (RULES.md
// §2.3), never below FatigueFloor(MP max).
func (c Character) EffectiveMPMax() int {
	return max(FatigueFloor(c.MPMax), c.MPMax+c.Level*(Modifier(c.Wis-c.Penalty())-Modifier(c.Wis)))
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
	c.HP = min(c.HP, c.EffectiveHPMax())
	c.MP = min(c.MP, c.EffectiveMPMax())
	return c
}

// FatigueSummary renders fatigue for a reply (RULES.md §2.3): "" when the
// character is neither fatigued nor exhausted, else e.g. "fatigued (HP 7 ≤
// 50% of 15; 1 exertion failure): −2 to all abilities: Str 8 · Dex 12 …;
// HP max 13, MP max 4".
func (c Character) FatigueSummary() string {
	causes := c.Causes()
	if len(causes) == 0 {
		return ""
	}
	var texts []string
	for _, k := range causes {
		t := k.Text
		if k.Exhausting {
			t += " (exhausting)"
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
