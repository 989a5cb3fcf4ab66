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
	for _, f := range features {
		f.Register(g)
	}
	g.addSystemOptions()
	g.Component(deletePrefix, deleteButton)
	g.finish()
	return g
}
