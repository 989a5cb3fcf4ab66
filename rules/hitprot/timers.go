package hitprot

import (
	"fmt"
	"sort"

	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// Advance resolves the character's timers as the table clock moves from
// round from to round to (RULES.md §0.2, §1.4), in time order: every stun
// that ends, every limb whose use comes back, every no-restoring period that
// ends, and every bleed-out that kills. It returns the new character and one
// plain sentence per effect, each naming the clock round it happened at.
// Once the character dies, its later timers are moot and cleared.
func (c Character) Advance(from, to clock.Time) (Character, []string) {
	if to <= from || c.Status == Dead {
		return c, nil
	}
	c = c.clone()
	type event struct {
		at    clock.Time
		order int
		fire  func() string
	}
	var evs []event
	if c.StunnedUntil > from && c.StunnedUntil <= to {
		at := c.StunnedUntil
		evs = append(evs, event{at, 0, func() string {
			c.StunnedUntil = 0
			return fmt.Sprintf("no longer stunned (%s)", at)
		}})
	}
	for i, l := range c.Limbs {
		if !l.Lost && l.Until > from && l.Until <= to && !c.lost(l.Name) {
			i, l := i, l
			evs = append(evs, event{l.Until, 1, func() string {
				c.Limbs[i].Until = -1 // removed below
				return fmt.Sprintf("regains the use of the %s (%s)", l.Name, l.Until)
			}})
		}
	}
	if c.NoRestoreUntil > from && c.NoRestoreUntil <= to {
		at := c.NoRestoreUntil
		evs = append(evs, event{at, 2, func() string {
			c.NoRestoreUntil = 0
			return fmt.Sprintf("may restore HP again (%s): the no-restoring period is over", at)
		}})
	}
	for _, b := range c.Bleeds {
		if b.DiesAt <= to {
			b := b
			evs = append(evs, event{b.DiesAt, 3, func() string {
				c.die(fmt.Sprintf("bled out from a %s", b.Wound))
				return fmt.Sprintf("dies of the %s (%s)", b.Wound, b.DiesAt)
			}})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].at != evs[j].at {
			return evs[i].at < evs[j].at
		}
		return evs[i].order < evs[j].order
	})
	var notes []string
	for _, e := range evs {
		if c.Status == Dead {
			break
		}
		notes = append(notes, e.fire())
	}
	if c.Status != Dead {
		var limbs []Limb
		for _, l := range c.Limbs {
			if l.Lost || l.Until >= 0 && !(l.Until <= to && c.lost(l.Name)) {
				limbs = append(limbs, l)
			}
		}
		c.Limbs = limbs
	}
	return c, notes
}

// lost reports whether the limb named name is lost for good. A sheet kept
// from before a lost limb stayed lost (RULES.md §1.4 Reading) may still
// hold the loss of its use beside it; that one never ends in a report.
func (c *Character) lost(name string) bool {
	for _, l := range c.Limbs {
		if l.Lost && l.Name == name {
			return true
		}
	}
	return false
}
