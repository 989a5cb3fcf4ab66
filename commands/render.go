package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/view"
)

// The reply renderer: a mutation's parts (say.go) become the message each
// audience reads (hidden.go says who may read what), within Discord's
// layout of rows of buttons led by the names of their characters.

// wordPart is what players read of hidden character id in place of its
// parts: "**Goblin**: Wounded" ("gone" once deleted), with its word embed
// when embed is set.
func wordPart(m *Mutation, id uint64, embed bool) Part {
	c := m.cache[id]
	if c == nil {
		return Part{Text: "**" + Escape(m.before[id].Name) + "**: gone"}
	}
	v, err := ViewOf(m.System, c, m.Table.Clock)
	if err != nil {
		return Part{Text: "**" + Escape(c.Name) + "**"}
	}
	w := v.Public()
	p := Part{Text: "**" + Escape(c.Name) + "**: " + w.Text}
	if embed {
		p.Embeds = []Embed{hiddenEmbed(c, w)}
	}
	return p
}

// present finishes a mutation's reply (see the comment at the top of
// hidden.go). The parts said through the mutation come first, then what
// resp carries itself (not scoped: about every character loaded). A change
// says what changed in a line per character, and the card of a character
// is /char show's: a reply shows no card it did not post. The message is
// the channel's projection of the parts (project), or, when resp is
// ephemeral, the caller's. The parts the channel may not read follow, in
// an ephemeral follow-up, to a caller who sees them, and are returned as
// gm, the message every GM gets (nil when there are none).
func present(m *Mutation, resp *Response) (out, gm *Response) {
	if resp == nil || resp.Modal != nil || resp.Choices != nil {
		return resp, nil
	}
	parts := append([]scopedPart(nil), m.log.parts...)
	if resp.Content != "" || len(resp.Embeds) > 0 || len(resp.Components) > 0 || len(resp.Files) > 0 {
		parts = append(parts, scopedPart{Part: Part{Text: resp.Content, Embeds: resp.Embeds, Buttons: resp.Components, Files: resp.Files}})
	}
	me, reader := m.Audience(), view.Channel
	if resp.Ephemeral {
		reader = me
	}
	shown, direct := m.project(reader, parts)
	var kept, mine []scopedPart
	for _, p := range parts {
		if !m.sees(view.Channel, p.about) {
			kept = append(kept, p)
			if !resp.Ephemeral && m.sees(me, p.about) {
				mine = append(mine, p)
			}
		}
	}
	out = render(m, shown)
	out.Ephemeral, out.UpdateMessage, out.FollowUps = resp.Ephemeral, resp.UpdateMessage, resp.FollowUps
	if direct == 0 && len(shown) > 0 && m.Req.Kind == KindCommand {
		out.prepend(fmt.Sprintf("%s used %s.", Escape(m.Req.UserName), m.Req.commandName()))
	}
	if len(kept) == 0 {
		return out, nil
	}
	out = Privately(out, render(m, mine))
	return out, render(m, kept)
}

// project is what reader reads of parts: each part about characters it
// sees; in place of each other part, what the table sees those characters
// do (Part.Public), else the word of each that is worded (wordPart), where
// its first part was, with its word embed where its first embed was (at
// most five). direct counts the parts read as they were said, or as
// Public.
func (m *Mutation) project(reader view.Audience, parts []scopedPart) (shown []scopedPart, direct int) {
	var words, embedded []uint64 // characters shown by their word, in text and embed
	table := &scope{table: true}
	for _, p := range parts {
		switch {
		case m.sees(reader, p.about):
			shown = append(shown, p)
			direct++
			continue
		case p.Public != "":
			shown = append(shown, scopedPart{about: table, Part: Part{Text: p.Public}})
			direct++
			continue
		}
		for _, id := range m.unseen(reader, p.about) {
			if !m.worded(id) {
				continue
			}
			text := !slices.Contains(words, id)
			embed := len(p.Embeds) > 0 && !slices.Contains(embedded, id) && len(embedded) < 5 && m.cache[id] != nil
			if !text && !embed {
				continue
			}
			w := wordPart(m, id, embed)
			if text {
				words = append(words, id)
			} else {
				w.Text = ""
			}
			if embed {
				embedded = append(embedded, id)
			}
			shown = append(shown, scopedPart{about: table, Part: w})
		}
	}
	return shown, direct
}

// render joins parts into one reply: the texts one per line (each a block
// that layOut keeps whole), the embeds, the files, and the rows of
// buttons, each row led by its character's name when the rows belong to
// more than one character.
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
	out.Content, out.blocks = strings.Join(lines, "\n"), lines
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
