package dice

import (
	"strconv"
	"strings"
)

// This file holds the expression tree of the full notation (docs/dice.md):
// what Parse returns for an expression beyond the sum of terms of RULES.md
// §0.3, held in Expr.x. An expression of the old notation keeps its Terms
// and never builds a tree, so its parsing, rolling, rendering and odds are
// those of RULES.md §0.3 to the byte.

// nodeKind says what a node of the tree is.
type nodeKind uint8

const (
	nodeNum    nodeKind = iota // a whole number
	nodeDice                   // NdS, NdF or Nd% with its operators
	nodeSet                    // (a, b, …) with keep/drop operators, or (x) with operators on a value that is not dice
	nodeParen                  // (x), possibly with operators on the dice of x
	nodeNeg                    // -x
	nodeBinary                 // x op y: arithmetic and comparisons
)

// binaryOp is the operator of a nodeBinary.
type binaryOp uint8

const (
	opAdd binaryOp = iota
	opSub
	opMul
	opDiv      // "/": rounds down (docs/dice.md)
	opFloorDiv // "//": rounds down
	opMod      // "%": the remainder of "//", with the divisor's sign
	opEq
	opNe
	opLt
	opGt
	opLe
	opGe
)

var binarySpelling = [...]string{"+", "-", "*", "/", "//", "%", "==", "!=", "<", ">", "<=", ">="}

func (o binaryOp) String() string { return binarySpelling[o] }

// comparison reports whether o compares (gives 1 or 0).
func (o binaryOp) comparison() bool { return o >= opEq }

// opKind is what an operator on dice or a set does (docs/dice.md).
type opKind uint8

const (
	opKeep       opKind = iota // k: keep the selected, drop the rest
	opDrop                     // p, d: drop the selected
	opReroll                   // rr (ir, irg): reroll the selected until none is selected
	opRerollOnce               // ro (r, rg): reroll each selected die once
	opRerollAdd                // ra: roll one more die for one selected die
	opExplode                  // e (ie): roll one more die for every selected die, again for the new ones
	opMin                      // mi: raise each kept die below N to N
	opMax                      // ma: lower each kept die above N to N
	opTarget                   // t, tl: count kept dice at or above (tl: at or below) N as successes
	opFailure                  // f: count kept dice at or below N as failures, each subtracting one
	opDouble                   // ds: a success at or above (with tl: at or below) N counts twice
)

// selKind is how a selector picks among the kept dice (or values of a set).
type selKind uint8

const (
	selLiteral selKind = iota // X: those showing X
	selHighest                // hX: the X highest
	selLowest                 // lX: the X lowest
	selAbove                  // >X: those above X
	selBelow                  // <X: those below X
	selMax                    // no number: those showing the die's highest face (e), or the target (ds)
)

// selector is one selector of an operator; an operator's selectors are
// OR-ed.
type selector struct {
	kind selKind
	n    int
}

// byValue reports whether s picks a die by its own value alone (not by its
// rank among the others).
func (s selector) byValue() bool { return s.kind != selHighest && s.kind != selLowest }

// matches reports whether a die showing v is picked by a value selector s;
// top is the die's highest face (for selMax).
func (s selector) matches(v, top int) bool {
	switch s.kind {
	case selLiteral:
		return v == s.n
	case selAbove:
		return v > s.n
	case selBelow:
		return v < s.n
	case selMax:
		return v == top
	}
	return false
}

// diceOp is one operator after dice or a set, with its selectors (OR-ed:
// consecutive operators of one kind merge, as in Avrae, except mi, ma and
// the counting operators) and the text of each as written (lower case, no
// spaces), which String joins.
type diceOp struct {
	kind  opKind
	sels  []selector
	texts []string
}

// node is a node of the expression tree. start and end are its span in the
// input (end after its last character; annotations included), for errors
// that quote the player's own text.
type node struct {
	kind        nodeKind
	op          binaryOp // nodeBinary
	val         int      // nodeNum
	count       int      // nodeDice
	die         Die      // nodeDice
	pct         bool     // nodeDice written d%
	ops         []diceOp // nodeDice, nodeSet, nodeParen
	kids        []*node  // nodeSet: its values; nodeParen, nodeNeg: one; nodeBinary: two
	comma       bool     // nodeSet written with a trailing comma, "(1,)"
	annotations []string
	start, end  int
	an          analysis // what analyse found
}

// pool returns the dice node whose dice n's operators act on: n itself for
// dice, the dice inside parentheses, or nil when n's value is not dice.
func (n *node) pool() *node {
	for n.kind == nodeParen {
		n = n.kids[0]
	}
	if n.kind == nodeDice {
		return n
	}
	return nil
}

// tree is the parsed form of an expression beyond RULES.md §0.3: its root,
// the comment (a Dice Maiden label and any trailing text), the reading
// notes (docs/dice.md, "Where the bots differ") and what static analysis
// found (analyse).
type tree struct {
	root    *node
	comment string
	notes   []string
	canon   string
	named   int    // dice the expression names
	detail  bool   // the roll has more to show than its total: dice, an annotation or a set's dropped values
	bound   int    // the dice a roll may roll, rerolls and explosions counted (at most MaxRolled)
	lo, hi  int64  // the lowest and highest total
	totals  int64  // at most this many different totals
	unbound string // why there are no exact odds ("" when there are)
	info    map[*node]*analysis
}

// write writes n in canonical notation: lower case except the F of Fudge
// dice, no spaces but after a set's commas, every dice term with its count;
// annotations when ann is set.
func (n *node) write(b *strings.Builder, ann bool) {
	switch n.kind {
	case nodeNum:
		b.WriteString(strconv.Itoa(n.val))
	case nodeDice:
		b.WriteString(strconv.Itoa(n.count))
		switch {
		case n.die.Fudge:
			b.WriteString("dF")
		case n.pct:
			b.WriteString("d%")
		default:
			b.WriteByte('d')
			b.WriteString(strconv.Itoa(n.die.Sides))
		}
	case nodeSet:
		if n.comma || len(n.kids) != 1 {
			b.WriteByte('(')
			for i, k := range n.kids {
				if i > 0 {
					b.WriteString(", ")
				}
				k.write(b, ann)
			}
			if n.comma {
				b.WriteByte(',')
			}
			b.WriteByte(')')
			break
		}
		fallthrough
	case nodeParen:
		b.WriteByte('(')
		n.kids[0].write(b, ann)
		b.WriteByte(')')
	case nodeNeg:
		b.WriteByte('-')
		n.kids[0].write(b, ann)
	case nodeBinary:
		n.kids[0].write(b, ann)
		b.WriteString(n.op.String())
		n.kids[1].write(b, ann)
	}
	for _, o := range n.ops {
		for _, t := range o.texts {
			b.WriteString(t)
		}
	}
	if ann {
		for _, a := range n.annotations {
			b.WriteByte('[')
			b.WriteString(a)
			b.WriteByte(']')
		}
	}
}

// text returns n in canonical notation, annotations included.
func (n *node) text() string {
	var b strings.Builder
	n.write(&b, true)
	return b.String()
}

// walk calls f for n and every node below it, parents first.
func (n *node) walk(f func(*node)) {
	f(n)
	for _, k := range n.kids {
		k.walk(f)
	}
}
