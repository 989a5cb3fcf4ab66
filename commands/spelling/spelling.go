// Package spelling tells a typo of a known word from a new word: the
// "did you mean …?" of a refusal (an unknown stats key, a class or an
// ability a letter away from one the rules name). It knows no command
// and no rule system; the kernel and the systems give it their words.
package spelling

import (
	"fmt"
	"strings"
)

// Distance returns the number of edits that turn a into b, each an
// insertion, a deletion, a substitution or a swap of two neighbouring
// characters (the optimal string alignment distance), compared by
// character (rune), ignoring case.
func Distance(a, b string) int {
	x, y := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// MaxLen bounds the words Closest compares (longer ones are never a
// typo of a known word here): the work is at most MaxLen² per word.
const MaxLen = 40

// Typo reports whether word reads as a typo of known: not the same word
// (ignoring case), and one edit away, or two for a known word of more
// than five characters ("theif" for "thief", "enduer" for "endure",
// "willpwer" for "willpower"; "mages" is no typo of "sage"). A known word
// of three characters or fewer has no typos: "bx" may well be an ability
// beside "ax".
func Typo(word, known string) bool {
	n := len([]rune(known))
	if strings.EqualFold(word, known) || len(word) > MaxLen || n > MaxLen || n <= 3 {
		return false
	}
	limit := 1
	if n > 5 {
		limit = 2
	}
	return Distance(word, known) <= limit
}

// Closest returns the word of known that word reads as a typo of (Typo),
// the nearest, the first of equals; "" when there is none or word is one
// of known.
func Closest(word string, known []string) string {
	best, bestD := "", MaxLen+1
	for _, k := range known {
		if strings.EqualFold(word, k) {
			return ""
		}
		if Typo(word, k) {
			if d := Distance(word, k); d < bestD {
				best, bestD = k, d
			}
		}
	}
	return best
}

// Mark is what a player puts before a word to say it is new, not a typo
// ("+enduer=2" adds the ability enduer, "class=+theif" keeps the class
// theif).
const Mark = "+"

// Marked returns word without Mark, and whether it had it.
func Marked(word string) (string, bool) {
	w, ok := strings.CutPrefix(word, Mark)
	return w, ok
}

// NewWord reads value, the value of the stats key key that may be a word
// of known (a class the rules name) or a new one: it returns value
// without Mark, and, when value is unmarked and a typo of a word of known
// (Closest), the sentence that refuses it, saying which was meant and how
// to keep it as new: "class=theif: did you mean class=thief? For a class
// of its own, mark it new: class=+theif."
func NewWord(key, value string, known []string) (word, refusal string) {
	word, marked := Marked(value)
	if near := Closest(word, known); near != "" && !marked {
		refusal = fmt.Sprintf("%s=%s: did you mean %s=%s? For a %s of its own, mark it new: %s=%s%s.", key, word, key, near, key, key, Mark, word)
	}
	return word, refusal
}
