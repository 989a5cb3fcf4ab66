package harm

import (
	"fmt"

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
func (sys System) AdvanceClock(m *commands.Mutation, from, to int64) ([]string, error) {
	if m.ClockUnit() == clock.Round {
		return nil, nil
	}
	return sys.EndCombat(m)
}

// EndCombat ends the conflict (RULES.md §3.2.4): every taken-out
// character is back. The clock moving by a turn or more ends it, and so
// does closing the turn order (/init end).
func (System) EndCombat(m *commands.Mutation) ([]string, error) {
	chars, err := m.Characters()
	if err != nil {
		return nil, err
	}
	var report []string
	for _, ch := range chars {
		c, err := load(ch)
		if err != nil {
			return nil, err
		}
		n, ended := c.EndConflict()
		if !ended {
			continue
		}
		if err := store(m, ch, n); err != nil {
			return nil, err
		}
		report = append(report, fmt.Sprintf("**%s** is no longer taken out: the conflict is over (%s).", commands.Escape(ch.Name), n.Condition))
	}
	return report, nil
}
