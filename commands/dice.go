package commands

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
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

// Dice returns the service's dice source, unrecorded: for a rules engine
// that lists every roll it makes in its outcome, which the caller then
// passes to Record. At a table with dice=manual it hands out the faces the
// players entered (manualdice.go), asking m's character (For) for them.
func (m *Mutation) Dice() dice.Source { return mutationDice{m} }

// mutationDice rolls with the service's dice for a mutation's scope.
type mutationDice struct{ m *Mutation }

func (d mutationDice) Roll(die dice.Die) (int, error) {
	if ms, ok := d.m.s.dice.(*manualSource); ok {
		return ms.rollFor(d.m, die)
	}
	return d.m.s.dice.Roll(die)
}

// Roll rolls expr with the service's dice and records the result for the
// event. Running out of scripted dice is a CodeInvalid error.
func (m *Mutation) Roll(expr dice.Expr) (dice.Result, error) {
	res, err := expr.Roll(m.Dice())
	if err != nil {
		return res, RollError(err)
	}
	m.Record(res)
	return res, nil
}

// Record adds rolls a rules engine made with the service's dice to the
// event, so /history shows every die whichever way it was rolled, about m's
// characters (For): players see them only when they may see those
// characters. Empty results (no dice) are skipped.
func (m *Mutation) Record(rolls ...dice.Result) {
	for _, r := range rolls {
		if len(r.Terms) > 0 {
			m.log.entries++
			m.log.rolls = append(m.log.rolls, entry{about: m.about, text: r.String(), seq: m.log.entries})
		}
	}
}

// RecordingDice returns a dice.Source for rules engines that take one: each
// die is rolled through m.Roll, so it is recorded in the event like every
// other roll.
func (m *Mutation) RecordingDice() dice.Source { return recordingDice{m} }

type recordingDice struct{ m *Mutation }

func (d recordingDice) Roll(die dice.Die) (int, error) {
	res, err := d.m.Roll(dice.Expr{Terms: []dice.Term{{Sign: 1, Count: 1, Sides: die.Sides, Fudge: die.Fudge}}})
	if err != nil {
		return 0, err
	}
	return res.Total, nil
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
// those rolled unscoped) for a reply: "\nRolled 1d6 [4]; 2d6 [1, 2] = 3",
// or "" when none were.
func (m *Mutation) RollsLine() string {
	var rolls []string
	for _, r := range m.log.rolls {
		if r.about.same(m.about) {
			rolls = append(rolls, r.text)
		}
	}
	if len(rolls) == 0 {
		return ""
	}
	return "\nRolled " + strings.Join(rolls, "; ")
}

// MaxAmount bounds an amount of damage, healing or harm given as a number;
// a dice total is clamped to it.
const MaxAmount = 1000

// Amount reads the `amount` option (RULES.md §0.3): a whole number from lo
// to hi, or a dice expression rolled through m whose total is clamped to
// 0..hi. It returns the amount and, for dice, the rendered roll ("" for a
// number). A number out of range or bad dice is a CodeInvalid error naming
// what the amount is for (what, e.g. "of damage").
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
	res, err := m.RollString(a)
	if err != nil {
		return 0, "", err
	}
	return max(0, min(res.Total, hi)), res.String(), nil
}
