package commands

import (
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The turn order (RULES.md §0.6): a table may have one open at a time, in
// storage.Table.Initiative, so every /init change is a table change whose
// event undoes it exactly. The core keeps the order, the turns and the
// rounds; a system rolls initiative (Initiator) and says who can act
// (Actor). The order's walk is in turnorder.go, how it reads in
// turnorderview.go, and the /init command in initcommand.go.

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
	// *Error.
	RollInitiative(m *Mutation, c *storage.Character, die *dice.Expr) (InitiativeRoll, error)
	// InitiativeDice checks a value of the table option init-dice (an
	// expression with at least one die): nil, or a CodeInvalid *Error
	// saying what the system takes.
	InitiativeDice(die dice.Expr) error
}

// Actor is implemented by a system whose characters can be unable to act
// (RULES.md §0.6): dead, unconscious, stunned past this round, taken out.
// Without it, every combatant acts.
type Actor interface {
	// CanAct reports whether c can act when its turn comes at clock round
	// now; when it cannot, reason says why in the rule's terms ("dead",
	// "stunned until day 1, 00:03").
	CanAct(c *storage.Character, now int64) (ok bool, reason string, err error)
}

// CombatEnder is implemented by a system with something to end when a
// turn order closes (harm: the conflict, and with it taken out; RULES.md
// §3.2.4). EndCombat saves what it changes through m and says one part
// per character changed, about that character (m.For(c).Say); the core
// notes what was said for /history.
type CombatEnder interface {
	EndCombat(m *Mutation) error
	// EndCombatHelp says in a few words what closing the turn order ends,
	// for /help topic:init, e.g. "the conflict: taken out is cleared".
	EndCombatHelp() string
}

// InitiativeRoll is one character's initiative as its system rolled it
// (RULES.md §0.6).
type InitiativeRoll struct {
	// Total is the initiative: higher acts first.
	Total int
	// Bonus is the character's initiative bonus, which breaks ties.
	Bonus int
	// Text shows how it was rolled, every die included, e.g.
	// "1d6+1 [4] + 1 = 5".
	Text string
}

// RollInitiativeDie rolls a die + bonus through m (recorded in the event)
// as an initiative: the roll of a system whose initiative is a die plus a
// bonus (hit-protection 1d6 + init, hp-mp-wp d20 + Dex modifier + init;
// RULES.md §0.6). The die is init-dice, the die RollInitiative was given,
// or the system's own die def when that is nil. why names the parts of the
// bonus for the reply, e.g. "Dex +1, init +2" ("" for none).
func (m *Mutation) RollInitiativeDie(def dice.Expr, initDice *dice.Expr, bonus int, why string) (InitiativeRoll, error) {
	die := def
	if initDice != nil {
		die = *initDice
	}
	e, err := die.Plus(bonus)
	if err != nil {
		return InitiativeRoll{}, RollError(err)
	}
	res, err := m.Roll(e)
	if err != nil {
		return InitiativeRoll{}, err
	}
	text := res.String()
	if why != "" {
		text += " (" + why + ")"
	}
	return InitiativeRoll{Total: res.Total, Bonus: bonus, Text: text}, nil
}

// The range of the sheet stat init, the initiative bonus of hit-protection
// and hp-mp-wp characters (RULES.md §0.6).
const (
	MinInitiativeBonus = -20
	MaxInitiativeBonus = 20
)

// MaxCombatants bounds a turn order, so that a round's walk and its
// rerolls stay short: every character of the largest table (MaxCharacters).
const MaxCombatants = MaxCharacters

// The table options of the turn order (RULES.md §0.6), which every system
// with an Initiator offers.
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

// initiativeOptions are the turn order's table options.
func initiativeOptions() []TableOption {
	return []TableOption{
		{Name: InitRerollOption, Help: "reroll everyone's initiative at each round's start", Default: InitRerollNever, Values: []string{InitRerollNever, InitRerollEachRound}},
		{Name: InitDiceOption, Help: "the die of an initiative roll: default (the system's) or a dice expression, e.g. d20", Default: InitDiceDefault, Values: []string{InitDiceDefault}},
		{Name: InitPingOption, Help: "mention the owner of the character whose turn starts", Default: "off", Values: []string{"off", "on"}},
	}
}

// isInitiativeOption reports whether name is one of the turn order's
// table options.
func isInitiativeOption(name string) bool {
	return name == InitRerollOption || name == InitDiceOption || name == InitPingOption
}

// setInitiativeOption carries out /table option for the turn order's
// options (GM only; the caller checked). init-dice takes default or a dice
// expression the system accepts, stored in canonical notation.
func setInitiativeOption(m *Mutation, name, value string) (*Response, error) {
	ini, ok := m.System.(Initiator)
	if !ok { // tableOptions lists these options only at a system with initiative
		return nil, Errorf(CodeInvalid, "The %s system has no initiative, so option %s does nothing here.", m.Table.System, name)
	}
	stored := value
	switch name {
	case InitRerollOption:
		if value != InitRerollNever && value != InitRerollEachRound {
			return nil, Errorf(CodeInvalid, "Option %s takes never or each-round (got %q).", name, Clip(value, 40))
		}
	case InitPingOption:
		if value != "off" && value != "on" {
			return nil, Errorf(CodeInvalid, "Option %s takes off or on (got %q).", name, Clip(value, 40))
		}
	case InitDiceOption:
		if value != InitDiceDefault {
			e, err := dice.Parse(value)
			if err != nil {
				return nil, Errorf(CodeInvalid, "Option init-dice takes default or a dice expression such as d20: %v.", err)
			}
			if e.DiceCount() == 0 {
				return nil, Errorf(CodeInvalid, "Option init-dice needs at least one die, e.g. d20 (got %q).", Clip(value, 40))
			}
			if err := ini.InitiativeDice(e); err != nil {
				return nil, err
			}
			stored = e.String()
		}
	}
	old := m.Table.Options[name]
	if old == "" {
		old = initiativeOptionDefault(name)
	}
	opts := make(map[string]string, len(m.Table.Options)+1)
	for k, v := range m.Table.Options {
		opts[k] = v
	}
	if stored == initiativeOptionDefault(name) {
		delete(opts, name)
	} else {
		opts[name] = stored
	}
	m.Table.Options = opts
	m.ForTable().Note("Set %s from %s to %s.", name, old, stored)
	m.ForTable().Say("Table option %s: %s → %s.", name, old, stored)
	return &Response{}, nil
}

// initiativeOptionDefault is the default value of a turn order option.
func initiativeOptionDefault(name string) string {
	for _, o := range initiativeOptions() {
		if o.Name == name {
			return o.Default
		}
	}
	return ""
}

// initiativeOptionsSet lists the turn order options t sets, as name=value,
// for /table show.
func initiativeOptionsSet(t *storage.Table) []string {
	var out []string
	for _, o := range initiativeOptions() {
		if v, ok := t.Options[o.Name]; ok {
			out = append(out, o.Name+"="+v)
		}
	}
	return out
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
		return nil, Errorf(CodeInvalid, "The table option init-dice=%s no longer reads (%v); a GM sets it again with /table option.", Clip(v, 40), err)
	}
	return &e, nil
}
