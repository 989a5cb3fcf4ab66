package commands

import (
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// ReadingNotes renders, one small-print line each to follow a roll, how
// its expression was read where Avrae and Dice Maiden read it differently
// (docs/dice.md, "Where the bots differ"), e.g. "\n-# `4d6k3` keeps the
// dice showing 3, as in Avrae; for the highest 3 write `4d6kh3`"; "" for
// none. Every reply that rolls a player's expression adds it.
func ReadingNotes(e dice.Expr) string {
	var b strings.Builder
	for _, n := range e.Notes() {
		b.WriteString("\n-# ")
		b.WriteString(n)
	}
	return b.String()
}
