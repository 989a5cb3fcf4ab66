// Package harm is the harm system of the commands kernel, SOY Hybrid Harm: it
// adapts the rules of package rules/harm (RULES.md §3) to the kernel's System
// interface. main passes System{} to commands.New.
//
// A character's sheet (§3.1) is stored as the JSON of sheet.go. Its
// commands: /char create and /char set (abilities with their ranks and
// pools, and the pools vigor, instinct and reason), checks with /roll
// as:… ability:… pool:… (§3.1), /damage amount:SL kind:… pool:… (§3.2),
// /heal trigger:first-aid|counsel|rest|pools (§3.3), /rest kind:day (§3.3),
// /spend of pool points (§3.1) and /odds (the check dice). Moving the clock
// by turns, hours or days ends the conflict (§3.2). The system has no
// buttons.
//
// The rules package has the same name as this one; the files here import
// it as rules.
package harm

import (
	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
)

// System adapts the harm system, SOY Hybrid Harm (RULES.md §3): the
// character sheet (§3.1), checks (/roll as:… ability:…), harm (/damage),
// healing (/heal), days of rest (/rest kind:day) and pool spending
// (/spend).
type System struct{}

// Name is "harm", as /table setup takes it.
func (System) Name() string { return "harm" }

// Help explains the system for /help topic:harm.
func (System) Help() string {
	return "SOY Hybrid Harm: checks are 3dF + rank (0 Unskilled, 1 Apprentice, 2 Journeyman, 3 Master, 4 Grand Master; ranks 0 to 6 are allowed): `/roll as:NAME ability:climb pool:vigor` (a point of the ability's pool buys a bonus die). " +
		"`/damage target:NAME amount:SL kind:physical|social|mental` adds its SL to the harm counter and calls for an Endure, React or Willpower check; failing it worsens the condition Healthy → Bloody → Broken, and harm on a Broken character takes it out: it makes no checks until the conflict ends. " +
		"`/heal target:NAME trigger:first-aid|counsel healer:NAME`, `trigger:rest` or `trigger:pools` makes a healing check. " +
		"`pool:` on /damage and /heal and `healer-pool:` on /heal buy a bonus die on those checks too. " +
		"`/rest kind:day` (GM) passes a day and refills the pools, as does every whole day the clock passes outside a conflict (counted from a character's last harm); with `target:` only that character rests and the clock stands. " +
		"Conflicts: `/clock action:advance` by turns, hours or days (or `/rest kind:day` for the table) ends the conflict and clears taken out; `next-round` and advancing by rounds are time within it. " +
		"Create with e.g. stats:\"endure=2 react=1 climb=2:vigor vigor=5\"."
}

// TableOptions offers fudge-dice (RULES.md §3.1): 3 (the default) or 4
// Fudge dice per check.
func (System) TableOptions() []commands.TableOption {
	return []commands.TableOption{{Name: "fudge-dice", Help: "Fudge dice per check: 3dF or 4dF", Default: "3", Values: []string{"3", "4"}}}
}

// StatKeys lists the stats keys /char create and /char set take
// (COMMANDS.md).
func (System) StatKeys() []string {
	return []string{rules.Endure, rules.React, rules.Willpower, rules.FirstAid, rules.Counsel, rules.Vigor, rules.Instinct, rules.Reason}
}

// Options lists what the options of the shared commands mean in harm,
// with their values (RULES.md §3.1–§3.3).
func (System) Options() []commands.SystemOption {
	pools := rules.Pools
	return []commands.SystemOption{
		{Command: "damage", Name: "kind", Help: "the harm's kind, which picks the check: physical Endure, social React, mental Willpower", Values: []string{"physical", "social", "mental"}},
		{Command: "damage", Name: "pool", Help: "a point of the checked ability's pool for a bonus die on the harm check", Values: pools},
		{Command: "heal", Name: "trigger", Help: "what allows the healing: another character's first aid or counsel, a day of rest, or 5 pool points", Values: []string{"first-aid", "counsel", "rest", "pools"}},
		{Command: "heal", Name: "healer", Help: "the character giving first aid or counsel"},
		{Command: "heal", Name: "ability", Help: "the innate ability of the healing check", Values: rules.Innate},
		{Command: "heal", Name: "spend", Help: "trigger:pools: the 5 points, e.g. vigor=2,reason=3 (default: the fullest pools)"},
		{Command: "heal", Name: "pool", Help: "a point of the healing ability's pool for a bonus die on the healing check", Values: pools},
		{Command: "heal", Name: "healer-pool", Help: "a point the healer spends for a bonus die on first aid or counsel", Values: pools},
		{Command: "roll", Name: "ability", Help: "the ability of a check: 3dF + rank"},
		{Command: "roll", Name: "pool", Help: "a point of the ability's pool for a bonus die", Values: pools},
		{Command: "rest", Name: "kind", Help: "day: the GM passes a day of rest and refills the pools; with target only those rest", Values: []string{"day"}},
		{Command: "spend", Name: "resource", Help: "pool points outside a check", Values: pools},
		{Command: "init join", Name: "roll", Help: "the success level of a React check, as rolled at the table"},
	}
}

// Action returns the harm commands (RULES.md §3): /damage deals harm,
// /heal heals, /rest kind:day passes a day, /spend spends pool points.
func (sys System) Action(name string) commands.ActionFunc {
	switch name {
	case "damage":
		return sys.damage
	case "heal":
		return sys.heal
	case "rest":
		return sys.rest
	case "spend":
		return sys.spend
	}
	return nil
}

// Roll returns the handler of /roll as:… for harm: with `ability`, a check
// (RULES.md §3.1); without, a plain roll of `expr` for the character.
func (sys System) Roll() commands.ActionFunc { return sys.roll }

// Components returns nil: harm has no buttons.
func (System) Components() map[string]commands.HandlerFunc { return nil }
