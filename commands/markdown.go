package commands

import (
	"fmt"
	"strings"
)

// markdownEscaper puts a backslash before every character Discord markdown
// gives a meaning to, and a zero-width space after '@', so text a user typed
// (names, heroic actions) shows literally and never pings (RULES.md §0.1).
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, `*`, `\*`, `_`, `\_`, "~", `\~`, "`", "\\`", `|`, `\|`,
	`>`, `\>`, `<`, `\<`, `#`, `\#`, `[`, `\[`, `]`, `\]`, `(`, `\(`, `)`, `\)`,
	"@", "@\u200b",
)

// Escape returns s with Discord markdown and mentions neutralised (see
// markdownEscaper). Every user-given string in a reply goes through it.
func Escape(s string) string { return markdownEscaper.Replace(s) }

// markdownUnescaper undoes markdownEscaper.
var markdownUnescaper = strings.NewReplacer(
	`\\`, `\`, `\*`, `*`, `\_`, `_`, `\~`, "~", "\\`", "`", `\|`, `|`,
	`\>`, `>`, `\<`, `<`, `\#`, `#`, `\[`, `[`, `\]`, `]`, `\(`, `(`, `\)`, `)`,
	"@\u200b", "@",
)

// plainText returns a reply line as /history notes keep it: without the
// bold markers around names and without Escape's escapes (the history
// escapes notes itself).
func plainText(line string) string {
	return markdownUnescaper.Replace(strings.ReplaceAll(line, "**", ""))
}

// count renders "1 character", "3 characters".
func count(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
