package commands_test

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// table is the harness of the core's tests: a commandstest.Table, with the
// helpers only these tests use as its methods.
type table struct{ *commandstest.Table }

func newTable(t *testing.T) *table {
	t.Helper()
	return &table{commandstest.New(t)}
}
