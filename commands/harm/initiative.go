package harm

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

var (
	_ initiative.Initiator   = System{}
	_ initiative.Actor       = System{}
	_ initiative.CombatEnder = System{}
)

// InitiativeBonus is the React rank (RULES.md §0.6).
func (System) InitiativeBonus(ch *storage.Character) (int, error) {
	char, err := load(ch)
	if err != nil {
		return 0, err
	}
	c := char.c
	return c.Abilities[rules.React].Rank, nil
}

// RollInitiative makes the React check of RULES.md §0.6 (rules
// Character.Initiative): the table's Fudge dice (fudge-dice, or init-dice
// when set) + React rank with the condition's penalty dice; the success
// level is the initiative.
func (System) RollInitiative(m *commands.Mutation, ch *storage.Character, die *dice.Expr) (initiative.Roll, error) {
	char, err := load(ch)
	if err != nil {
		return initiative.Roll{}, err
	}
	c := char.c
	fudge := fudgeDice(m)
	if die != nil {
		fudge = die.Terms[0].Count
	}
	res, err := c.Initiative(m.Dice(), fudge)
	if err != nil {
		return initiative.Roll{}, ruleError(ch.Name, err)
	}
	return initiative.Roll{Total: res.SL, Bonus: res.Check.Rank, Text: checkText(res)}, nil
}

// InitiativeDice accepts 3dF or 4dF (RULES.md §3.1).
//
// **Reading:** the initiative is a check, and a check's dice are Fudge
// dice, so at a harm table init-dice names how many the React check rolls
// (as fudge-dice does for every check), its penalty dice and the SL floor
// of 0 still applying; any other die is refused.
func (System) InitiativeDice(e dice.Expr) error {
	if len(e.Terms) == 1 && e.Terms[0].Fudge && e.Terms[0].Sign > 0 && e.Terms[0].Keep == dice.KeepAll &&
		(e.Terms[0].Count == rules.DefaultFudgeDice || e.Terms[0].Count == rules.AltFudgeDice) {
		return nil
	}
	return commands.Errorf(commands.CodeInvalid, "At a harm table the initiative is a React check, so init-dice is its Fudge dice: 3dF or 4dF (got %s).", e)
}

// CanAct: a character taken out of the conflict does not act until it
// ends (RULES.md §3.2).
func (System) CanAct(ch *storage.Character, now int64) (bool, string, error) {
	char, err := load(ch)
	if err != nil {
		return false, "", err
	}
	c := char.c
	if c.TakenOut {
		return false, "taken out of the conflict", nil
	}
	return true, "", nil
}
