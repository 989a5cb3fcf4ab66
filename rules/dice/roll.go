package dice

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Rolled is one die of a roll: the face that came up and whether a keep/drop
// suffix dropped it.
type Rolled struct {
	Face    int
	Dropped bool
}

// TermResult is the roll of one term: its dice in the order rolled (nil for
// a constant) and its Value, the sum of the kept faces (or the constant)
// with the term's Sign applied.
type TermResult struct {
	Term  Term
	Dice  []Rolled
	Value int
}

// Result is the roll of an expression: one TermResult per term, in order,
// and the Total of their values.
type Result struct {
	Expr  Expr
	Terms []TermResult
	Total int
	x     *rolledTree // the roll of a full notation's tree (then Terms is nil)
}

// IsZero reports whether r is the zero Result (no roll).
func (r Result) IsZero() bool { return len(r.Terms) == 0 && r.x == nil }

// errNoSource is returned by Roll when it is given a nil Source.
var errNoSource = errors.New("no dice source")

// Roll rolls e with src (RULES.md §0.3): one src.Roll per die, term by term,
// in the order written, so a Scripted source's faces go to the dice from
// left to right. A keep/drop suffix marks the dice that do not count as
// Dropped; among equal faces the one rolled first is dropped. An expression
// of the full notation (docs/dice.md) rolls its dice in the order written,
// then each operator's rerolls and explosions in turn, and stops with a
// *ParseError wrapping ErrTooManyRolls at MaxRolled dice. An error from src
// is returned wrapped, naming the expression (errors.Is finds
// ErrScriptExhausted and ErrFaceOutOfRange); nothing else fails, except that
// an Expr built by hand that fails Validate returns that *ParseError and a
// nil src is an error. The Result is the zero Result whenever err != nil.
// A src that is an ExprRoller rolls the whole expression itself (a valid
// one: an Expr built by hand that fails Validate is refused first).
func (e Expr) Roll(src Source) (Result, error) {
	if r, ok := src.(ExprRoller); ok && (e.x != nil || e.Validate() == nil) {
		return r.RollExpr(e)
	}
	if e.x != nil {
		return rollTree(e, src)
	}
	if err := e.Validate(); err != nil {
		return Result{}, err
	}
	if src == nil {
		return Result{}, errNoSource
	}
	res := Result{Expr: e, Terms: make([]TermResult, len(e.Terms))}
	all := make([]Rolled, e.DiceCount())
	for i, t := range e.Terms {
		tr := &res.Terms[i]
		tr.Term = t
		if t.Count == 0 {
			tr.Value = t.Sign * t.Const
			res.Total += tr.Value
			continue
		}
		tr.Dice, all = all[:t.Count:t.Count], all[t.Count:]
		d := t.Die()
		for j := range tr.Dice {
			f, err := src.Roll(d)
			if err != nil {
				return Result{}, fmt.Errorf("rolling %s: %w", e, err)
			}
			tr.Dice[j].Face = f
		}
		markDropped(tr.Dice, t)
		for _, r := range tr.Dice {
			if !r.Dropped {
				tr.Value += r.Face
			}
		}
		tr.Value *= t.Sign
		res.Total += tr.Value
	}
	return res, nil
}

// markDropped sets Dropped on the dice t's suffix drops: the lowest ones
// (ties: the first rolled) for kh and dl, the highest ones (ties: the first
// rolled) for kl and dh.
func markDropped(dice []Rolled, t Term) {
	low, high := t.drops()
	n, highFirst := low, false
	if high > 0 {
		n, highFirst = high, true
	}
	if n == 0 {
		return
	}
	// Selection by repeated scans: n and len(dice) are at most 100, and
	// usually 1 and 3.
	for ; n > 0; n-- {
		best := -1
		for j, r := range dice {
			if r.Dropped {
				continue
			}
			if best < 0 || (highFirst && r.Face > dice[best].Face) || (!highFirst && r.Face < dice[best].Face) {
				best = j
			}
		}
		dice[best].Dropped = true
	}
}

// Kept returns the faces that count in term i, in the order rolled: nil for
// a constant term or an i out of range.
func (r Result) Kept(i int) []int {
	if i < 0 || i >= len(r.Terms) {
		return nil
	}
	var kept []int
	for _, d := range r.Terms[i].Dice {
		if !d.Dropped {
			kept = append(kept, d.Face)
		}
	}
	return kept
}

// String shows the roll for players (RULES.md §0.3): the canonical
// expression, then every term with every die in the order rolled, dropped
// dice struck through as Discord markdown (~~1~~), Fudge faces as +, 0 and −
// (U+2212), constants as numbers, joined by + and -, then "= total":
//
//	3d6dl1 [5, 2, ~~1~~] = 7
//	1d20+1d4-2 [13] + [3] - 2 = 14
//	4dFkh3 [+, −, 0, ~~−~~] = 0
//
// An expression without dice shows as "2+3 = 5". The full notation
// (docs/dice.md, "What is shown") shows the expression without its
// annotations, then every value as written with each pool's dice in
// brackets: a rerolled die struck through with an arrow to the face that
// replaced it, a die mi or ma changed as "1→2", an exploded die with "!"
// and the dice it added at the end, a success ✓ (✓✓ counting twice), a
// failure ✗, a set's dropped values struck through; annotations after
// their value, "= total", and the comment after " — ":
//
//	2d6ro<3 [~~1~~→3, 6] = 9
//	(1d4+1, 3, 2d6kl1)kh1 ([2] + 1, ~~3~~, ~~[2, 5]~~) = 3
//	6d10t7 [8✓, 3, 10✓, 7✓, 1, 5] = 3 — to hit
//
// The zero Result is "".
func (r Result) String() string {
	if r.x != nil {
		return r.x.String()
	}
	if len(r.Terms) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(r.Expr.String())
	if r.Expr.DiceCount() > 0 {
		for i, tr := range r.Terms {
			switch {
			case i == 0 && tr.Term.Sign < 0:
				b.WriteString(" -")
			case i == 0:
				b.WriteByte(' ')
			case tr.Term.Sign < 0:
				b.WriteString(" - ")
			default:
				b.WriteString(" + ")
			}
			if tr.Term.Count == 0 {
				b.WriteString(strconv.Itoa(tr.Term.Const))
				continue
			}
			b.WriteByte('[')
			for j, d := range tr.Dice {
				if j > 0 {
					b.WriteString(", ")
				}
				if d.Dropped {
					b.WriteString("~~")
				}
				b.WriteString(faceString(d.Face, tr.Term.Fudge))
				if d.Dropped {
					b.WriteString("~~")
				}
			}
			b.WriteByte(']')
		}
	}
	b.WriteString(" = ")
	b.WriteString(strconv.Itoa(r.Total))
	return b.String()
}

func faceString(f int, fudge bool) string {
	if fudge {
		switch f {
		case -1:
			return "−"
		case 0:
			return "0"
		case 1:
			return "+"
		}
	}
	return strconv.Itoa(f)
}
