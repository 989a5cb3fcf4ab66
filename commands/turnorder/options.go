package turnorder

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The table options of the turn order (RULES.md §0.6), which every system
// with an initiative.Initiator offers.
const (
	// InitRerollOption: never (the default), or each-round to reroll
	// everyone who can act at each round's start.
	InitRerollOption    = "init-reroll"
	InitRerollNever     = "never"
	InitRerollEachRound = "each-round"
	// InitDiceOption: default (the system's die), or a dice expression
	// that replaces it (e.g. d20).
	InitDiceOption  = "init-dice"
	InitDiceDefault = "default"
	// InitPingOption: off (the default), or on to mention the owner of the
	// character whose turn starts, and only that user.
	InitPingOption = "init-ping"
)

// TableOptions offers the turn order's options at a table whose system
// has initiative (initiative.Initiator), as the group "Turn order options". They are
// sparse: a table stores one only while it is not at its default.
func (Feature) TableOptions(sys commands.System) (string, []commands.TableOption) {
	if _, ok := sys.(initiative.Initiator); !ok {
		return "", nil
	}
	return "Turn order options", []commands.TableOption{
		{Name: InitRerollOption, Help: "reroll everyone's initiative at each round's start", Default: InitRerollNever, Values: []string{InitRerollNever, InitRerollEachRound}, Sparse: true},
		{Name: InitDiceOption, Help: "the die of an initiative roll: default (the system's) or a dice expression, e.g. d20", Default: InitDiceDefault, Values: []string{InitDiceDefault}, Sparse: true, Parse: parseInitDice},
		{Name: InitPingOption, Help: "mention the owner of the character whose turn starts", Default: "off", Values: []string{"off", "on"}, Sparse: true},
	}
}

// RollSuggestions suggests the table's init-dice, when it has its own, for
// /roll and /odds expr (commands.RollSuggester).
func (Feature) RollSuggestions(t *storage.Table, _ []*storage.Character) []commands.Choice {
	if v, ok := t.Options[InitDiceOption]; ok && v != InitDiceDefault {
		return []commands.Choice{{Name: v + " — initiative (the table's init-dice)", Value: v}}
	}
	return nil
}

// parseInitDice checks a value of init-dice: default, or a dice expression
// with at least one die that the system accepts (initiative.Initiator.InitiativeDice),
// stored in canonical notation.
func parseInitDice(m *commands.Mutation, value string) (string, error) {
	if value == InitDiceDefault {
		return value, nil
	}
	e, err := dice.Parse(value)
	if err != nil {
		return "", commands.Errorf(commands.CodeInvalid, "Option init-dice takes default or a dice expression such as d20: %v.", err)
	}
	if e.DiceCount() == 0 {
		return "", commands.Errorf(commands.CodeInvalid, "Option init-dice needs at least one die, e.g. d20 (got %q).", commands.Clip(value, 40))
	}
	if err := m.System.(initiative.Initiator).InitiativeDice(e); err != nil {
		return "", err
	}
	return e.String(), nil
}

// initiativeDie returns the table's init-dice expression, or nil for the
// system's own die.
func initiativeDie(t *storage.Table) (*dice.Expr, error) {
	v, ok := t.Options[InitDiceOption]
	if !ok || v == InitDiceDefault {
		return nil, nil
	}
	e, err := dice.Parse(v)
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "The table option init-dice=%s no longer reads (%v); a GM sets it again with /table option.", commands.Clip(v, 40), err)
	}
	return &e, nil
}
