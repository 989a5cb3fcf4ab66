package commands_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// limitProblems lists every limit Discord enforces on a message, an
// autocomplete answer or a modal that resp breaks (Discord refuses the
// whole reply with 400 for any of them): content 2,000 characters; at most
// 10 embeds; title 256, description 4,096, at most 25 fields, field name
// 256 and value 1,024 (neither empty), footer 2,048, and 6,000 characters
// in all the embeds together; at most 5 action rows of 1 to 5 buttons, a
// label of 1 to 80 characters and a custom_id of at most 100; at most 25
// choices of 1 to 100 characters (value at most 100); a modal title of 1
// to 45 characters, at most 5 inputs with labels of 1 to 45, placeholders
// of at most 100 and lengths within 0 to 4,000. The numbers are Discord's,
// written out here rather than taken from the code under test.
func limitProblems(resp *commands.Response) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	n := utf8.RuneCountInString
	if n(resp.Content) > 2000 {
		bad("content is %d characters; Discord allows 2000", n(resp.Content))
	}
	if len(resp.Embeds) > 10 {
		bad("%d embeds; Discord allows 10", len(resp.Embeds))
	}
	total := 0
	for i, e := range resp.Embeds {
		if n(e.Title) > 256 {
			bad("embed %d: title of %d characters; Discord allows 256", i, n(e.Title))
		}
		if n(e.Description) > 4096 {
			bad("embed %d: description of %d characters; Discord allows 4096", i, n(e.Description))
		}
		if n(e.Footer) > 2048 {
			bad("embed %d: footer of %d characters; Discord allows 2048", i, n(e.Footer))
		}
		if len(e.Fields) > 25 {
			bad("embed %d has %d fields; Discord allows 25", i, len(e.Fields))
		}
		total += n(e.Title) + n(e.Description) + n(e.Footer)
		for j, f := range e.Fields {
			if n(f.Name) > 256 || f.Name == "" {
				bad("embed %d field %d: name of %d characters; Discord allows 1 to 256", i, j, n(f.Name))
			}
			if n(f.Value) > 1024 || f.Value == "" {
				bad("embed %d field %d: value of %d characters; Discord allows 1 to 1024", i, j, n(f.Value))
			}
			total += n(f.Name) + n(f.Value)
		}
	}
	if total > 6000 {
		bad("embeds total %d characters; Discord allows 6000", total)
	}
	if len(resp.Components) > 5 {
		bad("%d action rows; Discord allows 5", len(resp.Components))
	}
	for i, row := range resp.Components {
		if len(row) < 1 || len(row) > 5 {
			bad("row %d has %d buttons; Discord allows 1 to 5", i, len(row))
		}
		for _, b := range row {
			if n(b.Label) < 1 || n(b.Label) > 80 {
				bad("button label of %d characters; Discord allows 1 to 80", n(b.Label))
			}
			if n(b.CustomID) > 100 {
				bad("button custom_id of %d characters; Discord allows 100", n(b.CustomID))
			}
		}
	}
	if len(resp.Choices) > 25 {
		bad("%d choices; Discord allows 25", len(resp.Choices))
	}
	for _, c := range resp.Choices {
		if n(c.Name) < 1 || n(c.Name) > 100 || n(c.Value) > 100 {
			bad("choice %q/%q; Discord allows names of 1 to 100 characters and values of 100", c.Name, c.Value)
		}
	}
	if md := resp.Modal; md != nil {
		if n(md.Title) < 1 || n(md.Title) > 45 {
			bad("modal title of %d characters; Discord allows 1 to 45", n(md.Title))
		}
		if n(md.CustomID) > 100 {
			bad("modal custom_id of %d characters; Discord allows 100", n(md.CustomID))
		}
		if len(md.Inputs) > 5 {
			bad("%d modal inputs; Discord allows 5", len(md.Inputs))
		}
		for _, in := range md.Inputs {
			if n(in.Label) < 1 || n(in.Label) > 45 || n(in.Placeholder) > 100 || n(in.CustomID) > 100 {
				bad("modal input %q: label 1 to 45, placeholder at most 100, custom_id at most 100 characters", in.Label)
			}
			if in.MinLength < 0 || in.MinLength > 4000 || in.MaxLength < 0 || in.MaxLength > 4000 || (in.MaxLength > 0 && in.MinLength > in.MaxLength) {
				bad("modal input %q: lengths %d to %d; Discord allows 0 to 4000", in.Label, in.MinLength, in.MaxLength)
			}
		}
	}
	return out
}

// checkDiscordLimits fails when resp breaks a limit Discord enforces on a
// message (it would refuse the whole reply).
func checkDiscordLimits(t *testing.T, resp *commands.Response) {
	t.Helper()
	for _, p := range limitProblems(resp) {
		t.Error(p)
	}
}

func TestLongListsFitDiscord(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	for i := range commands.MaxCharacters {
		tb.OK(tb.Do("ann", fmt.Sprintf("/char create name:Character-with-a-long-name-%02d stats:hp=1", i)))
	}
	tb.Refused(tb.Do("ann", "/char create name:One-too-many stats:hp=1"), "This table holds 50 characters, the most a table may hold")
	for _, line := range []string{"/table show", "/char list", "/history"} {
		resp := tb.Do("bob", line)
		checkDiscordLimits(t, resp)
		if out := commandstest.Text(resp); !strings.Contains(out, "more") && !strings.Contains(out, "Older events: `/history before:#") {
			t.Errorf("%s = %q; want it to say that more are not shown", line, out)
		}
	}
	// A very long heroic text or description is clipped, not refused.
	resp := &commands.Response{Embeds: []commands.Embed{{Description: strings.Repeat("x", 5000), Fields: make([]commands.Field, 30)}}}
	for i := range resp.Embeds[0].Fields {
		resp.Embeds[0].Fields[i] = commands.Field{Name: "f", Value: strings.Repeat("y", 2000)}
	}
	commands.FitLimits(resp)
	checkDiscordLimits(t, resp)
}

// TestFitLimitsEmbedTotal: the two replies of issue 14 that passed
// fitLimits over Discord's 6,000 characters of embeds, and what fits is
// kept.
func TestFitLimitsEmbedTotal(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	// 5,990 characters of fields: the last one does not fit, and the note
	// that replaces it must fit too (it made 6,027 before).
	fields := make([]commands.Field, 6)
	for i := range fields {
		fields[i] = commands.Field{Name: "n", Value: x(1000)}
	}
	fields[5].Value = x(984) // 5 × 1,001 + 985 = 5,990
	resp := &commands.Response{Embeds: []commands.Embed{{Title: x(5), Fields: fields}, {Title: x(2), Fields: []commands.Field{{Name: "a", Value: x(100)}}}}}
	commands.FitLimits(resp)
	checkDiscordLimits(t, resp)
	if e := resp.Embeds[len(resp.Embeds)-1]; e.Fields[len(e.Fields)-1].Value != "the rest does not fit in one message" {
		t.Errorf("last field = %+v; want the note that the rest does not fit", e.Fields[len(e.Fields)-1])
	}
	// Two descriptions of 4,000 characters (8,000 in all, each within its
	// own limit): the second is cut.
	resp = &commands.Response{Embeds: []commands.Embed{{Title: "A", Description: x(4000), Footer: "f"}, {Title: "B", Description: x(4000), Footer: "g"}}}
	commands.FitLimits(resp)
	checkDiscordLimits(t, resp)
	if len(resp.Embeds) != 2 || resp.Embeds[0].Description != x(4000) || !strings.HasSuffix(resp.Embeds[1].Description, "…") {
		t.Errorf("embeds = %d, descriptions %d and %d characters; want the first whole and the second cut",
			len(resp.Embeds), utf8.RuneCountInString(resp.Embeds[0].Description), utf8.RuneCountInString(resp.Embeds[len(resp.Embeds)-1].Description))
	}
	// Within the limits nothing changes.
	resp = &commands.Response{Content: x(2000), Embeds: []commands.Embed{{Title: x(256), Description: x(4096), Footer: x(1000), Fields: []commands.Field{{Name: "n", Value: x(647)}}}}}
	commands.FitLimits(resp)
	if e := resp.Embeds[0]; len(e.Fields) != 1 || e.Fields[0].Value != x(647) || e.Footer != x(1000) {
		t.Errorf("a reply of exactly 6,000 characters was changed: %d fields, footer %d", len(e.Fields), len(e.Footer))
	}
}

// FuzzFitLimits builds responses of any size from the input (content,
// embeds with titles, descriptions, footers and fields, rows of buttons,
// choices and a modal, their texts repeated from text, which may be any
// characters) and checks that fitLimits makes every one fit every limit
// Discord enforces (limitProblems).
func FuzzFitLimits(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5}, "x")
	f.Add([]byte{200, 3, 250, 250, 9, 30, 200, 200, 200, 255, 7, 7, 90}, "é")
	f.Add([]byte{0, 10, 255, 255, 255, 2, 255, 255, 255, 255, 255, 255, 255, 255}, "🎲ab")
	f.Add([]byte{40, 2, 160, 160, 0, 0, 160, 0, 0, 0}, "<@&1>")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		if text == "" {
			text = "x"
		}
		if len(text) > 64 { // the lengths come from data; keep each run fast
			text = text[:64]
		}
		pos := 0
		next := func() int { // the next byte, 0 once the input ends
			if pos >= len(data) {
				return 0
			}
			pos++
			return int(data[pos-1])
		}
		// long returns text repeated to about 20 × b characters (up to
		// 5,100): enough to pass every limit.
		long := func() string { return strings.Repeat(text, 1+next()*20/max(1, utf8.RuneCountInString(text))) }
		short := func() string { return strings.Repeat(text, next()%4) }
		sized := func() string {
			if next()%2 == 0 {
				return short()
			}
			return long()
		}
		resp := &commands.Response{Content: sized()}
		for range next() % 13 {
			e := commands.Embed{Title: sized(), Description: sized(), Footer: sized()}
			for range next() % 40 {
				e.Fields = append(e.Fields, commands.Field{Name: sized(), Value: sized(), Inline: next()%2 == 0})
			}
			resp.Embeds = append(resp.Embeds, e)
		}
		for range next() % 8 {
			var row []commands.Button
			for range next() % 8 {
				row = append(row, commands.Button{Label: sized(), CustomID: sized(), Style: commands.StylePrimary})
			}
			resp.Components = append(resp.Components, row)
		}
		for range next() % 30 {
			resp.Choices = append(resp.Choices, commands.Choice{Name: sized(), Value: sized()})
		}
		if next()%3 == 0 {
			md := &commands.Modal{CustomID: sized(), Title: sized()}
			for range next() % 8 {
				md.Inputs = append(md.Inputs, commands.TextInput{CustomID: sized(), Label: sized(), Placeholder: sized(),
					MinLength: next() * 20, MaxLength: next() * 20})
			}
			resp.Modal = md
		}
		commands.FitLimits(resp)
		if p := limitProblems(resp); len(p) > 0 {
			t.Fatalf("after fitLimits: %s", strings.Join(p, "; "))
		}
	})
}
