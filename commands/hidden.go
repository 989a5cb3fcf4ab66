package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// Hidden characters (RULES.md §0.1, COMMANDS.md: `hidden=true`, GM only):
// players see every number of the characters they may see, and only a
// word (Unhurt, Wounded, Badly wounded, Down, Dead) of a hidden one, in every reply,
// follow-up, tracker, history, list and export.
//
// The rule is kept here, once. A system says what its words, dice and
// notes are about by scoping the mutation to characters (Mutation.For) or
// to the table (ForTable; say.go); what it says through a scope (Say, Post) becomes
// one part of the reply, what it rolls and notes becomes one part of the
// event (storage.EventPart). The core renders the public reply from the
// parts players may see and puts each hidden character's word in place of
// the others; a GM gets those others, in full, in an ephemeral follow-up.
// /history renders the event's parts the same way (history.go). What is said, rolled or
// noted without a scope counts as about every character the mutation
// loaded: hidden from players as soon as one of them is hidden, so a
// forgotten scope can hide too much but never show too much.

// hiddenKey is the platform stat every system accepts: `stats hidden=true`
// hides a character's numbers from players (GM only).
const hiddenKey = "hidden"

// takeHidden removes the hidden stat from stats. It returns the other stats,
// the value given (nil when absent) and a CodeInvalid or CodeForbidden error
// for a bad value or a caller who is not a GM.
func takeHidden(m *Mutation, stats []Stat) ([]Stat, *bool, error) {
	var rest []Stat
	var val *bool
	for _, st := range stats {
		if st.Key != hiddenKey {
			rest = append(rest, st)
			continue
		}
		var b bool
		switch strings.ToLower(st.Value) {
		case "true", "yes", "on":
			b = true
		case "false", "no", "off":
		default:
			return nil, nil, BadStat(st.Key, st.Value, "true or false")
		}
		if err := m.RequireGM("hide or reveal a character"); err != nil {
			return nil, nil, err
		}
		val = &b
	}
	return rest, val, nil
}

// playerEmbed is c's embed as players see it: its word alone when it is
// hidden (hiddenEmbed).
func playerEmbed(t *storage.Table, sys System, c *storage.Character) (Embed, error) {
	if !c.Hidden {
		return fullEmbed(t, sys, c)
	}
	v, err := ViewOf(sys, c, t.Clock)
	if err != nil {
		return Embed{}, err
	}
	return hiddenEmbed(c, v), nil
}

// fullEmbed is c's embed with every number: its view, status and fields.
func fullEmbed(t *storage.Table, sys System, c *storage.Character) (Embed, error) {
	v, err := ViewOf(sys, c, t.Clock)
	if err != nil {
		return Embed{}, err
	}
	status, fields, err := sys.Describe(c)
	if err != nil {
		return Embed{}, err
	}
	return viewEmbed(c, v, status, fields), nil
}

// playerStatus is c's one-line status as players see it: the word alone
// when it is hidden.
func playerStatus(t *storage.Table, sys System, c *storage.Character) (string, error) {
	if c.Hidden {
		v, err := ViewOf(sys, c, t.Clock)
		if err != nil {
			return "", err
		}
		return v.Word(), nil
	}
	status, _, err := sys.Describe(c)
	return status, err
}

// HiddenFollowUp is the header of the ephemeral follow-up that gives a GM
// what players do not see.
const HiddenFollowUp = "Hidden from players (they see only the word):"

// ForGM adds to a view answered in the channel (resp, written for players)
// the ephemeral follow-up private, when the caller of r is a GM and private
// has anything: a view of the table shows hidden characters as players see
// them, and the GM who asked reads their numbers alone.
func ForGM(r *Request, t *storage.Table, resp, private *Response) *Response {
	if private == nil || !IsGM(r, t) || resp.Ephemeral {
		return resp
	}
	private.Content = strings.TrimSpace(HiddenFollowUp + "\n" + private.Content)
	private.Ephemeral = true
	resp.FollowUps = append(resp.FollowUps, private)
	return resp
}

// character returns the mutation's character id in its state now, or in
// its state before for a deleted one (nil when never loaded).
func (m *Mutation) character(id uint64) *storage.Character {
	if c := m.cache[id]; c != nil {
		return c
	}
	return m.before[id]
}

// hidden reports whether the character id is hidden from players now (a
// deleted one: when it was).
func (m *Mutation) hidden(id uint64) bool {
	c := m.character(id)
	return c != nil && c.Hidden
}

// changed reports whether the mutation changed the character id.
func (m *Mutation) changed(id uint64) bool {
	after := m.cache[id]
	return !sameState(m.before[id], after)
}

// public reports whether players may see what is about sc.
func (m *Mutation) public(sc *scope) bool {
	switch {
	case sc == nil:
		return !slices.ContainsFunc(m.log.touched, m.hidden)
	case sc.table:
		return true
	}
	return slices.ContainsFunc(sc.ids, func(id uint64) bool { return !m.hidden(id) })
}

// hiddenOf returns the hidden characters a part about sc stands for when
// players may not see it: its hidden characters; for an unscoped part the
// hidden characters the mutation changed (or, when it changed none, every
// hidden one it loaded).
func (m *Mutation) hiddenOf(sc *scope) []uint64 {
	ids := m.log.touched
	if sc != nil {
		ids = sc.ids
	}
	var out, changed []uint64
	for _, id := range ids {
		if m.hidden(id) {
			out = append(out, id)
			if m.changed(id) {
				changed = append(changed, id)
			}
		}
	}
	if sc == nil && len(changed) > 0 {
		return changed
	}
	return out
}

// wordLine is what players read of a hidden character: "**Goblin**:
// Wounded", or "gone" once deleted.
func (m *Mutation) wordLine(id uint64) string {
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
func (m *Mutation) wordEmbed(id uint64) (Embed, bool) {
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
func (m *Mutation) present(resp *Response) *Response {
	if resp == nil || resp.Modal != nil || resp.Choices != nil {
		return resp
	}
	parts := append([]part(nil), m.log.parts...)
	if resp.Content != "" || len(resp.Embeds) > 0 || len(resp.Components) > 0 || len(resp.Files) > 0 {
		parts = append(parts, part{Part: Part{Text: resp.Content, Embeds: resp.Embeds, Buttons: resp.Components, Files: resp.Files}})
	}
	parts = append(parts, m.autoEmbeds(parts)...)
	var shown, kept []part
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
				w.Text = m.wordLine(id)
			}
			if len(p.Embeds) > 0 && !slices.Contains(embedded, id) && len(embedded) < 5 {
				if e, ok := m.wordEmbed(id); ok {
					embedded = append(embedded, id)
					w.Embeds = []Embed{e}
				}
			}
			if w.Text != "" || len(w.Embeds) > 0 {
				shown = append(shown, part{about: &scope{table: true}, Part: w})
			}
		}
	}
	if resp.Ephemeral && m.IsGM() {
		shown, kept = parts, nil
	}
	out := m.render(shown)
	out.Ephemeral, out.UpdateMessage, out.FollowUps = resp.Ephemeral, resp.UpdateMessage, resp.FollowUps
	if len(words) > 0 && public == 0 && m.Req.Kind == KindCommand {
		out.Content = fmt.Sprintf("%s used %s.\n%s", Escape(m.Req.UserName), m.Req.commandName(), out.Content)
	}
	if len(kept) > 0 && m.IsGM() {
		f := m.render(kept)
		f.Content = strings.TrimSpace(HiddenFollowUp + "\n" + f.Content)
		f.Ephemeral = true
		out.FollowUps = append(out.FollowUps, f)
	}
	return out
}

// autoEmbeds returns the embed parts of the characters the mutation changed
// (at most five, none deleted) when parts have no embeds, each about its
// character (players see a hidden one's word embed, see wordPart).
func (m *Mutation) autoEmbeds(parts []part) []part {
	for _, p := range parts {
		if len(p.Embeds) > 0 {
			return nil
		}
	}
	var ids []uint64
	for _, id := range m.log.touched {
		if m.changed(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > 5 {
		return nil
	}
	var out []part
	for _, id := range ids {
		c := m.cache[id]
		if c == nil {
			continue
		}
		v, err := ViewOf(m.System, c, m.Table.Clock)
		if err != nil {
			continue
		}
		out = append(out, part{about: &scope{ids: []uint64{id}}, Part: Part{Embeds: []Embed{viewEmbed(c, v, "", nil)}}})
	}
	return out
}

// render joins parts into one message: the texts one per line, the embeds,
// the files, and the rows of buttons, each row led by its character's name
// when the rows belong to more than one character, at most maxRows of them.
func (m *Mutation) render(parts []part) *Response {
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
