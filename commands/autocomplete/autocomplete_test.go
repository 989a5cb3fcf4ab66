package autocomplete_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

func newTable(t *testing.T) *commandstest.Table {
	return commandstest.New(t, commandstest.Systems()...)
}

// TestAutocomplete: names that start with what was typed come first, then
// those that contain it; a list of targets completes its last name.
func TestAutocomplete(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	for _, n := range []string{"Lister", "Meghan", "Elisa"} {
		tb.OK(tb.Do("ann", "/char create name:"+n+" stats:hp=1"))
	}
	ac := func(value string) []string {
		resp := tb.Svc.Handle(context.Background(), &commands.Request{
			Kind: commands.KindAutocomplete, ChannelID: tb.Channel, UserID: "ann", UserName: "ann",
			Command: "damage", Options: map[string]string{"target": value}, Focused: "target",
		})
		var out []string
		for _, c := range resp.Choices {
			out = append(out, c.Value)
		}
		return out
	}
	if got := strings.Join(ac("li"), "|"); got != "Lister|Elisa" {
		t.Errorf("autocomplete li = %q; want prefix matches first", got)
	}
	if got := strings.Join(ac("Lister, me"), "|"); got != "Lister, Meghan" {
		t.Errorf("autocomplete list = %q", got)
	}
	if got := ac("zzz"); len(got) != 0 {
		t.Errorf("autocomplete zzz = %q", got)
	}
}

// TestNoAutocompleter: without a feature that completes options, an
// autocomplete request gets no choices, never an error.
func TestNoAutocompleter(t *testing.T) {
	svc := commands.New(commandstest.OpenDB(t), nil, nil)
	resp := svc.Handle(context.Background(), &commands.Request{Kind: commands.KindAutocomplete, ChannelID: "c", UserID: "ann",
		Command: "char", Subcommand: "show", Options: map[string]string{"name": "Li"}, Focused: "name"})
	if resp.Choices == nil || len(resp.Choices) != 0 || resp.Outcome != commands.OutcomeOK {
		t.Errorf("autocomplete without an Autocompleter = %+v; want no choices", resp)
	}
}
