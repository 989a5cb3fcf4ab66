package commands

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
					{Name: "name", Description: "Option name, e.g. catch-breath or fudge-dice", Type: OptionString, Required: true, MaxLength: 32},
					{Name: "value", Description: "New value", Type: OptionString, Required: true, MaxLength: 32},
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
	g.add(&Command{
		Name: "damage", Description: "Damage or harm one or more characters", handle: systemAction("damage"),
		Topic: "`/damage target:… amount:…` applies damage (or harm) as the table's system defines it; `amount` may be a number or dice.",
		Options: []Option{
			optTarget,
			{Name: "amount", Description: "Damage: a number or dice, e.g. 7 or 2d6+1", Type: OptionString, Required: true, MaxLength: 64},
			{Name: "soak", Description: "Spend and roll a hit die to soak the damage (hit-protection)", Type: OptionBoolean},
			{Name: "type", Description: "Damage type (hit-protection)", Type: OptionString, Choices: []string{"fire", "acid", "lightning", "other"}},
			{Name: "crit", Description: "Critical multiplier (hp-mp-wp)", Type: OptionString, Choices: []string{"2", "3", "4"}},
			{Name: "nonlethal", Description: "Non-lethal damage (hp-mp-wp)", Type: OptionBoolean},
			{Name: "lethal", Description: "Lethal intent against a downed character (default true)", Type: OptionBoolean},
			{Name: "kind", Description: "Kind of harm (harm)", Type: OptionString, Choices: []string{"physical", "social", "mental"}},
			{Name: "pool", Description: "Pool point to spend for a bonus die on the harm check (harm)", Type: OptionString, Choices: []string{"vigor", "instinct", "reason"}},
		},
	})
	g.add(&Command{
		Name: "heal", Description: "Heal a character as the system defines it", handle: systemAction("heal"),
		Options: []Option{
			optTarget,
			{Name: "amount", Description: "Points healed: a number or dice", Type: OptionString, MaxLength: 64},
			{Name: "pool", Description: "Which points (hp-mp-wp); pool point for a bonus die on the healing check (harm)", Type: OptionString, Choices: []string{"hp", "wp", "vigor", "instinct", "reason"}},
			{Name: "trigger", Description: "What allows the healing (harm)", Type: OptionString, Choices: []string{"first-aid", "counsel", "rest", "pools"}},
			{Name: "healer", Description: "The character giving first aid or counsel (harm)", Type: OptionString, Autocomplete: true, MaxLength: 32},
			{Name: "ability", Description: "Ability for the healing check (harm)", Type: OptionString, Choices: []string{"endure", "react", "willpower"}},
			{Name: "spend", Description: "trigger:pools: the 5 points, e.g. vigor=2,reason=3 (default: the fullest pools) (harm)", Type: OptionString, MaxLength: 64},
			{Name: "healer-pool", Description: "Pool point the healer spends for a bonus die on first aid or counsel (harm)", Type: OptionString, Choices: []string{"vigor", "instinct", "reason"}},
		},
	})
	g.add(&Command{
		Name: "roll", Description: "Roll dice, optionally for a character", handle: roll,
		Topic: "`/roll expr:3d6dl1` rolls dice: NdS, NdF, constants, + and -, keep/drop suffixes kh kl dh dl. With `as:` a character rolls and may add hit dice or make a check.",
		Options: []Option{
			{Name: "expr", Description: "Dice expression, e.g. 1d20+3 or 3d6dl1", Type: OptionString, MaxLength: 64},
			{Name: "as", Description: "Roll as this character", Type: OptionString, Autocomplete: true, MaxLength: 32},
			{Name: "hd", Description: "Hit dice to add (hit-protection)", Type: OptionInteger, MinValue: 0, MaxValue: 100},
			{Name: "purpose", Description: "What the roll is for", Type: OptionString, Choices: []string{"attack", "damage", "save", "spell", "other"}},
			{Name: "melee", Description: "A melee roll (hit-protection fighters)", Type: OptionBoolean},
			{Name: "ability", Description: "Ability for a check (harm)", Type: OptionString, MaxLength: 32},
			{Name: "pool", Description: "Pool point to spend for a bonus die (harm)", Type: OptionString, Choices: []string{"vigor", "instinct", "reason"}},
		},
	})
	g.add(&Command{
		Name: "save", Description: "Roll a saving throw for a character", handle: systemAction("save"),
		Options: []Option{
			optTarget,
			{Name: "type", Description: "Save category", Type: OptionString, Required: true, Choices: []string{"death", "wands", "paralysis", "breath", "spells", "fort", "will"}},
			{Name: "hd", Description: "Hit dice to add (hit-protection)", Type: OptionInteger, MinValue: 0, MaxValue: 100},
			{Name: "bonus", Description: "Extra bonus or penalty", Type: OptionInteger, MinValue: -100, MaxValue: 100},
		},
	})
	g.add(&Command{
		Name: "rest", Description: "Rest as the system defines it", handle: systemAction("rest"),
		Options: []Option{
			{Name: "kind", Description: "Kind of rest", Type: OptionString, Required: true, Choices: []string{"turn", "breath", "night", "day"}},
			{Name: "target", Description: "Character (night and day: default the whole table)", Type: OptionString, Autocomplete: true, MaxLength: 200},
		},
	})
	g.add(&Command{
		Name: "attend", Description: "Attend a downed or dying character", handle: systemAction("attend"),
		Options: []Option{
			optTarget,
			{Name: "healer", Description: "A skilled healer or healing magic attends", Type: OptionBoolean},
			{Name: "bonus", Description: "Heal check bonus (hp-mp-wp)", Type: OptionInteger, MinValue: -100, MaxValue: 100},
		},
	})
	g.add(&Command{
		Name: "treat", Description: "Treat a character's untreated wounds", handle: systemAction("treat"),
		Options: []Option{optTarget},
	})
	g.add(&Command{
		Name: "strain", Description: "A strenuous action while disabled (hp-mp-wp)", handle: systemAction("strain"),
		Options: []Option{optTarget},
	})
	g.add(&Command{
		Name: "spend", Description: "Spend a resource", handle: systemAction("spend"),
		Options: []Option{
			optTarget,
			{Name: "resource", Description: "What to spend", Type: OptionString, Required: true, Choices: []string{"hd", "mp", "vigor", "instinct", "reason"}},
			{Name: "amount", Description: "How much", Type: OptionInteger, Required: true, MinValue: 1, MaxValue: 10000},
		},
	})
	g.add(&Command{
		Name: "activity", Description: "Set what a character does as hours pass (hp-mp-wp)", handle: systemAction("activity"),
		Options: []Option{
			optTarget,
			{Name: "kind", Description: "Activity", Type: OptionString, Required: true, Choices: []string{"awake", "work", "sleep"}},
		},
	})
	g.add(&Command{
		Name: "clock", Description: "Show or move the game clock", handle: clockCommand,
		Topic: "`/clock action:show` shows the time. GMs move it with `/clock action:next-round` or `/clock action:advance amount:… unit:rounds|turns|hours|days`; everything that ends or fires is reported.",
		Options: []Option{
			{Name: "action", Description: "What to do (default show)", Type: OptionString, Choices: []string{"next-round", "advance", "show"}},
			{Name: "amount", Description: "How many units (advance)", Type: OptionInteger, MinValue: 1, MaxValue: 10000},
			{Name: "unit", Description: "Unit (advance; default rounds)", Type: OptionString, Choices: []string{"rounds", "turns", "hours", "days"}},
		},
	})
	g.add(initCommand()) // initcommand.go
	g.add(&Command{
		Name: "history", Description: "Recent events with who, what and dice", handle: history,
		Options: []Option{{Name: "target", Description: "Only events touching this character", Type: OptionString, Autocomplete: true, MaxLength: 32}},
	})
	g.add(&Command{
		Name: "undo", Description: "Revert the latest event you may change", handle: undo,
		Topic: "`/undo` reverts the most recent event at the table that you may change (a GM: any), restoring every touched character exactly; dice are never rerolled.",
	})
	g.add(&Command{
		Name: "odds", Description: "Chart the exact odds of the 0-HP choice or of any roll", handle: odds,
		Topic:   "`/odds` charts the injury-band chances of Stay Up and Go Down (hit-protection) or the check dice with a bonus or penalty die (harm); `/odds expr:2d10` charts any roll's totals. The chart comes as a PNG.",
		Options: []Option{{Name: "expr", Description: "Dice expression to chart, e.g. 2d6 or 4dF", Type: OptionString, MaxLength: 64}},
	})
	g.add(&Command{
		Name: "help", Description: "How to use hpkeeper", handle: help,
		Options: []Option{{Name: "topic", Description: "A command or a system", Type: OptionString, MaxLength: 32}},
	})
	g.component(deletePrefix, deleteButton)
	g.component(facesPrefix, facesButton)
	return g
}
