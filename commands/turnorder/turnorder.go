// Package turnorder is the turn order feature of the commands kernel
// (RULES.md §0.6): a table may have one turn order open at a time, in
// storage.Table.Initiative, so every /init change is a table change whose
// event undoes it exactly. It keeps the order, the turns and the rounds; a
// system rolls initiative (initiative.Initiator), says who can act
// (initiative.Actor) and what closing the order ends (initiative.CombatEnder).
// The order follows every move of the clock (a round ends, a longer move
// closes it), a deleted character leaves it, and the tracker shows it.
//
// Files: command.go is /init, order.go the order's walk, view.go how it
// reads (/init show, the tracker, the history of a hidden combatant),
// options.go its table options.
package turnorder

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Feature is the turn order: /init, its table options, and its hooks into
// the kernel.
type Feature struct{}

var (
	_ commands.Feature        = Feature{}
	_ commands.ClockFollower  = Feature{}
	_ commands.DeleteFollower = Feature{}
	_ commands.TableOptioner  = Feature{}
	_ commands.EventHider     = Feature{}
	_ commands.Summarizer     = Feature{}
	_ commands.RollSuggester  = Feature{}
)

// Register adds /init.
func (Feature) Register(g *commands.Registry) { g.Add(initCommand()) }

// ClockMoved carries the open turn order along the clock (orderFollowsClock).
func (Feature) ClockMoved(m *commands.Mutation, unit clock.Unit) error {
	return orderFollowsClock(m, unit)
}

// CharacterDeleted takes a deleted character out of the open turn order
// (leaveOrder), notes what happened, and returns it as everyone reads it,
// in one line (a hidden combatant passed over by its public sentence).
func (Feature) CharacterDeleted(m *commands.Mutation, c *storage.Character) ([]string, error) {
	left, err := leaveOrder(m, c.ID, c.Name)
	if err != nil {
		return nil, err
	}
	noteLines(m, left)
	if _, public, _ := joined(left); public != "" {
		return []string{public}, nil
	}
	return nil, nil
}

// HidesEvent reports whether e changed the entry of a hidden combatant
// (initiativeHidden).
func (Feature) HidesEvent(e *storage.Event) bool { return initiativeHidden(e) }

// Summary is the open turn order as players see it (orderField), the
// tracker's field.
func (Feature) Summary(tx *storage.Tx, t *storage.Table, sys commands.System) (commands.Field, bool, error) {
	return orderField(tx, t, sys)
}
