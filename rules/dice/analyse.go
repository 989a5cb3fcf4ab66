package dice

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Limits of the full notation (docs/dice.md, "Limits"), besides those of
// RULES.md §0.3.
const (
	// MaxRolled is the most dice one roll may roll, rerolls and explosions
	// counted (Avrae's limit). Parse refuses an expression whose worst case
	// is more, or, where rerolling or exploding has no worst case, whose
	// expected count is more than half of it; a roll that still reaches it
	// stops and fails with ErrTooManyRolls.
	MaxRolled = 1000
	// MaxTotal bounds the absolute value of every total and of every part
	// of one, so that nothing overflows: Parse refuses an expression that
	// can pass it.
	MaxTotal = 1_000_000_000
)

// counting is how a pool's dice count when it counts successes (Dice
// Maiden's t, tl, f, ds): a kept die meeting the target is a success, one
// also meeting double counts twice, one at or below fail subtracts one.
type counting struct {
	low                  bool // tl: the target and double are at or below
	target, double, fail int
	hasTarget            bool
	hasFailure           bool
	hasDouble            bool
	doubleAtTarget       bool // ds without a number: the target's
}

// weight returns what a kept die showing v adds to the count.
func (c *counting) weight(v int) int {
	w := 0
	if c.hasTarget && (c.low && v <= c.target || !c.low && v >= c.target) {
		w = 1
		if c.hasDouble && (c.low && v <= c.double || !c.low && v >= c.double) {
			w = 2
		}
	}
	if c.hasFailure && v <= c.fail {
		w--
	}
	return w
}

// weights returns the lowest and highest weight of a value in lo..hi.
func (c *counting) weights(lo, hi int) (int, int) {
	wlo, whi := math.MaxInt, math.MinInt
	for _, v := range []int{lo, hi, c.target - 1, c.target, c.target + 1, c.double - 1, c.double, c.double + 1, c.fail, c.fail + 1} {
		if v < lo || v > hi {
			continue
		}
		w := c.weight(v)
		wlo, whi = min(wlo, w), max(whi, w)
	}
	return wlo, whi
}

// poolState is what analysis knows of a pool of dice after some of its
// operators.
type poolState struct {
	dice     *node // the dice node
	size     int   // dice in the pool, or -1 once explosions can add some
	kept     int   // dice kept, or -1 when it depends on the roll
	kmin     int   // at least this many dice kept
	kmax     int   // at most this many dice kept
	vlo, vhi int   // the value of a kept die
	expect   float64
	worst    float64 // dice in the pool, expected and at worst (may be +Inf)
	rolledE  float64
	rolledW  float64 // dice rolled for it, expected and at worst
	count    *counting
	ops      []diceOp // every operator on the pool, in order (inner parentheses first)
	explodes bool     // an explosion can happen
}

// analysis is what analyse found of a node.
type analysis struct {
	lo, hi  int64
	card    int64 // at most this many different values
	named   int
	rolledE float64
	rolledW float64
	pool    *poolState // the node's pool of dice, when its value is one
	unbound string     // why the node has no exact odds, or ""
}

// analyse checks the limits of t (docs/dice.md, "Limits") and works out
// its bounds, before anything is rolled. src is the input and expr the
// expression's part of it (for the errors about the whole).
func (t *tree) analyse(src, expr string) error {
	a := analyser{src: src}
	r, err := a.node(t.root)
	if err != nil {
		return err
	}
	whole := func(format string, args ...any) error {
		return &ParseError{Expr: src, Part: expr, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case r.named > MaxDice:
		return whole("%s", tooManyDice(r.named))
	case !math.IsInf(r.rolledW, 1) && r.rolledW > MaxRolled:
		return whole("can roll up to %.0f dice, rerolls and explosions counted; at most %d", r.rolledW, MaxRolled)
	case r.rolledE > MaxRolled/2+1e-6:
		return whole("would roll about %.0f dice on average, rerolls and explosions counted; at most %d on average, so that a roll stays within %d", math.Round(r.rolledE), MaxRolled/2, MaxRolled)
	}
	t.named, t.lo, t.hi, t.unbound = r.named, r.lo, r.hi, r.unbound
	t.totals = min(r.card, r.hi-r.lo+1)
	t.bound = int(math.Ceil(r.rolledW))
	if math.IsInf(r.rolledW, 1) {
		t.bound = min(MaxRolled, int(math.Ceil(r.rolledE)))
	}
	return nil
}

// finish works out what only a tree that is no sum of Terms needs: its
// canonical text and whether a roll shows more than its total.
func (t *tree) finish() {
	t.canon = t.root.text()
	t.root.walk(func(n *node) {
		t.detail = t.detail || n.kind == nodeDice || len(n.annotations) > 0 || n.kind == nodeSet && len(n.ops) > 0
	})
}

type analyser struct {
	src string
}

func (a *analyser) errorf(n *node, format string, args ...any) error {
	return &ParseError{Expr: a.src, Part: strings.TrimSpace(a.src[n.start:n.end]), Reason: fmt.Sprintf(format, args...)}
}

const maxCard = 1 << 40

func (a *analyser) node(n *node) (*analysis, error) {
	r, err := a.visit(n)
	if err != nil {
		return nil, err
	}
	if r.lo < -MaxTotal || r.hi > MaxTotal {
		v := r.hi
		if r.lo < -MaxTotal {
			v = r.lo
		}
		return nil, a.errorf(n, "can total %d; totals are at most %d either side of 0", v, MaxTotal)
	}
	r.card = max(1, min(r.card, r.hi-r.lo+1, maxCard))
	n.an = *r
	return &n.an, nil
}

func (a *analyser) visit(n *node) (*analysis, error) {
	switch n.kind {
	case nodeNum:
		return &analysis{lo: int64(n.val), hi: int64(n.val), card: 1}, nil
	case nodeDice:
		lo, hi := n.die.faces()
		ps := &poolState{dice: n, size: n.count, kept: n.count, kmin: n.count, kmax: n.count, vlo: lo, vhi: hi,
			expect: float64(n.count), worst: float64(n.count), rolledE: float64(n.count), rolledW: float64(n.count)}
		return a.pool(n, ps, &analysis{named: n.count})
	case nodeNeg:
		x, err := a.node(n.kids[0])
		if err != nil {
			return nil, err
		}
		return &analysis{lo: -x.hi, hi: -x.lo, card: x.card, named: x.named, rolledE: x.rolledE, rolledW: x.rolledW, unbound: x.unbound}, nil
	case nodeBinary:
		return a.binary(n)
	}
	// Parentheses or a set.
	var kids []*analysis
	r := &analysis{}
	for _, k := range n.kids {
		x, err := a.node(k)
		if err != nil {
			return nil, err
		}
		kids = append(kids, x)
		r.named += x.named
		r.rolledE += x.rolledE
		r.rolledW += x.rolledW
		if r.unbound == "" {
			r.unbound = x.unbound
		}
	}
	if n.kind == nodeParen && kids[0].pool != nil {
		ps := *kids[0].pool
		ps.ops = append([]diceOp(nil), ps.ops...)
		return a.pool(n, &ps, r)
	}
	if n.kind == nodeParen {
		r.lo, r.hi, r.card = kids[0].lo, kids[0].hi, kids[0].card
		return r, nil
	}
	r.card = 1
	for _, x := range kids {
		lo, hi := x.lo, x.hi
		if len(n.ops) > 0 { // each value may be dropped
			lo, hi = min(lo, 0), max(hi, 0)
		}
		r.lo, r.hi = r.lo+lo, r.hi+hi
		r.card = min(maxCard, r.card*(x.card+1))
	}
	return r, nil
}

// binary works out an arithmetic operation or a comparison.
func (a *analyser) binary(n *node) (*analysis, error) {
	x, err := a.node(n.kids[0])
	if err != nil {
		return nil, err
	}
	y, err := a.node(n.kids[1])
	if err != nil {
		return nil, err
	}
	r := &analysis{named: x.named + y.named, rolledE: x.rolledE + y.rolledE, rolledW: x.rolledW + y.rolledW, card: min(maxCard, x.card*y.card)}
	r.unbound = x.unbound
	if r.unbound == "" {
		r.unbound = y.unbound
	}
	switch n.op {
	case opAdd:
		r.lo, r.hi = x.lo+y.lo, x.hi+y.hi
	case opSub:
		r.lo, r.hi = x.lo-y.hi, x.hi-y.lo
	case opMul:
		r.lo, r.hi = corners(x, y, func(p, q int64) int64 { return p * q })
	case opDiv, opFloorDiv, opMod:
		if y.lo <= 0 && y.hi >= 0 {
			if y.lo == 0 && y.hi == 0 {
				return nil, a.errorf(n, "cannot divide by 0")
			}
			return nil, a.errorf(n, "the divisor %s can total %d to %d, 0 included; cannot divide by 0", n.kids[1].text(), y.lo, y.hi)
		}
		if n.op == opMod {
			if y.lo > 0 {
				r.lo, r.hi = 0, y.hi-1
			} else {
				r.lo, r.hi = y.lo+1, 0
			}
			break
		}
		r.lo, r.hi = corners(x, y, floorDiv)
	default:
		r.lo, r.hi, r.card = 0, 1, 2
	}
	return r, nil
}

// corners returns the lowest and highest of f at the corners of x's and y's
// ranges (the extremes of a product, and of a quotient by a divisor that
// does not change sign).
func corners(x, y *analysis, f func(p, q int64) int64) (int64, int64) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, p := range []int64{x.lo, x.hi} {
		for _, q := range []int64{y.lo, y.hi} {
			v := f(p, q)
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

// floorDiv divides rounding down (toward minus infinity), as Python's //.
func floorDiv(p, q int64) int64 {
	d := p / q
	if (p%q != 0) && ((p < 0) != (q < 0)) {
		d--
	}
	return d
}

// floorMod is the remainder of floorDiv: it has the divisor's sign.
func floorMod(p, q int64) int64 { return p - q*floorDiv(p, q) }

// pool applies the operators of n (a dice node, or parentheses around
// one) to the pool ps, checks them and works out the pool's value.
func (a *analyser) pool(n *node, ps *poolState, r *analysis) (*analysis, error) {
	die := ps.dice.die
	flo, fhi := die.faces()
	sides := float64(die.Sides)
	// matched returns the share of a fresh die's faces that o's value
	// selectors pick, and whether o has a highest/lowest selector.
	matched := func(o diceOp) (float64, bool) {
		m, rank := 0, false
		for f := flo; f <= fhi; f++ {
			for _, s := range o.sels {
				if s.byValue() && s.matches(f, fhi) {
					m++
					break
				}
			}
		}
		for _, s := range o.sels {
			rank = rank || !s.byValue()
		}
		return float64(m) / sides, rank
	}
	for _, o := range n.ops {
		ps.ops = append(ps.ops, o)
		switch o.kind {
		case opKeep, opDrop:
			if err := a.keepDrop(n, ps, o); err != nil {
				return nil, err
			}
		case opReroll:
			p, rank := matched(o)
			switch {
			case rank:
				return nil, a.errorf(n, "%s never stops: there is always a highest or a lowest die to reroll; ro rerolls once", strings.Join(o.texts, ""))
			case p == 1:
				return nil, a.errorf(n, "every face of a %s is rerolled, so the rerolling never stops", die)
			}
			ps.rolledE += ps.expect * p / (1 - p)
			if p > 0 {
				ps.rolledW = math.Inf(1)
			}
			ps.vlo, ps.vhi = min(ps.vlo, flo), max(ps.vhi, fhi)
		case opRerollOnce:
			p, rank := matched(o)
			if rank {
				p = 1
			}
			ps.rolledE += ps.expect * p
			ps.rolledW += ps.worst
			ps.vlo, ps.vhi = min(ps.vlo, flo), max(ps.vhi, fhi)
		case opRerollAdd:
			ps.rolledE++
			ps.rolledW++
			ps.expect++
			ps.worst++
			ps.size, ps.kept = -1, -1
			ps.kmax++
			ps.vlo, ps.vhi = min(ps.vlo, flo), max(ps.vhi, fhi)
		case opExplode:
			p, rank := matched(o)
			if rank {
				p = 0.5 // the highest or lowest explodes while a new die takes its place: it stops soon
			}
			if p == 1 {
				return nil, a.errorf(n, "every face of a %s explodes, so the exploding never stops", die)
			}
			can := rank || p > 0
			for _, s := range o.sels {
				can = can || s.byValue() && (s.matches(ps.vlo, fhi) || s.matches(ps.vhi, fhi))
			}
			if !can {
				break
			}
			ps.explodes = true
			ps.rolledE += ps.expect * p / (1 - p)
			ps.expect /= 1 - p
			ps.rolledW, ps.worst = math.Inf(1), math.Inf(1)
			ps.size, ps.kept = -1, -1
			ps.kmax = MaxRolled
			ps.vlo, ps.vhi = min(ps.vlo, flo), max(ps.vhi, fhi)
			r.unbound = "exploding dice have no highest total"
		case opMin, opMax:
			v := o.sels[0].n
			if v > MaxConst {
				return nil, a.errorf(n, "%s: a value is at most %d", o.texts[0], MaxConst)
			}
			if o.kind == opMin {
				ps.vlo, ps.vhi = max(ps.vlo, v), max(ps.vhi, v)
			} else {
				ps.vlo, ps.vhi = min(ps.vlo, v), min(ps.vhi, v)
			}
		case opTarget, opFailure, opDouble:
			if err := a.counting(n, ps, o); err != nil {
				return nil, err
			}
		}
	}
	if c := ps.count; c != nil && c.hasDouble && !c.hasTarget {
		return nil, a.errorf(n, "ds counts a success twice: give the target too, e.g. t7ds10")
	}
	r.rolledE += ps.rolledE
	r.rolledW += ps.rolledW
	r.pool = ps
	lo, hi := int64(ps.vlo), int64(ps.vhi)
	if ps.count != nil {
		wlo, whi := ps.count.weights(ps.vlo, ps.vhi)
		lo, hi = int64(wlo), int64(whi)
	}
	kmin, kmax := int64(ps.kmin), int64(ps.kmax)
	r.lo, r.hi = min(kmin*lo, kmax*lo), max(kmin*hi, kmax*hi)
	r.card = r.hi - r.lo + 1
	return r, nil
}

// keepDrop checks a keep or drop operator on dice: on a pool whose kept
// dice are known (no explosion before it), kh and kl keep 1 to N of N dice,
// and dh, dl and the like drop 0 to N-1 of them (RULES.md §0.3).
func (a *analyser) keepDrop(n *node, ps *poolState, o diceOp) error {
	k := ps.kept
	known := k >= 0
	keptAfter := -1
	for _, s := range o.sels {
		if !known || s.byValue() {
			continue
		}
		switch {
		case o.kind == opKeep && s.n < 1:
			return a.errorf(n, "keep at least 1 die")
		case o.kind == opKeep && s.n > k:
			return a.errorf(n, "cannot keep %d of %d %s", s.n, k, plural(k, "die", "dice"))
		case o.kind == opDrop && s.n >= k:
			return a.errorf(n, "cannot drop %d of %d %s (at least 1 must count)", s.n, k, plural(k, "die", "dice"))
		}
		if len(o.sels) == 1 {
			keptAfter = s.n
			if o.kind == opDrop {
				keptAfter = k - s.n
			}
		}
	}
	switch {
	case keptAfter >= 0:
		ps.kept, ps.kmin, ps.kmax = keptAfter, keptAfter, keptAfter
	case o.kind == opKeep && !hasValueSelector(o):
		sum := 0
		for _, s := range o.sels {
			sum += s.n
		}
		ps.kept, ps.kmin, ps.kmax = -1, 0, min(ps.kmax, sum)
	default:
		ps.kept, ps.kmin = -1, 0
	}
	return nil
}

func hasValueSelector(o diceOp) bool {
	for _, s := range o.sels {
		if s.byValue() {
			return true
		}
	}
	return false
}

// counting records a success-counting operator (Dice Maiden): one target
// (t or tl), one failure threshold (f) and one double (ds) per pool.
func (a *analyser) counting(n *node, ps *poolState, o diceOp) error {
	if ps.count == nil {
		ps.count = &counting{}
	}
	c, s := ps.count, o.sels[0]
	switch o.kind {
	case opTarget:
		if c.hasTarget {
			return a.errorf(n, "one target (t or tl) per roll of dice")
		}
		c.hasTarget, c.target, c.low = true, s.n, strings.HasPrefix(o.texts[0], "tl")
		if c.doubleAtTarget {
			c.double = s.n
		}
	case opFailure:
		if c.hasFailure {
			return a.errorf(n, "one failure threshold (f) per roll of dice")
		}
		c.hasFailure, c.fail = true, s.n
	case opDouble:
		if c.hasDouble {
			return a.errorf(n, "one double (ds) per roll of dice")
		}
		c.hasDouble, c.double = true, s.n
		if s.kind == selMax {
			c.double, c.doubleAtTarget = c.target, true
		}
	}
	return nil
}

// flat returns t as the Terms of RULES.md §0.3 when it is a sum of plain
// terms (NdS, NdF and constants, each dice term with at most one of kh,
// kl, dh and dl) with nothing else to say (no comment, note or
// annotation).
func (t *tree) flat() ([]Term, bool) {
	if t.comment != "" || len(t.notes) > 0 {
		return nil, false
	}
	rev := make([]Term, 0, 4)
	n := t.root
	for n.kind == nodeBinary && (n.op == opAdd || n.op == opSub) {
		sign := 1
		if n.op == opSub {
			sign = -1
		}
		term, ok := flatTerm(n.kids[1], sign)
		if !ok {
			return nil, false
		}
		rev = append(rev, term)
		n = n.kids[0]
	}
	sign := 1
	if n.kind == nodeNeg {
		n, sign = n.kids[0], -1
	}
	first, ok := flatTerm(n, sign)
	if !ok {
		return nil, false
	}
	terms := append(make([]Term, 0, len(rev)+1), first)
	for i := len(rev) - 1; i >= 0; i-- {
		terms = append(terms, rev[i])
	}
	return terms, true
}

// flatTerm returns n as a Term of RULES.md §0.3, if it is one.
func flatTerm(n *node, sign int) (Term, bool) {
	if len(n.annotations) > 0 {
		return Term{}, false
	}
	switch n.kind {
	case nodeNum:
		return Term{Sign: sign, Const: n.val}, true
	case nodeDice:
		if n.pct {
			return Term{}, false
		}
		if len(n.ops) == 1 {
			// Only RULES.md §0.3's spellings: 3d6dl1, not 3d6pl1 or 3d6d1.
			texts := n.ops[0].texts
			if len(texts) != 1 || !slices.Contains([]string{"kh", "kl", "dh", "dl"}, texts[0][:min(2, len(texts[0]))]) {
				return Term{}, false
			}
		}
		t, ok := keepTerm(n.count, n.die, n.ops)
		t.Sign = sign
		return t, ok
	}
	return Term{}, false
}
