package hitprot

import (
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// AdvanceClock resolves every hit-protection timer as the clock moves
// (RULES.md §0.2, §1.4): stuns that end, limbs back in use, no-restoring
// periods that end, bleed-outs that kill: one line per character.
func (System) AdvanceClock(m *commands.Mutation, from, to int64) error {
	all, err := m.Characters()
	if err != nil {
		return err
	}
	for _, ch := range all {
		h, err := load(ch)
		if err != nil {
			return err
		}
		c, notes := h.c.Advance(clock.Time(from), clock.Time(to))
		if len(notes) == 0 {
			continue
		}
		if err := h.store(m, c); err != nil {
			return err
		}
		m.For(ch).Say("%s %s.", h.name(), strings.Join(notes, "; "))
	}
	return nil
}
