package dice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// ErrNoExactOdds is returned (wrapped, naming the expression and why) by
// Expr.Distribution and Expr.DistributionLimit for an expression whose
// total has no exact distribution of finitely many totals: exploding dice,
// which can add dice without end.
var ErrNoExactOdds = errors.New("no exact odds for this expression")

// maxOddsSteps bounds the work of the exact odds of a tree, in steps of
// about one math/big multiplication and addition (a multiset of a pool
// followed through an operator costs stateCost steps a value), so that the
// worst case takes about a quarter of a second (BenchmarkTreeDistribution*).
// Work that its estimate puts past it is refused before it starts, and
// work that runs past it stops; either way Distribution returns
// ErrTooComplex.
const (
	maxOddsSteps = 3_000_000
	stateCost    = 8
)

// maxOddsWidth bounds the totals a tree's distribution spans (zeros
// included, as after a multiplication).
const maxOddsWidth = 1 << 18

// pmf is an exact distribution: the weight of each value from lo upward
// (zeros allowed), over the common denominator den: P(lo+i) = w[i]/den.
type pmf struct {
	lo  int64
	w   []big.Int
	den *big.Int
}

func point(v int64) pmf {
	p := pmf{lo: v, w: make([]big.Int, 1), den: big.NewInt(1)}
	p.w[0].SetInt64(1)
	return p
}

// odds works out distributions within a budget of steps.
type odds struct {
	t    *tree
	left int
	tmp  big.Int
}

var errBudget = errors.New("out of budget")

func (o *odds) spend(n int) error {
	if o.left -= n; o.left < 0 {
		return errBudget
	}
	return nil
}

// treeDistribution returns the exact distribution of t's total.
func treeDistribution(t *tree) (Distribution, error) {
	if t.unbound != "" {
		return Distribution{}, fmt.Errorf("%q: %w: %s", t.canon, ErrNoExactOdds, t.unbound)
	}
	o := odds{t: t, left: maxOddsSteps}
	p, err := o.node(t.root)
	if err != nil {
		if errors.Is(err, errBudget) {
			err = ErrTooComplex
		}
		return Distribution{}, fmt.Errorf("%q: %w", t.canon, err)
	}
	first := slices.IndexFunc(p.w, func(b big.Int) bool { return b.Sign() != 0 })
	last := len(p.w) - 1
	for last > first && p.w[last].Sign() == 0 {
		last--
	}
	d := Distribution{min: int(p.lo) + first, outcomes: p.den, large: make([]bignum, last-first+1)}
	for i := range d.large {
		d.large[i].Set(&p.w[first+i])
	}
	return d, nil
}

func (o *odds) node(n *node) (pmf, error) {
	switch n.kind {
	case nodeNum:
		return point(int64(n.val)), nil
	case nodeNeg:
		x, err := o.node(n.kids[0])
		if err != nil {
			return pmf{}, err
		}
		slices.Reverse(x.w)
		x.lo = -(x.lo + int64(len(x.w)) - 1)
		return x, nil
	case nodeBinary:
		x, err := o.node(n.kids[0])
		if err != nil {
			return pmf{}, err
		}
		y, err := o.node(n.kids[1])
		if err != nil {
			return pmf{}, err
		}
		return o.combine(x, y, n.op)
	case nodeDice:
		return o.pool(n.an.pool)
	case nodeParen:
		if len(n.ops) > 0 {
			return o.pool(n.an.pool)
		}
		return o.node(n.kids[0])
	}
	// A set.
	var elems []pmf
	for _, k := range n.kids {
		x, err := o.node(k)
		if err != nil {
			return pmf{}, err
		}
		elems = append(elems, x)
	}
	if len(n.ops) == 0 {
		acc := point(0)
		for _, x := range elems {
			var err error
			if acc, err = o.combine(acc, x, opAdd); err != nil {
				return pmf{}, err
			}
		}
		return acc, nil
	}
	return o.states(elems, nil, 0, n.ops, nil)
}

// combine returns the distribution of x op y for independent x and y.
func (o *odds) combine(x, y pmf, op binaryOp) (pmf, error) {
	if err := o.spend(2 * len(x.w) * len(y.w)); err != nil {
		return pmf{}, err
	}
	var lo, hi int64
	first := true
	eachPair(x, y, op, func(v int64, _, _ int) {
		if first || v < lo {
			lo = v
		}
		if first || v > hi {
			hi = v
		}
		first = false
	})
	if hi-lo >= maxOddsWidth {
		return pmf{}, errBudget
	}
	out := pmf{lo: lo, w: make([]big.Int, hi-lo+1), den: new(big.Int).Mul(x.den, y.den)}
	eachPair(x, y, op, func(v int64, i, j int) {
		o.tmp.Mul(&x.w[i], &y.w[j])
		out.w[v-lo].Add(&out.w[v-lo], &o.tmp)
	})
	return out, nil
}

// eachPair calls f with x op y for every pair of values of x and y that can
// come up, and their indices in x.w and y.w.
func eachPair(x, y pmf, op binaryOp, f func(v int64, i, j int)) {
	for i := range x.w {
		if x.w[i].Sign() == 0 {
			continue
		}
		for j := range y.w {
			if y.w[j].Sign() != 0 {
				f(binaryValue(op, x.lo+int64(i), y.lo+int64(j)), i, j)
			}
		}
	}
}

// pool returns the distribution of the value of a pool of dice after its
// operators.
func (o *odds) pool(ps *poolState) (pmf, error) {
	var ops []diceOp
	for _, op := range ps.ops {
		switch op.kind {
		case opTarget, opFailure, opDouble: // how the dice count, not an operator
		case opExplode: // one that cannot fire (t.unbound says when one can)
		default:
			ops = append(ops, op)
		}
	}
	n, die := ps.dice.count, ps.dice.die
	if ps.count == nil {
		if t, ok := keepTerm(n, die, ops); ok {
			// The counting of RULES.md §0.3: a sliding window per die, or a
			// sum over the last die kept.
			e := Expr{Terms: []Term{t}}
			if e.work() > MaxWork {
				return pmf{}, errBudget
			}
			lo, counts := compute[bignum](e)
			p := pmf{lo: int64(lo), w: make([]big.Int, len(counts)), den: new(big.Int).Exp(big.NewInt(int64(die.Sides)), big.NewInt(int64(n)), nil)}
			for i := range counts {
				p.w[i].Set(&counts[i].Int)
			}
			return p, nil
		}
	}
	if perDie(ops) {
		// Each die on its own: work out one, then add n of them.
		one, err := o.states(nil, &die, 1, ops, ps.count)
		if err != nil {
			return pmf{}, err
		}
		if w := float64(len(one.w)); float64(n)*float64(n)*w*w > float64(o.left) {
			return pmf{}, errBudget
		}
		acc := point(0)
		for range n {
			if acc, err = o.combine(acc, one, opAdd); err != nil {
				return pmf{}, err
			}
		}
		return acc, nil
	}
	return o.states(nil, &die, n, ops, ps.count)
}

// keepTerm returns the Term of RULES.md §0.3 that n dice with ops are: none,
// or one keep or drop of the highest or lowest.
func keepTerm(n int, die Die, ops []diceOp) (Term, bool) {
	t := Term{Sign: 1, Count: n, Sides: die.Sides, Fudge: die.Fudge}
	switch {
	case len(ops) == 0:
		return t, true
	case len(ops) > 1 || len(ops[0].sels) > 1 || ops[0].sels[0].byValue():
		return Term{}, false
	}
	s := ops[0].sels[0]
	switch {
	case ops[0].kind == opKeep && s.kind == selHighest:
		t.Keep = KeepHighest
	case ops[0].kind == opKeep:
		t.Keep = KeepLowest
	case ops[0].kind == opDrop && s.kind == selHighest:
		t.Keep = DropHighest
	case ops[0].kind == opDrop:
		t.Keep = DropLowest
	default:
		return Term{}, false
	}
	t.KeepN = s.n
	return t, t.problem() == ""
}

// perDie reports whether ops act on each die on its own: value selectors
// only, and no operator that adds a die.
func perDie(ops []diceOp) bool {
	for _, op := range ops {
		if op.kind == opRerollAdd || op.kind == opExplode {
			return false
		}
		for _, s := range op.sels {
			if !s.byValue() {
				return false
			}
		}
	}
	return true
}

// maxStates bounds the multisets of values the general path follows (a
// pool of n dice of S faces starts with C(n+S-1, n) of them): past it
// Distribution refuses at once with ErrTooComplex.
const maxStates = 200_000

// states works out the distribution of a pool's value by following every
// multiset of its values (with kept marks) through its operators: the pool
// is elems (a set's values) or n dice of die, which rerolls and ra roll
// too. c, when set, counts successes.
func (o *odds) states(elems []pmf, die *Die, n int, ops []diceOp, c *counting) (pmf, error) {
	st := stateRun{o: o, ops: ops, c: c, values: map[int64]*big.Int{}}
	den := big.NewInt(1)
	if die != nil {
		lo, hi := die.faces()
		st.top = hi
		for f := lo; f <= hi; f++ {
			st.faces = append(st.faces, f)
		}
		if binomialOver(n+len(st.faces)-1, n, min(maxStates, o.left/(stateCost*(n+1)*(len(ops)+1)))) {
			return pmf{}, errBudget
		}
		den.Exp(big.NewInt(int64(len(st.faces))), big.NewInt(int64(n)), nil)
		most := n
		for _, op := range ops {
			switch op.kind {
			case opRerollAdd:
				den.Mul(den, big.NewInt(int64(len(st.faces))))
				most++
			case opReroll, opRerollOnce:
				k := int64(len(st.fresh(op)))
				den.Mul(den, new(big.Int).Exp(big.NewInt(k), big.NewInt(int64(most)), nil))
			}
		}
		err := o.multisets(n, st.faces, func(vals []int, w *big.Int) error {
			items := make([]rolledDie, len(vals))
			for i, v := range vals {
				items[i] = rolledDie{value: v}
			}
			return st.run(items, w, 0, n)
		})
		if err != nil {
			return pmf{}, err
		}
	} else {
		// At most C(K+m-1, m) multisets of m values of K different ones.
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, e := range elems {
			lo, hi = min(lo, e.lo), max(hi, e.lo+int64(len(e.w))-1)
		}
		if m := len(elems); hi-lo > maxStates || binomialOver(int(hi-lo)+m, m, o.left/(stateCost*(m+1)*(m+1))) {
			return pmf{}, errBudget
		}
		cur := map[string]*big.Int{"": big.NewInt(1)}
		var err error
		for _, e := range elems {
			if cur, err = o.add(cur, e); err != nil {
				return pmf{}, err
			}
			den.Mul(den, e.den)
		}
		for key, w := range cur {
			if err := st.run(decode(key), w, 0, 0); err != nil {
				return pmf{}, err
			}
		}
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for v := range st.values {
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi-lo >= maxOddsWidth {
		return pmf{}, errBudget
	}
	out := pmf{lo: lo, w: make([]big.Int, hi-lo+1), den: den}
	for v, w := range st.values {
		out.w[v-lo].Set(w)
	}
	return out, nil
}

// binomialOver reports whether C(n, k) > limit.
func binomialOver(n, k, limit int) bool {
	k = min(k, n-k)
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
		if c > float64(limit) {
			return true
		}
	}
	return false
}

// stateRun follows multisets of a pool's values through its operators,
// adding the weight of each final multiset to its value's.
type stateRun struct {
	o      *odds
	ops    []diceOp
	c      *counting
	faces  []int // a die's faces, for rerolls and ra
	top    int
	values map[int64]*big.Int
}

// fresh returns the faces a die rerolled by op can come up with: every face
// for ro, those op does not pick for rr (which rerolls until none is).
func (st *stateRun) fresh(op diceOp) []int {
	if op.kind != opReroll {
		return st.faces
	}
	var out []int
	for _, f := range st.faces {
		if !pickDice([]rolledDie{{value: f}}, op.sels, st.top, false)[0] {
			out = append(out, f)
		}
	}
	return out
}

// run follows items with weight w through ops[i:]. size is the dice the
// pool has had so far, one more for each ra whether or not it added one,
// the same for every multiset: a reroll's denominator is the number of
// faces a rerolled die can show to that power (states' den).
func (st *stateRun) run(items []rolledDie, w *big.Int, i, size int) error {
	if err := st.o.spend(stateCost * (1 + len(items))); err != nil {
		return err
	}
	for ; i < len(st.ops); i++ {
		op := st.ops[i]
		switch op.kind {
		case opRerollAdd:
			if firstPick(items, op.sels, st.top) < 0 {
				w = new(big.Int).Mul(w, big.NewInt(int64(len(st.faces))))
				size++
				continue
			}
			for _, f := range st.faces {
				with := append(slices.Clone(items), rolledDie{value: f})
				if err := st.run(with, w, i+1, size+1); err != nil {
					return err
				}
			}
			return nil
		case opReroll, opRerollOnce:
			fresh := st.fresh(op)
			pick := pickDice(items, op.sels, st.top, false)
			var rest []rolledDie
			for j, d := range items {
				if !pick[j] {
					rest = append(rest, d)
				}
			}
			j := len(items) - len(rest)
			k := big.NewInt(int64(len(fresh)))
			scaled := new(big.Int).Mul(w, new(big.Int).Exp(k, big.NewInt(int64(size-j)), nil))
			if j == 0 {
				w = scaled
				continue
			}
			return st.o.multisets(j, fresh, func(vals []int, m *big.Int) error {
				with := slices.Clone(rest)
				for _, v := range vals {
					with = append(with, rolledDie{value: v})
				}
				return st.run(with, new(big.Int).Mul(scaled, m), i+1, size)
			})
		default:
			applyFixed(items, op, st.top, st.faces != nil)
		}
	}
	v := int64(0)
	for _, d := range items {
		switch {
		case d.dropped:
		case st.c != nil:
			v += int64(st.c.weight(d.value))
		default:
			v += int64(d.value)
		}
	}
	accumulate(st.values, v, w)
	return nil
}

// multisets calls f with every multiset of n values from vals (in
// increasing order) and the number of sequences of n rolls that give it,
// n!/Πc!.
func (o *odds) multisets(n int, vals []int, f func([]int, *big.Int) error) error {
	binom := make([][]big.Int, n+1)
	for x := range binom {
		binom[x] = make([]big.Int, x+1)
		binom[x][0].SetInt64(1)
		binom[x][x].SetInt64(1)
		for y := 1; y < x; y++ {
			binom[x][y].Add(&binom[x-1][y-1], &binom[x-1][y])
		}
	}
	out := make([]int, 0, n)
	var rec func(i, left int, w *big.Int) error
	rec = func(i, left int, w *big.Int) error {
		if left == 0 {
			return f(out, w)
		}
		if i == len(vals)-1 {
			for range left {
				out = append(out, vals[i])
			}
			err := f(out, w)
			out = out[:len(out)-left]
			return err
		}
		for c := left; c >= 0; c-- {
			if err := o.spend(1); err != nil {
				return err
			}
			for range c {
				out = append(out, vals[i])
			}
			next := w
			if c > 0 && c < left {
				next = new(big.Int).Mul(w, &binom[left][c])
			}
			err := rec(i+1, left-c, next)
			out = out[:len(out)-c]
			if err != nil {
				return err
			}
		}
		return nil
	}
	return rec(0, n, big.NewInt(1))
}

// uniform is one die: each face once.
func uniform(faces []int) pmf {
	p := pmf{lo: int64(faces[0]), w: make([]big.Int, faces[len(faces)-1]-faces[0]+1), den: big.NewInt(int64(len(faces)))}
	for _, f := range faces {
		p.w[f-faces[0]].SetInt64(1)
	}
	return p
}

// add returns the multisets of cur, each with one more kept value drawn
// from e (weights multiplied; the denominator is the caller's).
func (o *odds) add(cur map[string]*big.Int, e pmf) (map[string]*big.Int, error) {
	next := make(map[string]*big.Int, len(cur))
	for key, w := range cur {
		items := decode(key)
		for i := range e.w {
			if e.w[i].Sign() == 0 {
				continue
			}
			if err := o.spend(stateCost * (1 + len(items))); err != nil {
				return nil, err
			}
			v := int(e.lo) + i
			with := append(slices.Clone(items), rolledDie{value: v})
			accumulate(next, encode(with), new(big.Int).Mul(w, &e.w[i]))
		}
	}
	return next, nil
}

// applyFixed applies a keep, drop, mi or ma to a multiset.
func applyFixed(items []rolledDie, op diceOp, top int, dice bool) {
	switch op.kind {
	case opKeep, opDrop:
		pick := pickDice(items, op.sels, top, dice && op.kind == opKeep)
		for i := range items {
			if !items[i].dropped && pick[i] == (op.kind == opDrop) {
				items[i].dropped = true
			}
		}
	case opMin, opMax:
		v := op.sels[0].n
		for i := range items {
			d := &items[i]
			if !d.dropped && (op.kind == opMin && d.value < v || op.kind == opMax && d.value > v) {
				d.value = v
			}
		}
	}
}

func accumulate[K comparable](m map[K]*big.Int, key K, w *big.Int) {
	if have, ok := m[key]; ok {
		have.Add(have, w)
		return
	}
	m[key] = new(big.Int).Set(w)
}

// encode returns a multiset's key: its values with their kept marks,
// sorted, 4 bytes each.
func encode(items []rolledDie) string {
	codes := make([]int32, len(items))
	for i, d := range items {
		codes[i] = int32(d.value) << 1
		if d.dropped {
			codes[i] |= 1
		}
	}
	slices.Sort(codes)
	b := make([]byte, 4*len(codes))
	for i, c := range codes {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(c))
	}
	return string(b)
}

func decode(key string) []rolledDie {
	items := make([]rolledDie, len(key)/4)
	for i := range items {
		c := int32(binary.LittleEndian.Uint32([]byte(key[4*i : 4*i+4])))
		items[i] = rolledDie{value: int(c >> 1), dropped: c&1 != 0}
	}
	return items
}
