package commands_test

import (
	"fmt"
	"slices"
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

// checkSent fails when a message resp sends (itself or a
// follow-up) breaks a limit Discord enforces on a message (it would refuse
// the whole message).
func checkSent(t *testing.T, what string, resp *commands.Response) {
	t.Helper()
	for i, m := range commandstest.Messages(resp) {
		for _, p := range limitProblems(m) {
			t.Errorf("%s, message %d: %s", what, i, p)
		}
	}
}

// TestLongListsContinue: at a table of 50 characters with long names
// (issue 24: /table show listed 25, /char list 38, the tracker's turn
// order 35), every list names every character, the rest of what one
// message holds continuing in follow-ups, within Discord's limits.
func TestLongListsContinue(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	var names []string
	for i := range commands.MaxCharacters {
		name := fmt.Sprintf("Character-with-a-long-name-%02d", i)
		names = append(names, name)
		tb.OK(tb.Do("ann", fmt.Sprintf("/char create name:%s stats:hp=1", name)))
	}
	tb.Refused(tb.Do("ann", "/char create name:One-too-many stats:hp=1"), "This table holds 50 characters, the most a table may hold")
	tb.OK(tb.Do("ann", "/init start"))
	for i := 0; i < len(names); i += 5 {
		tb.Dice.Push(1, 2, 3, 4, 5)
		tb.OK(tb.Do("ann", "/init join target:"+strings.Join(names[i:i+5], ",")))
	}
	for _, line := range []string{"/table show", "/char list", "/init show"} {
		resp := tb.Do("bob", line)
		checkSent(t, line, resp)
		out := commandstest.Text(resp)
		for _, name := range names {
			if !strings.Contains(out, name) {
				t.Errorf("%s does not name %s", line, name)
			}
		}
	}
	resp := tb.Do("bob", "/history")
	checkSent(t, "/history", resp)
	commandstest.WantIn(t, "/history", commandstest.Text(resp), names[40], names[49], "Older events: `/history before:#")
}

// TestLayOutContinues: a reply past every limit of a message continues in
// follow-ups, each marked Continues and as ephemeral as the reply, before
// the reply's own follow-ups (each laid out too); a follow-up pings only
// the users it mentions; every block stays whole.
func TestLayOutContinues(t *testing.T) {
	var blocks []string
	for i := range 20 {
		blocks = append(blocks, fmt.Sprintf("**C%02d** %s <@%d>", i, strings.Repeat("x", 200), i%2))
	}
	var embeds []commands.Embed
	for i := range 12 {
		embeds = append(embeds, commands.Embed{Title: fmt.Sprintf("E%d", i), Description: strings.Repeat("d", 1000)})
	}
	rows := make([][]commands.Button, 7)
	for i := range rows {
		rows[i] = []commands.Button{{Label: "b", CustomID: fmt.Sprintf("b:%d", i)}}
	}
	gm := &commands.Response{Content: strings.Repeat("g\n", 1500), Ephemeral: true}
	resp := commands.Blocks(blocks)
	resp.Embeds, resp.Components, resp.Ephemeral, resp.Mentions = embeds, rows, true, []string{"1"}
	resp.FollowUps = []*commands.Response{gm}
	commands.LayOut(resp)
	checkSent(t, "the reply", resp)
	msgs := commandstest.Messages(resp)
	var content []string
	embedCount, rowCount, gmParts := 0, 0, 0
	for i, m := range msgs {
		if !m.Ephemeral {
			t.Errorf("message %d is public; want every one ephemeral as the reply", i)
		}
		if m.Content != "" && m.Content[0] == 'g' {
			gmParts++
			continue
		}
		if i > 0 && !m.Continues {
			t.Errorf("message %d does not say it continues the reply", i)
		}
		content = append(content, m.Content)
		embedCount += len(m.Embeds)
		rowCount += len(m.Components)
		if strings.Contains(m.Content, "<@1>") != slices.Contains(m.Mentions, "1") || slices.Contains(m.Mentions, "0") {
			t.Errorf("message %d pings %v; want user 1 where it is mentioned, and never user 0", i, m.Mentions)
		}
	}
	for _, b := range blocks {
		if !slices.ContainsFunc(content, func(c string) bool { return strings.Contains(c, b) }) {
			t.Errorf("block %.10q… is not whole in one message", b)
		}
	}
	if embedCount != 12 || rowCount != 7 || gmParts != 2 {
		t.Errorf("%d embeds, %d rows and the GM's follow-up in %d messages; want 12, 7 and 2", embedCount, rowCount, gmParts)
	}
}
