package hpmpwp

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// activity is /activity kind:awake|work|sleep (RULES.md §2.6); awake on a
// sleeper is the Will save to wake early.
func activity(m *commands.Mutation) (*commands.Response, error) {
	a, err := rules.ParseActivity(m.Req.Options["kind"])
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "%v.", err)
	}
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	return each(m, targets, m.CanChange, func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error) {
		next, out, err := c.SetActivity(src, a)
		if err == nil && len(out.Lines) == 0 {
			out.Lines = append(out.Lines, fmt.Sprintf("activity: %s", next.Activity))
		}
		return next, out, err
	})
}

// rest is /rest kind:night (GM): the whole table (or target) goes to
// sleep for 8 hours on the clock, and the clock passes them (RULES.md §2.6).
// Nobody put to bed wakes on their own before the 8 hours are over
// (hpkeeper's reading); the unconscious and the dead are not put to bed.
func rest(m *commands.Mutation) (*commands.Response, error) {
	// kind is night, the only value Options gives it.
	if err := m.RequireGM("call a night's rest"); err != nil {
		return nil, err
	}
	var targets []*storage.Character
	var err error
	if t := m.Req.Options["target"]; strings.TrimSpace(t) != "" {
		targets, err = m.Targets(t)
	} else {
		targets, err = m.Characters()
	}
	if err != nil {
		return nil, err
	}
	until := int64(clock.Time(m.Table.Clock).Add(8, clock.Hour))
	var names []string
	var sleepers []*storage.Character
	for _, ch := range targets {
		c, s, err := load(ch)
		if err != nil {
			return nil, err
		}
		next, _, err := c.NightRest(until)
		if err != nil {
			continue // the dead and the unconscious do not go to bed
		}
		until = next.SleepUntil // rounded down to a whole hour
		if err := store(m, ch, next, s.ChoiceSeq); err != nil {
			return nil, err
		}
		name := commands.Escape(ch.Name)
		if c.Activity == rules.Sleep {
			name += " (already asleep)"
		}
		names = append(names, name)
		sleepers = append(sleepers, ch)
	}
	head := "Night's rest: nobody goes to sleep."
	if len(names) > 0 {
		head = "Night's rest, to sleep until " + clock.Time(until).String() + ": " + strings.Join(names, ", ") + "."
	}
	m.ForTable().Say("%s", head)
	if _, err := m.AdvanceClock(8, clock.Hour); err != nil {
		return nil, err
	}
	return &commands.Response{}, nil
}
