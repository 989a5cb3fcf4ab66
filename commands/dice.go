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

// Pause passes on that the dice to come depend on the faces rolled so far
// (dice.Pacer): physical dice are asked for in batches that end there.
func (d mutationDice) Pause() {
	if p, ok := d.m.s.dice.(dice.Pacer); ok {
		p.Pause()
	}
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

// MaxRecordedRolls bounds the rolls an event (and a reply's "Rolled" line)
// lists one by one: past it they are counted ("… and 8400 more rolls").
// Only a long clock advance rolls that many (a d20 for each save of each
// character); its reply and its event sum up every save by kind with its
// outcomes, so the event stays bounded whatever the advance.
const MaxRecordedRolls = 500

// Record adds rolls a rules engine made with the service's dice to the
// event, so /history shows every die whichever way it was rolled (up to
// MaxRecordedRolls, then counted), about m's characters (For): players see
// them only when they may see those characters. Empty results (no dice)
// are skipped.
func (m *Mutation) Record(rolls ...dice.Result) {
	for _, r := range rolls {
		switch {
		case r.IsZero():
		case len(m.log.rolls) < MaxRecordedRolls:
			m.log.entries++
			m.log.rolls = append(m.log.rolls, entry{about: m.about, text: r.String(), seq: m.log.entries})
		default:
			m.log.moreRolls++ // counted, not rendered
		}
	}
}

// recordedRolls returns the event's dice: the rolls listed, then how many
// more were made.
func (m *Mutation) recordedRolls() []string {
	rolls := texts(m.log.rolls)
	if m.log.moreRolls == 0 {
		return rolls
	}
	return append(rolls, "… and "+count(m.log.moreRolls, "more roll"))
}

// RecordingDice returns a dice.Source for rules engines that take one: each
// die is rolled through m.Roll, so it is recorded in the event like every
// other roll (as "1d20 [13] = 13", past MaxRecordedRolls only counted) and
// a dice=manual table is asked for it.
func (m *Mutation) RecordingDice() dice.Source { return recordingDice{m} }

type recordingDice struct{ m *Mutation }

func (d recordingDice) Roll(die dice.Die) (int, error) {
	e := dice.Expr{Terms: []dice.Term{{Sign: 1, Count: 1, Sides: die.Sides, Fudge: die.Fudge}}}
	if len(d.m.log.rolls) < MaxRecordedRolls {
		res, err := d.m.Roll(e)
		if err != nil {
			return 0, err
		}
		return res.Total, nil
	}
	// Past MaxRecordedRolls a die is only counted (Record): roll it as
	// Expr.Roll would, with its checks and errors, without building the
	// Result nobody renders. A long advance rolls most of its dice here.
	if err := e.Validate(); err != nil {
		return 0, RollError(err)
	}
	f, err := d.m.Dice().Roll(die)
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
// those rolled unscoped) for a reply: "\nRolled 1d6 [4]; 2d6 [1, 2] = 3",
// or "" when none were; past maxReplyRolls rolls, "… and 1047 more rolls".
func (m *Mutation) RollsLine() string {
	var rolls []string
	for _, r := range m.log.rolls {
		if r.about.same(m.about) {
			rolls = append(rolls, r.text)
		}
	}
	return rollsLine(rolls)
}

// rollsLine renders rolls for a reply, built once: "\nRolled 1d6 [4]; 2d6
// [1, 2] = 3", at most maxReplyRolls of them and then "; … and 1047 more
// rolls"; "" for none.
func rollsLine(rolls []string) string {
	if len(rolls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nRolled ")
	for i, r := range rolls {
		if i == maxReplyRolls {
			b.WriteString("; … and " + count(len(rolls)-maxReplyRolls, "more roll"))
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r)
	}
	return b.String()
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
