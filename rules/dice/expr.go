package dice

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// Expr is a parsed dice expression (RULES.md §0.3): its terms in the order
// written. Build one with Parse or MustParse; an Expr built by hand must
// satisfy Validate. The zero Expr is not valid (it has no terms).
type Expr struct {
	Terms []Term
}

// String returns e in canonical notation: lower case except the F of Fudge
// dice, no spaces, no leading +, every dice term with its count ("d20" is
// "1d20"), numbers without leading zeros; for example "3d6dh1+2", "4dFkh3"
// or "-1d4+5". Parse(e.String()) gives e back, except that String can be
// longer than MaxLength (by at most half, when the input wrote "dS" for
// "1dS"), and Parse then reports the length; keep the input or the Terms
// when an expression must be parsed again later.
func (e Expr) String() string {
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

// DiceCount returns the number of dice e rolls (kept and dropped).
func (e Expr) DiceCount() int {
	n := 0
	for _, t := range e.Terms {
		n += t.Count
	}
	return n
}

// Min returns the lowest total e can roll.
func (e Expr) Min() int {
	m := 0
	for _, t := range e.Terms {
		lo, _ := t.bounds()
		m += lo
	}
	return m
}

// Max returns the highest total e can roll.
func (e Expr) Max() int {
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
}

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

// Parse parses a dice expression in the notation of RULES.md §0.3:
//
//	expr   = [sign] term {sign term}     sign = "+" | "-"
//	term   = number | [number] "d" (number | "F") [suffix]
//	suffix = ("kh" | "kl" | "dh" | "dl") number
//
// Whitespace is ignored anywhere and letters are case-insensitive. The input
// may have at most MaxLength characters (whitespace included) and MaxDice
// dice in all; a die has MinSides to MaxSides sides; a constant is at most
// MaxConst. kh and kl keep 1 to N of N dice; dh and dl drop 0 to N-1 of them,
// so at least one die always counts. An expression of constants alone is
// valid.
//
// Every error is a *ParseError whose message names the offending part,
// quoted as written, such as `"3d6kh4": cannot keep 4 of 3 dice`,
// `"2x6": not a dice term`, `"3d6++2": missing term between "+" and "+"`,
// `expression is 70 characters; at most 64` or `empty expression`.
func Parse(s string) (Expr, error) {
	if n := utf8.RuneCountInString(s); n > MaxLength {
		return Expr{}, &ParseError{Expr: s, Reason: fmt.Sprintf("expression is %d characters; at most %d", n, MaxLength)}
	}
	p := parser{src: s}
	terms, err := p.parse()
	if err != nil {
		return Expr{}, err
	}
	e := Expr{Terms: terms}
	if n := e.DiceCount(); n > MaxDice {
		return Expr{}, p.errorf(strings.TrimSpace(s), "%s", tooManyDice(n))
	}
	return e, nil
}

// parser splits the input into terms, each kept both normalised (lower
// case, no whitespace) and as written, so that errors quote the player's
// own text.
type parser struct {
	src  string
	norm [4 * MaxLength]byte // the current term, normalised
	n    int                 // bytes used in norm
}

func (p *parser) errorf(part, format string, args ...any) *ParseError {
	return &ParseError{Expr: p.src, Part: part, Reason: fmt.Sprintf(format, args...)}
}

func (p *parser) parse() ([]Term, error) {
	s := p.src
	terms := make([]Term, 0, 1+strings.Count(s, "+")+strings.Count(s, "-"))
	sign := 1
	op := ""           // the operator before the current term, if any
	start, end := 0, 0 // the current term in s, as written
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			continue
		case r == '+' || r == '-':
			if p.n == 0 {
				// No term since the last operator; at the very start
				// (op == "") this is the expression's sign.
				if op != "" {
					return nil, p.errorf(strings.TrimSpace(s), "missing term between %q and %q", op, string(r))
				}
			} else {
				t, err := p.term(sign, s[start:end])
				if err != nil {
					return nil, err
				}
				terms = append(terms, t)
			}
			op = string(r)
			sign = 1
			if r == '-' {
				sign = -1
			}
		default:
			if p.n == 0 {
				start = i
			}
			end = i + w
			if r < utf8.RuneSelf {
				c := byte(r)
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				p.norm[p.n] = c
				p.n++
			} else {
				p.n += copy(p.norm[p.n:], s[i:end])
			}
		}
	}
	if p.n == 0 {
		if op == "" {
			return nil, &ParseError{Expr: s, Reason: "empty expression"}
		}
		return nil, p.errorf(strings.TrimSpace(s), "missing term after %q", op)
	}
	t, err := p.term(sign, s[start:end])
	if err != nil {
		return nil, err
	}
	return append(terms, t), nil
}

// term parses the normalised current term and resets it. written is the
// term as the player wrote it, for error messages.
func (p *parser) term(sign int, written string) (Term, error) {
	t := p.norm[:p.n]
	p.n = 0
	bad := func(format string, args ...any) (Term, error) {
		return Term{}, p.errorf(written, format, args...)
	}
	count, i, hasCount := digits(t, 0)
	if i == len(t) {
		term := Term{Sign: sign, Const: count}
		if r := term.problem(); r != "" {
			return bad("%s", r)
		}
		return term, nil
	}
	if t[i] != 'd' {
		return bad("not a dice term")
	}
	if !hasCount {
		count = 1
	}
	term := Term{Sign: sign, Count: count}
	i++
	if i < len(t) && t[i] == 'f' {
		term.Fudge, term.Sides = true, 3
		i++
	} else {
		var ok bool
		term.Sides, i, ok = digits(t, i)
		if !ok {
			return bad("missing the number of sides")
		}
	}
	if i < len(t) {
		mode := suffix(t[i:])
		if mode == KeepAll {
			return bad("unknown suffix %q (use kh, kl, dh or dl)", t[i:])
		}
		name := t[i : i+2]
		var ok bool
		term.Keep = mode
		term.KeepN, i, ok = digits(t, i+2)
		if !ok {
			return bad("missing the number after %q", name)
		}
		if i < len(t) {
			if suffix(t[i:]) != KeepAll {
				return bad("only one keep or drop suffix per term")
			}
			return bad("unknown suffix %q", t[i:])
		}
	}
	if r := term.problem(); r != "" {
		return bad("%s", r)
	}
	return term, nil
}

// digits reads the decimal digits of t from i. It returns their value
// (saturated far above every limit), the index after them and whether there
// was at least one digit.
func digits(t []byte, i int) (v, next int, ok bool) {
	const ceiling = 100_000_000 // 10*ceiling+9 fits a 32-bit int
	j := i
	for ; j < len(t) && '0' <= t[j] && t[j] <= '9'; j++ {
		if v < ceiling {
			v = 10*v + int(t[j]-'0')
		}
	}
	return v, j, j > i
}

// suffix returns the keep mode t starts with, or KeepAll when it starts with
// none.
func suffix(t []byte) KeepMode {
	if len(t) < 2 {
		return KeepAll
	}
	switch string(t[:2]) {
	case "kh":
		return KeepHighest
	case "kl":
		return KeepLowest
	case "dh":
		return DropHighest
	case "dl":
		return DropLowest
	}
	return KeepAll
}
