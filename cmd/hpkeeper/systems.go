package main

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/harm"
	"github.com/hpkeeper/hpkeeper/commands/hitprot"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
)

// systems are the rule systems hpkeeper plays, in the order /table setup
// offers them (RULES.md §0.1). Every service and the registration with
// Discord take this one list; a new system is a package under commands/ and
// one more entry here.
var systems = []commands.System{hitprot.System{}, hpmpwp.System{}, harm.System{}}
