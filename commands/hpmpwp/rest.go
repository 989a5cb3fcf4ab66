package hpmpwp

import (
	"errors"
	"fmt"
	"strconv"
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
	return each(m, targets, "", m.CanChange, func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error) {
		next, out, err := c.SetActivity(src, a, m.Table.Clock)
		if err == nil && len(out.Lines) == 0 {
			out.Lines = append(out.Lines, fmt.Sprintf("activity: %s", next.Activity))
		}
		return next, out, err
	})
}

// wake is /wake target:NAME listen-dc:N stay-asleep:true|false (RULES.md
// §2.6, woken by a noise): the player of each sleeper made a Listen check
// against listen-dc; the sleeper wakes unless it succeeds at a Will save
// against that DC, and with stay-asleep:false its owner fails the save on
// purpose and it wakes at once.
func wake(m *commands.Mutation) (*commands.Response, error) {
	dc, err := strconv.Atoi(m.Req.Options["listen-dc"])
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "listen-dc is the DC of the Listen check, a whole number.")
	}
	stay := m.Req.Options["stay-asleep"] != "false"
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	for _, ch := range targets {
		_, err := each(m, []*storage.Character{ch}, "", m.CanChange, func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error) {
			next, out, err := c.WakeByNoise(src, dc, stay)
			if errors.Is(err, rules.ErrUnconscious) {
				// Said here: ruleError's word for it is about casting.
				err = commands.Errorf(commands.CodeConflict, "%s is unconscious (%s): no noise wakes it.", commands.Escape(ch.Name), c.State)
			}
			return next, out, err
		})
		if err != nil {
			return nil, err
		}
	}
	return &commands.Response{}, nil
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
	// Who goes to bed, and who slept already, is a hidden character's state:
	// players read the visible sleepers, the GM the hidden ones too.
	var names, hiddenNames []string
	var hidden []*storage.Character
	for _, ch := range targets {
		if ch.Hidden {
			hidden = append(hidden, ch)
		}
		char, err := load(ch)
		if err != nil {
			return nil, err
		}
		c := char.c
		next, _, err := c.NightRest(until)
		if err != nil {
			continue // the dead and the unconscious do not go to bed
		}
		if err := char.store(m, next); err != nil {
			return nil, err
		}
		name := commands.Escape(ch.Name)
		if c.Activity == rules.Sleep {
			name += " (already asleep)"
		}
		if ch.Hidden {
			hiddenNames = append(hiddenNames, name)
		} else {
			names = append(names, name)
		}
	}
	head := "Night's rest: nobody goes to sleep."
	switch at := clock.Time(until).String(); {
	case len(names) > 0:
		head = "Night's rest, to sleep until " + at + ": " + strings.Join(names, ", ") + "."
	case len(hidden) > 0:
		head = "Night's rest, to sleep until " + at + "."
	}
	m.ForTable().Say("%s", head)
	if len(hidden) > 0 {
		// About every hidden target, sleeper or not, so that where players
		// read their words does not tell them apart.
		list := "nobody goes to sleep"
		if len(hiddenNames) > 0 {
			list = strings.Join(hiddenNames, ", ")
		}
		m.For(hidden...).Say("Night's rest for the hidden characters: %s.", list)
	}
	if _, err := m.AdvanceClock(8, clock.Hour); err != nil {
		return nil, err
	}
	return &commands.Response{}, nil
}
