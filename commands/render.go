package commands

import (
	"fmt"
	"slices"
	"strings"
)

// The reply renderer: a mutation's parts (say.go) become the message each
// audience reads (hidden.go says who may read what), within Discord's
// layout of rows of buttons led by the names of their characters.

// wordLine is what players read of a hidden character: "**Goblin**:
// Wounded", or "gone" once deleted.
func wordLine(m *Mutation, id uint64) string {
	c := m.cache[id]
	if c == nil {
		return "**" + Escape(m.before[id].Name) + "**: gone"
	}
	v, err := ViewOf(m.System, c, m.Table.Clock)
	if err != nil {
		return "**" + Escape(c.Name) + "**"
	}
	return "**" + Escape(c.Name) + "**: " + v.Word()
}

// wordEmbed is the embed players see of a hidden character (hiddenEmbed);
// false once it is deleted.
func wordEmbed(m *Mutation, id uint64) (Embed, bool) {
	c := m.cache[id]
	if c == nil {
		return Embed{}, false
	}
	v, err := ViewOf(m.System, c, m.Table.Clock)
	if err != nil {
		return Embed{}, false
	}
	return hiddenEmbed(c, v), true
}

// present finishes a mutation's reply (see the comment at the top of this
// file). The parts said through the mutation come first, then what resp
// carries itself (not scoped: about every character loaded). A reply with
// no embeds gets the embed of every character changed (up to five), so a
// character reply reads at a glance. Players see the parts they may see and
// the word of each hidden character in place of the others; when the caller
// is a GM and something was hidden, those parts follow in an ephemeral
// follow-up. An ephemeral resp goes to the caller alone: in full to a GM.
func present(m *Mutation, resp *Response) *Response {
	if resp == nil || resp.Modal != nil || resp.Choices != nil {
		return resp
	}
	parts := append([]scopedPart(nil), m.log.parts...)
	if resp.Content != "" || len(resp.Embeds) > 0 || len(resp.Components) > 0 || len(resp.Files) > 0 {
		parts = append(parts, scopedPart{Part: Part{Text: resp.Content, Embeds: resp.Embeds, Buttons: resp.Components, Files: resp.Files}})
	}
	parts = append(parts, autoEmbeds(m, parts)...)
	var shown, kept []scopedPart
	var words, embedded []uint64 // hidden characters shown by their word, in text and embed
	public := 0
	for _, p := range parts {
		if m.public(p.about) {
			shown = append(shown, p)
			public++
			continue
		}
		kept = append(kept, p)
		// Each hidden character's word where its first part was, and its
		// word embed where its first embed was.
		for _, id := range m.hiddenOf(p.about) {
			var w Part
			if !slices.Contains(words, id) {
				words = append(words, id)
				w.Text = wordLine(m, id)
			}
			if len(p.Embeds) > 0 && !slices.Contains(embedded, id) && len(embedded) < 5 {
				if e, ok := wordEmbed(m, id); ok {
					embedded = append(embedded, id)
					w.Embeds = []Embed{e}
				}
			}
			if w.Text != "" || len(w.Embeds) > 0 {
				shown = append(shown, scopedPart{about: &scope{table: true}, Part: w})
			}
		}
	}
	if resp.Ephemeral && m.IsGM() {
		shown, kept = parts, nil
	}
	out := render(m, shown)
	out.Ephemeral, out.UpdateMessage, out.FollowUps = resp.Ephemeral, resp.UpdateMessage, resp.FollowUps
	if len(words) > 0 && public == 0 && m.Req.Kind == KindCommand {
		out.Content = fmt.Sprintf("%s used %s.\n%s", Escape(m.Req.UserName), m.Req.commandName(), out.Content)
	}
	if len(kept) > 0 && m.IsGM() {
		f := render(m, kept)
		f.Content = strings.TrimSpace(HiddenFollowUp + "\n" + f.Content)
		f.Ephemeral = true
		out.FollowUps = append(out.FollowUps, f)
	}
	return out
}

// autoEmbeds returns the embed parts of the characters the mutation changed
// (at most five, none deleted) when parts have no embeds, each about its
// character (players see a hidden one's word embed, see wordPart).
func autoEmbeds(m *Mutation, parts []scopedPart) []scopedPart {
	for _, p := range parts {
		if len(p.Embeds) > 0 {
			return nil
		}
	}
	var ids []uint64
	for _, id := range m.touched {
		if m.changed(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > 5 {
		return nil
	}
	var out []scopedPart
	for _, id := range ids {
		c := m.cache[id]
		if c == nil {
			continue
		}
		v, err := ViewOf(m.System, c, m.Table.Clock)
		if err != nil {
			continue
		}
		out = append(out, scopedPart{about: &scope{ids: []uint64{id}}, Part: Part{Embeds: []Embed{viewEmbed(c, v, "", nil)}}})
	}
	return out
}

// render joins parts into one message: the texts one per line, the embeds,
// the files, and the rows of buttons, each row led by its character's name
// when the rows belong to more than one character, at most maxRows of them.
func render(m *Mutation, parts []scopedPart) *Response {
	out := &Response{}
	var lines []string
	type row struct {
		owner   uint64 // the one character the row is about, or 0
		buttons []Button
	}
	var rows []row
	owners := map[uint64]bool{}
	for _, p := range parts {
		if p.Text != "" {
			lines = append(lines, p.Text)
		}
		out.Embeds = append(out.Embeds, p.Embeds...)
		out.Files = append(out.Files, p.Files...)
		var owner uint64
		if p.about != nil && len(p.about.ids) == 1 {
			owner = p.about.ids[0]
		}
		for _, r := range p.Buttons {
			if len(r) > 0 {
				rows = append(rows, row{owner: owner, buttons: r})
				owners[owner] = true
			}
		}
	}
	named := len(owners) > 1
	for _, r := range rows {
		b := r.buttons
		if c := m.character(r.owner); named && r.owner != 0 && c != nil {
			b = append([]Button{NameButton(c.Name, nameID(b[0].CustomID))}, b...)
		}
		out.Components = append(out.Components, b)
	}
	if len(out.Components) > maxRows {
		out.Components = out.Components[:maxRows]
		lines = append(lines, "More choices than a message holds: /char show offers each character's buttons.")
	}
	out.Content = strings.Join(lines, "\n")
	return out
}

// nameID is the custom_id of the name button leading a row whose first
// button has the custom_id id: the same choice id with the choice "name".
func nameID(id string) string {
	if cid, err := ParseChoiceID(id); err == nil {
		return cid.With("name")
	}
	return Clip(id+":name", 100)
}
