package console

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
)

// renderMessage writes a posted message as terminal text: the ephemeral
// notice, the content, who it pings (init-ping), each embed with a "| " bar (title, description, fields
// as "Name: Value", footer) and one line of buttons per row.
func renderMessage(b *strings.Builder, resp *commands.Response, ephemeralFor string) {
	content := strings.TrimRight(plain(resp.Content), " \t\n")
	if ephemeralFor != "" {
		notice := "(only " + ephemeralFor + " sees this)"
		if ephemeralFor == DefaultUser {
			notice = "(only you see this)" // "you" takes the plural verb
		}
		if content == "" {
			content = notice
		} else {
			content = notice + " " + content
		}
	}
	if content != "" {
		b.WriteString(content)
		b.WriteByte('\n')
	}
	if len(resp.Mentions) > 0 {
		// The users Discord would notify (allowed_mentions), as names.
		names := make([]string, len(resp.Mentions))
		for i, id := range resp.Mentions {
			names[i] = "@" + id
		}
		b.WriteString("(pings " + strings.Join(names, ", ") + ")\n")
	}
	for i, e := range resp.Embeds {
		if i > 0 {
			b.WriteString("|\n")
		}
		renderEmbed(b, e)
	}
	for _, row := range resp.Components {
		for i, btn := range row {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(buttonText(btn))
		}
		if len(row) > 0 {
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		b.WriteString("(empty reply)\n")
	}
}

// renderEmbed writes one embed, every line behind a "| " bar.
func renderEmbed(b *strings.Builder, e commands.Embed) {
	bar := func(s string) {
		s = strings.TrimRight(plain(s), " \t\n")
		if s == "" {
			return
		}
		for _, l := range strings.Split(s, "\n") {
			b.WriteString(strings.TrimRight("| "+l, " "))
			b.WriteByte('\n')
		}
	}
	bar(e.Title)
	bar(e.Description)
	for _, f := range e.Fields {
		name := strings.TrimSpace(plain(f.Name))
		value := strings.TrimRight(plain(f.Value), " \t\n")
		// A value of several lines continues under its name, indented.
		value = strings.ReplaceAll(value, "\n", "\n  ")
		switch {
		case name == "":
			bar(value)
		case value == "":
			bar(name)
		default:
			bar(name + ": " + value)
		}
	}
	bar(e.Footer)
}

// buttonText renders a button as [Label], or [-Label-] when disabled.
func buttonText(btn commands.Button) string {
	label := plain(btn.Label)
	if btn.Disabled {
		return "[-" + label + "-]"
	}
	return "[" + label + "]"
}

// renderModal describes an open modal and how to answer it.
func renderModal(m *commands.Modal) string {
	labels := make([]string, 0, len(m.Inputs))
	for _, in := range m.Inputs {
		labels = append(labels, plain(in.Label))
	}
	what := ""
	if len(labels) > 0 {
		what = ": " + strings.Join(labels, ", ")
	}
	return fmt.Sprintf("(modal %q%s — answer with: submit <text>)\n", plain(m.Title), what)
}

// renderChoices lists autocomplete suggestions, one per line.
func renderChoices(choices []commands.Choice) string {
	if len(choices) == 0 {
		return "(no suggestions)\n"
	}
	var b strings.Builder
	b.WriteString("suggestions:\n")
	for _, c := range choices {
		b.WriteString("  " + plain(c.Name))
		if c.Value != c.Name {
			fmt.Fprintf(&b, " (%s)", plain(c.Value))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// plain turns Discord markdown as the handlers write it into text a terminal
// user wants to read: it removes the backslash escapes that commands.Escape
// adds (a backslash before ASCII punctuation, as in CommonMark) and the
// zero-width spaces that stop mentions from pinging. Inside code spans
// (text between runs of one, two or three backticks) backslashes are
// literal in Discord and are kept.
// Mentions become names: <@you> and <@!you> read @you, <@&role> @role and
// <#general> #general (the console's ids are names). Other markdown
// (**bold**, ~~struck~~ dice) is left as it is.
func plain(s string) string {
	if !strings.ContainsAny(s, "\\`<\u200b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteByte(s[i+1])
			i += 2
		case c == '`':
			n := 1
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			end := closingTicks(s, i+n, n)
			if end < 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			b.WriteString(s[i : end+n])
			i = end + n
		case c == '<':
			if m, n := mention(s[i:]); n > 0 {
				b.WriteString(m)
				i += n
				continue
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return strings.ReplaceAll(b.String(), "\u200b", "")
}

// mention reads a Discord mention at the start of s (<@id>, <@!id>, <@&id>,
// <#id>) or a timestamp (<t:unix:style>) and returns it as text (@id, #id,
// or the time in UTC: "Nov 29 19:01 UTC") and its length in s; n is 0 when
// s does not start with one.
func mention(s string) (text string, n int) {
	if stamp, ok := strings.CutPrefix(s, "<t:"); ok { // a timestamp, <t:1764442800:f>
		unix, after, _ := strings.Cut(stamp, ":")
		sec, err := strconv.ParseInt(unix, 10, 64)
		if style, _, ok := strings.Cut(after, ">"); err == nil && ok && len(style) == 1 {
			return time.Unix(sec, 0).UTC().Format("Jan 2 15:04 UTC"), len("<t:") + len(unix) + 1 + len(style) + 1
		}
		return "", 0
	}
	var prefix, sigil string
	switch {
	case strings.HasPrefix(s, "<@!"):
		prefix, sigil = "<@!", "@"
	case strings.HasPrefix(s, "<@&"):
		prefix, sigil = "<@&", "@"
	case strings.HasPrefix(s, "<@"):
		prefix, sigil = "<@", "@"
	case strings.HasPrefix(s, "<#"):
		prefix, sigil = "<#", "#"
	default:
		return "", 0
	}
	end := strings.IndexByte(s, '>')
	if end <= len(prefix) {
		return "", 0
	}
	id := s[len(prefix):end]
	if strings.ContainsAny(id, " \t\n<@#`\\") {
		return "", 0
	}
	return sigil + id, end + 1
}

// closingTicks returns the index in s, from start on, of a run of exactly n
// backticks, or -1.
func closingTicks(s string, start, n int) int {
	for i := start; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
