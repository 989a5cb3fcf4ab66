package hitprot

import (
	"errors"
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Errors of the damage and 0-HP rules (RULES.md §1.3). Each is returned
// as it is, or as the Kind of a *Refusal with the reason; errors.Is finds
// it.
var (
	// ErrDead: the character is dead and takes no damage, rests or rolls
	// (RULES.md §1.3 item 7).
	ErrDead = errors.New("is dead")
	// ErrChoicePending: the character's 0-HP choice has not been made yet, so
	// it takes no damage (RULES.md §1.3 item 3).
	ErrChoicePending = errors.New("0-HP choice is pending")
	// ErrNoChoice: a choice was made for a character with no pending 0-HP
	// choice (already chosen).
	ErrNoChoice = errors.New("has no pending 0-HP choice")
	// ErrNoHD: the character has no hit die left to spend (RULES.md §1.5,
	// §1.6).
	ErrNoHD = errors.New("no hit dice left")
	// ErrNothingToAttend: attend was asked for a character that is neither
	// down with a hidden fate nor bleeding out (RULES.md §1.3, §1.4).
	ErrNothingToAttend = errors.New("nothing to attend")
	// ErrCannotStop: the bleed-out cannot be stopped by this attend (Fatal
	// Wound I without a healer, Fatal Wound II ever; RULES.md §1.4).
	ErrCannotStop = errors.New("cannot be stopped")
	// ErrNothingToTreat: the character has no untreated wound (RULES.md §1.4).
	ErrNothingToTreat = errors.New("no untreated wound")
	// ErrBadInput: an argument out of range (negative damage, unknown
	// damage type).
	ErrBadInput = errors.New("bad input")
)

// Hit is one instance of damage (RULES.md §1.3).
type Hit struct {
	// Amount is the damage in HP, 0 or more.
	Amount int
	// Soak spends 1 hit die and rolls it to reduce Amount (not below 0).
	Soak bool
	// Type is fire, acid, lightning or other ("" is other); it picks the
	// Critical Wound save (RULES.md §1.4).
	Type string
	// NonLethal marks damage to a down character made without lethal intent:
	// it is recorded and has no other effect. Otherwise damage to a down
	// character kills it (RULES.md §1.3 item 6).
	NonLethal bool
	// Now is the clock round of the hit, for the timers it starts.
	Now clock.Time
}

// DamageResult is what TakeDamage did besides the dice.
type DamageResult struct {
	// Soaked is the soak roll's total (0 without soak).
	Soaked int
	// Taken is the damage after soak, in HP.
	Taken int
	// ReachedZero: HP went from above 0 to 0 (or damage hit a character at 0
	// HP in normal play): the 0-HP choice is now pending.
	ReachedZero bool
	// Killed: the hit killed the character (a down character, or the injury).
	Killed bool
	// NoEffect: the hit was recorded without effect (non-lethal on a down
	// character, or fully soaked while staying up).
	NoEffect bool
}

// TakeDamage applies a hit (RULES.md §1.3): the soak first (1 hit die spent
// and rolled, damage reduced by the roll, not below 0), then HP loss down to
// 0, with damage beyond lost. Reaching 0 HP makes the 0-HP choice pending
// (Status Choosing). A character staying up instead rolls 1d6 + the damage
// on the injury table; a down character dies unless the hit is non-lethal.
// It returns ErrDead, ErrChoicePending, ErrNoHD (soak with 0 HD) or
// ErrBadInput, wrapped.
//
// Reading: a hit whose damage after soak is 0 is no hit at all: it rolls
// nothing on the injury table for a character staying up, and it is not an
// attack on a down character (no death, nothing recorded).
//
// Reading: a character at 0 HP in normal play (created or set at 0 HP) that
// takes damage of 1 or more reaches 0 HP as RULES.md §1.3 item 3 means it:
// it is at 0 and hit, so the 0-HP choice becomes pending.
func (c Character) TakeDamage(src dice.Source, hit Hit) (Character, Outcome, DamageResult, error) {
	var o Outcome
	var res DamageResult
	switch hit.Type {
	case "":
		hit.Type = Other
	case Fire, Acid, Lightning, Other:
	default:
		return c, o, res, refuse(ErrBadInput, "damage type %q is not fire, acid, lightning or other", hit.Type)
	}
	if hit.Amount < 0 {
		return c, o, res, refuse(ErrBadInput, "damage %d is negative", hit.Amount)
	}
	switch c.Status {
	case Dead:
		return c, o, res, ErrDead
	case Choosing:
		return c, o, res, ErrChoicePending
	}
	c = c.clone()
	if c.Status == Down && hit.Soak {
		return c, o, res, refuse(ErrBadInput, "a down character cannot soak")
	}
	dmg := hit.Amount
	if hit.Soak {
		if c.HD < 1 {
			return c, o, res, refuse(ErrNoHD, "cannot soak")
		}
		r, err := o.roll(src, fmt.Sprintf("1d%d", c.HitDie))
		if err != nil {
			return c, o, res, err
		}
		c.HD--
		res.Soaked = r.Total
		dmg = max(0, dmg-r.Total)
		o.note("soaks with a hit die: %s, damage %d → %d", r, hit.Amount, dmg)
	}
	res.Taken = dmg
	switch c.Status {
	case Down:
		if dmg == 0 {
			res.NoEffect = true
			o.note("down: no damage gets through, so this is no attack: no effect")
			return c, o, res, nil
		}
		if hit.NonLethal {
			res.NoEffect = true
			c.DownHits++
			o.note("down: the non-lethal hit is recorded and has no other effect")
			return c, o, res, nil
		}
		c.die("killed while down")
		res.Killed = true
		o.note("attacked with lethal intent while down: dies at once")
		return c, o, res, nil
	case StayingUp:
		if dmg == 0 {
			res.NoEffect = true
			o.note("no damage gets through: no injury roll")
			return c, o, res, nil
		}
		if err := c.injure(src, "1d6", dmg, hit.Type, hit.Now, &o); err != nil {
			return c, o, res, err
		}
		res.Killed = c.Status == Dead
		return c, o, res, nil
	}
	if dmg == 0 {
		return c, o, res, nil
	}
	c.HP = max(0, c.HP-dmg)
	if c.HP == 0 {
		c.Status = Choosing
		c.ZeroType = hit.Type
		res.ReachedZero = true
		o.note("reaches 0 HP: Heroic Death, Stay Up or Go Down?")
	}
	return c, o, res, nil
}

// HeroicDeath makes the 0-HP choice Heroic Death (RULES.md §1.3 item 4):
// the character performs action and is dead. It returns ErrNoChoice unless
// the choice is pending.
func (c Character) HeroicDeath(action string) (Character, error) {
	if c.Status != Choosing {
		return c, ErrNoChoice
	}
	c = c.clone()
	c.HeroicAction = action
	c.die("Heroic Death")
	return c, nil
}

// StayUp makes the 0-HP choice Stay Up (RULES.md §1.3 item 5): 2d6 on the
// injury table at clock round now, with the type of the damage that brought
// the character to 0 HP. It returns ErrNoChoice unless the choice is
// pending.
func (c Character) StayUp(src dice.Source, now clock.Time) (Character, Outcome, error) {
	var o Outcome
	if c.Status != Choosing {
		return c, o, ErrNoChoice
	}
	c = c.clone()
	c.Status = StayingUp
	if err := c.injure(src, "2d6", 0, c.ZeroType, now, &o); err != nil {
		return c, o, err
	}
	return c, o, nil
}

// GoDown makes the 0-HP choice Go Down (RULES.md §1.3 item 6): the
// character is down, its fate hidden until attended. It returns ErrNoChoice
// unless the choice is pending.
func (c Character) GoDown() (Character, error) {
	if c.Status != Choosing {
		return c, ErrNoChoice
	}
	c = c.clone()
	c.Status = Down
	c.FateRevealed = false
	return c, nil
}

// Attend is another character spending a round on this one at clock round
// now (RULES.md §1.3 item 6, §1.4). A down character whose fate is hidden
// rolls the injury table with advantage, 3d6 keeping the two lowest
// (3d6dh1). Then every bleed-out the attend can stop stops: a Critical
// Wound's by any attend (rolling its 2d6 weeks of no HP restoring), a Fatal
// Wound I's only when healer is set; a Fatal Wound II's never. It returns
// ErrDead, ErrChoicePending, ErrNothingToAttend, or ErrCannotStop when there
// is a bleed-out and none could be stopped.
//
// Reading: the attend that reveals a down character's fate is itself an
// attend, so a Critical Wound (or, with a healer, a Fatal Wound I) rolled
// then is stopped at once.
func (c Character) Attend(src dice.Source, healer bool, now clock.Time) (Character, Outcome, error) {
	var o Outcome
	switch c.Status {
	case Dead:
		return c, o, ErrDead
	case Choosing:
		return c, o, ErrChoicePending
	}
	c = c.clone()
	revealed := false
	if c.Status == Down && !c.FateRevealed {
		c.FateRevealed = true
		revealed = true
		if err := c.injure(src, "3d6dh1", 0, c.ZeroType, now, &o); err != nil {
			return c, o, err
		}
		if c.Status == Dead {
			return c, o, nil
		}
	}
	if len(c.Bleeds) == 0 {
		if revealed {
			return c, o, nil
		}
		return c, o, ErrNothingToAttend
	}
	var kept []Bleed
	var refused []string
	stopped := 0
	for _, b := range c.Bleeds {
		also := ""
		if revealed {
			also = "this attend, which revealed the fate, also attends the wound: "
		}
		switch {
		case b.Wound == CriticalWound:
			w, err := o.roll(src, "2d6")
			if err != nil {
				return c, o, err
			}
			until := c.noRestore(now, int64(w.Total)*roundsPerWeek)
			o.note("%sthe Critical Wound's bleeding stops; no HP restoring for %s (%s; until %s)", also, plural(w.Total, "week"), w, until)
			stopped++
		case b.Wound == FatalWoundI && healer:
			o.note("%sa skilled healer stops the Fatal Wound I", also)
			stopped++
		case b.Wound == FatalWoundI:
			kept = append(kept, b)
			refused = append(refused, "the Fatal Wound I needs a skilled healer or healing magic; still "+b.DiesIn(now))
		default:
			kept = append(kept, b)
			refused = append(refused, "nothing can prevent the Fatal Wound II; still "+b.DiesIn(now))
		}
	}
	if stopped == 0 && !revealed {
		return c, o, refuse(ErrCannotStop, "%s", refused[0])
	}
	for _, r := range refused {
		o.note("%s", r)
	}
	c.Bleeds = kept
	return c, o, nil
}

// Treat treats every untreated wound of the character (RULES.md §1.4),
// ending the mobility handicap. It returns ErrDead or ErrNothingToTreat.
func (c Character) Treat() (Character, error) {
	if c.Status == Dead {
		return c, ErrDead
	}
	if c.Untreated == 0 {
		return c, ErrNothingToTreat
	}
	c = c.clone()
	c.Untreated = 0
	c.Mobility = false
	return c, nil
}

// NoClock, given to Conditions for the clock, names the round timers
// without the rounds they have left ("stunned", "Critical Wound: bleeding
// out"), for a text that has no clock: a sheet's one-line status.
const NoClock clock.Time = -1

// Conditions lists the character's conditions at clock round now in rule
// terms, for replies: the status, untreated wounds, handicaps, stuns (the
// rounds left), limbs, bleed-outs (the rounds left) and periods (their
// end). With NoClock, the round timers say no rounds.
func (c Character) Conditions(now clock.Time) []string {
	noClock := now == NoClock
	now = max(now, 0)
	var out []string
	switch c.Status {
	case Dead:
		s := "dead"
		if c.DeathCause != "" {
			s += " (" + c.DeathCause + ")"
		}
		return []string{s}
	case Choosing, StayingUp:
		out = append(out, c.Status.String())
	case Down:
		if c.FateRevealed {
			out = append(out, "down (attended)")
		} else {
			out = append(out, "down (fate hidden until attended)")
		}
	}
	if c.Untreated > 0 {
		out = append(out, plural(c.Untreated, "untreated wound"))
	}
	if c.Mobility {
		out = append(out, "mobility handicap")
	}
	if stun := c.Stunned(now); stun != "" && noClock {
		out = append(out, "stunned")
	} else if stun != "" {
		out = append(out, stun)
	}
	for _, l := range c.Limbs {
		if l.Lost {
			out = append(out, "lost the "+l.Name)
		} else if l.Until > now && !c.lost(l.Name) {
			out = append(out, fmt.Sprintf("no use of the %s until %s", l.Name, l.Until))
		}
	}
	for _, b := range c.Bleeds {
		if noClock {
			out = append(out, fmt.Sprintf("%s: bleeding out", b.Wound))
		} else {
			out = append(out, fmt.Sprintf("%s: %s", b.Wound, b.DiesIn(now)))
		}
	}
	if c.NoRestoreUntil > now {
		out = append(out, fmt.Sprintf("no HP restoring until %s", c.NoRestoreUntil))
	}
	if c.Scars > 0 {
		out = append(out, plural(c.Scars, "scar"))
	}
	return out
}
