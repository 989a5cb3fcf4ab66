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
	// BriefLines is the most steps a reply's line gives as they are; a
	// character with more is summed up (its steps are in /history).
	BriefLines = 3
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
		// A line a character: a few steps as they are (at a round's end
		// without its time), more as a summary; /history has them all.
		lines := out.Lines
		if single := to == from+1; single {
			prefix := clock.Time(to).String() + ": "
			lines = make([]string, len(out.Lines))
			for i, l := range out.Lines {
				lines[i] = strings.TrimPrefix(l, prefix)
			}
		}
		brief := !detail || len(out.Lines) > BriefLines
		if brief {
			lines = summary(sum)
		}
		if c.State != next.State {
			lines = append(lines, "now **"+stateLine(next)+"**")
		}
		text := outcomeText(ch.Name, "", out, lines)
		d := detailText(ch.Name, out)
		if !detail || len(out.Lines) > DetailLines {
			d = detailText(ch.Name, rules.Outcome{Before: out.Before, After: out.After, CappedHP: out.CappedHP, CappedMP: out.CappedMP, Lines: summary(sum)})
		}
		m.Post(commands.Part{Text: text, Detail: d})
	}
	return nil
}

// summary renders the summary of an advance (RULES.md §0.2), a part
// each: every kind of save with its count, outcomes and DCs, e.g. "Fort
// (exertion, hours awake) ×212: 190 succeeded, 22 failed (3 by 10 or
// more), DC 10–52"; everything that happened with how often and when,
// e.g. "wakes ×22, first day 1, 21:00, last day 30, 05:00"; and the hours
// slept.
func summary(sum *rules.Summary) []string {
	out := []string{}
	for _, sc := range sum.Saves {
		s := fmt.Sprintf("%s (%s) ×%d: %d succeeded", sc.Kind, sc.For, sc.Count, sc.Succeeded)
		if sc.SucceededBy5 > 0 {
			s += fmt.Sprintf(" (%d by 5 or more)", sc.SucceededBy5)
		}
		s += fmt.Sprintf(", %d failed", sc.Failed)
		if sc.FailedBy10 > 0 {
			s += fmt.Sprintf(" (%d by 10 or more)", sc.FailedBy10)
		}
		if sc.MinDC == sc.MaxDC {
			s += fmt.Sprintf(", DC %d", sc.MinDC)
		} else {
			s += fmt.Sprintf(", DC %d–%d", sc.MinDC, sc.MaxDC)
		}
		out = append(out, s)
	}
	for _, e := range sum.Events {
		if e.Count == 1 {
			out = append(out, fmt.Sprintf("%s (%s)", e.What, clock.Time(e.First)))
			continue
		}
		out = append(out, fmt.Sprintf("%s ×%d, first %s, last %s", e.What, e.Count, clock.Time(e.First), clock.Time(e.Last)))
	}
	if l := sum.Sleep(); l != "" {
		out = append(out, l)
	}
	return out
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
