// Package layout lays a reply out over Discord messages, so that nothing
// is ever cut: a reply that would pass one of Discord's limits on a
// message (API reference, "Message" and "Embed Limits": 2,000 characters
// of content; at most 10 embeds, each of at most 4,096 characters of
// description and 25 fields of 1,024, 6,000 characters in all; at most 5
// action rows of 5 buttons) continues in further messages, split between
// blocks, then between lines, then between words. The kernel (package
// commands) answers with the first message and sends the others as
// follow-ups; the tracker offers them as pages. Lengths are in characters
// (Unicode code points), as Discord counts them.
//
// The package knows Discord's message parts (Embed, Field, Button) and
// nothing of commands.
package layout

import (
	"strings"
	"unicode/utf8"
)

// Discord's limits on one message.
const (
	// MaxContent is the most characters of a message's text.
	MaxContent = 2000
	// MaxEmbeds is the most embeds of a message.
	MaxEmbeds = 10
	// MaxEmbedTotal is the most characters of all of a message's embeds
	// together: titles, descriptions, field names and values, footers.
	MaxEmbedTotal = 6000
	// MaxDescription is the most characters of an embed's description.
	MaxDescription = 4096
	// MaxFields is the most fields of an embed.
	MaxFields = 25
	// MaxFieldValue is the most characters of a field's value.
	MaxFieldValue = 1024
	// MaxTitle, MaxFieldName and MaxFooter bound an embed's title, a
	// field's name and an embed's footer, in characters.
	MaxTitle, MaxFieldName, MaxFooter = 256, 256, 2048
	// MaxRows is the most action rows of a message, MaxRowButtons the most
	// buttons of a row.
	MaxRows, MaxRowButtons = 5, 5
	// MaxLabel is the most characters of a button's label.
	MaxLabel = 80
	// MaxCustomID is the most bytes of a custom_id.
	MaxCustomID = 100
)

// Embed is a rich block of a message.
type Embed struct {
	Title       string
	Description string
	// Color is an RGB value, e.g. 0x57F287.
	Color  int
	Fields []Field
	Footer string
}

// Field is one name/value pair of an Embed.
type Field struct {
	Name, Value string
	Inline      bool
}

// ButtonStyle is Discord's button style.
type ButtonStyle int

// Button styles as Discord numbers them.
const (
	StylePrimary   ButtonStyle = 1
	StyleSecondary ButtonStyle = 2
	StyleSuccess   ButtonStyle = 3
	StyleDanger    ButtonStyle = 4
)

// Button is a message button. CustomID carries everything needed to handle
// a press after a restart; at most MaxCustomID bytes.
type Button struct {
	Label    string
	CustomID string
	Style    ButtonStyle
	Disabled bool
}

// Message is what one Discord message shows: its text, its embeds and its
// rows of buttons.
type Message struct {
	Content string
	Embeds  []Embed
	Rows    [][]Button
}

// continued ends the name of a field whose value carries on the one
// before it.
const continued = " (continued)"

// Split lays out a reply over the fewest messages Discord's limits allow,
// in reading order: the text, then the embeds, then the rows of buttons.
// The text is blocks joined by newlines; a block (say, one character's
// result) stays whole in one message where it fits in one, and a longer
// one is split between lines, a line longer than a message between words,
// and only a word longer than a message inside it. An embed past an
// embed's limits continues in embeds of the same colour (its footer on the
// last): its description split between lines, a field's value past a
// field's in fields named "… (continued)", and past 25 fields or 6,000
// characters in a further embed; a row of more than 5 buttons continues in
// further rows. Each
// message holds what follows as long as every limit holds. Titles, field
// names, footers and labels (names and words, never results) longer than
// Discord takes are cut, ending in "…", and custom_ids to MaxCustomID
// bytes; an empty field name or value, or label, becomes a zero-width
// space. Split returns at least one message (an empty one for an empty
// reply) and takes time linear in the size of the reply.
func Split(blocks []string, embeds []Embed, rows [][]Button) []Message {
	var msgs []Message
	for _, c := range chunks(blocks, MaxContent) {
		msgs = append(msgs, Message{Content: c})
	}
	total := 0 // characters of the last message's embeds
	for _, e := range embeds {
		for _, p := range pieces(e) {
			size := embedSize(p)
			if n := len(msgs); n == 0 || len(msgs[n-1].Embeds) == MaxEmbeds || total+size > MaxEmbedTotal {
				msgs, total = append(msgs, Message{}), 0
			}
			last := &msgs[len(msgs)-1]
			last.Embeds = append(last.Embeds, p)
			total += size
		}
	}
	for _, row := range rows {
		for len(row) > 0 {
			n := min(len(row), MaxRowButtons)
			r := make([]Button, n)
			for i, b := range row[:n] {
				b.Label = nonEmpty(Clip(b.Label, MaxLabel))
				b.CustomID = ClipBytes(b.CustomID, MaxCustomID)
				r[i] = b
			}
			row = row[n:]
			if len(msgs) == 0 || len(msgs[len(msgs)-1].Rows) == MaxRows {
				msgs = append(msgs, Message{})
			}
			last := &msgs[len(msgs)-1]
			last.Rows = append(last.Rows, r)
		}
	}
	if len(msgs) == 0 {
		msgs = []Message{{}}
	}
	return msgs
}

// chunks joins blocks with newlines into texts of at most limit
// characters each (see Split), leaving out blank ones; none for no text.
func chunks(blocks []string, limit int) []string {
	var out []string
	var cur strings.Builder
	n := 0 // characters in cur
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" { // Discord refuses a blank message
			out = append(out, cur.String())
		}
		cur.Reset()
		n = 0
	}
	add := func(s string, size int) {
		if cur.Len() > 0 && n+1+size > limit {
			flush()
		}
		if cur.Len() > 0 {
			cur.WriteByte('\n')
			n++
		}
		cur.WriteString(s)
		n += size
	}
	for _, b := range blocks {
		if size := utf8.RuneCountInString(b); size <= limit {
			add(b, size)
			continue
		}
		for line := range strings.SplitSeq(b, "\n") {
			if size := utf8.RuneCountInString(line); size <= limit {
				add(line, size)
				continue
			}
			for _, w := range words(line, limit) {
				add(w, utf8.RuneCountInString(w))
			}
		}
	}
	flush()
	return out
}

// words splits a line longer than limit characters into pieces of at most
// limit, between words where it can (the space ends the piece before it).
func words(line string, limit int) []string {
	var out []string
	for line != "" {
		// end is the byte offset of the first limit characters.
		end, n := 0, 0
		for end < len(line) && n < limit {
			_, size := utf8.DecodeRuneInString(line[end:])
			end += size
			n++
		}
		if end < len(line) {
			if sp := strings.LastIndexByte(line[:end], ' '); sp > 0 {
				end = sp + 1
			}
		}
		out = append(out, strings.TrimSuffix(line[:end], " "))
		line = line[end:]
	}
	return out
}

// pieces is e laid out as embeds each within every limit (see Split).
func pieces(e Embed) []Embed {
	title, footer := Clip(e.Title, MaxTitle), Clip(e.Footer, MaxFooter)
	var fields []Field
	for _, f := range e.Fields {
		name := nonEmpty(Clip(f.Name, MaxFieldName))
		values := chunks([]string{f.Value}, MaxFieldValue)
		if len(values) <= 1 {
			fields = append(fields, Field{Name: name, Value: nonEmpty(strings.Join(values, "")), Inline: f.Inline})
			continue
		}
		for i, v := range values {
			if i > 0 {
				name = Clip(strings.TrimSpace(f.Name)+continued, MaxFieldName)
			}
			fields = append(fields, Field{Name: name, Value: nonEmpty(v)})
		}
	}
	var out []Embed
	cur := Embed{Title: title, Color: e.Color}
	size := utf8.RuneCountInString(title)
	next := func() {
		out = append(out, cur)
		cur, size = Embed{Color: e.Color}, 0
	}
	for i, d := range chunks([]string{e.Description}, MaxDescription) {
		if i > 0 {
			next()
		}
		cur.Description = d
		size += utf8.RuneCountInString(d)
	}
	for _, f := range fields {
		fs := utf8.RuneCountInString(f.Name) + utf8.RuneCountInString(f.Value)
		if len(cur.Fields) == MaxFields || size+fs > MaxEmbedTotal {
			next()
		}
		cur.Fields = append(cur.Fields, f)
		size += fs
	}
	if size+utf8.RuneCountInString(footer) > MaxEmbedTotal {
		next()
	}
	cur.Footer = footer
	return append(out, cur)
}

// embedSize is what e counts towards MaxEmbedTotal.
func embedSize(e Embed) int {
	n := utf8.RuneCountInString(e.Title) + utf8.RuneCountInString(e.Description) + utf8.RuneCountInString(e.Footer)
	for _, f := range e.Fields {
		n += utf8.RuneCountInString(f.Name) + utf8.RuneCountInString(f.Value)
	}
	return n
}

// Clip shortens s to at most n characters (n ≥ 1), ending it with "…" when
// cut: for names and labels, never for a result.
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ClipBytes cuts s to at most n bytes on a character boundary, with no
// ellipsis: a custom_id is an identifier, not text.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// nonEmpty returns s, or a zero-width space for "": Discord refuses empty
// field names and values, and labels.
func nonEmpty(s string) string {
	if s == "" {
		return "\u200b"
	}
	return s
}
