package commands

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// RollError turns a dice error into a CodeInvalid *Error: a parse error,
// running out of scripted dice or a scripted face out of range is the
// user's to fix. Any other error is returned unchanged.
func RollError(err error) error {
	var pe *dice.ParseError
	switch {
	case errors.As(err, &pe):
		return Errorf(CodeInvalid, "Bad dice expression: %v.", err)
	case errors.Is(err, dice.ErrScriptExhausted):
		return Errorf(CodeInvalid, "The scripted dice ran out; queue more faces (:dice) and try again. Nothing was changed.")
	case errors.Is(err, dice.ErrFaceOutOfRange):
		return Errorf(CodeInvalid, "Scripted die face refused: %v. Nothing was changed.", err)
	}
	return err
}

// Dice returns the mutation's dice: the one source every system passes to
// the rules (RULES.md §0.5). Every die it hands out is recorded in the
// event, about m's scope (For): an expression a rule rolls whole
// (Expr.Roll hands it over: dice.ExprRoller) as one roll, "2d6 [3, 4] =
// 7", and a die a rule asks for alone as "1d20 [13] = 13"; past
// MaxRecordedRolls rolls are only counted. It rolls with the service's
// dice, unless a feature gave the mutation others (UseDice: the faces the
// players entered at a dice=manual table, asked of m's character). A dice
// error is a CodeInvalid *Error (RollError).
func (m *Mutation) Dice() dice.Source { return recordingDice{m} }

// mutationDice rolls with the mutation's dice for a mutation's scope,
// recording nothing.
type mutationDice struct{ m *Mutation }

func (d mutationDice) Roll(die dice.Die) (int, error) {
	if ss, ok := d.m.log.dice.(ScopedSource); ok {
		return ss.RollFor(d.m, die)
	}
	return d.m.log.dice.Roll(die)
}

// ScopedSource is a dice source that is told, for each die, the mutation
// scope it is rolled for (Mutation.For): whose die it is (Subject) and
// whether players may know it (DiceHidden). Physical dice ask that
// character's owner for the face.
type ScopedSource interface {
	dice.Source
	RollFor(m *Mutation, die dice.Die) (int, error)
}

// UseDice makes the mutation roll with src from now on, in place of the
// service's dice: a step of the mutation chain (MutationWrapper) gives it
// the faces the players entered at a dice=manual table.
func (v voice) UseDice(src dice.Source) { v.log.dice = src }

// HideDice makes the dice m rolls from now on a hidden character's
// (DiceHidden): for the sheet of a hidden character being created, which
// has no id yet to scope them by (For).
func (v voice) HideDice() { v.log.hideDice = true }

// DiceHidden reports whether the dice m rolls now are kept from players:
// a hidden character's (m's scope, For; or after HideDice), so that a
// prompt for physical dice names neither the dice nor the faces.
func (m *Mutation) DiceHidden() bool { return m.log.hideDice || !m.sees(view.Channel, m.about) }

// Subject is the character whose roll m makes now: the first of its scope
// (For), else the character the mutation loaded last; nil for the table's
// or nobody's.
func (m *Mutation) Subject() *storage.Character {
	if m.about != nil {
		if len(m.about.ids) == 0 {
			return nil
		}
		return m.character(m.about.ids[0])
	}
	touched := m.touched
	for i := len(touched) - 1; i >= 0; i-- {
		if c := m.character(touched[i]); c != nil {
			return c
		}
	}
	return nil
}

// Pause passes on that the dice to come depend on the faces rolled so far
// (dice.Pacer): physical dice are asked for in batches that end there.
func (d mutationDice) Pause() {
	if p, ok := d.m.log.dice.(dice.Pacer); ok {
		p.Pause()
	}
}

// Roll rolls expr with the mutation's dice (Dice), which record it for the
// event. Running out of scripted dice is a CodeInvalid error.
func (m *Mutation) Roll(expr dice.Expr) (dice.Result, error) {
	res, err := expr.Roll(m.Dice())
	if err != nil {
		return res, RollError(err)
	}
	return res, nil
}

// MaxRecordedRolls bounds the rolls an event (and a reply's "Rolled" line)
// lists one by one: past it they are counted ("… and 8400 more rolls").
// Only a long clock advance rolls that many (a d20 for each save of each
// character); its reply and its event sum up every save by kind with its
// outcomes, so the event stays bounded whatever the advance.
const MaxRecordedRolls = 500

// record adds rolls made with the mutation's dice to the event (up to
// MaxRecordedRolls, then counted), about v's characters (For): players see
// them only when they may see those characters. Empty results (no dice)
// are skipped.
func (v voice) record(rolls ...dice.Result) {
	for _, r := range rolls {
		switch {
		case r.IsZero():
		case len(v.log.rolls) < MaxRecordedRolls:
			v.log.entries++
			v.log.rolls = append(v.log.rolls, entry{about: v.about, text: r.String(), seq: v.log.entries})
		default:
			v.log.moreRolls++ // counted, not rendered
		}
	}
}

// recordingDice is the mutation's dice (Dice): they roll with
// mutationDice and record what they roll.
type recordingDice struct{ m *Mutation }

var _ dice.ExprRoller = recordingDice{}

// RollExpr rolls e whole and records it.
func (d recordingDice) RollExpr(e dice.Expr) (dice.Result, error) {
	res, err := e.Roll(mutationDice{d.m})
	if err != nil {
		return res, RollError(err)
	}
	d.m.record(res)
	return res, nil
}

// Roll rolls one die a rule asks for alone and records it as a roll of
// its own.
func (d recordingDice) Roll(die dice.Die) (int, error) {
	e := dice.Expr{Terms: []dice.Term{{Sign: 1, Count: 1, Sides: die.Sides, Fudge: die.Fudge}}}
	if len(d.m.log.rolls) < MaxRecordedRolls {
		res, err := d.RollExpr(e)
		if err != nil {
			return 0, err
		}
		return res.Total, nil
	}
	// Past MaxRecordedRolls a die is only counted (record): roll it as
	// Expr.Roll would, with its checks and errors, without building the
	// Result nobody renders. A long advance rolls most of its dice here.
	if err := e.Validate(); err != nil {
		return 0, RollError(err)
	}
	f, err := mutationDice{d.m}.Roll(die)
	if err != nil {
		return 0, RollError(fmt.Errorf("rolling %s: %w", e, err))
	}
	d.m.log.moreRolls++
	return f, nil
}

// RollString parses and rolls a dice expression (a CodeInvalid error when it
// does not parse).
func (m *Mutation) RollString(expr string) (dice.Result, error) {
	e, err := dice.Parse(expr)
	if err != nil {
		return dice.Result{}, Errorf(CodeInvalid, "Bad dice expression: %v.", err)
	}
	return m.Roll(e)
}

// RollsLine renders the dice rolled so far in m's scope (For; unscoped:
// those rolled unscoped) for a reply, as a sentence after the text: "
// Rolled 1d6 [4]; 2d6 [1, 2] = 3", or "" when none were (rollsLine).
func (v voice) RollsLine() string {
	var rolls []string
	for _, r := range v.log.rolls {
		if r.about.same(v.about) {
			rolls = append(rolls, r.text)
		}
	}
	return rollsLine(rolls)
}

// rollsLine renders rolls for a reply, every one of them, built once: "
// Rolled 1d6 [4]; 2d6 [1, 2] = 3"; three or more rolls of one die in a row
// as one run, " Rolled 6 × 1d20: 19, 11, 11, 12, 14, 4"; "" for none.
func rollsLine(rolls []string) string {
	if len(rolls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(" Rolled ")
	for i := 0; i < len(rolls); {
		if i > 0 {
			b.WriteString("; ")
		}
		die, face, ok := oneDie(rolls[i])
		j := i + 1
		for ok && j < len(rolls) {
			if d, _, ok := oneDie(rolls[j]); !ok || d != die {
				break
			}
			j++
		}
		if j-i < 3 {
			b.WriteString(rolls[i])
			i++
			continue
		}
		fmt.Fprintf(&b, "%d × %s: %s", j-i, die, face)
		for _, r := range rolls[i+1 : j] {
			_, f, _ := oneDie(r)
			b.WriteString(", " + f)
		}
		i = j
	}
	return b.String()
}

// oneDie reads a roll of one die and nothing else, "1d20 [19] = 19", as
// its die ("1d20") and face ("19"); ok is false for any other roll.
func oneDie(roll string) (die, face string, ok bool) {
	die, rest, ok := strings.Cut(roll, " [")
	if !ok || !strings.HasPrefix(die, "1d") {
		return "", "", false
	}
	face, total, ok := strings.Cut(rest, "] = ")
	if !ok || face != total || strings.ContainsAny(face, ", ~") {
		return "", "", false
	}
	return die, face, true
}

// Unshown returns the rolls that text does not show already (each roll
// string counted as often as it appears), so that a reply or an event of
// /history shows every die once. It takes time in the number of distinct
// rolls times the text's length, both bounded (MaxRecordedRolls; a
// character's line, an event's summary).
func Unshown(text string, rolls []string) []string {
	seen := map[string]int{}
	var out []string
	for _, r := range rolls {
		n, ok := seen[r]
		if !ok {
			n = strings.Count(text, r)
		}
		if n > 0 {
			seen[r] = n - 1
			continue
		}
		seen[r] = 0
		out = append(out, r)
	}
	return out
}

// MaxAmount bounds an amount of damage, healing or harm, given as a number
// or as dice that can total at most this much.
const MaxAmount = 1000

// Amount reads the `amount` option (RULES.md §0.3): a whole number from lo
// to hi, or a dice expression rolled through m whose highest total is at
// most hi (a total below 0 counts as 0). It returns the amount and, for
// dice, the rendered roll ("" for a number). A number out of range, dice
// that can total more than hi (refused before rolling, saying how far the
// total can reach) or bad dice are a CodeInvalid error naming what the
// amount is for (what, e.g. "of damage").
func (m *Mutation) Amount(lo, hi int, what string) (int, string, error) {
	a := strings.TrimSpace(m.Req.Options["amount"])
	if a == "" {
		return 0, "", Errorf(CodeInvalid, "Give the amount %s: a number or dice.", what)
	}
	if n, err := strconv.Atoi(a); err == nil {
		if n < lo || n > hi {
			return 0, "", Errorf(CodeInvalid, "The amount %s must be %d to %d, not %d.", what, lo, hi, n)
		}
		return n, "", nil
	}
	e, err := dice.Parse(a)
	if err != nil {
		return 0, "", Errorf(CodeInvalid, "Bad dice expression: %v.", err)
	}
	var re *dice.RangeError
	if err := e.CheckRange(math.MinInt, hi); errors.As(err, &re) {
		return 0, "", Errorf(CodeInvalid, "The amount %s %s can reach %d, above the limit of %d. Roll fewer or smaller dice; nothing was changed.", what, re.Expr, re.Max, hi)
	}
	res, err := m.Roll(e)
	if err != nil {
		return 0, "", err
	}
	return max(0, res.Total), res.String(), nil
}
