package harm

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

// AdvanceClock ends the conflict when the GM moves the clock (RULES.md
// §3.2.4): every taken-out character is back. Then the time passes outside
// a conflict, and every character for whom it completes a day of rest has
// its pools refilled (RULES.md §3.3 Reading; rules.Character.PassTime).
//
// **Reading:** moving the clock by rounds only (/clock next-round, /clock
// advance with unit rounds, the default, or a round end of the turn order)
// is time within the conflict and ends nothing; advancing by turns, hours
// or days, or a day of rest for the whole table, ends it.
func (sys System) AdvanceClock(m *commands.Mutation, from, to int64) error {
	if m.ClockUnit() == clock.Round {
		return nil
	}
	if err := sys.EndCombat(m); err != nil {
		return err
	}
	return update(m, func(ch *storage.Character, c rules.Character) (rules.Character, string) {
		n, changes, days := c.PassTime(clock.Time(from), clock.Time(to))
		if days == 0 || len(changes) == 0 {
			return c, ""
		}
		return n, restLine(ch, n, changes, clock.Time(to)) + "."
	})
}

// EndCombatHelp says what closing a turn order ends (the CombatEnder
// interface).
func (System) EndCombatHelp() string { return "the conflict: whoever was taken out is back" }

// EndCombat ends the conflict (RULES.md §3.2.4): every taken-out
// character is back, each said about that character (m.For). The clock
// moving by a turn or more ends it, and so does closing the turn order
// (/init end).
func (System) EndCombat(m *commands.Mutation) error {
	return update(m, func(ch *storage.Character, c rules.Character) (rules.Character, string) {
		n, ended := c.EndConflict()
		if !ended {
			return c, ""
		}
		return n, fmt.Sprintf("**%s** is no longer taken out: the conflict is over (%s).", commands.Escape(ch.Name), n.Condition)
	})
}

// update runs fn on every character at the table; each that fn says
// something about (a line, not "") is stored as fn returns it and the line
// is said about it (m.For), for the clock's report.
func update(m *commands.Mutation, fn func(ch *storage.Character, c rules.Character) (rules.Character, string)) error {
	chars, err := m.Characters()
	if err != nil {
		return err
	}
	for _, ch := range chars {
		char, err := load(ch)
		if err != nil {
			return err
		}
		c := char.c
		n, line := fn(ch, c)
		if line == "" {
			continue
		}
		if err := char.store(m, n); err != nil {
			return err
		}
		m.For(ch).Say("%s", line)
	}
	return nil
}
