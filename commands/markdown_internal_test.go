package commands

import "testing"

// TestUnmarkdownUndoesEscape: a reply line noted for /history loses the
// bold around names and Escape's escapes, so the history (which escapes
// notes itself) shows the name as typed, whatever it holds.
func TestUnmarkdownUndoesEscape(t *testing.T) {
	for _, name := range []string{`Lister`, `**Bold** _it_ \ back`, "@everyone <@1> `tick` ~~s~~ ||x|| #h [l](u) a*", `\*`} {
		line := "**" + Escape(name) + "**'s turn ends."
		if got, want := Unmarkdown(line), name+"'s turn ends."; got != want {
			t.Errorf("Unmarkdown(%q) = %q; want %q", line, got, want)
		}
	}
}

// TestIndefinite: "a" or "an" as the word is said, markdown skipped.
func TestIndefinite(t *testing.T) {
	for word, want := range map[string]string{
		"**hp-mp-wp**":       "an **hp-mp-wp**",
		"**hit-protection**": "a **hit-protection**",
		"**harm**":           "a **harm**",
		"item":               "an item",
		"table":              "a table",
		"mp":                 "an mp",
		"yard":               "a yard",
	} {
		if got := Indefinite(word); got != want {
			t.Errorf("Indefinite(%q) = %q; want %q", word, got, want)
		}
	}
}

// TestUnmarkdown: a reply's text becomes a plain note: no bold, no escapes
// (Escape's inverse).
func TestUnmarkdown(t *testing.T) {
	for _, s := range []string{"Sir_Bob", "a*b", "x@y", `back\slash`, "[link](x)", "plain"} {
		if got := Unmarkdown("**" + Escape(s) + "** takes 3"); got != s+" takes 3" {
			t.Errorf("Unmarkdown(Escape(%q)) = %q; want %q", s, got, s+" takes 3")
		}
	}
}

// TestLiteralTextKeepsOurMentions: a refusal keeps the bot's own mention of
// a user (which never pings) and neutralises every mention a user typed.
func TestLiteralTextKeepsOurMentions(t *testing.T) {
	got := literalText(`Lister belongs to ` + Mention("1311000000000001002") + `; "<@1311000000000001003>" and @everyone`)
	want := "Lister belongs to <@1311000000000001002>; \"\\<@\u200b1311000000000001003\\>\" and @\u200beveryone"
	if got != want {
		t.Errorf("literalText = %q; want %q", got, want)
	}
}
