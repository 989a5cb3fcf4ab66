package commands

import (
	"strings"
	"unicode/utf8"

	"github.com/hpkeeper/hpkeeper/commands/layout"
)

// Discord's limits on a message are package layout's, which lays a reply
// out over as many messages as they need (layOut); the three a feature
// lays its text out by, and those of autocomplete and modals, which are
// cut (fitForms): a choice and a form's labels are names, never results.
const (
	// MaxContent is the most characters of a message's text.
	MaxContent = layout.MaxContent
	// MaxEmbedDescription is the most characters of an embed's description.
	MaxEmbedDescription = layout.MaxDescription
	// MaxFieldValue is the most characters of an embed field's value.
	MaxFieldValue = layout.MaxFieldValue
	// MaxChoices is the most choices an autocomplete answer holds.
	MaxChoices = 25

	maxCustomID     = layout.MaxCustomID // custom_id of a modal and its inputs
	maxChoiceLength = 100                // an autocomplete choice's name and value
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

// layOut lays resp and each of its follow-ups out over Discord's
// messages (layout.Split): what one message cannot hold continues in
// follow-ups right after it (Continues), ephemeral when it is, that may
// ping whom they mention of resp's Mentions; files, UpdateMessage and
// pings stay with the first. Then it cuts autocomplete choices and modals
// to Discord's limits (fitForms). It takes time linear in the size of
// the reply.
func layOut(resp *Response) {
	var follow []*Response
	for _, f := range resp.FollowUps {
		follow = append(follow, continued(f)...)
	}
	resp.FollowUps = append(continued(resp)[1:], follow...)
	fitForms(resp)
}

// Blocks is a reply of blocks of text, one after the other on lines of
// their own, each kept whole in one message where it fits when the reply
// continues past Discord's limits (an event of /history, say).
func Blocks(blocks []string) *Response {
	return &Response{Content: strings.Join(blocks, "\n"), blocks: blocks}
}

// textBlocks returns the blocks of r's text: those render or Blocks set,
// or the whole text as one when it was set by hand (split between lines).
func (r *Response) textBlocks() []string {
	if strings.Join(r.blocks, "\n") != r.Content {
		return []string{r.Content}
	}
	return r.blocks
}

// prepend puts line before r's text, as a block of its own.
func (r *Response) prepend(line string) {
	if r.Content == "" {
		r.Content, r.blocks = line, []string{line}
		return
	}
	r.blocks = append([]string{line}, r.textBlocks()...)
	r.Content = line + "\n" + r.Content
}

// continued lays r out over messages (layOut): r holds the first, and
// the follow-ups returned after it the rest.
func continued(r *Response) []*Response {
	msgs := layout.Split(r.textBlocks(), r.Embeds, r.Components)
	r.Content, r.Embeds, r.Components, r.blocks = msgs[0].Content, msgs[0].Embeds, msgs[0].Rows, nil
	out := []*Response{r}
	for _, m := range msgs[1:] {
		f := &Response{Content: m.Content, Embeds: m.Embeds, Components: m.Rows, Ephemeral: r.Ephemeral, Continues: true}
		for _, id := range r.Mentions {
			if strings.Contains(m.Content, Mention(id)) {
				f.Mentions = append(f.Mentions, id)
			}
		}
		out = append(out, f)
	}
	return out
}

// fitForms cuts an autocomplete answer to MaxChoices choices of Discord's
// lengths, and a modal's title, inputs, labels and custom_ids to
// Discord's: names and labels, never a result.
func fitForms(resp *Response) {
	if len(resp.Choices) > MaxChoices {
		resp.Choices = resp.Choices[:MaxChoices]
	}
	for i := range resp.Choices {
		resp.Choices[i].Name = nonEmpty(Clip(resp.Choices[i].Name, maxChoiceLength))
		resp.Choices[i].Value = Clip(resp.Choices[i].Value, maxChoiceLength)
	}
	md := resp.Modal
	if md == nil {
		return
	}
	md.Title = nonEmpty(Clip(md.Title, maxModalTitle))
	md.CustomID = layout.ClipBytes(md.CustomID, maxCustomID)
	if len(md.Inputs) > maxModalInputs {
		md.Inputs = md.Inputs[:maxModalInputs]
	}
	for i := range md.Inputs {
		in := &md.Inputs[i]
		in.Label = nonEmpty(Clip(in.Label, maxInputLabel))
		in.Placeholder = Clip(in.Placeholder, maxPlaceholder)
		in.CustomID = layout.ClipBytes(in.CustomID, maxCustomID)
		in.MaxLength = min(max(in.MaxLength, 0), MaxModalText)
		in.MinLength = min(max(in.MinLength, 0), MaxModalText)
		if in.MaxLength > 0 {
			in.MinLength = min(in.MinLength, in.MaxLength)
		}
	}
}

// nonEmpty returns s, or a zero-width space for "": Discord refuses empty
// titles, labels and choice names.
func nonEmpty(s string) string {
	if s == "" {
		return "\u200b"
	}
	return s
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
