package commands

import (
	"reflect"
	"testing"

	"github.com/hpkeeper/hpkeeper/storage"
)

// TestCloneTable: the "before" copy of a table shares nothing with the table
// a handler changes, and an untouched table equals its copy (nil stays nil),
// so a mutation records a table change exactly when there is one.
func TestCloneTable(t *testing.T) {
	orig := &storage.Table{ChannelID: "c", GMs: []string{"a"}, Options: map[string]string{"dice": "bot"}}
	cp := cloneTable(orig)
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("cloneTable(%+v) = %+v; want an equal copy", orig, cp)
	}
	cp.GMs[0], cp.Options["dice"] = "b", "manual"
	if orig.GMs[0] != "a" || orig.Options["dice"] != "bot" {
		t.Errorf("changing the copy changed the table: %+v", orig)
	}
	bare := &storage.Table{ChannelID: "c"}
	if got := cloneTable(bare); !reflect.DeepEqual(got, bare) {
		t.Errorf("cloneTable(%+v) = %+v; nil slices and maps must stay nil", bare, got)
	}
}

// TestPressLine: a button press is named in the history as the player saw
// it, and a player's line of an event about a hidden character keeps the
// press's label but no option (commandName).
func TestPressLine(t *testing.T) {
	r := &Request{Kind: KindComponent, Command: "choose", Pressed: "Stay Up", Options: map[string]string{"target": "Goblin"}}
	if got, want := r.Line(), "pressed [Stay Up] for Goblin"; got != want {
		t.Errorf("Line() = %q; want %q", got, want)
	}
	for line, want := range map[string]string{
		"pressed [Stay Up] for Goblin":                 "pressed [Stay Up]",
		"/damage amount:4 target:Goblin":               "/damage",
		"/table setup system:harm":                     "/table setup",
		`/choose choice:"Go Down" target:Retainer`:     "/choose", // events written before Pressed
		"pressed [Fall Unconscious] for Dur the Third": "pressed [Fall Unconscious]",
	} {
		if got := commandName(line); got != want {
			t.Errorf("commandName(%q) = %q; want %q", line, got, want)
		}
	}
}
