package history

import "testing"

// TestCommandName: a player's line of an event about a hidden character
// keeps the command, or a button press's label as the player saw it
// (Request.Line), but no option.
func TestCommandName(t *testing.T) {
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
