package hpmpwp

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
)

// AdvanceClock resolves every character's rounds, hours and days between
// from and to (RULES.md §0.2, §2.4–§2.6).
func (System) AdvanceClock(m *commands.Mutation, from, to int64) error {
	chars, err := m.Characters()
	if err != nil {
		return err
	}
	for _, ch := range chars {
		m := m.For(ch)
		c, s, err := load(ch)
		if err != nil {
			return err
		}
		next, out, err := c.Advance(m.RecordingDice(), from, to)
		if err != nil {
			return ruleError(ch, err)
		}
		if next == c && len(out.Lines) == 0 {
			continue
		}
		if next != c {
			if err := store(m, ch, next, s.ChoiceSeq); err != nil {
				return err
			}
		}
		// Every line, every save with its DC: the reply is fitted to
		// Discord's limits by the platform, the /history summary keeps all.
		rep := fmt.Sprintf("**%s**: %s", commands.Escape(ch.Name), points(out))
		for _, l := range out.Lines {
			rep += "\n• " + l
		}
		if c.State != next.State || c.Activity != next.Activity {
			rep += "\nState: **" + stateLine(next) + "**"
		}
		if f := fatigue(next); f != "" && f != fatigue(c) {
			rep += "\n" + f
		}
		m.Say("%s", rep)
	}
	return nil
}
