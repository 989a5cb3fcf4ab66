package commands

import "fmt"

// Option sets shared by several commands.
var (
	optTarget = Option{Name: "target", Description: "Character name; several separated by commas", Type: OptionString, Required: true, Autocomplete: true, MaxLength: 200}
	optName   = Option{Name: "name", Description: "Character name", Type: OptionString, Required: true, Autocomplete: true, MaxLength: 32}
	optStats  = Option{Name: "stats", Description: "Sheet values as key=value pairs, e.g. class=fighter level=2", Type: OptionString, MaxLength: 500}
)

// NewRegistry builds the registry of every application command and component
// handler hpkeeper has (COMMANDS.md), for the rule systems given (RULES.md
// §0.1): /table setup offers them in that order, and the custom_ids of
// their buttons and modals (System.Components) are routed to them. It
// panics when two systems have one name or one custom_id prefix.
func NewRegistry(systems ...System) *Registry {
	g := &Registry{}
	for _, sys := range systems {
		g.addSystem(sys)
	}
	g.add(&Command{
		Name: "table", Description: "Set up and manage this channel's table",
		Topic: "A table is one channel with one rule system. `/table setup system:…` makes you its GM; `/table show` lists everything; `/table gm` adds or removes GMs; `/table option` changes table options.",
		Subcommands: []*Subcommand{
			{Name: "setup", Description: "Choose the rule system for this channel", handle: tableSetup,
				Options: []Option{{Name: "system", Description: "Rule system", Type: OptionString, Required: true, Choices: g.systemNames()}}},
			{Name: "show", Description: "Show the system, GMs, options, clock and characters", handle: tableShow},
			{Name: "tracker", Description: "Post a message the bot keeps up to date with every character and the clock", handle: tableTracker},
			{Name: "gm", Description: "Add or remove a GM (GM only)", handle: tableGM,
				Options: []Option{
					{Name: "action", Description: "add or remove", Type: OptionString, Required: true, Choices: []string{"add", "remove"}},
					{Name: "user", Description: "The user", Type: OptionUser, Required: true},
				}},
			{Name: "export", Description: "Download the table as a JSON file (GM only)", handle: tableExport},
			{Name: "import", Description: "Restore an exported table into this channel, which has none (GM)", handle: tableImport,
				Options: []Option{{Name: "file", Description: "The JSON file /table export gave", Type: OptionAttachment, Required: true}}},
			{Name: "option", Description: "Change a table option (GM only)", handle: tableOption,
				Options: []Option{
					{Name: "name", Description: "Option name, e.g. dice (the table's system's options are suggested)", Type: OptionString, Required: true, Autocomplete: true, MaxLength: 32},
					{Name: "value", Description: "New value (the option's values are suggested)", Type: OptionString, Required: true, Autocomplete: true, MaxLength: 32},
				}},
		},
	})
	g.add(&Command{
		Name: "char", Description: "Create and manage characters",
		Topic: "`/char create name:… stats:\"key=value …\"` creates a character you own (a GM may give `owner`). `/char set` changes sheet values, `/char show` and `/char list` show them, `/char delete` asks to confirm.",
		Subcommands: []*Subcommand{
			{Name: "create", Description: "Create a character", handle: charCreate,
				Options: []Option{
					{Name: "name", Description: "Character name (1-32 characters)", Type: OptionString, Required: true, MaxLength: 200},
					{Name: "owner", Description: "Owner (GM only; default: you)", Type: OptionUser},
					optStats,
				}},
			{Name: "set", Description: "Change sheet values", handle: charSet,
				Options: []Option{optName, {Name: "stats", Description: optStats.Description, Type: OptionString, Required: true, MaxLength: 500}}},
			{Name: "show", Description: "Show a character (default: your own)", handle: charShow,
				Options: []Option{{Name: "name", Description: "Character name", Type: OptionString, Autocomplete: true, MaxLength: 32}}},
			{Name: "list", Description: "List the characters at this table", handle: charList},
			{Name: "delete", Description: "Delete a character (asks to confirm)", handle: charDelete,
				Options: []Option{optName}},
		},
	})
	// The options marked BySystem mean what the table's system says
	// (System.Options): their descriptions name no system, their values
	// are autocompleted from the table's system, and /help lists them per
	// system.
	g.add(&Command{
		Name: "damage", Description: "Damage or harm one or more characters", handle: systemAction("damage"),
		Topic: "`/damage target:… amount:…` applies damage (or harm) as the table's system defines it; `amount` may be a number or dice.",
		Options: []Option{
			optTarget,
			{Name: "amount", Description: "Damage: a number or dice, e.g. 7 or 2d6+1", Type: OptionString, Required: true, MaxLength: 64},
			{Name: "soak", Description: "Spend and roll a hit die to soak the damage", Type: OptionBoolean, BySystem: true},
			{Name: "type", Description: "Damage type", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "crit", Description: "Critical hit multiplier", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "nonlethal", Description: "Non-lethal damage", Type: OptionBoolean, BySystem: true},
			{Name: "lethal", Description: "Lethal intent against a downed character (default true)", Type: OptionBoolean, BySystem: true},
			{Name: "kind", Description: "Kind of harm", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "pool", Description: "Pool point to spend for a bonus die on the check", Type: OptionString, BySystem: true, MaxLength: 32},
		},
	})
	g.add(&Command{
		Name: "heal", Description: "Heal a character as the system defines it", handle: systemAction("heal"),
		Options: []Option{
			optTarget,
			{Name: "amount", Description: "Points healed: a number or dice", Type: OptionString, BySystem: true, MaxLength: 64},
			{Name: "pool", Description: "Which points, or a pool point to spend for a bonus die", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "trigger", Description: "What allows the healing", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "healer", Description: "The character giving the care", Type: OptionString, Autocomplete: true, BySystem: true, MaxLength: 32},
			{Name: "ability", Description: "Ability for the healing check", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "spend", Description: "The points to spend, e.g. vigor=2,reason=3", Type: OptionString, BySystem: true, MaxLength: 64},
			{Name: "healer-pool", Description: "Pool point the healer spends for a bonus die", Type: OptionString, BySystem: true, MaxLength: 32},
		},
	})
	g.add(&Command{
		Name: "roll", Description: "Roll dice, optionally for a character", handle: roll,
		Topic: rollTopic,
		Options: []Option{
			{Name: "expr", Description: "Dice expression, e.g. 1d20+3, 4d6kh3 or 2d6ro<3 (your system's rolls are suggested)", Type: OptionString, Autocomplete: true, MaxLength: 64},
			{Name: "as", Description: "Roll as this character", Type: OptionString, Autocomplete: true, MaxLength: 32},
			{Name: "hd", Description: "Hit dice to add", Type: OptionInteger, MinValue: 0, MaxValue: 100, BySystem: true},
			{Name: "purpose", Description: "What the roll is for", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "melee", Description: "A melee roll", Type: OptionBoolean, BySystem: true},
			{Name: "ability", Description: "Ability for a check", Type: OptionString, BySystem: true, MaxLength: 32},
			{Name: "pool", Description: "Pool point to spend for a bonus die", Type: OptionString, BySystem: true, MaxLength: 32},
		},
	})
	g.add(&Command{
		Name: "save", Description: "Roll a saving throw for a character", handle: systemAction("save"),
		Options: []Option{
			optTarget,
			{Name: "type", Description: "Save category", Type: OptionString, Required: true, BySystem: true, MaxLength: 32},
			{Name: "hd", Description: "Hit dice to add", Type: OptionInteger, MinValue: 0, MaxValue: 100, BySystem: true},
			{Name: "bonus", Description: "Extra bonus or penalty", Type: OptionInteger, MinValue: -100, MaxValue: 100, BySystem: true},
		},
	})
	g.add(&Command{
		Name: "rest", Description: "Rest as the system defines it", handle: systemAction("rest"),
		Options: []Option{
			{Name: "kind", Description: "Kind of rest", Type: OptionString, Required: true, BySystem: true, MaxLength: 32},
			{Name: "target", Description: "Character; for the GM's rests default the whole table", Type: OptionString, Autocomplete: true, MaxLength: 200},
		},
	})
	g.add(&Command{
		Name: "attend", Description: "Attend a downed or dying character", handle: systemAction("attend"),
		Options: []Option{
			optTarget,
			{Name: "healer", Description: "The character giving the care", Type: OptionString, Autocomplete: true, BySystem: true, MaxLength: 32},
			{Name: "skilled", Description: "A skilled healer or healing magic attends", Type: OptionBoolean, BySystem: true},
			{Name: "bonus", Description: "Heal check bonus", Type: OptionInteger, MinValue: -100, MaxValue: 100, BySystem: true},
		},
	})
	g.add(&Command{
		Name: "treat", Description: "Treat a character's untreated wounds", handle: systemAction("treat"),
		Options: []Option{optTarget},
	})
	g.add(&Command{
		Name: "strain", Description: "A strenuous action while disabled", handle: systemAction("strain"),
		Options: []Option{optTarget},
	})
	g.add(&Command{
		Name: "spend", Description: "Spend a resource", handle: systemAction("spend"),
		Options: []Option{
			optTarget,
			{Name: "resource", Description: "What to spend", Type: OptionString, Required: true, BySystem: true, MaxLength: 32},
			{Name: "amount", Description: "How much", Type: OptionInteger, Required: true, MinValue: 1, MaxValue: 10000},
		},
	})
	g.add(&Command{
		Name: "activity", Description: "Set what a character does as hours pass", handle: systemAction("activity"),
		Options: []Option{
			optTarget,
			{Name: "kind", Description: "Activity", Type: OptionString, Required: true, BySystem: true, MaxLength: 32},
		},
	})
	g.add(&Command{
		Name: "wake", Description: "A noise reaches a sleeper: a Will save against the Listen DC, or wake at once", handle: systemAction("wake"),
		Topic: "`/wake target:… listen-dc:…` is a noise reaching a sleeper whose player made a Listen check against that DC: it wakes unless it succeeds at a Will save against the same DC. `stay-asleep:false` fails the save on purpose and wakes at once.",
		Options: []Option{
			optTarget,
			{Name: "listen-dc", Description: "The DC of the Listen check the player made", Type: OptionInteger, Required: true, MinValue: -20, MaxValue: 100},
			{Name: "stay-asleep", Description: "Save to sleep on (default true); false wakes at once", Type: OptionBoolean},
		},
	})
	g.add(&Command{
		Name: "clock", Description: "Show or move the game clock", handle: clockCommand,
		Topic: fmt.Sprintf("`/clock action:show` shows the time. GMs move it with `/clock action:next-round` or `/clock action:advance amount:… unit:rounds|turns|hours|days`, at most %d days (%d hours) in one advance; everything that ends or fires is reported.", MaxAdvanceDays, MaxAdvanceDays*24),
		Options: []Option{
			{Name: "action", Description: "What to do (default show)", Type: OptionString, Choices: []string{"next-round", "advance", "show"}},
			{Name: "amount", Description: "How many units (advance)", Type: OptionInteger, MinValue: 1, MaxValue: 10000},
			{Name: "unit", Description: "Unit (advance; default rounds)", Type: OptionString, Choices: []string{"rounds", "turns", "hours", "days"}},
		},
	})
	g.add(initCommand()) // initcommand.go
	g.add(&Command{
		Name: "history", Description: "Recent events with who, what and dice", handle: history,
		Topic: "`/history` shows the latest events, newest first, ten a page; `page:2` the next ten, or `before:#12` the ten before event #12 (each page ends with the command for the next). `target:` keeps the events that touched a character, `user:` those a user made.",
		Options: []Option{
			{Name: "target", Description: "Only events touching this character", Type: OptionString, Autocomplete: true, MaxLength: 32},
			{Name: "user", Description: "Only events this user made", Type: OptionUser},
			{Name: "before", Description: "Only events before this one, e.g. #12", Type: OptionString, MaxLength: 20},
			{Name: "page", Description: "Page 1 is the latest ten events, page 2 the ten before them, …", Type: OptionInteger, MinValue: 1, MaxValue: maxHistoryPage},
		},
	})
	g.add(&Command{
		Name: "undo", Description: "Revert the latest event you may change", handle: undo,
		Topic: "`/undo` reverts the most recent event at the table that you may change (a GM: any), restoring every touched character exactly; dice are never rerolled.",
	})
	g.add(&Command{
		Name: "odds", Description: "Chart exact odds: your system's own, or any roll's", handle: odds,
		Topic:   "`/odds` charts the odds the table's system has of its own (each is below); `/odds expr:2d10` charts any roll's totals. The chart comes as a PNG.",
		Options: []Option{{Name: "expr", Description: "Dice expression to chart, e.g. 2d6 or 4dF (your system's rolls are suggested)", Type: OptionString, Autocomplete: true, MaxLength: 64}},
	})
	g.add(&Command{
		Name: "help", Description: "How to use hpkeeper", handle: help,
		Options: []Option{{Name: "topic", Description: "A command or a system", Type: OptionString, MaxLength: 32}},
	})
	g.addSystemOptions()
	g.component(deletePrefix, deleteButton)
	g.component(facesPrefix, facesButton)
	return g
}

// rollTopic is /help topic:roll: the dice notation with an example of
// every operator (docs/dice.md has it in full).
const rollTopic = "`/roll expr:3d6dl1` rolls dice (Avrae's notation with Dice Maiden's pools); with `as:` a character rolls and may add hit dice or make a check.\n" +
	"• sums: `3d6+2`, `4dF+2`, `d%` (1–100), `(1d8+3)*2`, `1d6/2` (rounds down), `//`, `%`\n" +
	"• keep/drop: `4d6kh3`, `2d20kl1`, `3d6dl1`, `4d6pl1`; by value `4d6k>3`, `4d6p1` (`k3` keeps 3s; `d1` drops the lowest)\n" +
	"• reroll: `2d6ro<3` once, `1d20rr1` until none, `1d6ra6` adds one; `4d6r2` (2 or less) once, `ir2` until\n" +
	"• explode: `4d6e6` (again on new 6s), `1d10e>7`, `4d6e` (highest face)\n" +
	"• min/max `8d6mi2`, `10d6ma5`; pools `6d10t7` counts 7+, `tl4` 4 or less, `f1` takes one off per 1, `t7ds10` counts 10s twice\n" +
	"• sets `(1d4+1, 3, 2d6kl1)kh1`; compare `1d20+5>=15` (1 or 0); labels `3d6 [fire]`; comments `1d20+5 ! to hit`\n" +
	"Limits: 64 characters, 100 dice named, 1,000 rolled (rerolls and explosions count)."
