package dice

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Limits of the notation (RULES.md §0.3).
const (
	// MaxLength is the most characters (runes, whitespace included) an
	// expression given to Parse may have.
	MaxLength = 64
	// MaxDice is the most dice in one term and in a whole expression.
	MaxDice = 100
	// MinSides and MaxSides bound the sides of a numbered die.
	MinSides = 2
	MaxSides = 1000
	// MaxConst is the largest absolute value of a constant term, so that
	// totals never overflow.
	MaxConst = 1_000_000
)

// KeepMode says which dice of a term count toward its value (RULES.md §0.3).
type KeepMode int

// The keep modes; the zero value keeps every die.
const (
	KeepAll     KeepMode = iota // no suffix: every die counts
	KeepHighest                 // khK: the K highest dice count
	KeepLowest                  // klK: the K lowest dice count
	DropHighest                 // dhK: all but the K highest dice count
	DropLowest                  // dlK: all but the K lowest dice count
)

// String returns the suffix of m ("kh", "kl", "dh", "dl"), or "" for KeepAll.
func (m KeepMode) String() string {
	switch m {
	case KeepAll:
		return ""
	case KeepHighest:
		return "kh"
	case KeepLowest:
		return "kl"
	case DropHighest:
		return "dh"
	case DropLowest:
		return "dl"
	}
	return fmt.Sprintf("KeepMode(%d)", int(m))
}

// Term is one term of an expression: Count dice of Sides sides (Sides is 3
// and Fudge is set for Fudge dice) with an optional keep/drop suffix, or,
// when Count is 0, the constant Const (0 ≤ Const ≤ MaxConst; Sides, Fudge,
// Keep and KeepN are then zero). Sign is +1 for an added term and -1 for a
// subtracted one. KeepN is the K of the suffix: 1 ≤ K ≤ Count for kh and kl,
// 0 ≤ K < Count for dh and dl (at least one die always counts), and 0 for
// KeepAll.
type Term struct {
	Sign  int
	Count int
	Sides int
	Fudge bool
	Const int
	Keep  KeepMode
	KeepN int
}

// Die returns the die a dice term rolls.
func (t Term) Die() Die { return Die{Sides: t.Sides, Fudge: t.Fudge} }

// String returns the term in canonical notation without its sign, such as
// "3d6dl1", "4dFkh3", "1d20" or "2".
func (t Term) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Term) write(b *strings.Builder) {
	if t.Count == 0 && t.Sides == 0 && !t.Fudge {
		b.WriteString(strconv.Itoa(t.Const))
		return
	}
	b.WriteString(strconv.Itoa(t.Count))
	if t.Fudge {
		b.WriteString("dF")
	} else {
		b.WriteByte('d')
		b.WriteString(strconv.Itoa(t.Sides))
	}
	if t.Keep != KeepAll {
		b.WriteString(t.Keep.String())
		b.WriteString(strconv.Itoa(t.KeepN))
	}
}

// drops returns how many of the term's lowest and highest dice do not count.
func (t Term) drops() (low, high int) {
	switch t.Keep {
	case KeepHighest:
		return t.Count - t.KeepN, 0
	case KeepLowest:
		return 0, t.Count - t.KeepN
	case DropHighest:
		return 0, t.KeepN
	case DropLowest:
		return t.KeepN, 0
	}
	return 0, 0
}

// kept returns how many of the term's dice count toward its value.
func (t Term) kept() int {
	low, high := t.drops()
	return t.Count - low - high
}

// bounds returns the lowest and highest value of the term, sign included.
func (t Term) bounds() (lo, hi int) {
	if t.Count == 0 {
		lo, hi = t.Const, t.Const
	} else {
		flo, fhi := t.Die().faces()
		k := t.kept()
		lo, hi = k*flo, k*fhi
	}
	if t.Sign < 0 {
		return -hi, -lo
	}
	return lo, hi
}

// problem returns why t is not a term of RULES.md §0.3, or "" when it is.
// The reasons are written for players.
func (t Term) problem() string {
	if t.Sign != 1 && t.Sign != -1 {
		return fmt.Sprintf("sign must be +1 or -1, not %d", t.Sign)
	}
	if t.Count == 0 && t.Sides == 0 && !t.Fudge {
		switch {
		case t.Keep != KeepAll || t.KeepN != 0:
			return "a constant cannot keep or drop dice"
		case t.Const < 0:
			return "a constant term holds its size; the sign goes in Sign"
		case t.Const > MaxConst:
			return fmt.Sprintf("a constant is at most %d", MaxConst)
		}
		return ""
	}
	switch {
	case t.Count < 1:
		return "roll at least 1 die"
	case t.Count > MaxDice:
		return fmt.Sprintf("at most %d dice", MaxDice)
	case t.Fudge && t.Sides != 3:
		return "a Fudge die has Sides 3"
	case !t.Fudge && (t.Sides < MinSides || t.Sides > MaxSides):
		return fmt.Sprintf("a die has %d to %d sides", MinSides, MaxSides)
	case t.Const != 0:
		return "a dice term has no constant"
	}
	k, n := t.KeepN, t.Count
	switch t.Keep {
	case KeepAll:
		if k != 0 {
			return "a keep count needs a keep mode"
		}
	case KeepHighest, KeepLowest:
		if k < 1 {
			return "keep at least 1 die"
		}
		if k > n {
			return fmt.Sprintf("cannot keep %d of %d %s", k, n, plural(n, "die", "dice"))
		}
	case DropHighest, DropLowest:
		if k < 0 {
			return "cannot drop fewer than 0 dice"
		}
		if k >= n {
			return fmt.Sprintf("cannot drop %d of %d %s (at least 1 must count)", k, n, plural(n, "die", "dice"))
		}
	default:
		return fmt.Sprintf("unknown keep mode %d", int(t.Keep))
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Expr is a parsed dice expression: for the notation of RULES.md §0.3, its
// terms in the order written; for the full notation (docs/dice.md), a tree
// that Parse builds and nothing else can, and no Terms. Build one with
// Parse or MustParse; an Expr built by hand (Terms only) must satisfy
// Validate. The zero Expr is not valid (it has no terms).
type Expr struct {
	Terms []Term
	x     *tree // the full notation's tree, or nil
}

// String returns e in canonical notation: lower case except the F of Fudge
// dice, no spaces, no leading +, every dice term with its count ("d20" is
// "1d20"), numbers without leading zeros; for example "3d6dh1+2", "4dFkh3"
// or "-1d4+5". Parse(e.String()) gives e back, except that String can be
// longer than MaxLength (by at most half, when the input wrote "dS" for
// "1dS"), and Parse then reports the length; keep the input or the Terms
// when an expression must be parsed again later.
func (e Expr) String() string {
	if e.x != nil {
		return e.x.canon
	}
	var b strings.Builder
	b.Grow(8 * len(e.Terms))
	for i, t := range e.Terms {
		if t.Sign < 0 {
			b.WriteByte('-')
		} else if i > 0 {
			b.WriteByte('+')
		}
		t.write(&b)
	}
	return b.String()
}

// DiceCount returns the number of dice e names (kept and dropped; rerolls
// and explosions roll more, see Rolls).
func (e Expr) DiceCount() int {
	if e.x != nil {
		return e.x.named
	}
	n := 0
	for _, t := range e.Terms {
		n += t.Count
	}
	return n
}

// Rolls returns how many dice a roll of e rolls at most, rerolls and
// explosions counted: DiceCount for the notation of RULES.md §0.3; where
// rerolling or exploding has no worst case, the expected count. It is at
// most MaxRolled, and meant for pricing a roll's work (commands' rate
// limit).
func (e Expr) Rolls() int {
	if e.x != nil {
		return e.x.bound
	}
	return e.DiceCount()
}

// Notes returns the reading notes of e (docs/dice.md, "Where the bots
// differ"): for each part that Avrae and Dice Maiden read differently, the
// reading used and how to write the other, in Discord markdown, such as
// "`4d6k3` keeps the dice showing 3, as in Avrae; for the highest 3 write
// `4d6kh3`". It is nil for the notation of RULES.md §0.3.
func (e Expr) Notes() []string {
	if e.x == nil {
		return nil
	}
	return e.x.notes
}

// Comment returns e's comment: a Dice Maiden label, "(Fireball) 8d6", and
// the text after the expression ("1d20+5 to hit", "2d6 ! fire"), joined by
// "; ", with whitespace collapsed; "" when there is none.
func (e Expr) Comment() string {
	if e.x == nil {
		return ""
	}
	return e.x.comment
}

// Plus returns e + n: for the notation of RULES.md §0.3 its Terms and one
// constant term more (none for n = 0); for the full notation the tree of
// "e+n" ("(e)+n" when e is a comparison), its comment dropped. It fails
// only when the total could pass ±MaxTotal, with Parse's *ParseError.
func (e Expr) Plus(n int) (Expr, error) {
	if e.x == nil {
		out := Expr{Terms: append([]Term(nil), e.Terms...)}
		switch {
		case n > 0:
			out.Terms = append(out.Terms, Term{Sign: 1, Const: n})
		case n < 0:
			out.Terms = append(out.Terms, Term{Sign: -1, Const: -n})
		}
		return out, nil
	}
	text := e.x.canon
	if r := e.x.root; r.kind == nodeBinary && r.op.comparison() {
		text = "(" + text + ")"
	}
	if n != 0 {
		text += fmt.Sprintf("%+d", n)
	}
	return parse(text)
}

// Min returns the lowest total e can roll (for the full notation, a bound:
// no roll totals less).
func (e Expr) Min() int {
	if e.x != nil {
		return int(e.x.lo)
	}
	m := 0
	for _, t := range e.Terms {
		lo, _ := t.bounds()
		m += lo
	}
	return m
}

// Max returns the highest total e can roll (for the full notation, a bound:
// no roll totals more; exploding dice count MaxRolled dice).
func (e Expr) Max() int {
	if e.x != nil {
		return int(e.x.hi)
	}
	m := 0
	for _, t := range e.Terms {
		_, hi := t.bounds()
		m += hi
	}
	return m
}

// ErrTotalOutOfRange is wrapped by the *RangeError that Expr.CheckRange
// returns when an expression can roll a total outside the range its caller
// accepts: a damage amount that can exceed a system's limit, say. The caller
// can then refuse before rolling, saying how far the total can reach,
// instead of clipping a rolled total silently.
var ErrTotalOutOfRange = errors.New("total out of range")

// RangeError says that the expression Expr (canonical form) can total Min to
// Max, which goes outside the accepted Lo to Hi. Error gives, for a total
// that can be too high, `"100d1000" can total up to 100000, above 1000`,
// and for one that can be too low, `"1d4-5" can total as little as -4,
// below 0`. It wraps ErrTotalOutOfRange.
type RangeError struct {
	Expr     string
	Min, Max int
	Lo, Hi   int
}

func (e *RangeError) Error() string {
	if e.Max > e.Hi {
		return fmt.Sprintf("%q can total up to %d, above %d", e.Expr, e.Max, e.Hi)
	}
	return fmt.Sprintf("%q can total as little as %d, below %d", e.Expr, e.Min, e.Lo)
}

// Unwrap returns ErrTotalOutOfRange.
func (e *RangeError) Unwrap() error { return ErrTotalOutOfRange }

// CheckRange returns nil when every total e can roll lies within lo..hi, and
// a *RangeError (wrapping ErrTotalOutOfRange) naming e's Min and Max
// otherwise; nothing is rolled, and it takes time linear in the number of
// terms. An invalid Expr gets Validate's *ParseError.
func (e Expr) CheckRange(lo, hi int) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if mn, mx := e.Min(), e.Max(); mn < lo || mx > hi {
		return &RangeError{Expr: e.String(), Min: mn, Max: mx, Lo: lo, Hi: hi}
	}
	return nil
}

// Validate reports whether e is an expression Parse could return, as a
// *ParseError naming the first bad term (or the whole expression, for no
// terms or more than MaxDice dice). Expressions from Parse are always valid;
// Roll and Distribution validate expressions built by hand.
func (e Expr) Validate() error {
	if e.x != nil {
		return nil // built by Parse
	}
	if len(e.Terms) == 0 {
		return &ParseError{Reason: "empty expression"}
	}
	for _, t := range e.Terms {
		if p := t.problem(); p != "" {
			return &ParseError{Expr: e.String(), Part: t.String(), Reason: p}
		}
	}
	if n := e.DiceCount(); n > MaxDice {
		s := e.String()
		return &ParseError{Expr: s, Part: s, Reason: tooManyDice(n)}
	}
	return nil
}

func tooManyDice(n int) string {
	return fmt.Sprintf("at most %d dice in all, not %d", MaxDice, n)
}

// ParseError is the error Parse and Validate return. Expr is the input;
// Part is its offending part (a term, or the whole expression without
// surrounding whitespace), as the player wrote it for Parse and in canonical
// form for Validate, or empty when the problem is the whole input (empty or
// too long); Reason says what is wrong in lower-case words fit to show a
// player. Error gives `"3d1001": a die has 2 to 1000 sides`. Use errors.As
// to tell a bad expression from other errors.
type ParseError struct {
	Expr   string
	Part   string
	Reason string
	// Err, when set, is what the error wraps (ErrTooManyRolls).
	Err error
}

// Unwrap returns Err.
func (e *ParseError) Unwrap() error { return e.Err }

// Error returns the quoted part and the reason, or the reason alone when
// Part is empty.
func (e *ParseError) Error() string {
	if e.Part == "" {
		return e.Reason
	}
	return strconv.Quote(e.Part) + ": " + e.Reason
}

// MustParse is like Parse but panics when s does not parse. It is meant for
// constant expressions in code, such as MustParse("3d6dh1").
func MustParse(s string) Expr {
	e, err := Parse(s)
	if err != nil {
		panic("dice: MustParse(" + strconv.Quote(s) + "): " + err.Error())
	}
	return e
}
