package commands

import "testing"

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
