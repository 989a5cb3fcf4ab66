// Package hpmpwp is the hp-mp-wp system of the commands core, the Universal
// HP/MP/WP system: it adapts the rules of package rules/hpmpwp (RULES.md §2)
// to the core's System interface. main passes System{} to commands.New.
//
// A character's sheet (§2.1) is stored as the JSON of sheet.go. Its
// commands: /char create and /char set (class, level, hp-max, mp-max,
// abilities, saves, feats, and the GM's effect and state), /damage with crit
// and nonlethal (§2.2, §2.4), the Die Hard buttons Act Disabled and Fall
// Unconscious (§2.4), /strain and /attend (§2.4), /heal pool:hp|wp and
// /spend resource:mp (§2.5), /activity and /rest kind:night (§2.6), and
// /save type:fort|will (§0.4). The clock runs the dying saves, fatigue,
// work, wakefulness and sleep (§0.2, §2.3–§2.6).
package hpmpwp

import (
	"github.com/hpkeeper/hpkeeper/commands"
)

// System adapts the hp-mp-wp system, the Universal HP/MP/WP system (RULES.md
// §2). For now it keeps the character sheet (§2.1); damage, fatigue, dying
// and recovery come with their own commands.
type System struct{}

func (System) Name() string { return "hp-mp-wp" }

func (System) Help() string {
	return "Universal HP/MP/WP (D&D 3.5): damage takes HP first, then wound points (WP = Con); critical hits also hit WP. MP are rolled on the class's mana die. Low HP, MP or WP make a character fatigued or exhausted; below 0 WP it saves to stay disabled rather than dying. Create with e.g. stats:\"class=wizard level=3 hp-max=14 con=12 wis=14\"."
}

func (System) TableOptions() []commands.TableOption { return []commands.TableOption{} }

func (System) StatKeys() []string {
	return []string{"class", "level", "hp-max", "hp", "mp-max", "mp", "wp", "temp-con",
		"str", "dex", "con", "int", "wis", "cha", "fort", "will", "feats", "effect", "state"}
}

func (System) Action(name string) commands.ActionFunc {
	switch name {
	case "damage":
		return hmwDamage
	case "heal":
		return hmwHeal
	case "strain":
		return hmwStrain
	case "attend":
		return hmwAttend
	case "spend":
		return hmwSpend
	case "activity":
		return hmwActivity
	case "rest":
		return hmwRest
	case "save":
		return hmwSave
	}
	return nil
}

func (System) Roll() commands.ActionFunc { return nil }

func (System) Components() map[string]commands.HandlerFunc {
	return map[string]commands.HandlerFunc{hmwChoicePrefix: hmwChoice}
}
