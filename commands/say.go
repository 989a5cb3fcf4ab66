package commands

import (
	"fmt"
	"slices"

	"github.com/hpkeeper/hpkeeper/storage"
)

// What a system says, rolls and notes, and whom it is about: the scopes
// (Mutation.For, ForTable) that hidden.go renders for players and GMs, and
// that the event keeps (storage.EventPart) for /history.

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

// voice is what a mutation says, rolls and notes (its log, which every
// scoped copy of the mutation shares) and whom that is about: about is nil
// (not said, so every character the mutation loaded), the table, or some
// characters (For, ForTable). The Mutation embeds it.
type voice struct {
	about *scope
	log   *mutationLog
}

// Note adds a line to the event's summary shown by /history, about m's
// characters (For): players read it only when they may see them.
func (v voice) Note(format string, args ...any) {
	v.log.entries++
	v.log.notes = append(v.log.notes, entry{about: v.about, text: fmt.Sprintf(format, args...), seq: v.log.entries})
}

// SetMentions sets the user ids the reply may ping (Discord's
// allowed_mentions users), replacing those set before; none, the default,
// pings nobody. The turn order's init-ping sets the owner whose turn
// starts.
func (v voice) SetMentions(userIDs ...string) { v.log.mentions = userIDs }

// Mentions returns the user ids the reply may ping (SetMentions).
func (v voice) Mentions() []string { return v.log.mentions }

// Say adds a line (or several) of text to the reply, about m's scope (For).
func (v voice) Say(format string, args ...any) {
	v.Post(Part{Text: fmt.Sprintf(format, args...)})
}

// Post adds p to the reply, about m's scope (For): players see its text,
// embeds, buttons and files only when they may see m's characters. When
// the reply holds rows of buttons of more than one character, each row is
// led by a disabled button naming its character (NameButton).
func (v voice) Post(p Part) {
	v.log.parts = append(v.log.parts, part{about: v.about, Part: p})
}

// NoteSaid runs fn and notes for /history, each in its scope, every part
// fn said through the mutation, as plain text (Unmarkdown); it returns
// fn's error, and notes nothing then. What a system's timers or its end of
// a combat say is noted this way.
func (v voice) NoteSaid(fn func() error) error {
	first := len(v.log.parts)
	if err := fn(); err != nil {
		return err
	}
	for _, p := range v.log.parts[first:] {
		sub := v
		sub.about = p.about
		sub.Note("%s", Unmarkdown(p.Text))
	}
	return nil
}

// eventParts splits the mutation's notes and dice by scope for the event,
// in the order each scope first appears; nil when players may see all of
// them (the event's Summary and Dice say everything then).
func eventParts(m *Mutation) []storage.EventPart {
	var out []storage.EventPart
	var scopes []*scope
	anyHidden := false
	index := func(sc *scope) int {
		for i, s := range scopes {
			if s.same(sc) {
				return i
			}
		}
		ids := m.touched
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
	if !anyHidden && !slices.ContainsFunc(m.touched, m.hidden) {
		return nil
	}
	return out
}
