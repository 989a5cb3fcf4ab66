package dice

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrTooManyRolls is wrapped by the *ParseError that Expr.Roll returns when
// a roll reaches MaxRolled dice, rerolls and explosions counted, without
// finishing (Parse refuses the expressions for which that is likely, so it
// takes a very unlucky run of rerolls or explosions). Nothing of the roll
// is kept.
var ErrTooManyRolls = errors.New("too many dice rolled")

// rolledDie is one die of a pool as rolled: the faces it showed before it
// was rerolled, the face it shows and what it counts.
type rolledDie struct {
	prev     []int // faces before rerolls, struck through when shown
	face     int
	value    int  // what it counts: its face, or what mi or ma made it
	forced   bool // value set by mi or ma
	exploded bool // it exploded (e) or was rerolled and added to (ra)
	dropped  bool
	weight   int // what it adds when its pool counts successes
}

// outcome is the roll of one node of a tree.
type outcome struct {
	value   int64
	dropped bool        // a value its set's operators dropped
	dice    []rolledDie // the pool of a dice node, or of parentheses with operators around one
	kids    []*outcome
}

// rolledTree is a Result's roll of a tree.
type rolledTree struct {
	t    *tree
	root *outcome
}

// roller rolls a tree, counting the dice against MaxRolled.
type roller struct {
	t      *tree
	src    Source
	rolled int
}

// pause tells a Pacer source that the dice to come depend on the faces
// rolled so far.
func (r *roller) pause() {
	if p, ok := r.src.(Pacer); ok {
		p.Pause()
	}
}

func (r *roller) roll(d Die) (int, error) {
	if r.rolled >= MaxRolled {
		return 0, &ParseError{Expr: r.t.canon, Part: r.t.canon, Err: ErrTooManyRolls,
			Reason: fmt.Sprintf("rolled %d dice, rerolls and explosions counted, without finishing; at most %d", r.rolled, MaxRolled)}
	}
	r.rolled++
	f, err := r.src.Roll(d)
	if err != nil {
		return 0, fmt.Errorf("rolling %s: %w", r.t.canon, err)
	}
	return f, nil
}

// rollTree rolls t with src: the dice of each node in the order written,
// then each operator's rerolls and explosions in turn.
func rollTree(e Expr, src Source) (Result, error) {
	if src == nil {
		return Result{}, errNoSource
	}
	r := roller{t: e.x, src: src}
	o, err := r.eval(e.x.root)
	if err != nil {
		return Result{}, err
	}
	return Result{Expr: e, Total: int(o.value), x: &rolledTree{t: e.x, root: o}}, nil
}

func (r *roller) eval(n *node) (*outcome, error) {
	switch n.kind {
	case nodeNum:
		return &outcome{value: int64(n.val)}, nil
	case nodeDice:
		o := &outcome{dice: make([]rolledDie, 0, n.count)}
		for range n.count {
			f, err := r.roll(n.die)
			if err != nil {
				return nil, err
			}
			o.dice = append(o.dice, rolledDie{face: f, value: f})
		}
		return o, r.pool(n, o)
	case nodeNeg:
		x, err := r.eval(n.kids[0])
		if err != nil {
			return nil, err
		}
		return &outcome{value: -x.value, kids: []*outcome{x}}, nil
	case nodeBinary:
		return r.binary(n)
	}
	o := &outcome{}
	for _, k := range n.kids {
		x, err := r.eval(k)
		if err != nil {
			return nil, err
		}
		o.kids = append(o.kids, x)
	}
	if n.kind == nodeParen {
		if len(n.ops) == 0 {
			// The value, and the pool for operators outside: ((4d6))kh3.
			o.value, o.dice = o.kids[0].value, o.kids[0].dice
			return o, nil
		}
		o.dice = o.kids[0].dice
		return o, r.pool(n, o)
	}
	// A set: keep and drop act on its values; among equal values the
	// first written is picked, as in Avrae (sets are not in RULES.md §0.3).
	values := make([]rolledDie, len(o.kids))
	for i, k := range o.kids {
		values[i] = rolledDie{value: int(k.value)}
	}
	for _, op := range n.ops {
		pick := pickDice(values, op.sels, 0, false)
		for i := range values {
			if !values[i].dropped && pick[i] == (op.kind == opDrop) {
				values[i].dropped = true
			}
		}
	}
	for i, k := range o.kids {
		k.dropped = values[i].dropped
		if !k.dropped {
			o.value += k.value
		}
	}
	return o, nil
}

func (r *roller) binary(n *node) (*outcome, error) {
	x, err := r.eval(n.kids[0])
	if err != nil {
		return nil, err
	}
	y, err := r.eval(n.kids[1])
	if err != nil {
		return nil, err
	}
	return &outcome{value: binaryValue(n.op, x.value, y.value), kids: []*outcome{x, y}}, nil
}

// binaryValue applies op to p and q (analysis has ruled out dividing by
// 0).
func binaryValue(op binaryOp, p, q int64) int64 {
	b := func(ok bool) int64 {
		if ok {
			return 1
		}
		return 0
	}
	switch op {
	case opAdd:
		return p + q
	case opSub:
		return p - q
	case opMul:
		return p * q
	case opDiv, opFloorDiv:
		return floorDiv(p, q)
	case opMod:
		return floorMod(p, q)
	case opEq:
		return b(p == q)
	case opNe:
		return b(p != q)
	case opLt:
		return b(p < q)
	case opGt:
		return b(p > q)
	case opLe:
		return b(p <= q)
	}
	return b(p >= q)
}

// rollEach rolls a die for each picked die, in order, and calls use with
// its index and the face; a Pacer source hears first that these dice
// depend on the faces rolled so far. It reports whether any was rolled.
func (r *roller) rollEach(die Die, pick []bool, use func(i, face int)) (bool, error) {
	any := false
	for i, p := range pick {
		if !p {
			continue
		}
		if !any {
			r.pause()
		}
		any = true
		f, err := r.roll(die)
		if err != nil {
			return true, err
		}
		use(i, f)
	}
	return any, nil
}

// pool applies n's operators to the pool o.dice, in order, then counts its
// value.
func (r *roller) pool(n *node, o *outcome) error {
	ps := n.an.pool
	die := ps.dice.die
	_, top := die.faces()
	// explode marks the die i exploded and adds the new die f at the end.
	explode := func(i, f int) {
		o.dice[i].exploded = true
		o.dice = append(o.dice, rolledDie{face: f, value: f})
	}
	for _, op := range n.ops {
		switch op.kind {
		case opKeep, opDrop:
			pick := pickDice(o.dice, op.sels, top, op.kind == opKeep)
			for i := range o.dice {
				if !o.dice[i].dropped && pick[i] == (op.kind == opDrop) {
					o.dice[i].dropped = true
				}
			}
		case opReroll, opRerollOnce:
			for {
				any, err := r.rollEach(die, pickDice(o.dice, op.sels, top, false), func(i, f int) {
					d := &o.dice[i]
					d.prev = append(d.prev, d.face)
					d.face, d.value, d.forced = f, f, false
				})
				if err != nil {
					return err
				}
				if !any || op.kind == opRerollOnce {
					break
				}
			}
		case opRerollAdd:
			if i := firstPick(o.dice, op.sels, top); i >= 0 {
				pick := make([]bool, i+1)
				pick[i] = true
				if _, err := r.rollEach(die, pick, explode); err != nil {
					return err
				}
			}
		case opExplode:
			done := make([]bool, len(o.dice))
			for {
				pick := pickDice(o.dice, op.sels, top, false)
				for i := range done {
					pick[i] = pick[i] && !done[i]
					done[i] = done[i] || pick[i]
				}
				any, err := r.rollEach(die, pick, explode)
				if err != nil {
					return err
				}
				if !any {
					break
				}
				done = append(done, make([]bool, len(o.dice)-len(done))...)
			}
		case opMin, opMax:
			v := op.sels[0].n
			for i := range o.dice {
				d := &o.dice[i]
				if !d.dropped && (op.kind == opMin && d.value < v || op.kind == opMax && d.value > v) {
					d.value, d.forced = v, true
				}
			}
		}
	}
	o.value = 0
	for i := range o.dice {
		d := &o.dice[i]
		switch {
		case d.dropped:
		case ps.count != nil:
			d.weight = ps.count.weight(d.value)
			o.value += int64(d.weight)
		default:
			o.value += int64(d.value)
		}
	}
	return nil
}

// pickDice returns which of the kept dice (or values of a set) the
// selectors pick, OR-ed: by value, or the X highest or lowest. Among equal
// values a keep picks the ones rolled later and anything else the ones
// rolled first, so that a keep or a drop always drops the first rolled
// (RULES.md §0.3). A pick of the highest and one of the lowest never take
// the same die while another is left: kh1kl1 keeps two dice even when all
// show the same face. top is the highest face (for e without a number).
func pickDice(dice []rolledDie, sels []selector, top int, keep bool) []bool {
	pick := make([]bool, len(dice))
	var byRank [2][]bool // picked by a highest (0) or a lowest (1) selector
	for _, s := range sels {
		if s.byValue() {
			for i, d := range dice {
				if !d.dropped && s.matches(d.value, top) {
					pick[i] = true
				}
			}
			continue
		}
		high := s.kind == selHighest
		side, other := 0, 1
		if !high {
			side, other = 1, 0
		}
		if byRank[side] == nil {
			byRank[side] = make([]bool, len(dice))
		}
		order := keptOrder(dice, keep != high)
		if taken := byRank[other]; taken != nil {
			free := order[:0:0]
			for _, i := range order {
				if !taken[i] {
					free = append(free, i)
				}
			}
			order = free
		}
		n := min(s.n, len(order))
		if high {
			order = order[len(order)-n:]
		} else {
			order = order[:n]
		}
		for _, i := range order {
			pick[i], byRank[side][i] = true, true
		}
	}
	return pick
}

// keptOrder returns the indices of the kept dice from the lowest value to
// the highest, equal values in the order rolled or, when laterFirst, in
// the reverse order. The lowest are picked from the front and the highest
// from the back, so a pick that prefers later dice among equals takes the
// lowest in reverse order and the highest in order.
func keptOrder(dice []rolledDie, laterFirst bool) []int {
	idx := make([]int, 0, len(dice))
	for i, d := range dice {
		if !d.dropped {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(dice[a].value, dice[b].value); c != 0 {
			return c
		}
		if laterFirst {
			return cmp.Compare(b, a)
		}
		return cmp.Compare(a, b)
	})
	return idx
}

// firstPick returns the die ra rerolls and adds to: the first the first
// picking selector picks, among equals the first rolled (Avrae), or -1.
func firstPick(dice []rolledDie, sels []selector, top int) int {
	for _, s := range sels {
		if s.byValue() {
			for i, d := range dice {
				if !d.dropped && s.matches(d.value, top) {
					return i
				}
			}
			continue
		}
		high := s.kind == selHighest
		if order := keptOrder(dice, high); len(order) > 0 && s.n > 0 {
			if high {
				return order[len(order)-1]
			}
			return order[0]
		}
	}
	return -1
}

// String of a tree's roll (Result.String): the expression, every value
// with its dice, "= total", and the comment.
func (rt *rolledTree) String() string {
	var b strings.Builder
	rt.t.root.write(&b, false)
	if rt.t.detail {
		b.WriteByte(' ')
		rt.render(&b, rt.t.root, rt.root, false)
	}
	b.WriteString(" = ")
	b.WriteString(strconv.FormatInt(rt.root.value, 10))
	if rt.t.comment != "" {
		b.WriteString(" — ")
		b.WriteString(rt.t.comment)
	}
	return b.String()
}

// render writes n's roll o: numbers as written, dice as their faces in
// brackets, the operators of the arithmetic with spaces, sets with their
// dropped values struck through (not twice: Discord does not nest ~~).
func (rt *rolledTree) render(b *strings.Builder, n *node, o *outcome, struck bool) {
	switch n.kind {
	case nodeNum:
		b.WriteString(strconv.Itoa(n.val))
	case nodeDice:
		rt.dice(b, n.die, o.dice, struck)
	case nodeNeg:
		b.WriteByte('-')
		rt.render(b, n.kids[0], o.kids[0], struck)
	case nodeBinary:
		rt.render(b, n.kids[0], o.kids[0], struck)
		b.WriteByte(' ')
		b.WriteString(n.op.String())
		b.WriteByte(' ')
		rt.render(b, n.kids[1], o.kids[1], struck)
	case nodeParen:
		if len(n.ops) > 0 {
			// The pool once, as its last operators left it, with the
			// annotations inside the parentheses.
			rt.dice(b, n.pool().die, o.dice, struck)
			for k := n.kids[0]; ; k = k.kids[0] {
				writeAnnotations(b, k.annotations)
				if k.kind != nodeParen {
					break
				}
			}
			break
		}
		b.WriteByte('(')
		rt.render(b, n.kids[0], o.kids[0], struck)
		b.WriteByte(')')
	case nodeSet:
		b.WriteByte('(')
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(", ")
			}
			strike := o.kids[i].dropped && !struck
			if strike {
				b.WriteString("~~")
			}
			rt.render(b, k, o.kids[i], struck || strike)
			if strike {
				b.WriteString("~~")
			}
		}
		if n.comma {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	}
	writeAnnotations(b, n.annotations)
}

// writeAnnotations writes annotations after a value: " [fire]".
func writeAnnotations(b *strings.Builder, annotations []string) {
	for _, a := range annotations {
		b.WriteString(" [")
		b.WriteString(a)
		b.WriteByte(']')
	}
}

// dice writes a pool: "[~~1~~→3, 6!, 2]". A rerolled die shows the faces
// it had struck through with an arrow to the new one, a die mi or ma
// changed its face and an arrow to its value, an exploded die a "!" (the
// dice it added follow at the end, in the order rolled), a success a ✓
// (✓✓ when it counts twice), a failure a ✗, and a dropped die is struck
// through whole.
func (rt *rolledTree) dice(b *strings.Builder, die Die, dice []rolledDie, struck bool) {
	b.WriteByte('[')
	for i, d := range dice {
		if i > 0 {
			b.WriteString(", ")
		}
		strike := d.dropped && !struck
		if strike {
			b.WriteString("~~")
		}
		for _, f := range d.prev {
			if !struck && !strike {
				b.WriteString("~~" + faceString(f, die.Fudge) + "~~")
			} else {
				b.WriteString(faceString(f, die.Fudge))
			}
			b.WriteString("→")
		}
		b.WriteString(faceString(d.face, die.Fudge))
		if d.forced {
			b.WriteString("→" + faceString(d.value, die.Fudge))
		}
		if d.exploded {
			b.WriteByte('!')
		}
		if !d.dropped {
			switch d.weight {
			case 2:
				b.WriteString("✓✓")
			case 1:
				b.WriteString("✓")
			case -1:
				b.WriteString("✗")
			}
		}
		if strike {
			b.WriteString("~~")
		}
	}
	b.WriteByte(']')
}
