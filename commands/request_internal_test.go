package commands

import "testing"

// TestPressLine: a button press is named in the history as the player saw
// it (the history's player line keeps the label but no option: history's
// TestCommandName).
func TestPressLine(t *testing.T) {
	r := &Request{Kind: KindComponent, Command: "choose", Pressed: "Stay Up", Options: map[string]string{"target": "Goblin"}}
	if got, want := r.Line(), "pressed [Stay Up] for Goblin"; got != want {
		t.Errorf("Line() = %q; want %q", got, want)
	}
}
