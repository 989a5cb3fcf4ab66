package commands_test

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
)

// TestChoiceID pins the custom_id of a choice button (COMMANDS.md: a button
// posted before an upgrade must still work after it) and refuses others.
func TestChoiceID(t *testing.T) {
	id := commands.ChoiceID{Prefix: "hp0", Character: 7, Event: 42}
	if got := id.With("up"); got != "hp0:7:42:up" {
		t.Fatalf("ChoiceID%+v.With(up) = %q; want hp0:7:42:up", id, got)
	}
	got, err := commands.ParseChoiceID("hmw:12:3:act")
	if want := (commands.ChoiceID{Prefix: "hmw", Character: 12, Event: 3, Choice: "act"}); err != nil || got != want {
		t.Errorf("ParseChoiceID(hmw:12:3:act) = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"hp0:7:42", "hp0:7:42:up:x", "hp0:x:42:up", "hp0:7:-1:up", "del:7:abc123:yes"} {
		if _, err := commands.ParseChoiceID(bad); commands.ErrorCode(err) != commands.CodeInvalid {
			t.Errorf("ParseChoiceID(%q) error %v; want CodeInvalid", bad, err)
		}
	}
}
