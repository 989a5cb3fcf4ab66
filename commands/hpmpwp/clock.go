package hpmpwp

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
)

// AdvanceClock resolves every character's rounds, hours and days between
// from and to (RULES.md §0.2, §2.4–§2.6).
func (System) AdvanceClock(m *commands.Mutation, from, to int64) ([]string, error) {
	chars, err := m.Characters()
	if err != nil {
		return nil, err
	}
	var report []string
	src := m.RecordingDice()
	for _, ch := range chars {
		c, s, err := load(ch)
		if err != nil {
			return nil, err
		}
		next, out, err := c.Advance(src, from, to)
		if err != nil {
			return nil, ruleError(ch, err)
		}
		if next == c && len(out.Lines) == 0 {
			continue
		}
		if next != c {
			if err := store(m, ch, next, s.ChoiceSeq); err != nil {
				return nil, err
			}
		} else {
			m.Reported(ch) // a save that changed nothing is still its numbers
		}
		// Every line, every save with its DC: the reply is fitted to
		// Discord's limits by the platform, the /history summary keeps all.
		rep := fmt.Sprintf("**%s**: %s", commands.Escape(ch.Name), points(out))
		for _, l := range out.Lines {
			rep += "\n• " + l
		}
		if c.State != next.State || c.Activity != next.Activity {
			rep += "\nState: **" + stateText(next) + "**"
		}
		if f := next.FatigueSummary(); f != "" && f != c.FatigueSummary() {
			rep += "\n" + f
		}
		report = append(report, rep)
	}
	return report, nil
}
