package commandstest

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

// Systems returns the rule systems cmd/hpkeeper wires, in its order: the
// systems of the kernel's and the features' tests.
func Systems() []commands.System {
	return []commands.System{hitprot.System{}, hpmpwp.System{}, harm.System{}}
}

// Features returns a fresh set of the features cmd/hpkeeper wires, in its
// order (each service needs its own: some keep state per service). Every
// Table and Sheets plays them.
func Features() []commands.Feature {
	return []commands.Feature{actions.Feature{}, gameclock.Feature{}, autocomplete.Feature{}, manualdice.New(), turnorder.Feature{}, history.Feature{}, export.Feature{}, odds.New(), tracker.New(), gmscreen.New(), help.Feature{}}
}
