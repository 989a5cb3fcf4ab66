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
// to the table (ForTable); what it says through a scope (Say, Post) becomes
// one part of the reply, what it rolls and notes becomes one part of the
// event (storage.EventPart). The core renders the public reply from the
// parts players may see and puts each hidden character's word in place of
// the others; a GM gets those others, in full, in an ephemeral follow-up.
// /history renders the event's parts the same way. What is said, rolled or
// noted without a scope counts as about every character the mutation
// loaded: hidden from players as soon as one of them is hidden, so a
// forgotten scope can hide too much but never show too much.

// hiddenKey is the platform stat every system accepts: `stats hidden=true`
// hides a character's numbers from players (GM only).
const hiddenKey = "hidden"

// scope is what a part of a reply or an event is about: the table (everyone
// sees it) or some characters (players see it when they may see at least
// one of them: a number shared by a visible character, such as the amount
// of damage both took, is no secret).
type scope struct {
	table bool
	ids   []uint64
}

// same reports whether a and b are the same scope (nil is "not said").
func (a *scope) same(b *scope) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.table == b.table && slices.Equal(a.ids, b.ids)
}

// entry is one die roll or one note with its scope; seq orders the rolls
// and notes of a mutation together.
type entry struct {
	about *scope
	text  string
	seq   int
}

// texts returns the texts of es in order.
func texts(es []entry) []string {
	if len(es) == 0 {
		return nil
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.text
	}
	return out
}

// Part is one piece of a reply: text (Discord markdown, user-given names
// escaped), and optionally embeds, rows of buttons and files, all about the
// characters of the mutation scope it was posted through (Mutation.Post).
type Part struct {
	Text    string
	Embeds  []Embed
	Buttons [][]Button
	Files   []File
}

// part is a Part with its scope.
type part struct {
	about *scope
	Part
}

// For returns the mutation scoped to the characters cs (at least one, each
// loaded through the mutation): the text it says (Say, Post), the dice it
// rolls (Roll, Record, RecordingDice, and the mutation passed as a roller)
// and the notes it makes (Note) are about them. Players see them when they
// may see at least one of cs; otherwise they read each hidden character's
// word, and a GM who asked gets the part in an ephemeral follow-up. Scope
// each character's part of a command this way:
//
//	for _, ch := range targets {
//		m := m.For(ch)
//		…
//		m.Say("**%s** takes %d damage: HP %d → %d", …)
//	}
//
// Everything else of the mutation is shared with m.
func (m *Mutation) For(cs ...*storage.Character) *Mutation {
	sc := &scope{}
	for _, c := range cs {
		if c != nil && !slices.Contains(sc.ids, c.ID) {
			sc.ids = append(sc.ids, c.ID)
		}
	}
	n := *m
	n.about = sc
	return &n
}

// ForTable returns the mutation scoped to the table: what it says, rolls and
// notes is about no character (the clock, a table option) and everyone sees
// it. Never say a character's numbers through it.
func (m *Mutation) ForTable() *Mutation {
	n := *m
	n.about = &scope{table: true}
	return &n
}

// Say adds a line (or several) of text to the reply, about m's scope (For).
func (m *Mutation) Say(format string, args ...any) {
	m.Post(Part{Text: fmt.Sprintf(format, args...)})
}

// Post adds p to the reply, about m's scope (For): players see its text,
// embeds, buttons and files only when they may see m's characters. When
// the reply holds rows of buttons of more than one character, each row is
// led by a disabled button naming its character (NameButton).
func (m *Mutation) Post(p Part) {
	m.log.parts = append(m.log.parts, part{about: m.about, Part: p})
}

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
	v, err := viewOf(sys, c, t.Clock)
	if err != nil {
		return Embed{}, err
	}
	return hiddenEmbed(c, v), nil
}

// fullEmbed is c's embed with every number: its view, status and fields.
func fullEmbed(t *storage.Table, sys System, c *storage.Character) (Embed, error) {
	v, err := viewOf(sys, c, t.Clock)
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
		v, err := viewOf(sys, c, t.Clock)
		if err != nil {
			return "", err
		}
		return v.Word(), nil
	}
	status, _, err := sys.Describe(c)
	return status, err
}

// hiddenFollowUp is the header of the ephemeral follow-up that gives a GM
// what players do not see.
const hiddenFollowUp = "Hidden from players (they see only the word):"

// forGM adds to a view answered in the channel (resp, written for players)
// the ephemeral follow-up private, when the caller of r is a GM and private
// has anything: a view of the table shows hidden characters as players see
// them, and the GM who asked reads their numbers alone.
func forGM(r *Request, t *storage.Table, resp, private *Response) *Response {
	if private == nil || !isGM(r, t) || resp.Ephemeral {
		return resp
	}
	private.Content = strings.TrimSpace(hiddenFollowUp + "\n" + private.Content)
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
	v, err := viewOf(m.System, c, m.Table.Clock)
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
	v, err := viewOf(m.System, c, m.Table.Clock)
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
		f.Content = strings.TrimSpace(hiddenFollowUp + "\n" + f.Content)
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
		v, err := viewOf(m.System, c, m.Table.Clock)
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

// eventParts splits the mutation's notes and dice by scope for the event,
// in the order each scope first appears; nil when players may see all of
// them (the event's Summary and Dice say everything then).
func (m *Mutation) eventParts() []storage.EventPart {
	var out []storage.EventPart
	var scopes []*scope
	anyHidden := false
	index := func(sc *scope) int {
		for i, s := range scopes {
			if s.same(sc) {
				return i
			}
		}
		ids := m.log.touched
		if sc != nil {
			ids = sc.ids
		}
		p := storage.EventPart{Hidden: !m.public(sc)}
		if sc == nil || !sc.table {
			p.Characters = append([]uint64(nil), ids...)
		}
		anyHidden = anyHidden || p.Hidden
		scopes = append(scopes, sc)
		out = append(out, p)
		return len(out) - 1
	}
	rolls, notes := m.log.rolls, m.log.notes
	for len(rolls) > 0 || len(notes) > 0 {
		if len(notes) == 0 || len(rolls) > 0 && rolls[0].seq < notes[0].seq {
			i := index(rolls[0].about)
			out[i].Dice = append(out[i].Dice, rolls[0].text)
			rolls = rolls[1:]
			continue
		}
		i := index(notes[0].about)
		if out[i].Summary != "" {
			out[i].Summary += "\n"
		}
		out[i].Summary += notes[0].text
		notes = notes[1:]
	}
	if !anyHidden && !slices.ContainsFunc(m.log.touched, m.hidden) {
		return nil
	}
	return out
}

// eventHidden reports whether e touched a hidden character, or the turn
// order's entry of one (initiativeHidden: an event written before events
// had parts records a hidden combatant's roll in its summary).
func eventHidden(e *storage.Event) bool {
	if initiativeHidden(e) {
		return true
	}
	for _, ch := range e.Changes {
		if (ch.Before != nil && ch.Before.Hidden) || (ch.After != nil && ch.After.Hidden) {
			return true
		}
	}
	for _, p := range e.Parts {
		if p.Hidden {
			return true
		}
	}
	return false
}

// commandName is the command of a line as typed without its options (whose
// values may be a hidden character's numbers): "/table setup".
func commandName(line string) string {
	if rest, ok := strings.CutPrefix(line, "pressed ["); ok { // a button press (Request.Line)
		if label, _, ok := strings.Cut(rest, "]"); ok {
			return "pressed [" + label + "]"
		}
	}
	fields := strings.Fields(line)
	cmd := ""
	for i, f := range fields {
		if i > 1 || strings.Contains(f, ":") {
			break
		}
		cmd = strings.TrimSpace(cmd + " " + f)
	}
	return cmd
}

// renderEventFor renders e for /history as a player sees it: in full when
// it touched no hidden character; otherwise the command without its
// options, the parts about characters the player may see with their dice,
// and each hidden character's word after the event (events written before
// parts existed: only the words).
func renderEventFor(e *storage.Event, sys System, now int64) string {
	if !eventHidden(e) {
		return renderEvent(e)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`#%d` %s · %s · %s", e.Seq, e.At.UTC().Format("Jan 2 15:04"), Escape(e.UserName), Escape(commandName(e.Command)))
	var hidden []uint64
	for _, p := range e.Parts {
		if p.Hidden {
			hidden = append(hidden, p.Characters...)
			continue
		}
		if len(p.Dice) > 0 {
			b.WriteString("\n   dice: " + strings.Join(p.Dice, "; "))
		}
		for _, line := range strings.Split(p.Summary, "\n") {
			if line != "" {
				b.WriteString("\n   " + Escape(line))
			}
		}
	}
	var words []string
	for _, ch := range e.Changes {
		hid := ch.Before != nil && ch.Before.Hidden || ch.After != nil && ch.After.Hidden
		if len(e.Parts) > 0 && (!hid || !slices.Contains(hidden, ch.CharacterID)) {
			continue // an event with parts: its visible characters' parts are shown above
		}
		if ch.After == nil {
			words = append(words, Escape(ch.Name)+": gone")
			continue
		}
		if v, err := viewOf(sys, ch.After, now); err == nil {
			words = append(words, Escape(ch.Name)+": "+v.Word())
		}
	}
	if len(words) > 0 {
		b.WriteString("\n   " + strings.Join(words, "; "))
	}
	return b.String()
}
