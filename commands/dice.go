package commands

import (
	"errors"
	"fmt"
	"math"
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
// players entered (manualdice.go).
func (m *Mutation) Dice() dice.Source { return m.s.dice }

// Roll rolls expr with the service's dice and records the result for the
// event. Running out of scripted dice is a CodeInvalid error.
func (m *Mutation) Roll(expr dice.Expr) (dice.Result, error) {
	res, err := expr.Roll(m.s.dice)
	if err != nil {
		return res, RollError(err)
	}
	m.Record(res)
	return res, nil
}

// MaxRecordedRolls bounds the rolls an event (and a reply's "Rolled" line)
// lists one by one: past it they are counted ("… and 8400 more rolls").
// Only a long clock advance rolls that many (a d20 for each save of each
// character); its reply and its event sum up every save by kind with its
// outcomes, so the event stays bounded whatever the advance.
const MaxRecordedRolls = 500

// Record adds rolls a rules engine made with the service's dice to the
// event, so /history shows every die whichever way it was rolled (up to
// MaxRecordedRolls, then counted). Empty results (no dice) are skipped.
func (m *Mutation) Record(rolls ...dice.Result) {
	for _, r := range rolls {
		switch {
		case len(r.Terms) == 0:
		case len(m.rolls) < MaxRecordedRolls:
			m.rolls = append(m.rolls, r.String())
		default:
			m.moreRolls++
		}
	}
}

// recordedRolls returns the event's dice: the rolls listed, then how many
// more were made.
func (m *Mutation) recordedRolls() []string {
	if m.moreRolls == 0 {
		return m.rolls
	}
	return append(m.rolls[:len(m.rolls):len(m.rolls)], m.moreRollsText())
}

func (m *Mutation) moreRollsText() string { return "… and " + count(m.moreRolls, "more roll") }

// RecordingDice returns a dice.Source for rules engines that take one: each
// die is rolled with the service's dice and recorded in the event like every
// other roll (as "1d20 [13] = 13"), its errors as Roll returns them. It
// costs a die and a counter once MaxRecordedRolls are listed.
func (m *Mutation) RecordingDice() dice.Source { return recordingDice{m} }

type recordingDice struct{ m *Mutation }

func (d recordingDice) Roll(die dice.Die) (int, error) {
	f, err := d.m.s.dice.Roll(die)
	if err != nil {
		return 0, RollError(fmt.Errorf("rolling 1%s: %w", die, err))
	}
	if len(d.m.rolls) >= MaxRecordedRolls {
		d.m.moreRolls++ // counted, not rendered
		return f, nil
	}
	t := dice.Term{Sign: 1, Count: 1, Sides: die.Sides, Fudge: die.Fudge}
	d.m.Record(dice.Result{Expr: dice.Expr{Terms: []dice.Term{t}},
		Terms: []dice.TermResult{{Term: t, Dice: []dice.Rolled{{Face: f}}, Value: f}}, Total: f})
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

// RollsLine renders the dice rolled so far in the mutation for a reply:
// "\nRolled 1d6 [4]; 2d6 [1, 2] = 3", or "" when none were; past
// maxReplyRolls rolls, "… and 1047 more rolls".
func (m *Mutation) RollsLine() string {
	if len(m.rolls) == 0 {
		return ""
	}
	if more := len(m.rolls) + m.moreRolls - maxReplyRolls; more > 0 {
		return "\nRolled " + strings.Join(m.rolls[:maxReplyRolls], "; ") + "; … and " + count(more, "more roll")
	}
	return "\nRolled " + strings.Join(m.rolls, "; ")
}

// maxReplyRolls bounds the rolls RollsLine lists one by one: more come from
// a long clock advance (a d20 for each save) or from many targets, whose
// lines show each save already.
const maxReplyRolls = 20

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
