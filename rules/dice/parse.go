package dice

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Parse parses a dice expression (RULES.md §0.3; the full notation is in
// docs/dice.md): Avrae's d20 grammar with Fudge dice and Dice Maiden's
// success counting. In outline, by binding from loosest to tightest:
//
//	input      = ["(" label ")"] expr [comment]
//	expr       = sum {("==" | "!=" | "<=" | ">=" | "<" | ">") sum}
//	sum        = [sign] product {("+" | "-") product}
//	product    = unary {("*" | "/" | "//" | "%") unary}
//	unary      = [sign] atom               (not after "+" or "-": "3d6++2" is refused)
//	atom       = (number | dice | "(" expr ")" {op} | set) {"[" annotation "]"}
//	dice       = [number] "d" (number | "F" | "%") {op}
//	set        = "(" [expr {"," expr} [","]] ")" {op}
//	op         = ("k" | "p" | "rr" | "ro" | "ra" | "e") selector | "d" ("h" | "l") number
//	           | ("mi" | "ma") number | Dice Maiden's "d" "r" "ir" "rg" "irg" "ie" "t" "tl" "f" "ds"
//	selector   = ["h" | "l" | ">" | "<"] number
//	comment    = "!" text | text after a space where the expression cannot go on
//
// Whitespace is ignored (inside a number too: "1 0d6" is "10d6") and letters
// are case-insensitive. The old notation, NdS and NdF terms with constants,
// + and - and one of kh, kl, dh, dl, parses to the same Terms as ever; every
// other expression is held as a tree (Expr.String gives it back).
//
// Limits, checked before anything is rolled: at most MaxLength characters;
// at most MaxDice dice named, in one term and in all; MinSides to MaxSides
// sides; constants at most MaxConst; kh and kl keep 1 to N of a fixed
// number N of dice, dh and dl drop 0 to N-1 of them; totals within
// ±MaxTotal; at most MaxRolled dice rolled, rerolls and explosions counted
// (the worst case where it is bounded, the expected count otherwise); and no
// reroll or explosion that can never stop (every face rerolled).
//
// Every error is a *ParseError whose message names the offending part,
// quoted as written, such as `"3d6kh4": cannot keep 4 of 3 dice`,
// `"2x6": not a dice term`, `"3d6++2": missing term between "+" and "+"`,
// `expression is 70 characters; at most 64` or `empty expression`.
func Parse(s string) (Expr, error) {
	if n := utf8.RuneCountInString(s); n > MaxLength {
		return Expr{}, &ParseError{Expr: s, Reason: fmt.Sprintf("expression is %d characters; at most %d", n, MaxLength)}
	}
	return parse(s)
}

// parse is Parse without the length limit.
func parse(s string) (Expr, error) {
	label, from := leadingLabel(s)
	p := parser{src: s, i: from, end: len(s)}
	root, comment, err := p.input()
	if err != nil {
		return Expr{}, err
	}
	t := &tree{root: root, comment: joinComment(label, comment), notes: p.notes}
	if err := t.analyse(s, strings.TrimSpace(s[from:p.exprEnd])); err != nil {
		return Expr{}, err
	}
	if terms, ok := t.flat(); ok {
		return Expr{Terms: terms}, nil
	}
	t.finish()
	return Expr{x: t}, nil
}

// joinComment joins a Dice Maiden label and a comment: "Fireball; AOE".
func joinComment(label, comment string) string {
	switch {
	case label == "":
		return comment
	case comment == "":
		return label
	}
	return label + "; " + comment
}

// leadingLabel reads a Dice Maiden label, "(Fireball) 8d6": parenthesised
// text at the start that holds a letter, no digit and no parenthesis, and
// is no expression itself (so "(dF)" is dice). It returns the label (its
// whitespace collapsed; "" for none) and where the expression starts.
func leadingLabel(s string) (string, int) {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(t, "(") {
		return "", 0
	}
	j := strings.IndexByte(t, ')')
	if j < 0 {
		return "", 0
	}
	inner := t[1:j]
	if strings.ContainsAny(inner, "0123456789(") || strings.TrimSpace(t[j+1:]) == "" ||
		!strings.ContainsFunc(inner, unicode.IsLetter) || plainText(inner) != "" {
		return "", 0
	}
	if _, err := parse(inner); err == nil {
		return "", 0
	}
	return collapse(inner), len(s) - len(t) + j + 1
}

// parser reads an expression from src[i:end]. Errors are *fail values
// carrying the position where the parse stopped, so that Parse can try the
// text from a space before it as a comment (input).
type parser struct {
	src     string
	i, end  int
	last    int // the byte after the last character consumed
	exprEnd int // where the expression ends and a comment starts
	notes   []string
	depth   int
	// lastDice is the dice parsed last, for the note on a "!" right after
	// them.
	lastDice *node
	noted    map[string]bool // the operators with a reading note
}

// fail is a parse error at a position (syntax: it may be a comment
// instead).
type fail struct {
	pos    int
	part   string
	reason string
}

// maxDepth bounds the nesting of parentheses (MaxLength allows 32).
const maxDepth = 40

// input parses the whole input: the expression and a trailing comment.
func (p *parser) input() (*node, string, error) {
	start := p.i
	root, f := p.expression()
	if f == nil {
		if comment, ok := p.trailer(); ok {
			return root, collapse(comment), plainTextError(p.src, comment)
		}
		f = p.junk(nil)
	}
	// A syntax error may be the start of a comment, as in Avrae: "1d20 to
	// hit". Try the text from each space before the error, nearest first,
	// that starts a word which is no operator, as the comment.
	for b := f.pos; b > start; b-- {
		if !p.commentStart(b) {
			continue
		}
		q := parser{src: p.src[:b], i: start, end: b}
		if r, g := q.expression(); g == nil {
			q.skip()
			if q.i == b {
				p.notes = q.notes
				p.exprEnd = q.last
				comment := p.src[b:p.end]
				return r, collapse(comment), plainTextError(p.src, comment)
			}
		}
	}
	return nil, "", &ParseError{Expr: p.src, Part: f.part, Reason: f.reason}
}

// trailer reads what follows a complete expression: nothing, or a comment
// started by "!" (Dice Maiden), returned as written. It reports false when
// something else follows.
func (p *parser) trailer() (string, bool) {
	p.exprEnd = p.last
	p.skip()
	if p.i == p.end {
		return "", true
	}
	if p.src[p.i] != '!' {
		return "", false
	}
	text := p.src[p.i+1 : p.end]
	if p.lastDice != nil && p.lastDice.end == p.i {
		d := p.lastDice
		p.note("`!` starts a comment, as in Dice Maiden; to explode on the highest face write `%s`", d.baseText()+"e")
	}
	return text, true
}

// commentStart reports whether a comment may start at b: after a space, at
// a letter that starts a word which is no operator of the notation (so that
// "1d20 kh" stays an error).
func (p *parser) commentStart(b int) bool {
	r, _ := utf8.DecodeRuneInString(p.src[b:])
	prev, _ := utf8.DecodeLastRuneInString(p.src[:b])
	if !unicode.IsSpace(prev) || !unicode.IsLetter(r) {
		return false
	}
	w := b
	for w < len(p.src) && isASCIILetter(p.src[w]) {
		w++
	}
	return !operatorWords[strings.ToLower(p.src[b:w])]
}

// operatorWords are the operators (with a selector's h or l) a comment may
// not start with.
var operatorWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("k kh kl p ph pl d dh dl rr ro ra r ir irg rg e ie mi ma t tl f ds") {
		operatorWords[w] = true
	}
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skip moves past whitespace.
func (p *parser) skip() {
	for p.i < p.end {
		r, w := utf8.DecodeRuneInString(p.src[p.i:p.end])
		if !unicode.IsSpace(r) {
			return
		}
		p.i += w
	}
}

// peek returns the next character that is not whitespace, lower-cased when
// it is an ASCII letter; 0 at the end and utf8.RuneSelf for any non-ASCII
// character.
func (p *parser) peek() byte {
	p.skip()
	return p.byteAt(p.i)
}

func (p *parser) byteAt(i int) byte {
	if i >= p.end {
		return 0
	}
	c := p.src[i]
	if c >= utf8.RuneSelf {
		return utf8.RuneSelf
	}
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

// lookAhead returns the next characters that are not whitespace (up to
// 4), as peek gives them, without consuming them: zeros past the end.
func (p *parser) lookAhead() (out [4]byte) {
	n := 0
	for i := p.i; i < p.end && n < len(out); {
		r, w := utf8.DecodeRuneInString(p.src[i:p.end])
		if !unicode.IsSpace(r) {
			out[n] = p.byteAt(i)
			n++
		}
		i += w
	}
	return out
}

// take consumes the next n characters that are not whitespace.
func (p *parser) take(n int) {
	for ; n > 0; n-- {
		p.skip()
		_, w := utf8.DecodeRuneInString(p.src[p.i:p.end])
		p.i += w
		p.last = p.i
	}
}

// number reads decimal digits, spaces between them ignored, saturating far
// above every limit. ok is false when there is no digit.
func (p *parser) number() (v int, ok bool) {
	const ceiling = 100_000_000 // 10*ceiling+9 fits a 32-bit int
	start, spaced := -1, false
	for {
		before := p.i
		if c := p.peek(); !isDigit(c) {
			p.i = before
			break
		}
		if start < 0 {
			start = p.i
		} else if p.i != p.last {
			spaced = true
		}
		if v < ceiling {
			v = 10*v + int(p.src[p.i]-'0')
		}
		p.i++
		p.last = p.i
		ok = true
	}
	if spaced {
		p.note("`%s` reads as `%d`: spaces inside a number are ignored", collapse(p.src[start:p.last]), v)
	}
	return v, ok
}

// note adds a reading note (docs/dice.md), once.
func (p *parser) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	for _, n := range p.notes {
		if n == s {
			return
		}
	}
	p.notes = append(p.notes, s)
}

// part returns src[from:to] without surrounding whitespace, for an error.
func (p *parser) part(from, to int) string { return strings.TrimSpace(p.src[from:to]) }

func (p *parser) failf(pos, from, to int, format string, args ...any) *fail {
	return &fail{pos: pos, part: p.part(from, to), reason: fmt.Sprintf(format, args...)}
}

// whole returns the error naming the whole expression so far.
func (p *parser) wholef(format string, args ...any) *fail {
	return p.failf(p.i, 0, p.end, format, args...)
}

// structural reports whether c is a character of the notation's structure
// (operators, parentheses, commas, brackets) or the end: what may follow an
// atom.
func structural(c byte) bool { return c == 0 || strings.IndexByte("+-*/%<>=!),[]", c) >= 0 }

// termEnd returns where the junk at from ends: at the next character of the
// notation's structure, or the end.
func (p *parser) termEnd(from int) int {
	for i := from; i < p.end; i++ {
		if c := p.src[i]; c < utf8.RuneSelf && c != '(' && c != 0 && structural(c) {
			return i
		}
	}
	return p.end
}

// junk is the error for what follows an atom (nil: an expression) and
// continues nothing: after dice, an unknown suffix (named in lower case
// without spaces, as RULES.md §0.3 spelled it); after a number, no dice
// term.
func (p *parser) junk(atom *node) *fail {
	p.skip()
	at := p.i
	if at >= p.end {
		return p.wholef("unexpected end")
	}
	switch p.src[at] {
	case ')':
		return p.failf(at, 0, p.end, "%q without %q", ")", "(")
	case ']':
		return p.failf(at, 0, p.end, "%q without %q", "]", "[")
	case ',':
		return p.failf(at, 0, p.end, "a comma outside parentheses")
	}
	end := p.termEnd(at)
	switch {
	case atom != nil && atom.kind == nodeDice:
		hint := " (use kh, kl, dh or dl)"
		if len(atom.ops) > 0 {
			hint = ""
		}
		return p.failf(at, atom.start, end, "unknown suffix %q%s", normalise(p.src[at:end]), hint)
	case atom != nil && atom.kind == nodeNum:
		return p.failf(at, atom.start, end, "not a dice term")
	}
	return p.failf(at, at, end, "unexpected %q", normalise(p.src[at:end]))
}

// normalise returns s lower-cased (ASCII letters) without whitespace.
func normalise(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
		case 'A' <= r && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// collapse trims s and collapses its whitespace runs into single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// expression parses comparisons, the loosest binding.
func (p *parser) expression() (*node, *fail) {
	left, f := p.sum("")
	for f == nil {
		op, ok := p.comparisonOp()
		if !ok {
			break
		}
		var right *node
		if right, f = p.sum(op.String()); f == nil {
			left = p.binary(op, left, right)
			p.compareNote(left)
		}
	}
	return left, f
}

func (p *parser) binary(op binaryOp, a, b *node) *node {
	return &node{kind: nodeBinary, op: op, kids: []*node{a, b}, start: a.start, end: b.end}
}

// comparisonOp consumes a comparison operator.
func (p *parser) comparisonOp() (binaryOp, bool) {
	la := p.lookAhead()
	for _, op := range []binaryOp{opEq, opNe, opLe, opGe} {
		if s := op.String(); la[0] == s[0] && la[1] == s[1] {
			p.take(2)
			return op, true
		}
	}
	switch la[0] {
	case '<':
		p.take(1)
		return opLt, true
	case '>':
		p.take(1)
		return opGt, true
	}
	return 0, false
}

// sum parses + and -. prev is the operator before it ("" at the start or
// after a parenthesis or comma).
func (p *parser) sum(prev string) (*node, *fail) {
	left, f := p.product(prev)
	for f == nil {
		c := p.peek()
		if c != '+' && c != '-' {
			break
		}
		p.take(1)
		op := opAdd
		if c == '-' {
			op = opSub
		}
		var right *node
		if right, f = p.product(op.String()); f == nil {
			left = p.binary(op, left, right)
		}
	}
	return left, f
}

// product parses *, /, // and %.
func (p *parser) product(prev string) (*node, *fail) {
	left, f := p.unary(prev)
	for f == nil {
		la := p.lookAhead()
		var op binaryOp
		switch {
		case la[0] == '/' && la[1] == '/':
			op = opFloorDiv
		case la[0] == '/':
			op = opDiv
		case la[0] == '*':
			op = opMul
		case la[0] == '%':
			op = opMod
		default:
			return left, nil
		}
		p.take(len(op.String()))
		var right *node
		if right, f = p.unary(op.String()); f == nil {
			left = p.binary(op, left, right)
		}
	}
	return left, f
}

// unary parses a sign before an atom, where one may stand: not after + or -
// or another sign ("3d6++2" and "--1" are refused as RULES.md §0.3 did).
func (p *parser) unary(prev string) (*node, *fail) {
	c := p.peek()
	if c != '+' && c != '-' {
		return p.atom(prev)
	}
	if prev == "+" || prev == "-" {
		return nil, p.wholef("missing term between %q and %q", prev, string(c))
	}
	start := p.i
	p.take(1)
	x, f := p.atom(string(c))
	if f != nil || c == '+' {
		return x, f
	}
	return &node{kind: nodeNeg, kids: []*node{x}, start: start, end: x.end}, nil
}

// atom parses a number, dice, parentheses or a set, with their operators
// and annotations.
func (p *parser) atom(prev string) (*node, *fail) {
	c := p.peek()
	var n *node
	var f *fail
	switch {
	case c == 0 && prev == "":
		return nil, &fail{pos: p.i, reason: "empty expression"}
	case c == 0:
		return nil, p.wholef("missing term after %q", prev)
	case c == '(':
		n, f = p.group()
	case isDigit(c) || c == 'd':
		n, f = p.numberOrDice()
	case structural(c) && prev == "":
		return nil, p.wholef("missing term before %q", string(p.src[p.i]))
	case structural(c):
		return nil, p.wholef("missing term between %q and %q", prev, string(p.src[p.i]))
	default:
		return nil, p.failf(p.i, p.i, p.termEnd(p.i), "not a dice term")
	}
	if f != nil {
		return nil, f
	}
	if f := p.annotations(n); f != nil {
		return nil, f
	}
	if c := p.peek(); !structural(c) {
		return nil, p.junk(n)
	}
	return n, nil
}

// annotations reads "[text]" after an atom (Avrae): shown with its value,
// never counted.
func (p *parser) annotations(n *node) *fail {
	for p.peek() == '[' {
		open := p.i
		closing := strings.IndexByte(p.src[open:p.end], ']')
		if closing < 0 {
			return p.failf(open, open, p.end, "missing %q", "]")
		}
		text := p.src[open+1 : open+closing]
		if strings.ContainsRune(text, '[') {
			return p.failf(open, open, open+closing+1, "an annotation cannot hold %q", "[")
		}
		if why := plainText(text); why != "" {
			return p.failf(open, open, open+closing+1, "%s", why)
		}
		n.annotations = append(n.annotations, collapse(text))
		p.i = open + closing + 1
		p.last = p.i
		n.end = p.i
	}
	return nil
}

// plainText returns why text cannot be shown as plain text in a reply
// (Discord markdown or a mention), or "" when it can: letters, digits,
// marks, spaces, non-ASCII symbols and - ' . , : ; ? ! / & + = % ( ) " $.
func plainText(text string) string {
	for _, r := range text {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), r == ' ', r == '\t':
		case r < utf8.RuneSelf && strings.ContainsRune(`-'.,:;?!/&+=%()"$`, r):
		case r >= utf8.RuneSelf && !unicode.IsControl(r) && !unicode.IsSpace(r):
		default:
			return fmt.Sprintf("a comment or annotation cannot hold %q", string(r))
		}
	}
	return ""
}

// plainTextError is plainText's refusal of a comment as a *ParseError.
func plainTextError(src, text string) error {
	if why := plainText(text); why != "" {
		return &ParseError{Expr: src, Part: strings.TrimSpace(text), Reason: why}
	}
	return nil
}

// numberOrDice parses a constant or dice with their operators.
func (p *parser) numberOrDice() (*node, *fail) {
	start := p.i
	count, hasCount := p.number()
	if p.peek() != 'd' {
		n := &node{kind: nodeNum, val: count, start: start, end: p.last}
		if count > MaxConst {
			return nil, p.failf(start, start, p.last, "a constant is at most %d", MaxConst)
		}
		return n, nil
	}
	p.take(1)
	if !hasCount {
		count = 1
	}
	n := &node{kind: nodeDice, count: count, start: start}
	switch c := p.peek(); {
	case c == 'f':
		p.take(1)
		n.die = Die{Sides: 3, Fudge: true}
	case c == '%':
		p.take(1)
		n.die, n.pct = Die{Sides: 100}, true
		p.note("`d%%` is a d100 (1 to 100), as in Dice Maiden; Avrae's tens die is `1d10*10-10`")
	default:
		sides, ok := p.number()
		if !ok {
			return nil, p.failf(p.i, start, p.termEnd(p.i), "missing the number of sides")
		}
		n.die.Sides = sides
	}
	n.end = p.last
	if f := p.operators(n, n); f != nil {
		return nil, f
	}
	switch {
	case count < 1:
		return nil, p.failf(start, start, n.end, "roll at least 1 die")
	case count > MaxDice:
		return nil, p.failf(start, start, n.end, "at most %d dice", MaxDice)
	case !n.die.Fudge && (n.die.Sides < MinSides || n.die.Sides > MaxSides):
		return nil, p.failf(start, start, n.end, "a die has %d to %d sides", MinSides, MaxSides)
	}
	p.lastDice = n
	return n, nil
}

// group parses parentheses, "(x)", or a set, "(a, b, …)", with operators.
func (p *parser) group() (*node, *fail) {
	start := p.i
	if p.depth++; p.depth > maxDepth {
		return nil, p.wholef("parentheses nested more than %d deep", maxDepth)
	}
	defer func() { p.depth-- }()
	p.take(1)
	n := &node{kind: nodeSet, start: start}
	if p.peek() == ')' {
		p.take(1)
	} else {
		for {
			k, f := p.expression()
			if f != nil {
				return nil, f
			}
			n.kids = append(n.kids, k)
			c := p.peek()
			if c == ')' {
				p.take(1)
				break
			}
			if c != ',' {
				if c == 0 {
					return nil, p.failf(p.i, start, p.end, "missing %q", ")")
				}
				return nil, p.junk(nil)
			}
			p.take(1)
			if p.peek() == ')' {
				p.take(1)
				n.comma = true
				break
			}
		}
	}
	n.end = p.last
	if len(n.kids) == 1 && !n.comma {
		n.kind = nodeParen
	}
	target := n
	if pool := n.pool(); pool != nil {
		target = pool
	}
	if f := p.operators(n, target); f != nil {
		return nil, f
	}
	if n.kind == nodeParen && len(n.ops) > 0 && n.pool() == nil {
		n.kind = nodeSet // (1d6+2)kh1: a set of one value, as in Avrae
	}
	return n, nil
}

// opSpelling is one way to write an operator: its letters, what it does,
// and how its selector is read.
type opSpelling struct {
	word string
	kind opKind
	sel  selRule
}

// selRule says what may follow an operator's letters.
type selRule uint8

const (
	selAny         selRule = iota // Avrae's selector: [h|l|<|>]X
	selDrop                       // d: hX or lX as in RULES.md §0.3, or X, the lowest X (Dice Maiden)
	selNumber                     // X only (mi, ma, t, tl, f, r, ir, rg, irg)
	selOptional                   // X or nothing (ie, ds)
	selAnyOptional                // Avrae's selector or nothing (e: nothing is the highest face, as in Dice Maiden)
)

// spellings, longest first where one starts another.
var spellings = []opSpelling{
	{"irg", opReroll, selNumber},
	{"ir", opReroll, selNumber},
	{"ie", opExplode, selOptional},
	{"rr", opReroll, selAny},
	{"ro", opRerollOnce, selAny},
	{"ra", opRerollAdd, selAny},
	{"rg", opRerollOnce, selNumber},
	{"r", opRerollOnce, selNumber},
	{"mi", opMin, selNumber},
	{"ma", opMax, selNumber},
	{"ds", opDouble, selOptional},
	{"tl", opTarget, selNumber},
	{"t", opTarget, selNumber},
	{"f", opFailure, selNumber},
	{"k", opKeep, selAny},
	{"p", opDrop, selAny},
	{"d", opDrop, selDrop},
	{"e", opExplode, selAnyOptional},
}

// operators parses the operators after an atom n (dice, parentheses or a
// set); target is the dice node they act on (n itself, or the dice inside
// parentheses), or n when its value is not dice (then only keep and drop
// apply). Consecutive operators of one kind merge (Avrae).
func (p *parser) operators(n, target *node) *fail {
	dice := target.kind == nodeDice
	for {
		before := p.i
		la := p.lookAhead()
		var sp *opSpelling
		for i := range spellings {
			s := &spellings[i]
			if string(la[:len(s.word)]) == s.word {
				sp = s
				break
			}
		}
		if sp == nil {
			p.i = before
			return nil
		}
		if !dice && sp.kind != opKeep && sp.kind != opDrop {
			p.take(len(sp.word))
			return p.failf(p.i, n.start, p.termEnd(p.i), "%q works on dice only", sp.word)
		}
		p.take(len(sp.word))
		o, f := p.operator(n, target, sp)
		if f != nil {
			return f
		}
		n.end = p.last
		merge := len(n.ops) > 0 && n.ops[len(n.ops)-1].kind == o.kind
		switch o.kind {
		case opMin, opMax, opTarget, opFailure, opDouble:
			merge = false
		}
		if merge {
			last := &n.ops[len(n.ops)-1]
			last.sels = append(last.sels, o.sels...)
			last.texts = append(last.texts, o.texts...)
		} else {
			n.ops = append(n.ops, o)
		}
	}
}

// operator reads the selector of the operator sp, whose letters are
// consumed, and notes a reading that another bot gives it differently.
func (p *parser) operator(n, target *node, sp *opSpelling) (diceOp, *fail) {
	o := diceOp{kind: sp.kind}
	text := sp.word
	sel := selector{kind: selLiteral}
	missing := func() *fail {
		return p.failf(p.i, n.start, p.termEnd(p.i), "missing the number after %q", text)
	}
	c := p.peek()
	switch sp.sel {
	case selAny, selDrop, selAnyOptional:
		switch c {
		case 'h':
			sel.kind = selHighest
		case 'l':
			sel.kind = selLowest
		case '>':
			sel.kind = selAbove
		case '<':
			sel.kind = selBelow
		}
		if sel.kind != selLiteral {
			if sp.sel == selDrop && (c == '<' || c == '>') {
				return o, p.failf(p.i, n.start, p.termEnd(p.i), "%q drops the highest (dh) or the lowest (dl); for dice %s a number write p%s", text, map[byte]string{'<': "below", '>': "above"}[c], string(c))
			}
			p.take(1)
			text += string(c)
		} else if sp.sel == selDrop {
			sel.kind = selLowest // Dice Maiden: d1 drops the lowest 1
		}
	case selNumber:
		if c == 'h' || c == 'l' || c == '<' || c == '>' {
			p.take(1)
			return o, p.failf(p.i, n.start, p.termEnd(p.i), "%q takes a plain number, not a selector (%s…)", sp.word, sp.word+string(c))
		}
	}
	v, ok := p.number()
	switch {
	case ok:
		text += strconv.Itoa(v)
		sel.n = v
	case sp.sel == selOptional || sp.sel == selAnyOptional && text == sp.word:
		sel.kind = selMax
	default:
		return o, missing()
	}
	o.sels = []selector{sel}
	o.texts = []string{text}
	p.readingNote(n, target, sp, sel, text)
	return dmSemantics(o, sp, sel), nil
}

// dmSemantics turns Dice Maiden's spellings into the selector they mean:
// r2 rerolls dice at or below 2 (<3), rg5 at or above 5 (>4), ie6
// explodes at or above 6.
func dmSemantics(o diceOp, sp *opSpelling, sel selector) diceOp {
	switch sp.word {
	case "r", "ir":
		o.sels[0] = selector{kind: selBelow, n: sel.n + 1}
	case "rg", "irg":
		o.sels[0] = selector{kind: selAbove, n: sel.n - 1}
	case "ie":
		if sel.kind == selLiteral {
			o.sels[0] = selector{kind: selAbove, n: sel.n - 1}
		}
	}
	return o
}

// baseText returns the dice of n without operators: "4d6", "1dF".
func (n *node) baseText() string {
	c := *n
	c.ops, c.annotations = nil, nil
	return c.text()
}

// readingNote notes, for an operator that Avrae and Dice Maiden read
// differently, the reading used and how to write the other
// (docs/dice.md, "Where the bots differ").
func (p *parser) readingNote(n, target *node, sp *opSpelling, sel selector, text string) {
	if target.kind != nodeDice || p.noted[sp.word] {
		return // one note per operator: 10d6k1k2k3 says it once
	}
	switch sp.word { // the spellings the bots read differently
	case "k", "p", "e":
		if sel.kind != selLiteral && sel.kind != selMax {
			return
		}
	case "d":
		if text != "d"+strconv.Itoa(sel.n) {
			return
		}
	case "r", "rg":
	default:
		return
	}
	first := len(n.ops) == 0 && n == target
	subject := "`" + text + "`"
	alt := func(t string) string {
		if first {
			return "`" + target.baseText() + t + "`"
		}
		return "`" + t + "`"
	}
	if first {
		subject = alt(text)
	}
	top := target.die.Sides
	if target.die.Fudge {
		top = 1
	}
	var note string
	switch {
	case sp.word == "k" && sel.kind == selLiteral:
		note = fmt.Sprintf("%s keeps the dice showing %d, as in Avrae; for the highest %d write %s", subject, sel.n, sel.n, alt(fmt.Sprintf("kh%d", sel.n)))
	case sp.word == "p" && sel.kind == selLiteral:
		note = fmt.Sprintf("%s drops the dice showing %d, as in Avrae; to drop the lowest %d write %s", subject, sel.n, sel.n, alt(fmt.Sprintf("pl%d", sel.n)))
	case sp.word == "d" && text == fmt.Sprintf("d%d", sel.n):
		note = fmt.Sprintf("%s drops the lowest %d, as in Dice Maiden; to drop the dice showing %d write %s", subject, sel.n, sel.n, alt(fmt.Sprintf("p%d", sel.n)))
	case sp.word == "e" && sel.kind == selLiteral && sel.n < top && !target.die.Fudge:
		note = fmt.Sprintf("%s explodes on %d only, and again on every added %d, as in Avrae; Dice Maiden explodes on %d or more, each die once: for %d or more write %s", subject, sel.n, sel.n, sel.n, sel.n, alt(fmt.Sprintf("e>%d", sel.n-1)))
	case sp.word == "e" && (sel.kind == selMax || sel.kind == selLiteral && sel.n == top):
		note = fmt.Sprintf("%s explodes again on every added %s, as in Avrae; Dice Maiden explodes each die once", subject, faceString(top, target.die.Fudge))
	case sp.word == "r":
		note = fmt.Sprintf("%s rerolls each die showing %d or less once, as in Dice Maiden; to reroll only the dice showing %d write %s", subject, sel.n, sel.n, alt(fmt.Sprintf("ro%d", sel.n)))
	case sp.word == "rg":
		note = fmt.Sprintf("%s rerolls each die showing %d or more once, as in Dice Maiden; to reroll only the dice showing %d write %s", subject, sel.n, sel.n, alt(fmt.Sprintf("ro%d", sel.n)))
	}
	if note != "" {
		if p.noted == nil {
			p.noted = map[string]bool{}
		}
		p.noted[sp.word] = true
		p.note("%s", note)
	}
}

// compareNote notes that a comparison right after dice compares their
// total: Roll20's 3d6>3 counts the dice above 3.
func (p *parser) compareNote(cmp *node) {
	d := cmp.kids[0]
	if d.kind != nodeDice || d.count < 2 || len(d.ops) > 0 || cmp.kids[1].kind != nodeNum {
		return
	}
	n := cmp.kids[1].val
	var t string
	switch cmp.op {
	case opGt:
		t = fmt.Sprintf("t%d", n+1)
	case opGe:
		t = fmt.Sprintf("t%d", n)
	case opLt:
		t = fmt.Sprintf("tl%d", n-1)
	case opLe:
		t = fmt.Sprintf("tl%d", n)
	default:
		return
	}
	p.note("`%s` compares the total with %d (1 or 0), as in Avrae; to count the dice instead write `%s`", d.baseText()+cmp.op.String()+strconv.Itoa(n), n, d.baseText()+t)
}
