package commands_test

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// allSystems are the rule systems the kernel's tests play, as cmd/hpkeeper
// wires them.
var allSystems = commandstest.Systems()

// table is the harness of the kernel's tests: a commandstest.Table playing
// allSystems, with the helpers only these tests use as its methods.
type table struct{ *commandstest.Table }

func newTable(t *testing.T) *table {
	t.Helper()
	return &table{commandstest.New(t, allSystems...)}
}
