// Package initiative is the rule systems' part of the turn order (RULES.md
// §0.6): a system rolls initiative (Initiator), says who can act (Actor)
// and what closing the order ends (CombatEnder). The turn order itself (the
// order, the turns, the rounds, /init) is a feature that runs over these
// interfaces (commands/turnorder), and the kernel knows none of them: a
// system implements them with this package, never the turn order's, as a
// database/sql driver implements database/sql/driver.
package initiative

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Initiator is implemented by a system whose characters can join a turn
// order (RULES.md §0.6). Without it, /init is refused at the system's
// tables.
type Initiator interface {
	// InitiativeBonus returns c's initiative bonus: what its roll adds to
	// the die, which breaks ties between equal initiatives, also for a
	// total rolled at the table (/init join roll:…).
	InitiativeBonus(c *storage.Character) (int, error)
	// RollInitiative rolls c's initiative through m, scoped to c (m.Roll
	// or m.RecordingDice, so that the event records every die, a hidden
	// c's dice stay the GM's and a dice=manual table asks c's owner for
	// the faces). die is the table option
	// init-dice, already accepted by InitiativeDice, or nil for the
	// system's own die. A character that cannot roll is a CodeInvalid
	// *commands.Error.
	RollInitiative(m *commands.Mutation, c *storage.Character, die *dice.Expr) (Roll, error)
	// InitiativeDice checks a value of the table option init-dice (an
	// expression with at least one die): nil, or a CodeInvalid
	// *commands.Error saying what the system takes.
	InitiativeDice(die dice.Expr) error
}

// Actor is implemented by a system whose characters can be unable to act
// (RULES.md §0.6): dead, unconscious, stunned past this round, taken out.
// Without it, every combatant acts.
type Actor interface {
	// CanAct reports whether c can act when its turn comes at clock round
	// now; when it cannot, reason says why in the rule's terms ("dead",
	// "stunned for 3 more rounds").
	CanAct(c *storage.Character, now int64) (ok bool, reason string, err error)
}

// CombatEnder is implemented by a system with something to end when a
// turn order closes (harm: the conflict, and with it taken out; RULES.md
// §3.2.4). EndCombat saves what it changes through m and says one part
// per character changed, about that character (m.For(c).Say); the kernel
// notes what was said for /history.
type CombatEnder interface {
	EndCombat(m *commands.Mutation) error
	// EndCombatHelp says in a few words what closing the turn order ends,
	// for /help topic:init, e.g. "the conflict: taken out is cleared".
	EndCombatHelp() string
}

// Roll is one character's initiative as its system rolled it (RULES.md
// §0.6).
type Roll struct {
	// Total is the initiative: higher acts first.
	Total int
	// Bonus is the character's initiative bonus, which breaks ties.
	Bonus int
	// Text shows how it was rolled, every die included, e.g.
	// "1d6+1 [4] + 1 = 5".
	Text string
}

// RollDie rolls a die + bonus through m (recorded in the event) as an
// initiative: the roll of a system whose initiative is a die plus a bonus
// (hit-protection 1d6 + init, hp-mp-wp d20 + Dex modifier + init; RULES.md
// §0.6). The die is init-dice, the die RollInitiative was given, or the
// system's own die def when that is nil. why names the parts of the bonus
// for the reply, e.g. "Dex +1, init +2" ("" for none).
func RollDie(m *commands.Mutation, def dice.Expr, initDice *dice.Expr, bonus int, why string) (Roll, error) {
	die := def
	if initDice != nil {
		die = *initDice
	}
	e, err := die.Plus(bonus)
	if err != nil {
		return Roll{}, commands.RollError(err)
	}
	res, err := m.Roll(e)
	if err != nil {
		return Roll{}, err
	}
	text := res.String()
	if why != "" {
		text += " (" + why + ")"
	}
	return Roll{Total: res.Total, Bonus: bonus, Text: text}, nil
}

// The range of the sheet stat init, the initiative bonus of hit-protection
// and hp-mp-wp characters (RULES.md §0.6).
const (
	MinBonus = -20
	MaxBonus = 20
)
