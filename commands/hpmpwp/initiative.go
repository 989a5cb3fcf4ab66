package hpmpwp

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

var (
	_ initiative.Initiator = System{}
	_ initiative.Actor     = System{}
)

// initiativeDie is the die of an hp-mp-wp initiative roll (RULES.md §0.6).
var initiativeDie = dice.MustParse("1d20")

// initiativeBonus is the Dex modifier of the Dex score as it is now,
// fatigue's and exhaustion's penalty included (RULES.md §2.3), and the
// sheet's init (RULES.md §0.6), with the parts named.
func initiativeBonus(c rules.Character) (int, string) {
	dex := rules.Modifier(c.Abilities()[1])
	parts := []string{fmt.Sprintf("Dex %+d", dex)}
	if c.Penalty() > 0 {
		parts[0] += fmt.Sprintf(" at Dex %d, %s", c.Abilities()[1], c.Condition())
	}
	if c.Init != 0 {
		parts = append(parts, fmt.Sprintf("init %+d", c.Init))
	}
	return dex + c.Init, strings.Join(parts, ", ")
}

// InitiativeBonus is the Dex modifier (fatigue included) + init (RULES.md
// §0.6).
func (System) InitiativeBonus(ch *storage.Character) (int, error) {
	char, err := load(ch)
	if err != nil {
		return 0, err
	}
	c := char.c
	b, _ := initiativeBonus(c)
	return b, nil
}

// RollInitiative rolls d20 + Dex modifier + init (RULES.md §0.6), or the
// table's init-dice + the same bonus.
func (System) RollInitiative(m *commands.Mutation, ch *storage.Character, die *dice.Expr) (initiative.Roll, error) {
	char, err := load(ch)
	if err != nil {
		return initiative.Roll{}, err
	}
	c := char.c
	bonus, why := initiativeBonus(c)
	return initiative.RollDie(m, initiativeDie, die, bonus, why)
}

// InitiativeDice accepts any dice expression in place of the d20.
func (System) InitiativeDice(dice.Expr) error { return nil }

// CanAct says who cannot act when its turn comes (RULES.md §0.6, §2.4,
// §2.6): the dead, the dying and the stable (unconscious), and a
// sleeper. A disabled character is conscious and acts, and so does one
// whose Die Hard choice is pending: the rules hold it stable until it
// chooses, and its turn does not choose for it.
//
// **Reading:** a character whose activity is sleep is asleep, and sleeps
// through its turn until it wakes (/activity kind:awake).
func (System) CanAct(ch *storage.Character, now int64) (bool, string, error) {
	char, err := load(ch)
	if err != nil {
		return false, "", err
	}
	c := char.c
	switch {
	case c.ChoicePending: // its turn comes; its owner chooses (§2.4)
		return true, "", nil
	case c.State == rules.Dead:
		return false, "dead", nil
	case c.State == rules.Dying:
		return false, "dying, unconscious", nil
	case c.State == rules.Stable:
		return false, "stable, unconscious", nil
	case c.Activity == rules.Sleep:
		return false, "asleep", nil
	}
	return true, "", nil
}
