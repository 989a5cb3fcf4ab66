package layout

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// problems lists every limit Discord enforces on a message that m breaks
// (Discord refuses the whole message with 400 for any of them). The numbers
// are Discord's, written out here rather than taken from the constants
// under test.
func problems(m Message) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	n := utf8.RuneCountInString
	if n(m.Content) > 2000 {
		bad("content is %d characters; Discord allows 2000", n(m.Content))
	}
	if len(m.Embeds) > 10 {
		bad("%d embeds; Discord allows 10", len(m.Embeds))
	}
	total := 0
	for i, e := range m.Embeds {
		if n(e.Title) > 256 || n(e.Description) > 4096 || n(e.Footer) > 2048 {
			bad("embed %d: title %d, description %d, footer %d characters; Discord allows 256, 4096, 2048", i, n(e.Title), n(e.Description), n(e.Footer))
		}
		if len(e.Fields) > 25 {
			bad("embed %d has %d fields; Discord allows 25", i, len(e.Fields))
		}
		total += n(e.Title) + n(e.Description) + n(e.Footer)
		for j, f := range e.Fields {
			if n(f.Name) > 256 || f.Name == "" || n(f.Value) > 1024 || f.Value == "" {
				bad("embed %d field %d: name %d, value %d characters; Discord allows 1 to 256 and 1 to 1024", i, j, n(f.Name), n(f.Value))
			}
			total += n(f.Name) + n(f.Value)
		}
	}
	if total > 6000 {
		bad("embeds total %d characters; Discord allows 6000", total)
	}
	if len(m.Rows) > 5 {
		bad("%d action rows; Discord allows 5", len(m.Rows))
	}
	for i, row := range m.Rows {
		if len(row) < 1 || len(row) > 5 {
			bad("row %d has %d buttons; Discord allows 1 to 5", i, len(row))
		}
		for _, b := range row {
			if n(b.Label) < 1 || n(b.Label) > 80 || len(b.CustomID) > 100 {
				bad("button %q: label 1 to 80 characters, custom_id at most 100 bytes", b.Label)
			}
		}
	}
	return out
}

// wordsOf returns the characters of s but spaces and zero-width spaces, in
// order: what a reader reads, whatever the lines and messages (and, for a
// word longer than a message, the pieces) it is split over.
func wordsOf(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), ""), "\u200b", "")
}

// checkSplit fails unless every message of msgs fits Discord's limits and
// they hold, in order, every word of blocks, every word of each embed's
// description and fields, and every button.
func checkSplit(t *testing.T, msgs []Message, blocks []string, embeds []Embed, rows [][]Button) {
	t.Helper()
	var text, desc, fields []string
	buttons := 0
	for i, m := range msgs {
		for _, p := range problems(m) {
			t.Errorf("message %d: %s", i, p)
		}
		text = append(text, m.Content)
		for _, e := range m.Embeds {
			desc = append(desc, e.Description)
			for _, f := range e.Fields {
				fields = append(fields, f.Value)
			}
		}
		for _, r := range m.Rows {
			buttons += len(r)
		}
	}
	if got, want := wordsOf(strings.Join(text, "\n")), wordsOf(strings.Join(blocks, "\n")); got != want {
		t.Errorf("the messages' text has %d characters of words; want the %d of the blocks, in order", len(got), len(want))
	}
	var wantDesc, wantFields []string
	wantButtons := 0
	for _, e := range embeds {
		wantDesc = append(wantDesc, e.Description)
		for _, f := range e.Fields {
			wantFields = append(wantFields, f.Value)
		}
	}
	for _, r := range rows {
		wantButtons += len(r)
	}
	if got, want := wordsOf(strings.Join(desc, " ")), wordsOf(strings.Join(wantDesc, " ")); got != want {
		t.Errorf("descriptions hold %d characters of words; want %d, in order", len(got), len(want))
	}
	if got, want := wordsOf(strings.Join(fields, " ")), wordsOf(strings.Join(wantFields, " ")); got != want {
		t.Errorf("field values hold %d characters of words; want %d, in order", len(got), len(want))
	}
	if buttons != wantButtons {
		t.Errorf("%d buttons in the messages; want %d", buttons, wantButtons)
	}
}

func TestSplitWithinOneMessage(t *testing.T) {
	blocks := []string{"**Lister** takes 4 damage: HP 4 → 0/6.", "**Meghan**: HP 3 → 2/4."}
	msgs := Split(blocks, []Embed{{Title: "x", Description: "y"}}, [][]Button{{{Label: "Stay Up", CustomID: "a"}}})
	if len(msgs) != 1 || msgs[0].Content != strings.Join(blocks, "\n") || len(msgs[0].Embeds) != 1 || len(msgs[0].Rows) != 1 {
		t.Fatalf("Split of a short reply = %+v; want it unchanged in one message", msgs)
	}
	if msgs := Split(nil, nil, nil); len(msgs) != 1 || msgs[0].Content != "" {
		t.Errorf("Split of nothing = %+v; want one empty message", msgs)
	}
}

// TestSplitKeepsBlocksWhole: twelve results of 313 characters go six to a
// message (six with their newlines are 1,883 characters; seven would pass
// 2,000), none cut.
func TestSplitKeepsBlocksWhole(t *testing.T) {
	var blocks []string
	for i := range 12 {
		blocks = append(blocks, fmt.Sprintf("**Character %02d**: ", i)+strings.Repeat("x", 300-17)+"\nsecond line")
	}
	msgs := Split(blocks, nil, nil)
	checkSplit(t, msgs, blocks, nil, nil)
	if len(msgs) != 2 {
		t.Fatalf("Split = %d messages; want 2", len(msgs))
	}
	for i, m := range msgs {
		if !strings.HasPrefix(m.Content, "**Character") || !strings.HasSuffix(m.Content, "second line") {
			t.Errorf("message %d starts %.20q and ends %q; want whole results", i, m.Content, m.Content[len(m.Content)-12:])
		}
	}
}

// TestSplitLongLines: a block longer than a message is split between its
// lines, and a line longer than a message between its words.
func TestSplitLongLines(t *testing.T) {
	line := strings.TrimSpace(strings.Repeat("word ", 500)) // 2,499 characters
	blocks := []string{"head", line + "\n" + strings.Repeat("é", 1999) + "\n" + strings.Repeat("z", 4500)}
	msgs := Split(blocks, nil, nil)
	checkSplit(t, msgs, blocks, nil, nil)
	for i, m := range msgs {
		if strings.HasPrefix(m.Content, " ") || strings.HasSuffix(m.Content, " ") || strings.Contains(m.Content, "wo\n") {
			t.Errorf("message %d = %.30q…; want it split between words", i, m.Content)
		}
	}
}

// TestSplitEmbeds: a description past 4,096 characters, a field past
// 1,024 and 30 fields continue in embeds and fields of their own, within
// 6,000 characters and 10 embeds a message; rows past 5 in another message.
func TestSplitEmbeds(t *testing.T) {
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("line %03d of the description", i))
	}
	e := Embed{Title: "Tracker", Description: strings.Join(lines, "\n"), Color: 0x57F287, Footer: "Clock: day 1, 00:00"}
	for i := range 30 {
		e.Fields = append(e.Fields, Field{Name: fmt.Sprintf("f%d", i), Value: strings.Repeat(fmt.Sprintf("v%d ", i), 300)})
	}
	embeds := []Embed{e, {Title: "second", Description: "short"}}
	var rows [][]Button
	for i := range 7 {
		row := make([]Button, 7)
		for j := range row {
			row[j] = Button{Label: fmt.Sprintf("b%d.%d", i, j), CustomID: fmt.Sprintf("id:%d:%d", i, j)}
		}
		rows = append(rows, row)
	}
	msgs := Split([]string{"text"}, embeds, rows)
	checkSplit(t, msgs, []string{"text"}, embeds, rows)
	var got []Embed
	for _, m := range msgs {
		got = append(got, m.Embeds...)
	}
	if got[0].Title != "Tracker" || got[0].Color != 0x57F287 || got[1].Title != "" || got[1].Color != 0x57F287 {
		t.Errorf("embeds start %q/%x, %q/%x; want the title on the first piece and the colour on each", got[0].Title, got[0].Color, got[1].Title, got[1].Color)
	}
	footers := 0
	for _, g := range got {
		if g.Footer != "" {
			footers++
		}
	}
	if footers != 1 || got[len(got)-2].Footer != e.Footer {
		t.Errorf("%d footers; want the tracker's one, on its last piece", footers)
	}
	var continuedNames int
	for _, g := range got {
		for _, f := range g.Fields {
			if strings.HasSuffix(f.Name, " (continued)") {
				continuedNames++
			}
		}
	}
	if continuedNames != 20 {
		t.Errorf("%d fields named … (continued); want 20 (values of 1,200 characters, f10 to f29, in two; those of 900 whole)", continuedNames)
	}
}

// TestSplitCutsOnlyNames: titles, field names, footers and labels are cut
// to Discord's lengths, custom_ids to 100 bytes on a character boundary.
func TestSplitCutsOnlyNames(t *testing.T) {
	msgs := Split(nil, []Embed{{Title: strings.Repeat("t", 300), Footer: strings.Repeat("f", 3000), Fields: []Field{{Name: strings.Repeat("n", 300)}}}},
		[][]Button{{{Label: strings.Repeat("l", 100), CustomID: strings.Repeat("é", 60)}}})
	for i, m := range msgs {
		for _, p := range problems(m) {
			t.Errorf("message %d: %s", i, p)
		}
	}
	b := msgs[len(msgs)-1].Rows[0][0]
	if !strings.HasSuffix(b.Label, "…") || !utf8.ValidString(b.CustomID) || len(b.CustomID) != 100 {
		t.Errorf("button = %q / %q; want the label ending in … and a valid custom_id of 100 bytes", b.Label, b.CustomID)
	}
}

// FuzzSplit builds replies of any size from the input (blocks, embeds with
// titles, descriptions, footers and fields, rows of buttons, their texts
// repeated from text) and checks that Split lays every one out within
// Discord's limits and keeps every word and button (checkSplit).
func FuzzSplit(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5}, "x ")
	f.Add([]byte{200, 3, 250, 250, 9, 30, 200, 200, 200, 255, 7, 7, 90}, "é\n")
	f.Add([]byte{0, 10, 255, 255, 255, 2, 255, 255, 255, 255, 255, 255, 255, 255}, "🎲ab")
	f.Add([]byte{40, 2, 160, 160, 0, 0, 160, 0, 0, 0}, "<@&1> ")
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
		// sized returns text repeated up to about 40 × 255 characters:
		// enough to pass every limit.
		sized := func() string {
			b := next()
			if b%2 == 0 {
				return strings.Repeat(text, b%4)
			}
			return strings.Repeat(text, 1+b*40/max(1, utf8.RuneCountInString(text)))
		}
		var blocks []string
		for range next() % 8 {
			blocks = append(blocks, sized())
		}
		var embeds []Embed
		for range next() % 13 {
			e := Embed{Title: sized(), Description: sized(), Footer: sized()}
			for range next() % 40 {
				e.Fields = append(e.Fields, Field{Name: sized(), Value: sized(), Inline: next()%2 == 0})
			}
			embeds = append(embeds, e)
		}
		var rows [][]Button
		for range next() % 8 {
			var row []Button
			for range next() % 8 {
				row = append(row, Button{Label: sized(), CustomID: sized()})
			}
			rows = append(rows, row)
		}
		checkSplit(t, Split(blocks, embeds, rows), blocks, embeds, rows)
	})
}
