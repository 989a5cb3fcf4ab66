package actions_test

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

func newTable(t *testing.T) *commandstest.Table {
	return commandstest.New(t, commandstest.Systems()...)
}

// TestSystemSeam: a system command the table's system does not have is
// refused, saying so.
func TestSystemSeam(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Lister stats:hp=4"))
	for _, line := range []string{
		"/heal target:Lister amount:2",
		"/strain target:Lister",
		"/activity target:Lister kind:work",
	} {
		tb.Refused(tb.Do("bob", line), "not part of the hit-protection system")
	}
}

// TestOrder: the system commands come where /help and Discord list them,
// /damage and /heal after /char, the others after /roll.
func TestOrder(t *testing.T) {
	var names []string
	for _, c := range newTable(t).Svc.Registry().Commands() {
		names = append(names, c.Name)
	}
	want := []string{"table", "char", "damage", "heal", "roll", "save", "rest", "attend", "treat", "strain", "spend", "activity", "wake", "clock"}
	for i, n := range want {
		if i >= len(names) || names[i] != n {
			t.Fatalf("commands = %q; want them to start %q", names, want)
		}
	}
}
