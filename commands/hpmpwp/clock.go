package hpmpwp

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// How much of an advance a reply lists line by line. An advance of at most
// DetailHours whole hours reports every save and event of a character with
// its clock time, as long as that character has at most DetailLines of
// them; a longer advance, or a character with more, gets a summary instead:
// its net changes, each kind of save with its count and outcomes, and what
// happened how often (rules.Summary). A day is the longest stretch a
// player follows hour by hour (a night's rest is 8 hours); past it the lines
// would be cut to Discord's 2,000 characters anyway.
const (
	DetailHours = 24
	DetailLines = 40
)

// AdvanceClock resolves every character's rounds, hours and days between
// from and to (RULES.md §0.2, §2.4–§2.6), each character's effects said
// through m.For(ch): each character's walk is linear in the hours and dying
// rounds passed, and its report is built once, in time linear in its
// length, which does not grow with the advance past DetailHours.
func (System) AdvanceClock(m *commands.Mutation, from, to int64) error {
	chars, err := m.Characters()
	if err != nil {
		return err
	}
	if err := askBeforeSleepless(m, chars, from, to); err != nil {
		return err
	}
	detail := clock.Passed(clock.Time(from), clock.Time(to), clock.Hour) <= DetailHours
	for _, ch := range chars {
		m := m.For(ch)
		char, err := load(ch)
		if err != nil {
			return err
		}
		c := char.c
		walk := c.AdvanceSummary
		if detail {
			walk = c.Advance
		}
		next, out, err := walk(m.Dice(), from, to)
		if err != nil {
			return ruleError(ch, err)
		}
		sum := out.Summary
		if next == c && len(out.Lines) == 0 && len(sum.Saves) == 0 && len(sum.Events) == 0 {
			continue
		}
		if next != c {
			if err := char.store(m, next); err != nil {
				return err
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "**%s**: %s", commands.Escape(ch.Name), points(out))
		if detail && len(out.Lines) <= DetailLines {
			for _, l := range out.Lines {
				b.WriteString("\n• ")
				b.WriteString(l)
			}
		} else {
			writeSummary(&b, sum)
		}
		if c.State != next.State || c.Activity != next.Activity {
			b.WriteString("\nState: **" + stateLine(next) + "**")
		}
		if f := fatigue(next); f != "" && f != fatigue(c) {
			b.WriteString("\n" + f)
		}
		m.Say("%s", b.String())
	}
	return nil
}

// writeSummary writes the summary of a long advance (RULES.md §0.2), one
// line each: every kind of save with its count, outcomes and DCs, e.g. "•
// Fort (exertion, hours awake) ×212: 190 succeeded, 22 failed (3 by 10 or
// more), DC 10–52"; everything that happened with how often and when, e.g.
// "• wakes ×22, first day 1, 21:00, last day 30, 05:00"; and the hours
// slept.
func writeSummary(b *strings.Builder, sum *rules.Summary) {
	for _, sc := range sum.Saves {
		fmt.Fprintf(b, "\n• %s (%s) ×%d: %d succeeded", sc.Kind, sc.For, sc.Count, sc.Succeeded)
		if sc.SucceededBy5 > 0 {
			fmt.Fprintf(b, " (%d by 5 or more)", sc.SucceededBy5)
		}
		fmt.Fprintf(b, ", %d failed", sc.Failed)
		if sc.FailedBy10 > 0 {
			fmt.Fprintf(b, " (%d by 10 or more)", sc.FailedBy10)
		}
		if sc.MinDC == sc.MaxDC {
			fmt.Fprintf(b, ", DC %d", sc.MinDC)
		} else {
			fmt.Fprintf(b, ", DC %d–%d", sc.MinDC, sc.MaxDC)
		}
	}
	for _, e := range sum.Events {
		if e.Count == 1 {
			fmt.Fprintf(b, "\n• %s (%s)", e.What, clock.Time(e.First))
			continue
		}
		fmt.Fprintf(b, "\n• %s ×%d, first %s, last %s", e.What, e.Count, clock.Time(e.First), clock.Time(e.Last))
	}
	if l := sum.Sleep(); l != "" {
		b.WriteString("\n• " + l)
	}
}

// askBeforeSleepless refuses a /clock advance of a day or more that would
// keep characters awake past 16 hours (RULES.md §2.6: every hour after is
// an exertion save, and each failure lowers abilities and the HP and MP
// maxima) unless the GM gave awake:true: it names them and the hour, says
// nothing was changed, and offers the night's rest first, or the same
// advance with awake:true, each typed as it works. It rolls nothing.
func askBeforeSleepless(m *commands.Mutation, chars []*storage.Character, from, to int64) error {
	if m.Req.Command != "clock" || to-from < clock.RoundsPerDay || m.Req.Options["awake"] == "true" {
		return nil
	}
	var names []string
	first := int64(0)
	for _, ch := range chars {
		char, err := load(ch)
		if err != nil {
			return err
		}
		if at, ok := char.c.Sleepless(from, to); ok {
			names = append(names, "**"+commands.Escape(ch.Name)+"**")
			if len(names) == 1 || at < first {
				first = at
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	who := fmt.Sprintf("%d characters", len(names))
	if len(names) <= maxSleeplessNames {
		who = names[len(names)-1]
		if len(names) > 1 {
			who = strings.Join(names[:len(names)-1], ", ") + " and " + who
		}
	}
	night := "`/rest kind:night` (8 hours), then `/clock action:advance amount:16 unit:hours`"
	if to-from > clock.RoundsPerDay {
		night += ", day by day"
	}
	unit := m.Req.Options["unit"]
	if unit == "" {
		unit = clock.Round.String()
	}
	return commands.Errorf(commands.CodeConflict, "That advance keeps %s awake past 16 hours (from %s): each hour after is an exertion save, and each failure is −2 to all abilities and lowers HP and MP maxima. Nothing was changed. A night's sleep first: %s. Or keep them awake: `/clock action:advance amount:%s unit:%s awake:true`.",
		who, clock.Time(first), night, m.Req.Options["amount"], unit)
}

// maxSleeplessNames is the most names askBeforeSleepless lists; past it,
// it counts them.
const maxSleeplessNames = 10
