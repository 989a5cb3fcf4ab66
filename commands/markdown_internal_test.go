package commands

import "testing"

// TestPlainTextUndoesEscape: a reply line noted for /history loses the
// bold around names and Escape's escapes, so the history (which escapes
// notes itself) shows the name as typed.
func TestPlainTextUndoesEscape(t *testing.T) {
	for _, name := range []string{`Lister`, `**Bold** _it_ \ back`, "@everyone <@1> `tick` ~~s~~ ||x|| #h [l](u) a*", `\*`} {
		line := "**" + Escape(name) + "**'s turn ends."
		if got, want := plainText(line), name+"'s turn ends."; got != want {
			t.Errorf("plainText(%q) = %q; want %q", line, got, want)
		}
	}
}
