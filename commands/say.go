package commands

import (
	"fmt"
	"slices"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
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
	// Public, for a part about hidden characters, is the line read in its
	// place by those who may not see them: what the table sees them do,
	// never a number or why ("**Ogre** passes its turn."); "" gives them
	// each hidden character's word instead, when that is worded.
	Public string
	// Detail, when set, is what /history notes of the part in place of its
	// text where the kernel notes what a system said (NoteSaid: its
	// timers, the end of a combat): each step of a rule the text sums up.
	Detail string
}

// scopedPart is a Part with its scope.
type scopedPart struct {
	about *scope
	Part
}

// mutationLog is the record a mutation builds up: its reply's parts, its
// dice and its notes, each with the scope it is about (hidden.go), shared
// by every scoped copy of the mutation.
type mutationLog struct {
	parts     []scopedPart
	rolls     []entry
	moreRolls int // rolls made past MaxRecordedRolls (dice.go)
	notes     []entry
	entries   int // rolls and notes so far, to order them (entry.seq)
	// seqTaken: NextEventSeq was called, so the event must be written even
	// if nothing changed, or a button would name a later, unrelated event.
	seqTaken bool
	// moving is the unit of the clock move in progress (ClockUnit).
	moving clock.Unit
	// mentions are the user ids the reply may ping (SetMentions).
	mentions []string
	// dice is the source the mutation rolls with (UseDice), and hideDice
	// says that what it rolls is a hidden character's (HideDice).
	dice     dice.Source
	hideDice bool
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
	v.log.parts = append(v.log.parts, scopedPart{about: v.about, Part: p})
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
		if p.Detail != "" {
			sub.Note("%s", Unmarkdown(p.Detail))
		} else {
			sub.Note("%s", Unmarkdown(p.Text))
		}
	}
	return nil
}

// recordedRolls returns the event's dice: the rolls listed, then how many
// more were made.
func (v voice) recordedRolls() []string {
	rolls := texts(v.log.rolls)
	if v.log.moreRolls == 0 {
		return rolls
	}
	return append(rolls, "… and "+Count(v.log.moreRolls, "more roll"))
}
