package commands_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/export"
	"github.com/hpkeeper/hpkeeper/commands/history"
)

// TestWorkCost checks what counts as expensive work: what each command
// declares (Command.Cost), else the dice its options roll (DiceCost).
func TestWorkCost(t *testing.T) {
	reg := commands.NewRegistry(nil, commandstest.Features()...)
	for _, tc := range []struct {
		command string
		opts    map[string]string
		want    int
	}{
		{"roll", map[string]string{"expr": "10d6"}, 0},
		{"roll", map[string]string{"expr": "11d6"}, 11},
		{"roll", map[string]string{"expr": "60d6+40d8"}, 100},
		{"roll", map[string]string{"expr": "bad"}, 0},
		// Rerolls and explosions count: at worst, or on average when
		// there is no worst (dice.Expr.Rolls).
		{"roll", map[string]string{"expr": "10d6ro1"}, 20},
		{"roll", map[string]string{"expr": "10d6e6"}, 12},
		{"roll", map[string]string{"expr": "8d6e6"}, 0},
		{"damage", map[string]string{"amount": "50d6"}, 50},
		{"damage", map[string]string{"amount": "7"}, 0},
		{"roll", map[string]string{"expr": "5d6", "hd": "20"}, 25},
		{"history", nil, history.Cost},
		{"char create", map[string]string{"name": "100d6"}, 0},
		{"clock", map[string]string{"action": "advance", "amount": "90", "unit": "days"}, 900},
		{"clock", map[string]string{"action": "advance", "amount": "2160", "unit": "hours"}, 900},
		{"clock", map[string]string{"action": "advance", "amount": "7", "unit": "days"}, 70},
		{"clock", map[string]string{"action": "advance", "amount": "23", "unit": "hours"}, 0},
		{"clock", map[string]string{"action": "advance", "amount": "10000"}, 60},
		{"clock", map[string]string{"action": "advance", "amount": "91", "unit": "days"}, 0}, // refused before any work
		{"clock", map[string]string{"action": "next-round"}, 0},
		{"table export", nil, export.Cost},
		{"table import", map[string]string{"file": "t.json"}, export.Cost},
		{"table show", nil, 0},
	} {
		command, sub, _ := strings.Cut(tc.command, " ")
		r := &commands.Request{Command: command, Subcommand: sub, Options: tc.opts}
		c := reg.Lookup(command)
		cost := c.Cost
		if s := c.Sub(sub); s != nil {
			cost = s.Cost
		}
		if cost == nil {
			cost = commands.DiceCost
		}
		if got := cost(r); got != tc.want {
			t.Errorf("workCost(/%s %v) = %d; want %d", tc.command, tc.opts, got, tc.want)
		}
	}
}
