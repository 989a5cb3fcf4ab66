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
// event (storage.EventPart). The kernel renders the public reply from the
// parts players may see and puts each hidden character's word in place of
// the others; a GM gets those others, in full, in an ephemeral follow-up.
// /history renders the event's parts the same way (commands/history). What is said, rolled or
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

// roster lists chars (a table t of system sys) one line each, led by
// bullet, as players see them: "**Lister** (ann): HP 3/6 · HD 1/1", a
// hidden one with its word alone. hidden has the full line of each hidden
// one, for the GM's follow-up (ForGM). /char list and /table show list
// the table with it.
func roster(t *storage.Table, sys System, chars []*storage.Character, bullet string) (lines, hidden []string, err error) {
	for _, c := range chars {
		status, err := playerStatus(t, sys, c)
		if err != nil {
			return nil, nil, err
		}
		lines = append(lines, fmt.Sprintf("%s**%s** (%s): %s", bullet, Escape(c.Name), Escape(c.OwnerName), status))
		if c.Hidden {
			full, _, err := sys.Describe(c)
			if err != nil {
				return nil, nil, err
			}
			hidden = append(hidden, fmt.Sprintf("%s**%s** (%s): %s", bullet, Escape(c.Name), Escape(c.OwnerName), full))
		}
	}
	return lines, hidden, nil
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
	private.prepend(HiddenFollowUp)
	private.Ephemeral = true
	resp.FollowUps = append(resp.FollowUps, private)
	return resp
}

// public reports whether players may see what is about sc.
func (m *Mutation) public(sc *scope) bool {
	switch {
	case sc == nil:
		return !slices.ContainsFunc(m.touched, m.hidden)
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
	ids := m.touched
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
