package harm

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// AdvanceClock ends the conflict when the GM moves the clock (RULES.md
// §3.2.4): every taken-out character is back.
//
// **Reading:** moving the clock by rounds only (/clock next-round, /clock
// advance with unit rounds, the default, or a round end of the turn order)
// is time within the conflict and ends nothing; advancing by turns, hours
// or days, or a day of rest for the whole table, ends it.
func (sys System) AdvanceClock(m *commands.Mutation, from, to int64) error {
	if m.ClockUnit() == clock.Round {
		return nil
	}
	return sys.EndCombat(m)
}

// EndCombatHelp says what closing a turn order ends (the CombatEnder
// interface).
func (System) EndCombatHelp() string { return "the conflict: whoever was taken out is back" }

// EndCombat ends the conflict (RULES.md §3.2.4): every taken-out
// character is back, each said about that character (m.For). The clock
// moving by a turn or more ends it, and so does closing the turn order
// (/init end).
func (System) EndCombat(m *commands.Mutation) error {
	chars, err := m.Characters()
	if err != nil {
		return err
	}
	for _, ch := range chars {
		c, err := load(ch)
		if err != nil {
			return err
		}
		n, ended := c.EndConflict()
		if !ended {
			continue
		}
		if err := store(m, ch, n); err != nil {
			return err
		}
		m.For(ch).Say("**%s** is no longer taken out: the conflict is over (%s).", commands.Escape(ch.Name), n.Condition)
	}
	return nil
}
