package harm

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// AdvanceClock ends the conflict when the GM moves the clock (RULES.md
// §3.2.4): every taken-out character is back.
//
// **Reading:** moving the clock by rounds only (/clock next-round, or
// /clock advance with unit rounds, the default) is time within the
// conflict and ends nothing; advancing by turns, hours or days, or a day of
// rest for the whole table, ends it.
func (System) AdvanceClock(m *commands.Mutation, from, to int64) error {
	if withinConflict(m.Req) {
		return nil
	}
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

// withinConflict reports whether r moves the clock by rounds only, which
// is time within the conflict (the reading on AdvanceClock).
func withinConflict(r *commands.Request) bool {
	if r.Command != "clock" {
		return false
	}
	switch r.Options["action"] {
	case "next-round":
		return true
	case "advance":
		u, ok := r.Options["unit"]
		if !ok {
			return true
		}
		unit, err := clock.ParseUnit(u)
		return err == nil && unit == clock.Round
	}
	return false
}
