package main

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/actions"
	"github.com/hpkeeper/hpkeeper/commands/autocomplete"
	"github.com/hpkeeper/hpkeeper/commands/export"
	"github.com/hpkeeper/hpkeeper/commands/gameclock"
	"github.com/hpkeeper/hpkeeper/commands/gmscreen"
	"github.com/hpkeeper/hpkeeper/commands/harm"
	"github.com/hpkeeper/hpkeeper/commands/help"
	"github.com/hpkeeper/hpkeeper/commands/history"
	"github.com/hpkeeper/hpkeeper/commands/hitprot"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
	"github.com/hpkeeper/hpkeeper/commands/manualdice"
	"github.com/hpkeeper/hpkeeper/commands/odds"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
	"github.com/hpkeeper/hpkeeper/commands/turnorder"
)

// systems are the rule systems hpkeeper plays, in the order /table setup
// offers them (RULES.md §0.1). Every service and the registration with
// Discord take this one list; a new system is a package under commands/ and
// one more entry here.
var systems = []commands.System{hitprot.System{}, hpmpwp.System{}, harm.System{}}

// features returns a fresh set of the features hpkeeper has (the kernel's
// plug-ins beside the systems), in the order their hooks run; each service
// takes its own, as some keep state per service. A new feature is a
// package under commands/ and one more entry here.
func features() []commands.Feature {
	return []commands.Feature{actions.Feature{}, gameclock.Feature{}, autocomplete.Feature{}, manualdice.New(), turnorder.Feature{}, history.Feature{}, export.Feature{}, odds.New(), tracker.New(), gmscreen.New(), help.Feature{}}
}
