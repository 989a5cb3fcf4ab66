// Package hitprot is the hit-protection system of the commands kernel: it
// adapts the rules of package rules/hitprot (RULES.md §1, Hit Protection &
// Hit Dice) to the kernel's System interface. main passes System{} to
// commands.New.
//
// A character's sheet (§1.1) is stored as the JSON of sheet.go. Its
// commands: /char create and /char set (class, level, hit-die, hp, hd,
// save-*), /damage with soak and type (§1.3, the injury table of §1.4), the
// 0-HP choice's buttons Heroic Death, Stay Up and Go Down with the Heroic
// Death modal (§1.3), /attend and /treat (§1.3, §1.4), /rest kind:turn,
// breath and night (§1.5), /save (§1.2), /spend resource:hd and /roll
// as:… hd:… (§1.6), and /odds (the injury bands of the 0-HP choice). The
// clock ends stuns, limb handicaps and no-restoring periods and kills
// through bleed-outs (§0.2, §1.4).
//
// The rules package has the same name as this one; the files here import
// it as rules.
package hitprot

import (
	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// System adapts the hit-protection system (RULES.md §1).
type System struct{}

// Name is "hit-protection", as /table setup takes it.
func (System) Name() string { return "hit-protection" }

// Help explains the system for /help topic:hit-protection.
func (System) Help() string {
	return "Hit Protection & Hit Dice: a character has one die's worth of HP; levels add hit dice, spent to soak damage, rest and boost rolls. At 0 HP the player chooses Heroic Death, Stay Up or Go Down; wounds come from the injury table. A limb lost to a Critical Wound stays lost: a running loss of that limb's use ends with it, and the clock never gives the limb back."
}

// TableOptions offers catch-breath (RULES.md §1.5): off, or on to let
// fighters catch their breath with /rest kind:breath.
func (System) TableOptions() []commands.TableOption {
	return []commands.TableOption{{Name: "catch-breath", Help: "fighters may catch their breath for a round", Values: []string{"off", "on"}}}
}

// StatKeys lists the stats keys /char create and /char set take
// (COMMANDS.md).
func (System) StatKeys() []string {
	return []string{"class", "level", "hit-die", "hp", "hd", "save-death", "save-wands", "save-paralysis", "save-breath", "save-spells", "init"}
}

// Options lists what the options of the shared commands mean in
// hit-protection, with their values (RULES.md §1.2–§1.6).
func (System) Options() []commands.SystemOption {
	return []commands.SystemOption{
		{Command: "damage", Name: "soak", Help: "spend and roll a hit die; the damage is reduced by the roll"},
		{Command: "damage", Name: "type", Help: "fire, acid and lightning call for a save vs breath on a Critical Wound", Values: []string{rules.Fire, rules.Acid, rules.Lightning, rules.Other}},
		{Command: "damage", Name: "lethal", Help: "false: damage to a character who went down is recorded and has no other effect"},
		{Command: "roll", Name: "hd", Help: "hit dice to add to the roll and spend"},
		{Command: "roll", Name: "purpose", Help: "what the roll is for, which sets how many hit dice may be added", Values: []string{rules.PurposeAttack, rules.PurposeDamage, rules.PurposeSave, rules.PurposeSpell, rules.PurposeOther}},
		{Command: "roll", Name: "melee", Help: "a melee attack or damage roll: a fighter may add any number of hit dice"},
		{Command: "save", Name: "type", Help: "the save category, d20 ≥ its target", Values: rules.SaveCategories},
		{Command: "save", Name: "hd", Help: "hit dice to add to the save and spend"},
		{Command: "save", Name: "bonus", Help: "added to the roll"},
		{Command: "rest", Name: "kind", Help: "turn: spend a hit die; breath: a fighter catches its breath (table option catch-breath); night: the GM's night's sleep", Values: []string{"turn", "breath", "night"}},
		{Command: "attend", Name: "healer", Help: "the character who attends, not the target (its player or a GM acts); healer:true is the old spelling of skilled:true"},
		{Command: "attend", Name: "skilled", Help: "a skilled healer or healing magic attends, which a Fatal Wound I needs"},
		{Command: "spend", Name: "resource", Help: "hit dice", Values: []string{"hd"}},
		{Command: "init join", Name: "roll", Help: "1d6 + init, as rolled at the table"},
	}
}

// Action returns the hit-protection handler of a system command (RULES.md
// §1.3–§1.6), or nil for the commands the system does not have.
func (System) Action(name string) commands.ActionFunc {
	switch name {
	case "damage":
		return damage
	case "attend":
		return attend
	case "treat":
		return treat
	case "rest":
		return rest
	case "save":
		return save
	case "spend":
		return spend
	}
	return nil
}

// Roll handles /roll as: with hit dice (RULES.md §1.6).
func (System) Roll() commands.ActionFunc { return roll }

// Components registers the 0-HP choice buttons and modal (RULES.md §1.3).
func (System) Components() map[string]commands.HandlerFunc {
	return map[string]commands.HandlerFunc{choicePrefix: commands.ChoiceHandler(choices, choose)}
}
