package hitprot

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

var (
	_ initiative.Initiator = System{}
	_ initiative.Actor     = System{}
)

// initiativeDie is the die of a hit-protection initiative roll (RULES.md
// §0.6).
var initiativeDie = dice.MustParse("1d6")

// InitiativeBonus is the sheet's init (RULES.md §0.6).
func (System) InitiativeBonus(ch *storage.Character) (int, error) {
	h, err := load(ch)
	if err != nil {
		return 0, err
	}
	return h.c.Init, nil
}

// RollInitiative rolls 1d6 + init (RULES.md §0.6), or the table's
// init-dice + init.
func (sys System) RollInitiative(m *commands.Mutation, ch *storage.Character, die *dice.Expr) (initiative.Roll, error) {
	bonus, err := sys.InitiativeBonus(ch)
	if err != nil {
		return initiative.Roll{}, err
	}
	why := ""
	if bonus != 0 {
		why = fmt.Sprintf("init %+d", bonus)
	}
	return initiative.RollDie(m, initiativeDie, die, bonus, why)
}

// InitiativeDice accepts any dice expression in place of the 1d6.
func (System) InitiativeDice(dice.Expr) error { return nil }

// CanAct says who cannot act when its turn comes (RULES.md §0.6, §1.3,
// §1.4): the dead, the down (it went down and stays down until its HP
// are above 0 again, §1.5, whether its fate is still hidden or not) and
// the stunned, until the round their stun ends. A character staying up,
// bleeding out or with its 0-HP choice pending still acts.
func (System) CanAct(ch *storage.Character, now int64) (bool, string, error) {
	h, err := load(ch)
	if err != nil {
		return false, "", err
	}
	c := h.c
	switch {
	case c.Status == rules.Dead:
		return false, "dead", nil
	case c.Status == rules.Down && !c.FateRevealed:
		return false, "down, its fate hidden until attended", nil
	case c.Status == rules.Down:
		return false, "down until its HP are above 0", nil
	case c.StunnedUntil > clock.Time(now):
		return false, c.Stunned(clock.Time(now)), nil
	}
	return true, "", nil
}
