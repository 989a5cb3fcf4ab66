package hitprot

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Band is a row of the injury table (RULES.md §1.4).
type Band int

// The rows of the injury table, mildest first.
const (
	Unhurt Band = iota
	FleshWound
	NastyWound
	SevereWound
	CriticalWound
	FatalWoundI
	FatalWoundII
)

// Bands lists the injury table's rows in order (RULES.md §1.4).
var Bands = []Band{Unhurt, FleshWound, NastyWound, SevereWound, CriticalWound, FatalWoundI, FatalWoundII}

// String names the band as RULES.md §1.4 does ("Flesh Wound").
func (b Band) String() string {
	switch b {
	case Unhurt:
		return "Unhurt"
	case FleshWound:
		return "Flesh Wound"
	case NastyWound:
		return "Nasty Wound"
	case SevereWound:
		return "Severe Wound"
	case CriticalWound:
		return "Critical Wound"
	case FatalWoundI:
		return "Fatal Wound I"
	case FatalWoundII:
		return "Fatal Wound II"
	}
	return fmt.Sprintf("Band(%d)", int(b))
}

// ParseBand is the inverse of Band.String; unknown text is Unhurt.
func ParseBand(s string) Band {
	for _, b := range Bands {
		if b.String() == s {
			return b
		}
	}
	return Unhurt
}

// Range returns the totals of the band on the table (RULES.md §1.4): 2 for
// Unhurt … 12 for Fatal Wound II.
func (b Band) Range() (lo, hi int) {
	switch b {
	case Unhurt:
		return 2, 2
	case FleshWound:
		return 3, 4
	case NastyWound:
		return 5, 6
	case SevereWound:
		return 7, 7
	case CriticalWound:
		return 8, 9
	case FatalWoundI:
		return 10, 11
	}
	return 12, 12
}

// Lookup returns the band of an injury-table total (RULES.md §1.4): totals
// below 2 count as 2 and totals above 12 as 12.
func Lookup(total int) Band {
	total = max(2, min(total, 12))
	for _, b := range Bands {
		if lo, hi := b.Range(); total >= lo && total <= hi {
			return b
		}
	}
	return FatalWoundII
}

// Limbs a Critical Wound can take, by the 1d4 roll (RULES.md §1.4).
var limbNames = [4]string{"left arm", "right arm", "left leg", "right leg"}

// Damage types (RULES.md §1.4): fire, acid and lightning make the Critical
// Wound save a save vs breath.
const (
	Fire      = "fire"
	Acid      = "acid"
	Lightning = "lightning"
	Other     = "other"
)

// SaveResult is one save the bot rolled (RULES.md §0.4, §1.2): a d20 (plus
// any hit dice and bonus) against the character's target.
type SaveResult struct {
	// Category is death, wands, paralysis, breath or spells.
	Category string
	// Target is the number to reach.
	Target int
	// Roll is the d20.
	Roll dice.Result
	// HD is the roll of the hit dice added (zero Result when none).
	HD dice.Result
	// Bonus is a flat bonus or penalty.
	Bonus int
	// Total is the d20 plus hit dice plus bonus.
	Total int
	// Passed: Total ≥ Target.
	Passed bool
}

// String renders the save, e.g. "save vs paralysis 1d20 [9] = 9 vs 14: failed".
func (s SaveResult) String() string {
	out := fmt.Sprintf("save vs %s %s", s.Category, s.Roll)
	if s.HD.Expr.DiceCount() > 0 {
		out += fmt.Sprintf(" + hit dice %s", s.HD)
	}
	if s.Bonus != 0 {
		out += fmt.Sprintf(" %+d", s.Bonus)
	}
	if s.HD.Expr.DiceCount() > 0 || s.Bonus != 0 {
		out += fmt.Sprintf(" → %d", s.Total)
	}
	verdict := "failed"
	if s.Passed {
		verdict = "passed"
	}
	return fmt.Sprintf("%s vs %d: %s", out, s.Target, verdict)
}

// Injury is one roll on the injury table and everything it did (RULES.md
// §1.4).
type Injury struct {
	// Roll is the table roll: 2d6 (Stay Up), 3d6dh1 (attending a down
	// character) or 1d6 (a later hit while staying up).
	Roll dice.Result
	// Damage is the damage added to the roll (later hits while staying up).
	Damage int
	// Total is Roll.Total + Damage, before clamping to 2..12.
	Total int
	// Band is the table row.
	Band Band
	// Effects describe what the row did, in rule terms ("stunned 2 rounds").
	Effects []string
}

// Outcome records everything a rule did: every die rolled, in order, every
// save, the injury, and one line per effect in rule terms (RULES.md §0.1:
// every change records every die).
type Outcome struct {
	// Rolls are every roll made, in order (saves and the injury roll
	// included).
	Rolls []dice.Result
	// Saves are the saves made, in order.
	Saves []SaveResult
	// Injury is the injury-table roll, when there was one.
	Injury *Injury
	// Notes are plain sentences describing each effect, in order.
	Notes []string
}

func (o *Outcome) roll(src dice.Source, expr string) (dice.Result, error) {
	res, err := dice.MustParse(expr).Roll(src)
	if err != nil {
		return res, err
	}
	o.Rolls = append(o.Rolls, res)
	return res, nil
}

func (o *Outcome) note(format string, args ...any) {
	o.Notes = append(o.Notes, fmt.Sprintf(format, args...))
}

// save rolls a d20 against the character's target for category (no hit
// dice: injury saves) and records it.
func (c Character) save(src dice.Source, category string, o *Outcome) (SaveResult, error) {
	target, err := c.SaveTarget(category)
	if err != nil {
		return SaveResult{}, err
	}
	r, err := o.roll(src, "1d20")
	if err != nil {
		return SaveResult{}, err
	}
	s := SaveResult{Category: category, Target: target, Roll: r, Total: r.Total, Passed: r.Total >= target}
	o.Saves = append(o.Saves, s)
	return s, nil
}

// Rounds in a day and a week, for periods given in days and weeks.
const (
	roundsPerDay  = clock.RoundsPerDay
	roundsPerWeek = clock.RoundsPerDay * clock.DaysPerWeek
)

// stun makes c stunned for n rounds from now, keeping a longer running stun.
func (c *Character) stun(now clock.Time, n int) {
	c.StunnedUntil = max(c.StunnedUntil, now+clock.Time(n))
}

// noRestore starts a no-restoring period of n rounds from now, keeping a
// longer running one.
func (c *Character) noRestore(now clock.Time, rounds int64) clock.Time {
	until := now + clock.Time(rounds)
	if until > c.NoRestoreUntil {
		c.NoRestoreUntil = until
	}
	return until
}

// die marks c dead with the cause and clears its timers.
func (c *Character) die(cause string) {
	c.Status = Dead
	c.DeathCause = cause
	c.StunnedUntil = 0
	c.Bleeds = nil
}

// injure rolls expr on the injury table, adds damage, and applies the row
// (RULES.md §1.4) at clock round now. dmgType picks the Critical Wound save.
func (c *Character) injure(src dice.Source, expr string, damage int, dmgType string, now clock.Time, o *Outcome) error {
	r, err := o.roll(src, expr)
	if err != nil {
		return err
	}
	inj := &Injury{Roll: r, Damage: damage, Total: r.Total + damage}
	inj.Band = Lookup(inj.Total)
	o.Injury = inj
	effect := func(format string, args ...any) {
		inj.Effects = append(inj.Effects, fmt.Sprintf(format, args...))
	}
	if inj.Band >= FleshWound {
		c.Untreated++
		effect("untreated wound (no HP restoring until treated)")
	}
	switch inj.Band {
	case NastyWound, SevereWound:
		s, err := c.save(src, SaveParalysis, o)
		if err != nil {
			return err
		}
		if !s.Passed {
			n, how := 1, ""
			if inj.Band == SevereWound {
				extra, err := o.roll(src, "1d4")
				if err != nil {
					return err
				}
				n += extra.Total
				how = fmt.Sprintf(" (1 round + %s)", extra)
			}
			c.stun(now, n)
			effect("%s → stunned %s%s", s, rounds(n), how)
		} else {
			effect("%s → not stunned", s)
		}
		c.Mobility = true
		effect("mobility handicap until treated")
		expr := "1d4"
		if inj.Band == SevereWound {
			expr = "2d4"
		}
		d, err := o.roll(src, expr)
		if err != nil {
			return err
		}
		until := c.noRestore(now, int64(d.Total)*roundsPerDay)
		effect("no HP restoring for %s (%s; until %s)", plural(d.Total, "day"), d, until)
		if inj.Band == SevereWound {
			c.Scars++
			effect("a permanent scar")
		}
	case CriticalWound:
		cat := SaveDeath
		if dmgType == Fire || dmgType == Acid || dmgType == Lightning {
			cat = SaveBreath
		}
		s, err := c.save(src, cat, o)
		if err != nil {
			return err
		}
		limb, err := o.roll(src, "1d4")
		if err != nil {
			return err
		}
		name := limbNames[limb.Total-1]
		if !s.Passed {
			b, err := o.roll(src, "2d4")
			if err != nil {
				return err
			}
			at := now + clock.Time(b.Total)
			c.Bleeds = append(c.Bleeds, Bleed{Wound: CriticalWound, DiesAt: at})
			if c.loseLimb(name) {
				effect("%s → loses the %s (%s)", s, name, limb)
			} else {
				effect("%s → the %s (%s) is already lost", s, name, limb)
			}
			effect("dies in %s (%s) unless attended; once attended, no HP restoring for 2d6 weeks", rounds(b.Total), b)
		} else {
			st, err := o.roll(src, "1d6")
			if err != nil {
				return err
			}
			c.stun(now, st.Total)
			w, err := o.roll(src, "2d6")
			if err != nil {
				return err
			}
			until := c.noRestore(now, int64(w.Total)*roundsPerWeek)
			if c.loseUse(name, until) {
				effect("%s → loses the use of the %s (%s) until %s", s, name, limb, until)
			} else {
				effect("%s → the %s (%s) is already lost", s, name, limb)
			}
			effect("stunned %s (%s)", rounds(st.Total), st)
			effect("no HP restoring for %s (%s; until %s)", plural(w.Total, "week"), w, until)
		}
	case FatalWoundI, FatalWoundII:
		s, err := c.save(src, SaveDeath, o)
		if err != nil {
			return err
		}
		if !s.Passed {
			effect("%s → dies at once", s)
			c.die(inj.Band.String())
			break
		}
		expr, how := "1d8", " unless a skilled healer or healing magic attends"
		if inj.Band == FatalWoundII {
			expr, how = "1d4", "; nothing can prevent it"
		}
		b, err := o.roll(src, expr)
		if err != nil {
			return err
		}
		at := now + clock.Time(b.Total)
		c.Bleeds = append(c.Bleeds, Bleed{Wound: inj.Band, DiesAt: at})
		effect("%s → staggers on: dies in %s (%s)%s", s, rounds(b.Total), b, how)
	}
	return nil
}

// limb returns the index of the limb named name in c.Limbs, or -1.
func (c *Character) limb(name string) int {
	for i, l := range c.Limbs {
		if l.Name == name {
			return i
		}
	}
	return -1
}

// loseLimb records the limb named name as lost (a failed Critical Wound
// save, RULES.md §1.4) and reports whether it was not lost already. A lost
// limb stays lost (RULES.md §1.4 Reading): a running loss of its use ends
// silently, so nothing ever reports the limb back, and a limb already lost
// is not lost again (no other limb is chosen).
func (c *Character) loseLimb(name string) bool {
	i := c.limb(name)
	switch {
	case i < 0:
		c.Limbs = append(c.Limbs, Limb{Name: name, Lost: true})
	case c.Limbs[i].Lost:
		return false
	default:
		c.Limbs[i] = Limb{Name: name, Lost: true}
	}
	return true
}

// loseUse records the loss of the use of the limb named name until the
// clock round until (a passed Critical Wound save, RULES.md §1.4) and
// reports whether the limb is not lost already: a lost limb stays lost
// (RULES.md §1.4 Reading). A limb already out of use stays so until the
// later of the two ends, one entry per limb.
func (c *Character) loseUse(name string, until clock.Time) bool {
	i := c.limb(name)
	switch {
	case i < 0:
		c.Limbs = append(c.Limbs, Limb{Name: name, Until: until})
	case c.Limbs[i].Lost:
		return false
	default:
		c.Limbs[i].Until = max(c.Limbs[i].Until, until)
	}
	return true
}

// rounds renders "1 round", "3 rounds".
func rounds(n int) string { return plural(n, "round") }

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
