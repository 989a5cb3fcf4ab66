package commands

import (
	"fmt"
	"strings"
)

// Discord's limits on a message (API reference, "Embed Limits" and message
// content), enforced in one place so that no reply is ever refused.
const (
	maxContent      = 2000
	maxEmbeds       = 10
	maxEmbedTitle   = 256
	maxEmbedDesc    = 4096
	maxEmbedFields  = 25
	maxFieldName    = 256
	maxFieldValue   = 1024
	maxEmbedFooter  = 2048
	maxEmbedTotal   = 6000
	maxButtonLabel  = 80
	maxChoiceLength = 100
)

// fitLimits shortens a response to Discord's limits: long texts end in "…",
// surplus embeds and fields are dropped with a note, and the embeds together
// stay within 6,000 characters.
func fitLimits(resp *Response) {
	resp.Content = Clip(resp.Content, maxContent)
	if len(resp.Embeds) > maxEmbeds {
		resp.Embeds = resp.Embeds[:maxEmbeds]
	}
	total := 0
	for i := range resp.Embeds {
		e := &resp.Embeds[i]
		e.Title = Clip(e.Title, maxEmbedTitle)
		e.Description = Clip(e.Description, maxEmbedDesc)
		e.Footer = Clip(e.Footer, maxEmbedFooter)
		if len(e.Fields) > maxEmbedFields {
			dropped := len(e.Fields) - maxEmbedFields + 1
			e.Fields = append(e.Fields[:maxEmbedFields-1], Field{Name: "…", Value: fmt.Sprintf("%d more not shown", dropped)})
		}
		total += runes(e.Title) + runes(e.Description) + runes(e.Footer)
		for j := range e.Fields {
			f := &e.Fields[j]
			f.Name = Clip(f.Name, maxFieldName)
			f.Value = Clip(f.Value, maxFieldValue)
			if f.Name == "" {
				f.Name = "\u200b"
			}
			if f.Value == "" {
				f.Value = "\u200b"
			}
			size := runes(f.Name) + runes(f.Value)
			if total+size > maxEmbedTotal {
				e.Fields = append(e.Fields[:j:j], Field{Name: "…", Value: "the rest does not fit in one message"})
				resp.Embeds = resp.Embeds[:i+1]
				return
			}
			total += size
		}
	}
	for _, row := range resp.Components {
		for j := range row {
			row[j].Label = Clip(row[j].Label, maxButtonLabel)
		}
	}
	for i := range resp.Choices {
		resp.Choices[i].Name = Clip(resp.Choices[i].Name, maxChoiceLength)
	}
}

func runes(s string) int { return len([]rune(s)) }

// joinWithin joins lines with newlines into at most limit characters; the
// lines that do not fit are replaced by "… and N more" (with what to use to
// see them).
func joinWithin(lines []string, limit int, seeMore string) string {
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
