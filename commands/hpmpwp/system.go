// Package hpmpwp is the hp-mp-wp system of the commands kernel, the Universal
// HP/MP/WP system: it adapts the rules of package rules/hpmpwp (RULES.md §2)
// to the kernel's System interface. main passes System{} to commands.New.
//
// A character's sheet (§2.1) is stored as the JSON of sheet.go. Its
// commands: /char create and /char set (class, level, hp-max, mp-max,
// abilities, saves, feats, and the GM's effect and state), /damage with crit
// and nonlethal (§2.2, §2.4), the Die Hard buttons Act Disabled and Fall
// Unconscious (§2.4), /strain and /attend (§2.4), /heal pool:hp|wp and
// /spend resource:mp (§2.5), /activity, /wake and /rest kind:night (§2.6),
// and /save type:fort|will (§0.4). The clock runs the dying saves, fatigue,
// work, wakefulness and sleep (§0.2, §2.3–§2.6).
//
// The rules package has the same name as this one; the files here import
// it as rules.
package hpmpwp

import (
	"github.com/hpkeeper/hpkeeper/commands"
)

// System adapts the hp-mp-wp system, the Universal HP/MP/WP system (RULES.md
// §2): the character sheet (§2.1), damage (§2.2), fatigue (§2.3), negative
// wound points (§2.4), recovery (§2.5) and work and sleep (§2.6).
type System struct{}

// Name is "hp-mp-wp", as /table setup takes it.
func (System) Name() string { return "hp-mp-wp" }

// Help explains the system for /help topic:hp-mp-wp.
func (System) Help() string {
	return "Universal HP/MP/WP (D&D 3.5): damage takes HP first, then wound points (WP = Con); critical hits also hit WP. MP are rolled on the class's mana die. Low HP, MP or WP make a character fatigued or exhausted; fatigue's penalty to Con and Wis also lowers Fort and Will at every save (the sheet keeps the rested values; a reply shows e.g. Fort +2 −1 fatigue). Below 0 WP a character saves to stay disabled rather than dying; a non-lethal hit there makes no one dying or dead. `/wake` is a noise reaching a sleeper. Create with e.g. stats:\"class=wizard level=3 hp-max=14 con=12 wis=14\"."
}

// TableOptions is empty: hp-mp-wp has no table options.
func (System) TableOptions() []commands.TableOption { return []commands.TableOption{} }

// StatKeys lists the stats keys /char create and /char set take
// (COMMANDS.md).
func (System) StatKeys() []string {
	return []string{"class", "level", "hp-max", "hp", "mp-max", "mp", "wp", "temp-con",
		"str", "dex", "con", "int", "wis", "cha", "fort", "will", "feats", "effect", "state", "init"}
}

// Options lists what the options of the shared commands mean in hp-mp-wp,
// with their values (RULES.md §2.2–§2.6, §0.4).
func (System) Options() []commands.SystemOption {
	return []commands.SystemOption{
		{Command: "damage", Name: "crit", Help: "a critical hit: HP take the damage, and WP take it again × (multiplier − 1)", Values: []string{"2", "3", "4"}},
		{Command: "damage", Name: "nonlethal", Help: "non-lethal damage: at negative WP it makes no one dying or dead; a failed save leaves the character unconscious and stable"},
		{Command: "heal", Name: "amount", Help: "points healed: a number or dice"},
		{Command: "heal", Name: "pool", Help: "which points heal (default hp)", Values: []string{"hp", "wp"}},
		{Command: "save", Name: "type", Help: "d20 + the sheet's Fort or Will, lowered while fatigued (Con and Wis penalties), for the GM to compare with the DC", Values: []string{"fort", "will"}},
		{Command: "save", Name: "bonus", Help: "added to the roll"},
		{Command: "rest", Name: "kind", Help: "night: the GM puts the table (or target) to sleep for 8 hours on the clock", Values: []string{"night"}},
		{Command: "attend", Name: "healer", Help: "the character who makes the Heal check, not the target"},
		{Command: "attend", Name: "bonus", Help: "the Heal check's bonus, against DC 15"},
		{Command: "spend", Name: "resource", Help: "mana points", Values: []string{"mp"}},
		{Command: "activity", Name: "kind", Help: "what the character does as hours pass; awake on a sleeper is a Will save to wake early", Values: []string{"awake", "work", "sleep"}},
		{Command: "clock", Name: "awake", Type: commands.OptionBoolean, Help: "advance a day or more even though characters stay awake past 16 hours (exertion saves)"},
		{Command: "init join", Name: "roll", Help: "d20 + Dex modifier + init, as rolled at the table"},
	}
}

// Action returns the hp-mp-wp handler of a system command (RULES.md §2),
// or nil for /treat, which the system does not have.
func (System) Action(name string) commands.ActionFunc {
	switch name {
	case "damage":
		return damage
	case "heal":
		return heal
	case "strain":
		return strain
	case "attend":
		return attend
	case "spend":
		return spend
	case "activity":
		return activity
	case "rest":
		return rest
	case "save":
		return save
	case "wake":
		return wake
	}
	return nil
}

// Roll returns nil: /roll as:… is a plain roll in hp-mp-wp.
func (System) Roll() commands.ActionFunc { return nil }

// Components routes the Die Hard buttons (RULES.md §2.4; buttons.go).
func (System) Components() map[string]commands.HandlerFunc {
	return map[string]commands.HandlerFunc{choicePrefix: commands.ChoiceHandler(choices, choose)}
}
