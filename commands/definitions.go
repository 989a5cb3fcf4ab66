package commands

// Option sets shared by several commands.
var (
	optName  = Option{Name: "name", Description: "Character name", Type: OptionString, Required: true, Autocomplete: true, MaxLength: 32}
	optStats = Option{Name: "stats", Description: "Sheet values as key=value pairs, e.g. class=fighter level=2", Type: OptionString, MaxLength: 500}
)

// NewRegistry builds the registry of every application command and component
// handler hpkeeper has (COMMANDS.md), for the rule systems given (RULES.md
// §0.1) and the features given (feature.go): /table setup offers the
// systems in that order, and the custom_ids of their buttons and modals
// (System.Components) are routed to them. The kernel's commands come
// first, then each feature's (Feature.Register). It panics
// when two systems have one name, or two handlers one command name or
// custom_id prefix.
func NewRegistry(systems []System, features ...Feature) *Registry {
	g := &Registry{features: features}
	for _, sys := range systems {
		g.addSystem(sys)
	}
	g.Add(&Command{
		Name: "table", Description: "Set up and manage this channel's table",
		Topic: "A table is one channel with one rule system. `/table setup system:…` makes you its GM; `/table show` lists everything; `/table gm` adds or removes GMs; `/table option` changes table options.",
		Subcommands: []*Subcommand{
			{Name: "setup", Description: "Choose the rule system for this channel", Handler: tableSetup,
				Options: []Option{{Name: "system", Description: "Rule system", Type: OptionString, Required: true, Choices: g.systemNames()}}},
			{Name: "show", Description: "Show the system, GMs, options, clock and characters", Handler: tableShow},
			{Name: "gm", Description: "Add or remove a GM (GM only)", Handler: tableGM,
				Options: []Option{
					{Name: "action", Description: "add or remove", Type: OptionString, Required: true, Choices: []string{"add", "remove"}},
					{Name: "user", Description: "The user", Type: OptionUser, Required: true},
				}},
			{Name: "option", Description: "Change a table option (GM only)", Handler: tableOption,
				Options: []Option{
					{Name: "name", Description: "Option name, e.g. dice (the table's system's options are suggested)", Type: OptionString, Required: true, Autocomplete: true, MaxLength: 32},
					{Name: "value", Description: "New value (the option's values are suggested)", Type: OptionString, Required: true, Autocomplete: true, MaxLength: 32},
				}},
		},
	})
	g.Add(&Command{
		Name: "char", Description: "Create and manage characters",
		Topic: "`/char create name:… stats:\"key=value …\"` creates a character you own (a GM may give `owner`). `/char set` changes sheet values, `/char show` and `/char list` show them, `/char delete` asks to confirm. " +
			"A GM hides an NPC with `hidden=true` among the stats, at creation (answered to that GM alone) or later: players then read its word only, never its numbers; its owner and every GM read them. " +
			"A class or key a typo away from one the system names is refused with \"did you mean …?\"; mark a word new with + to keep it (`class=+theif`; at harm `+enduer=2` adds that ability).",
		Subcommands: []*Subcommand{
			{Name: "create", Description: "Create a character", Handler: charCreate,
				Options: []Option{
					{Name: "name", Description: "Character name (1-32 characters)", Type: OptionString, Required: true, MaxLength: 200},
					{Name: "owner", Description: "Owner (GM only; default: you)", Type: OptionUser},
					optStats,
				}},
			{Name: "set", Description: "Change sheet values", Handler: charSet,
				Options: []Option{optName, {Name: "stats", Description: optStats.Description, Type: OptionString, Required: true, MaxLength: 500}}},
			{Name: "show", Description: "Show a character (default: your own)", Handler: charShow,
				Options: []Option{{Name: "name", Description: "Character name", Type: OptionString, Autocomplete: true, MaxLength: 32}}},
			{Name: "list", Description: "List the characters at this table", Handler: charList},
			{Name: "delete", Description: "Delete a character (asks to confirm)", Handler: charDelete,
				Options: []Option{optName}},
		},
	})
	// The options marked BySystem mean what the table's system says
	// (System.Options): their descriptions name no system, their values
	// are autocompleted from the table's system, and /help lists them per
	// system. The system's own commands (/damage, /heal …) are a feature's
	// (commands/actions).
	g.Add(&Command{
		Name: "roll", Description: "Roll dice, optionally for a character", Handler: roll,
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
	for _, f := range features {
		f.Register(g)
	}
	g.addSystemOptions()
	g.Component(deletePrefix, deleteButton)
	g.finish()
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
