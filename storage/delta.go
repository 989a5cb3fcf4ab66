package storage

import (
	"bytes"
	"errors"
	"strconv"
)

// Patches between two encoded records.
//
// An event stores a touched character (or the table) as the change from its
// state after the event back to its state before it, member by member of
// the records' JSON objects, one level down into members that are objects
// themselves (a character's sheet):
//
//	{"sheet":{"hp":[5]},"hidden":[]}
//
// A member whose value is a one-element array [v] has the value v before; an
// empty array [] means the member was absent before; [v,i] means it was
// absent after and stood at index i before; an object is the patch of the
// member's own object. Members not named are the same before and after.
// Patches name members by key, so a record written by a later version of
// this code, with a member more, still takes an older patch.

// errBadPatch is the error of a patch or a record that is not the JSON this
// code writes.
var errBadPatch = errors.New("malformed record patch")

// member is one member of a JSON object: its key token (quotes included)
// and its value, both as they stand in the encoding.
type member struct {
	key, val []byte
}

// members splits a compact JSON object into its members.
func members(obj []byte) ([]member, error) {
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, errBadPatch
	}
	out := make([]member, 0, 16)
	i := 1
	if obj[i] == '}' {
		return out, nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return nil, errBadPatch
		}
		k := scanValue(obj, i)
		if k < 0 || k >= len(obj) || obj[k] != ':' {
			return nil, errBadPatch
		}
		v := scanValue(obj, k+1)
		if v < 0 || v >= len(obj) {
			return nil, errBadPatch
		}
		out = append(out, member{key: obj[i:k], val: obj[k+1 : v]})
		switch obj[v] {
		case ',':
			i = v + 1
		case '}':
			if v != len(obj)-1 {
				return nil, errBadPatch
			}
			return out, nil
		default:
			return nil, errBadPatch
		}
	}
}

// scanValue returns the index just past the JSON value that starts at
// b[i], or -1 when there is none.
func scanValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := scanValue(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// index returns the position of the member with key in ms, or -1.
func index(ms []member, key []byte) int {
	for i, m := range ms {
		if bytes.Equal(m.key, key) {
			return i
		}
	}
	return -1
}

// diff returns the patch that turns the encoded object after into before,
// and false when the two cannot be told apart that way (not objects, or
// members in another order): the caller then stores before whole.
func diff(after, before []byte) ([]byte, bool) {
	p, ok := diffMembers(after, before)
	if !ok {
		return nil, false
	}
	// Keep only a patch that gives before back byte for byte.
	if got, err := patch(after, p); err != nil || !bytes.Equal(got, before) {
		return nil, false
	}
	return p, true
}

// diffMembers is diff without the check that the patch gives before back.
func diffMembers(after, before []byte) ([]byte, bool) {
	ma, err := members(after)
	if err != nil {
		return nil, false
	}
	mb, err := members(before)
	if err != nil {
		return nil, false
	}
	var p bytes.Buffer
	p.WriteByte('{')
	add := func(key []byte) {
		if p.Len() > 1 {
			p.WriteByte(',')
		}
		p.Write(key)
		p.WriteByte(':')
	}
	for i, m := range mb {
		j := index(ma, m.key)
		switch {
		case j < 0:
			add(m.key)
			p.WriteByte('[')
			p.Write(m.val)
			p.WriteByte(',')
			p.WriteString(strconv.Itoa(i))
			p.WriteByte(']')
		case bytes.Equal(ma[j].val, m.val):
		default:
			if ma[j].val[0] == '{' && m.val[0] == '{' {
				if sub, ok := diffMembers(ma[j].val, m.val); ok && len(sub) < len(m.val) {
					add(m.key)
					p.Write(sub)
					continue
				}
			}
			add(m.key)
			p.WriteByte('[')
			p.Write(m.val)
			p.WriteByte(']')
		}
	}
	for _, m := range ma {
		if index(mb, m.key) < 0 {
			add(m.key)
			p.WriteString("[]")
		}
	}
	p.WriteByte('}')
	return p.Bytes(), true
}

// patch applies the patch p (made by diff) to the encoded object after and
// returns the encoded object before.
func patch(after, p []byte) ([]byte, error) {
	ma, err := members(after)
	if err != nil {
		return nil, err
	}
	mp, err := members(p)
	if err != nil {
		return nil, err
	}
	type insert struct {
		at int
		m  member
	}
	var inserts []insert
	for _, op := range mp {
		j := index(ma, op.key)
		switch op.val[0] {
		case '{':
			if j < 0 {
				return nil, errBadPatch
			}
			v, err := patch(ma[j].val, op.val)
			if err != nil {
				return nil, err
			}
			ma[j].val = v
		case '[':
			elems, err := arrayElems(op.val)
			if err != nil {
				return nil, err
			}
			switch {
			case len(elems) == 0:
				if j >= 0 {
					ma = append(ma[:j], ma[j+1:]...)
				}
			case j >= 0:
				ma[j].val = elems[0]
			case len(elems) == 2:
				at, err := strconv.Atoi(string(elems[1]))
				if err != nil {
					return nil, errBadPatch
				}
				inserts = append(inserts, insert{at: at, m: member{key: op.key, val: elems[0]}})
			default:
				inserts = append(inserts, insert{at: len(ma) + len(inserts), m: member{key: op.key, val: elems[0]}})
			}
		default:
			return nil, errBadPatch
		}
	}
	for _, in := range inserts { // diff writes them in ascending order
		at := min(max(in.at, 0), len(ma))
		ma = append(ma[:at], append([]member{in.m}, ma[at:]...)...)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ma {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.key)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// arrayElems splits a compact JSON array of at most two elements.
func arrayElems(a []byte) ([][]byte, error) {
	if len(a) < 2 || a[0] != '[' || a[len(a)-1] != ']' {
		return nil, errBadPatch
	}
	if len(a) == 2 {
		return nil, nil
	}
	var out [][]byte
	i := 1
	for {
		e := scanValue(a, i)
		if e < 0 || e >= len(a) {
			return nil, errBadPatch
		}
		out = append(out, a[i:e])
		if a[e] == ']' {
			if e != len(a)-1 || len(out) > 2 {
				return nil, errBadPatch
			}
			return out, nil
		}
		if a[e] != ',' {
			return nil, errBadPatch
		}
		i = e + 1
	}
}
