package commands

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Discord's limits on a message (API reference, "Embed Limits", message
// content, message components, autocomplete and modals), enforced in one
// place (fitLimits) so that no reply is ever refused. Lengths are in
// characters (Unicode code points), as Discord counts them. The three that
// a feature lays its text out by are exported.
const (
	// MaxContent is the most characters of a message's text.
	MaxContent = 2000
	// MaxEmbedDescription is the most characters of an embed's description.
	MaxEmbedDescription = 4096
	// MaxFieldValue is the most characters of an embed field's value.
	MaxFieldValue = 1024
	// MaxChoices is the most choices an autocomplete answer holds.
	MaxChoices = 25

	maxEmbeds       = 10
	maxEmbedTitle   = 256
	maxEmbedFields  = 25
	maxFieldName    = 256
	maxEmbedFooter  = 2048
	maxEmbedTotal   = 6000 // titles, descriptions, field names and values, footers of all embeds
	maxRows         = 5    // action rows of a message
	maxRowButtons   = 5    // buttons in one action row
	maxButtonLabel  = 80
	maxCustomID     = 100 // custom_id of a button or modal and its inputs
	maxChoiceLength = 100 // an autocomplete choice's name and value
	maxModalTitle   = 45
	maxModalInputs  = 5
	maxInputLabel   = 45
	maxPlaceholder  = 100
)

// Limits on what one command may ask for, so that no command holds the
// single writer for long (SECURITY.md, "Input limits"; BENCHMARKS.md, "Worst
// case of every command").
const (
	// MaxCharacters is the most characters a table holds: a party, its
	// retainers and NPCs and a battle's worth of foes, twice what the
	// autocomplete of a name offers (25) and about what the tracker's one
	// embed lists. /char create and /table import refuse more.
	MaxCharacters = 50
	// MaxAdvanceDays is the longest one /clock advance moves the clock, in
	// days (2,160 hours): a season, longer than every timer of the three
	// systems (the longest, hit-protection's no-restoring period of 2d6
	// weeks, is 84 days) and than most recoveries (hp-mp-wp regains WP at
	// 1 a level a day: from −20 to Con 18 at level 1 in 38 days). A year is
	// five commands. At the largest hp-mp-wp table the advance holds the
	// single writer for about 25–30 ms (BENCHMARKS.md); a year would hold it
	// four times as long.
	MaxAdvanceDays = 90
	// MaxFileSize is the largest file a request or a reply carries, in
	// bytes: Discord's upload limit, 8 MiB (a table export, an import).
	MaxFileSize = 8 << 20
	// MaxCombatants bounds a turn order, so that a round's walk and its
	// rerolls stay short: every character of the largest table.
	MaxCombatants = MaxCharacters
)

// notFitting is the field that ends the embeds when their total would pass
// maxEmbedTotal.
var notFitting = Field{Name: "…", Value: "the rest does not fit in one message"}

// fitLimits shortens a response to Discord's limits (the constants above):
// long texts end in "…"; surplus embeds, fields, rows and buttons are
// dropped, fields with a note; and the embeds together stay within
// maxEmbedTotal characters, the note that ends them included. It takes time
// linear in the response's size.
func fitLimits(resp *Response) {
	resp.Content = Clip(resp.Content, MaxContent)
	if len(resp.Embeds) > maxEmbeds {
		resp.Embeds = resp.Embeds[:maxEmbeds]
	}
	total := 0
	for i := range resp.Embeds {
		e := &resp.Embeds[i]
		e.Title = Clip(e.Title, maxEmbedTitle)
		e.Description = Clip(e.Description, MaxEmbedDescription)
		e.Footer = Clip(e.Footer, maxEmbedFooter)
		if len(e.Fields) > maxEmbedFields {
			dropped := len(e.Fields) - maxEmbedFields + 1
			e.Fields = append(e.Fields[:maxEmbedFields-1:maxEmbedFields-1], Field{Name: "…", Value: fmt.Sprintf("%d more not shown", dropped)})
		}
		for j := range e.Fields {
			f := &e.Fields[j]
			f.Name = nonEmpty(Clip(f.Name, maxFieldName))
			f.Value = nonEmpty(Clip(f.Value, MaxFieldValue))
		}
		total += embedSize(e)
	}
	if total > maxEmbedTotal {
		fitEmbedTotal(resp)
	}
	fitComponents(resp)
	if len(resp.Choices) > MaxChoices {
		resp.Choices = resp.Choices[:MaxChoices]
	}
	for i := range resp.Choices {
		resp.Choices[i].Name = nonEmpty(Clip(resp.Choices[i].Name, maxChoiceLength))
		resp.Choices[i].Value = Clip(resp.Choices[i].Value, maxChoiceLength)
	}
	if md := resp.Modal; md != nil {
		md.Title = nonEmpty(Clip(md.Title, maxModalTitle))
		md.CustomID = clipBytes(md.CustomID, maxCustomID)
		if len(md.Inputs) > maxModalInputs {
			md.Inputs = md.Inputs[:maxModalInputs]
		}
		for i := range md.Inputs {
			in := &md.Inputs[i]
			in.Label = nonEmpty(Clip(in.Label, maxInputLabel))
			in.Placeholder = Clip(in.Placeholder, maxPlaceholder)
			in.CustomID = clipBytes(in.CustomID, maxCustomID)
			in.MaxLength = min(max(in.MaxLength, 0), MaxModalText)
			in.MinLength = min(max(in.MinLength, 0), MaxModalText)
			if in.MaxLength > 0 {
				in.MinLength = min(in.MinLength, in.MaxLength)
			}
		}
	}
}

// fitEmbedTotal cuts the embeds, each already within its own limits, to
// maxEmbedTotal characters in all: it keeps titles, descriptions, footers
// and fields in order while they fit within the total less the size of
// notFitting, cuts the text that reaches past it, drops what follows, and
// ends the last embed kept with notFitting.
func fitEmbedTotal(resp *Response) {
	budget := maxEmbedTotal - runes(notFitting.Name) - runes(notFitting.Value)
	used := 0
	// take returns s cut to what is left of the budget ("" when nothing is)
	// and counts it.
	take := func(s string) string {
		left := budget - used
		if n := runes(s); n > left {
			if left < 2 {
				s = ""
			} else {
				s = Clip(s, left)
			}
		}
		used += runes(s)
		return s
	}
	for i := range resp.Embeds {
		e := &resp.Embeds[i]
		if used >= budget-1 && i > 0 {
			resp.Embeds = resp.Embeds[:i]
			break
		}
		e.Title = take(e.Title)
		e.Description = take(e.Description)
		e.Footer = take(e.Footer)
		kept := len(e.Fields)
		for j, f := range e.Fields {
			size := runes(f.Name) + runes(f.Value)
			if used+size <= budget {
				used += size
				continue
			}
			kept = j
			if left := budget - used - runes(f.Name); left >= 2 {
				e.Fields[j].Value = Clip(f.Value, left)
				used = budget
				kept = j + 1
			}
			break
		}
		if kept < len(e.Fields) {
			e.Fields = e.Fields[:kept]
			resp.Embeds = resp.Embeds[:i+1]
			break
		}
	}
	last := &resp.Embeds[len(resp.Embeds)-1]
	if len(last.Fields) >= maxEmbedFields {
		last.Fields = last.Fields[:maxEmbedFields-1]
	}
	last.Fields = append(last.Fields, notFitting)
}

// embedSize is what e counts towards maxEmbedTotal.
func embedSize(e *Embed) int {
	n := runes(e.Title) + runes(e.Description) + runes(e.Footer)
	for _, f := range e.Fields {
		n += runes(f.Name) + runes(f.Value)
	}
	return n
}

// fitComponents keeps at most maxRows rows of at most maxRowButtons buttons,
// drops empty rows, and cuts labels and custom_ids to Discord's lengths (a
// button needs a label: an empty one becomes a zero-width space).
func fitComponents(resp *Response) {
	rows := resp.Components[:0]
	for _, row := range resp.Components {
		if len(row) == 0 {
			continue
		}
		if len(row) > maxRowButtons {
			row = row[:maxRowButtons]
		}
		for j := range row {
			row[j].Label = nonEmpty(Clip(row[j].Label, maxButtonLabel))
			row[j].CustomID = clipBytes(row[j].CustomID, maxCustomID)
		}
		rows = append(rows, row)
	}
	if len(rows) > maxRows {
		rows = rows[:maxRows]
	}
	if len(rows) == 0 {
		rows = nil
	}
	resp.Components = rows
}

// nonEmpty returns s, or a zero-width space for "": Discord refuses empty
// field names and values, labels and titles.
func nonEmpty(s string) string {
	if s == "" {
		return "\u200b"
	}
	return s
}

// clipBytes cuts s to at most n bytes on a rune boundary, with no ellipsis:
// a custom_id is an identifier, not text.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func runes(s string) int { return len([]rune(s)) }

// JoinWithin joins lines with newlines into at most limit characters; the
// lines that do not fit are replaced by "… and N more" (with what to use to
// see them).
func JoinWithin(lines []string, limit int, seeMore string) string {
	var b strings.Builder
	used := 0
	for i, line := range lines {
		n := runes(line) + 1
		tail := fmt.Sprintf("… and %d more%s", len(lines)-i, seeMore)
		if used+n+runes(tail) > limit && i < len(lines)-1 || used+n > limit {
			b.WriteString(tail)
			return b.String()
		}
		b.WriteString(line)
		if i < len(lines)-1 {
			b.WriteByte('\n')
		}
		used += n
	}
	return b.String()
}

// MaxModalText is the longest text a modal input may carry, in characters:
// Discord's own limit for a text input (SECURITY.md, "Input limits"). A
// modal submit with a longer value is refused before any handler runs; each
// handler still checks its own, smaller bound.
const MaxModalText = 4000

// checkModalValues refuses a modal submit whose values exceed MaxModalText.
func checkModalValues(r *Request) error {
	for _, v := range r.Values {
		if n := utf8.RuneCountInString(v); n > MaxModalText {
			return Errorf(CodeInvalid, "That text is %d characters long; at most %d. Nothing was changed.", n, MaxModalText)
		}
	}
	return nil
}
