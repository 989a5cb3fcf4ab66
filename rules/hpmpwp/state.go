package hpmpwp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// State is a character's negative-wound-point state (RULES.md §2.4).
type State int

// The states of RULES.md §2.4. A character is Fine exactly while its WP are
// 0 or more; below 0 it is Disabled (conscious), Dying (unconscious, saving
// each round) or Stable (unconscious, not dying). Dead is final.
const (
	Fine State = iota
	Disabled
	Dying
	Stable
	Dead
)

var stateNames = [...]string{"fine", "disabled", "dying", "stable", "dead"}

// String returns the state's name as RULES.md §2.4 writes it.
func (s State) String() string {
	if s < Fine || s > Dead {
		return fmt.Sprintf("state(%d)", int(s))
	}
	return stateNames[s]
}

// ParseState reads a state name ("fine", "disabled", "dying", "stable",
// "dead"; RULES.md §2.4).
func ParseState(name string) (State, error) {
	for i, n := range stateNames {
		if strings.EqualFold(name, n) {
			return State(i), nil
		}
	}
	return 0, fmt.Errorf("unknown state %q: use fine, disabled, dying, stable or dead", name)
}

// Conscious reports whether a character in state s is conscious: fine or
// disabled (RULES.md §2.4). Sleep is separate (see Activity).
func (s State) Conscious() bool { return s == Fine || s == Disabled }

// Activity is what a character does as whole hours pass (RULES.md §2.6).
type Activity int

// The activities of RULES.md §2.6.
const (
	Awake Activity = iota
	Work
	Sleep
)

var activityNames = [...]string{"awake", "work", "sleep"}

// String returns the activity's name as /activity takes it.
func (a Activity) String() string {
	if a < Awake || a > Sleep {
		return fmt.Sprintf("activity(%d)", int(a))
	}
	return activityNames[a]
}

// ParseActivity reads an activity name: awake, work or sleep (RULES.md §2.6).
func ParseActivity(name string) (Activity, error) {
	for i, n := range activityNames {
		if strings.EqualFold(name, n) {
			return Activity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown activity %q: use awake, work or sleep", name)
}

// Effect is fatigue or exhaustion imposed by a spell or effect until the GM
// clears it (RULES.md §2.3).
type Effect int

// The GM-imposed effects of RULES.md §2.3.
const (
	NoEffect Effect = iota
	EffectFatigued
	EffectExhausted
)

var effectNames = [...]string{"none", "fatigued", "exhausted"}

// String returns the effect's name as the stats key `effect` takes it.
func (e Effect) String() string {
	if e < NoEffect || e > EffectExhausted {
		return fmt.Sprintf("effect(%d)", int(e))
	}
	return effectNames[e]
}

// ParseEffect reads an effect name: none, fatigued or exhausted (RULES.md
// §2.3).
func ParseEffect(name string) (Effect, error) {
	for i, n := range effectNames {
		if strings.EqualFold(name, n) {
			return Effect(i), nil
		}
	}
	return 0, fmt.Errorf("unknown effect %q: use none, fatigued or exhausted", name)
}

// Errors the rules return when the character's state does not allow an
// action (RULES.md §2.4–§2.6).
var (
	// ErrDead: the character is dead; nothing but a sheet edit changes it.
	ErrDead = errors.New("dead")
	// ErrChoicePending: a Die Hard choice is awaited; damage is refused
	// until it is made (RULES.md §2.4 Reading).
	ErrChoicePending = errors.New("a Die Hard choice is pending")
	// ErrNoChoice: a Die Hard choice was made but none is pending.
	ErrNoChoice = errors.New("no Die Hard choice is pending")
	// ErrNotDisabled: /strain needs a disabled character.
	ErrNotDisabled = errors.New("not disabled")
	// ErrNotDying: /attend needs a dying character.
	ErrNotDying = errors.New("not dying")
	// ErrUnconscious: the action needs a conscious character.
	ErrUnconscious = errors.New("unconscious")
	// ErrNotAsleep: a noise can only wake a sleeper (RULES.md §2.6).
	ErrNotAsleep = errors.New("not asleep")
	// ErrNotEnoughMP: a spell cannot be paid with MP the character lacks
	// (RULES.md §2.5).
	ErrNotEnoughMP = errors.New("not enough MP")
	// ErrBadAmount: an amount is below 1 or a multiplier is not 2, 3 or 4.
	ErrBadAmount = errors.New("bad amount")
)

// Save is one d20 roll against a DC (RULES.md §0.4): a save (Fort, Will)
// or a Heal check. For saves a natural 1 always fails and a natural 20
// always succeeds; a Heal check is a skill check with no such rule.
type Save struct {
	// Kind is "Fort", "Will" or "Heal".
	Kind string
	// For says what the roll is for, e.g. "negative WP" or "stabilize".
	For string
	// DC is the difficulty class; Bonus the total bonus added to the d20,
	// Fatigue included.
	DC, Bonus int
	// Fatigue is the part of Bonus that the fatigue and exertion penalties
	// of the moment take off a Fort or Will save, 0 or below: the change
	// they make to the Con or Wis modifier (RULES.md §2.3 Reading; −1 for
	// fatigue's −2, −3 for exertion penalties of −6). Bonus − Fatigue is
	// the bonus of the rested character.
	Fatigue int
	// Roll is the d20 as rolled.
	Roll dice.Result
	// Total is the d20 + Bonus.
	Total int
	// Success is whether the roll succeeded.
	Success bool
}

// Natural returns the face of the d20.
func (s Save) Natural() int { return s.Roll.Total }

// Margin returns Total − DC: ≥ 0 meets the DC (RULES.md §0.4).
func (s Save) Margin() int { return s.Total - s.DC }

// FailedBy10 reports a failure by 10 or more: failed and d20 + bonus ≤
// DC − 10 (RULES.md §0.4, §2.4).
func (s Save) FailedBy10() bool { return !s.Success && s.Margin() <= -10 }

// SucceededBy5 reports a success by 5 or more (RULES.md §2.4).
func (s Save) SucceededBy5() bool { return s.Success && s.Margin() >= 5 }

// String renders the save for a reply, e.g. "Fort DC 11 (negative WP):
// 1d20 [9] = 9 +2 = 11, failed", with no bonus "Fort DC 11 (stabilize):
// 1d20 [9] = 9, failed", and with a fatigue adjustment "Fort DC 11 (hit at
// negative WP): 1d20 [9] = 9, Fort +2 −1 fatigue = 10, failed" (RULES.md
// §2.3 Reading).
func (s Save) String() string {
	verdict := "succeeded"
	switch {
	case s.SucceededBy5():
		verdict = "succeeded by 5 or more"
	case s.FailedBy10():
		verdict = "failed by 10 or more"
	case !s.Success:
		verdict = "failed"
	}
	if s.Kind != "Heal" {
		if s.Natural() == 20 && s.Margin() < 0 {
			verdict += " (natural 20)"
		}
		if s.Natural() == 1 && s.Margin() >= 0 {
			verdict += " (natural 1)"
		}
	}
	if s.Fatigue != 0 {
		return fmt.Sprintf("%s DC %d (%s): %s, %s %+d −%d %s = %d, %s", s.Kind, s.DC, s.For, s.Roll.String(),
			s.Kind, s.Bonus-s.Fatigue, -s.Fatigue, FatigueWord(s.Fatigue), s.Total, verdict)
	}
	if s.Bonus == 0 { // the d20 alone: its total once
		return fmt.Sprintf("%s DC %d (%s): %s, %s", s.Kind, s.DC, s.For, s.Roll.String(), verdict)
	}
	return fmt.Sprintf("%s DC %d (%s): %s %+d = %d, %s", s.Kind, s.DC, s.For, s.Roll.String(), s.Bonus, s.Total, verdict)
}

// FatigueWord names the penalties behind a save's fatigue adjustment adj
// (below 0; RULES.md §2.3 Reading): "fatigue" for −1, fatigue's own −2 to
// Con or Wis, and "exertion" for more, exertion penalties past the first.
func FatigueWord(adj int) string {
	if adj < -1 {
		return "exertion"
	}
	return "fatigue"
}

var d20 = dice.Expr{Terms: []dice.Term{{Sign: 1, Count: 1, Sides: 20}}}

// d20Roll holds the one term and the one die of a d20's dice.Result, so
// that a save allocates once.
type d20Roll struct {
	term [1]dice.TermResult
	die  [1]dice.Rolled
}

// roll makes a save (or, for kind "Heal", a check) with src (RULES.md §0.4):
// one d20, as d20.Roll(src) would roll it, + bonus + fatigue (the fatigue
// adjustment, 0 or below; see Save.Fatigue). The error is the source's,
// wrapped as Expr.Roll wraps it.
func roll(src dice.Source, kind, purpose string, bonus, fatigue, dc int) (Save, error) {
	return (*Outcome)(nil).roll(src, kind, purpose, bonus, fatigue, dc)
}

// roll is roll for a save recorded in o: in a quiet outcome (o.quiet,
// AdvanceSummary), which only counts saves, the Save's Roll is left empty,
// so that the walk allocates nothing for it.
func (o *Outcome) roll(src dice.Source, kind, purpose string, bonus, fatigue, dc int) (Save, error) {
	f, err := src.Roll(d20.Terms[0].Die())
	if err != nil {
		return Save{}, fmt.Errorf("rolling %s: %w", d20, err)
	}
	bonus += fatigue
	s := Save{Kind: kind, For: purpose, DC: dc, Bonus: bonus, Fatigue: fatigue, Total: f + bonus}
	if o == nil || !o.quiet {
		r := &d20Roll{}
		r.die[0].Face = f
		r.term[0] = dice.TermResult{Term: d20.Terms[0], Dice: r.die[:], Value: f}
		s.Roll = dice.Result{Expr: d20, Terms: r.term[:], Total: f}
	}
	s.Success = s.Total >= dc
	if kind != "Heal" {
		switch f {
		case 1:
			s.Success = false
		case 20:
			s.Success = true
		}
	}
	return s, nil
}

// Outcome records what a rule did to a character: its state before and
// after, every save rolled, and one line per thing that happened, in RULES.md
// terms, in order.
type Outcome struct {
	// Before and After are the character before and after the rule.
	Before, After Character
	// Saves lists every save and check rolled, in order.
	Saves []Save
	// Lines says what happened, e.g. "becomes disabled", in order; saves are
	// among them, rendered with Save.String.
	Lines []string
	// CappedHP and CappedMP are set when current HP or MP were lowered to
	// the maxima lowered by fatigue's penalty (RULES.md §2.3).
	CappedHP, CappedMP bool
	// Summary, set by Advance and AdvanceSummary, counts the saves and
	// what happened during the advance (see Summary).
	Summary *Summary

	// quiet: record the saves and events in Summary only, not in Saves and
	// Lines (AdvanceSummary).
	quiet bool
	// at is the clock time (in rounds) of the step being walked, for
	// Summary.
	at int64
}

// settle is Settle recording in out whether HP or MP were capped at the
// lowered maxima (RULES.md §2.3).
func (c Character) settle(out *Outcome) Character {
	c.settleIn(out)
	return c
}

// conditionEnded returns the line reporting that fatigue or exhaustion
// ended between before and after (RULES.md §0.2, §2.3): "no longer
// exhausted (still fatigued)", "no longer exhausted or fatigued", "no longer
// fatigued", or "" when nothing ended.
func conditionEnded(before, after *Character) string {
	bf, be := before.fatigue()
	return fatigueEnded(bf, be, after)
}

// fatigueEnded is conditionEnded for a character that was fatigued (bf) or
// exhausted (be) before.
func fatigueEnded(bf, be bool, after *Character) string {
	af, ae := after.fatigue()
	switch {
	case be && ae || !bf || bf && !be && af && !ae:
		return "" // nothing ended (or it got worse)
	case be && af:
		return "no longer exhausted (still fatigued)"
	case be:
		return "no longer exhausted or fatigued"
	case !af:
		return "no longer fatigued"
	}
	return ""
}

func (o *Outcome) line(format string, args ...any) {
	o.Lines = append(o.Lines, fmt.Sprintf(format, args...))
}

// event records something that happened as the clock passed: the line
// (format and args), and in the Summary, when there is one, one more of
// what, e.g. "wakes" (what "" is not counted: its save says it).
func (o *Outcome) event(what, format string, args ...any) {
	if o.Summary != nil && what != "" {
		o.Summary.countEvent(what, o.at)
	}
	if !o.quiet {
		o.line(format, args...)
	}
}

func (o *Outcome) save(s *Save) {
	if o.Summary != nil {
		o.Summary.countSave(s)
	}
	if !o.quiet {
		o.Saves = append(o.Saves, *s)
		o.Lines = append(o.Lines, s.String())
	}
}

// NegativeWPDC returns the Fort save DC for a WP total below 0 (RULES.md
// §2.4): 10 + 1 per full 5 points below zero (−1…−4 → 10, −5…−9 → 11,
// −10…−14 → 12). At 0 or more it returns 10.
func NegativeWPDC(wp int) int {
	if wp >= 0 {
		return 10
	}
	return 10 + (-wp)/5
}

// fortBonus returns the bonus of a Fort save of §2.4 or §2.6, the sheet's
// (rested) Fort, +4 with Endurance, and the fatigue adjustment to it at
// this moment (see FatigueAdjust).
func (c *Character) fortBonus() (bonus, fatigue int) {
	fort, _ := c.fatigueAdjust()
	if c.Endurance {
		return c.Fort + 4, fort
	}
	return c.Fort, fort
}

// willBonus returns the bonus of a Will save of §2.6, the sheet's (rested)
// Will, and the fatigue adjustment to it at this moment (see
// FatigueAdjust).
func (c *Character) willBonus() (bonus, fatigue int) {
	_, will := c.fatigueAdjust()
	return c.Will, will
}

// FatigueAdjust returns what the fatigue and exertion penalties that hold
// now do to the Fort and Will bonuses, 0 or below (RULES.md §2.3 Reading):
// as everywhere in 3.5, a penalty to Con or Wis lowers Fort or Will by the
// change in that ability's modifier. The sheet's Fort and Will are the
// rested values; fatigue's −2 makes both −1, exertion penalties of −6 in all
// make them −3.
func (c Character) FatigueAdjust() (fort, will int) { return c.fatigueAdjust() }

func (c *Character) fatigueAdjust() (fort, will int) {
	p := c.penalty()
	if p == 0 {
		return 0, 0
	}
	return Modifier(c.Con-p) - Modifier(c.Con), Modifier(c.Wis-p) - Modifier(c.Wis)
}
