package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// MoveClock moves the table's clock n units forward as /clock does: the
// system's timers, then what follows the clock (ClockFollower: the open
// turn order), saying "Nothing ended or fired." when the system said
// nothing. It returns how many parts the system said. The turn order's
// round end (/init next) moves it one round.
func (m *Mutation) MoveClock(n int64, unit clock.Unit) (fired int, err error) {
	return m.moveClock(n, unit, true)
}

// AdvanceClock moves the table's clock n units forward as MoveClock does,
// saying nothing when nothing fired, and returns how many parts the system
// said. Systems call it for rests that pass time (a night's sleep).
func (m *Mutation) AdvanceClock(n int64, unit clock.Unit) (fired int, err error) {
	return m.moveClock(n, unit, false)
}

// ClockUnit is the unit of the clock move in progress, for a system's
// AdvanceClock (harm: a move by rounds is time within the conflict,
// RULES.md §3.2.4); 0 outside one.
func (m *Mutation) ClockUnit() clock.Unit { return m.log.moving }

// moveClock is the one way the clock moves (RULES.md §0.2, §0.6): /clock,
// the round end of /init next and the rests that pass time all come here.
// It says a first line for everyone, how the clock moved; then the system
// resolves its timers between the two clock values (System.AdvanceClock),
// saying one part per effect that ended or fired, about its character
// (each noted for /history in its scope, the dice of each effect after its
// character's last line); with nothing, when it fired nothing, "Nothing
// ended or fired." on the first line; then what follows the clock
// (ClockFollower: the open turn order) follows it.
// It returns how many parts the system said.
func (m *Mutation) moveClock(n int64, unit clock.Unit, nothing bool) (fired int, err error) {
	from := clock.Time(m.Table.Clock)
	to := from.Add(n, unit)
	head := fmt.Sprintf("The clock moves %d %s: %s.", n, strings.TrimSuffix(unit.String(), plural(n)), Span(from, to))
	m.ForTable().Say("%s", head)
	m.ForTable().Note("%s", head)
	first, firstRoll, more := len(m.log.parts), len(m.log.rolls), m.log.moreRolls
	m.log.moving = unit
	err = m.NoteSaid(func() error { return m.System.AdvanceClock(m, int64(from), int64(to)) })
	m.log.moving = 0
	if err != nil {
		return 0, err
	}
	m.Table.Clock = int64(to)
	said := m.log.parts[first:]
	// The dice of each effect follow its character's last line, at most
	// maxReplyRolls of them (the event keeps up to MaxRecordedRolls).
	rolls := map[int][]string{} // by index in said
	type orphan struct {
		about *scope
		rolls []string
	}
	var orphans []orphan // the rolls of each scope that said nothing
	for _, r := range m.log.rolls[firstRoll:] {
		i := len(said) - 1
		for i >= 0 && !said[i].about.same(r.about) {
			i--
		}
		if i >= 0 {
			rolls[i] = append(rolls[i], r.text)
			continue
		}
		j := 0
		for j < len(orphans) && !orphans[j].about.same(r.about) {
			j++
		}
		if j == len(orphans) {
			orphans = append(orphans, orphan{about: r.about})
		}
		orphans[j].rolls = append(orphans[j].rolls, r.text)
	}
	for i, rs := range rolls {
		said[i].Text += rollsLine(Unshown(said[i].Text, rs))
	}
	for _, o := range orphans {
		m.log.parts = append(m.log.parts, scopedPart{about: o.about, Part: Part{Text: strings.TrimPrefix(rollsLine(o.rolls), " ")}})
	}
	fired = len(m.log.parts) - first
	if n := m.log.moreRolls - more; n > 0 {
		v := m.voice
		v.about = nil // whose they are is not recorded: as hidden as any character loaded
		v.Say("… and %s, not listed: an event lists %d.", Count(n, "more roll"), MaxRecordedRolls)
	}
	// Players read that nothing fired when nothing they see did: a hidden
	// character's timer is not told by the line's absence.
	if nothing && !slices.ContainsFunc(m.log.parts[first:], func(p scopedPart) bool { return m.sees(view.Channel, p.about) }) {
		m.log.parts[first-1].Text += " Nothing ended or fired."
	}
	for _, f := range m.s.registry.features {
		if cf, ok := f.(ClockFollower); ok {
			if err := cf.ClockMoved(m, unit); err != nil {
				return 0, err
			}
		}
	}
	return fired, nil
}

// Span renders a stretch of the clock, "day 1, 00:00 → day 2, 08:00", the
// day said once when it does not change ("day 1, 00:00 → 00:04").
func Span(from, to clock.Time) string {
	f, t := from.String(), to.String()
	if fd, _, ok := strings.Cut(f, ", "); ok {
		if td, tt, ok := strings.Cut(t, ", "); ok && td == fd {
			t = tt
		}
	}
	return f + " → " + t
}

// plural returns the suffix to trim for n == 1 ("s"), else "".
func plural(n int64) string {
	if n == 1 {
		return "s"
	}
	return ""
}
