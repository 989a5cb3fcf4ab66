package commands

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Hidden characters (RULES.md §0.1, COMMANDS.md: `hidden=true`, GM only):
// a GM and the owner of a hidden character read its numbers; everyone
// else, in every reply, follow-up, tracker, history, list and export, only
// its word in its system's terms (Healthy, Bloody, Broken, Taken out at
// harm tables; Unhurt, Wounded, Badly wounded, Down, Dead at the others)
// and what the table sees it do (its turn, passing its turn), never why.
//
// The rule is kept here, once, as a projection: before anything is
// rendered, each audience (the channel, the caller, every GM; package
// view) gets its own view of every character (view.Audience.For) and of
// every part of a reply. A system says what its words, dice and notes are
// about by scoping the mutation to characters (Mutation.For) or to the
// table (ForTable; say.go); what it says through a scope (Say, Post)
// becomes one part of the reply, what it rolls and notes one part of the
// event (storage.EventPart). An audience reads the parts about characters
// it sees; in place of the others, what the table saw the characters do
// (Part.Public), else each hidden character's word, and that only when its
// word changed or the caller named it, so that even a line's presence
// (a timer that fired) tells players nothing. The caller reads the others
// privately when they see them, and every GM gets them, whoever triggered
// them (GMDeliverer). /history renders the event's parts the same way
// (commands/history). What is said, rolled or noted without a scope counts
// as about every character the mutation loaded: hidden from players as
// soon as one of them is hidden, so a forgotten scope can hide too much but
// never show too much.

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

// Audience is the caller of r at table t as a reader (view.Audience): a
// GM, or a user who reads the numbers of the hidden characters they own.
func Audience(r *Request, t *storage.Table) view.Audience {
	return view.Audience{UserID: r.UserID, GM: IsGM(r, t)}
}

// gmReader reads every character's numbers: the full embed of a character
// said through its scope, which the projection then shows to whom may
// read it.
var gmReader = view.Audience{GM: true}

// embedFor is c's embed as a reads it: every number when a sees c, else
// its word alone (hiddenEmbed).
func embedFor(a view.Audience, t *storage.Table, sys System, c *storage.Character) (Embed, error) {
	v, err := ViewOf(sys, c, t.Clock)
	if err != nil || !a.Sees(c) {
		return hiddenEmbed(c, a.For(c, v).Word), err
	}
	status, fields, err := sys.Describe(c)
	return viewEmbed(c, v, status, fields), err
}

// statusFor is c's one-line status as a reads it: its word alone when a
// does not see c.
func statusFor(a view.Audience, t *storage.Table, sys System, c *storage.Character) (string, error) {
	if a.Sees(c) {
		return StatusOf(sys, c)
	}
	v, err := ViewOf(sys, c, t.Clock)
	return a.For(c, v).Word.Text, err
}

// roster lists chars (a table t of system sys) one line each, led by
// bullet, as the channel reads them: "**Lister** (ann): HP 3/6 · HD 1/1",
// a hidden one with its word alone. private has the full line of each
// hidden one that a (the caller) sees, for a follow-up (Privately).
// /char list and /table show list the table with it.
func roster(a view.Audience, t *storage.Table, sys System, chars []*storage.Character, bullet string) (lines, private []string, err error) {
	line := func(who view.Audience, c *storage.Character) (string, error) {
		status, err := statusFor(who, t, sys, c)
		return fmt.Sprintf("%s**%s** (%s): %s", bullet, Escape(c.Name), Escape(c.OwnerName), status), err
	}
	for _, c := range chars {
		l, err := line(view.Channel, c)
		if err != nil {
			return nil, nil, err
		}
		lines = append(lines, l)
		if c.Hidden && a.Sees(c) {
			if l, err = line(a, c); err != nil {
				return nil, nil, err
			}
			private = append(private, l)
		}
	}
	return lines, private, nil
}

// seenHidden is what a roster of chars (roster) read by a says beyond
// what the channel reads, as words of a memo key (Service.Memoized): the
// ids of the hidden characters a sees; "" when a sees none.
func seenHidden(a view.Audience, chars []*storage.Character) string {
	var b []byte
	for _, c := range chars {
		if c.Hidden && a.Sees(c) {
			b = strconv.AppendUint(append(b, ' '), c.ID, 10)
		}
	}
	return string(b)
}

// HiddenFollowUp is the header of the ephemeral follow-up that gives a GM
// (or a hidden character's owner) what players do not see.
const HiddenFollowUp = "Hidden from players (they see only the word):"

// ForGM adds to a view answered in the channel (resp, written for players)
// the ephemeral follow-up private when the caller of r is a GM (Privately).
func ForGM(r *Request, t *storage.Table, resp, private *Response) *Response {
	if !IsGM(r, t) {
		return resp
	}
	return Privately(resp, private)
}

// Privately adds to a view answered in the channel (resp, written for
// players) the ephemeral follow-up private, which the caller may read (a
// hidden character's numbers for a GM or its owner), when private has
// anything.
func Privately(resp, private *Response) *Response {
	if private == nil || resp.Ephemeral || private.Content == "" && len(private.Embeds) == 0 {
		return resp
	}
	private.prepend(HiddenFollowUp)
	private.Ephemeral = true
	resp.FollowUps = append(resp.FollowUps, private)
	return resp
}

// sees reports whether a reads what is about sc: the table's, or what is
// about at least one character a sees (a number shared by a visible
// character, such as the amount of damage both took, is no secret); not
// said (nil): about every character the mutation loaded.
func (m *Mutation) sees(a view.Audience, sc *scope) bool {
	seen := func(id uint64) bool { c := m.character(id); return c == nil || a.Sees(c) }
	switch {
	case sc == nil:
		return !slices.ContainsFunc(m.touched, func(id uint64) bool { return !seen(id) })
	case sc.table:
		return true
	}
	return slices.ContainsFunc(sc.ids, seen)
}

// unseen returns the characters a part about sc stands for when a does not
// read it: those a does not see; for an unscoped part those the mutation
// changed (or, when it changed none, every one it loaded).
func (m *Mutation) unseen(a view.Audience, sc *scope) []uint64 {
	ids := m.touched
	if sc != nil {
		ids = sc.ids
	}
	var out, changed []uint64
	for _, id := range ids {
		if c := m.character(id); c != nil && !a.Sees(c) {
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

// worded reports whether players read the word of hidden character id in
// the reply: when the caller named it (by name or by its button), or its
// word changed (it came, went, or reads otherwise), never merely because
// its timers fired or its hidden state changed.
func (m *Mutation) worded(id uint64) bool {
	before, after := m.before[id], m.cache[id]
	if m.named[id] || before == nil || after == nil {
		return true
	}
	was, err1 := ViewOf(m.System, before, m.tableBefore.Clock)
	is, err2 := ViewOf(m.System, after, m.Table.Clock)
	return err1 != nil || err2 != nil || was.Public() != is.Public()
}
