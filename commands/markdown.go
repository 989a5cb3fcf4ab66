package commands

import (
	"fmt"
	"strings"
	"time"

	"github.com/hpkeeper/hpkeeper/commands/layout"
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

// Unmarkdown turns reply text (Discord markdown, user-given names escaped)
// back into plain text for a note of the history (Mutation.Note), which is
// escaped when shown: bold markers go, and so do the escapes Escape adds.
func Unmarkdown(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "**", ""), "@\u200b", "@")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(markdownSpecials, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// markdownSpecials are the characters Escape puts a backslash before.
const markdownSpecials = "\\*_~`|><#[]()"

// CodeSpan renders text as a Discord code span, which shows it exactly, with
// no markdown: a command a reply suggests, with a user-given name in it
// as it is typed ("`/attend target:Sir Bob`": Discord passes quotes
// along, so none are added). The fence is longer than any run of
// backticks in text.
func CodeSpan(text string) string {
	fence := "`"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
		text = " " + text + " "
	}
	return fence + text + fence
}

// Timestamp renders t as a Discord timestamp, "<t:1764442800:f>", which
// each reader's client shows in their own time zone (the console in UTC).
func Timestamp(t time.Time) string { return fmt.Sprintf("<t:%d:f>", t.Unix()) }

// Mention renders a user id as a Discord user mention, "<@123>"; a reply
// pings nobody unless it says so (Mutation.SetMentions), so this only shows
// the name.
func Mention(userID string) string { return "<@" + userID + ">" }

// Indefinite returns word after "a" or "an" as it is said (markdown around
// it is skipped): "an **hp-mp-wp**" (an initialism, said "aitch-pee"), "a
// **harm**", "a **hit-protection**", "an item".
func Indefinite(word string) string {
	w := strings.ToLower(strings.TrimLeft(word, "*_`"))
	vowel := func(i int) bool { return i < len(w) && strings.ContainsRune("aeiou", rune(w[i])) }
	initialism := len(w) > 1 && strings.ContainsRune("fhlmnrsx", rune(w[0])) && !vowel(1) && w[1] != 'y'
	if vowel(0) || initialism {
		return "an " + word
	}
	return "a " + word
}

// Change renders a value that changed as "HP 4 → 0/6" (with its maximum
// when max > 0; "HP 4 → 0" without), or "" when it did not: a reply says
// what changed and nothing else.
func Change(label string, before, after, max int) string {
	switch {
	case before == after:
		return ""
	case max > 0:
		return fmt.Sprintf("%s %d → %d/%d", label, before, after, max)
	}
	return fmt.Sprintf("%s %d → %d", label, before, after)
}

// Changes joins the parts that are not "" with " · " ("HP 4 → 0/6 · HD
// 1 → 0/1").
func Changes(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

// Count renders "1 character", "3 characters".
func Count(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Clip shortens s to at most n characters (n ≥ 1), ending it with "…"
// when cut: for a name or a value quoted back in a refusal, never for a
// result (layout.Clip).
func Clip(s string, n int) string { return layout.Clip(s, n) }
