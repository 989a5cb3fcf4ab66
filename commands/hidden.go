package commands

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

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

// seesAll reports whether the caller of r sees c's numbers: c is not hidden,
// or the caller is a GM.
func seesAll(r *Request, t *storage.Table, c *storage.Character) bool {
	return !c.Hidden || isGM(r, t)
}

// displayEmbed is c's embed as the caller of r may see it.
func displayEmbed(r *Request, t *storage.Table, sys System, c *storage.Character) (Embed, error) {
	v, err := viewOf(sys, c, t.Clock)
	if err != nil {
		return Embed{}, err
	}
	if !seesAll(r, t, c) {
		return hiddenEmbed(c, v), nil
	}
	status, fields, err := sys.Describe(c)
	if err != nil {
		return Embed{}, err
	}
	return viewEmbed(c, v, status, fields), nil
}

// displayStatus is c's one-line status as the caller of r may see it: the
// word alone for a hidden character and a player.
func displayStatus(r *Request, t *storage.Table, sys System, c *storage.Character) (string, error) {
	if !seesAll(r, t, c) {
		v, err := viewOf(sys, c, t.Clock)
		if err != nil {
			return "", err
		}
		return v.Word(), nil
	}
	status, _, err := sys.Describe(c)
	return status, err
}

// Reported tells the mutation that its reply shows c's numbers although c
// did not change (a dying save that leaves it dying, reported by a clock
// move): a hidden c then makes the reply one about a hidden character, as a
// changed one does (present).
func (m *Mutation) Reported(c *storage.Character) {
	m.reported = append(m.reported, c)
}

// reportedHidden reports whether the reply shows the numbers of the hidden
// character id without changing it (Reported): its event records the
// character, unchanged, so that /history shows players only its word.
func (m *Mutation) reportedHidden(id uint64) bool {
	for _, c := range m.reported {
		if c.ID == id && c.Hidden {
			return true
		}
	}
	return false
}

// touchedAfter returns the characters the mutation touched, in their state
// now (deleted ones in their state before), for the reply.
func (m *Mutation) touchedAfter() []*storage.Character {
	var out []*storage.Character
	for _, id := range m.touched {
		if c := m.cache[id]; c != nil {
			out = append(out, c)
		} else if b := m.before[id]; b != nil {
			out = append(out, b)
		}
	}
	return out
}

// present finishes a mutation's reply. Every touched character gets its
// embed when the reply has none (so every character reply reads at a
// glance). When a hidden character was touched: a GM gets the full reply
// only for themself (ephemeral; players follow the tracker and /char list);
// a player gets the word of each hidden character instead of its numbers
// and dice.
func (m *Mutation) present(resp *Response) *Response {
	if resp == nil || resp.Modal != nil || resp.Choices != nil {
		return resp
	}
	var touched []*storage.Character
	hidden := m.turns.hidden // a hidden combatant's initiative (initiative.go)
	for _, c := range m.touchedAfter() {
		after := m.cache[c.ID]
		if sameState(m.before[c.ID], after) {
			continue
		}
		touched = append(touched, c)
		if c.Hidden { // the state now, or before for a deleted character
			hidden = true
		}
	}
	for _, c := range m.reported {
		hidden = hidden || c.Hidden
	}
	if len(resp.Embeds) == 0 && len(touched) > 0 && len(touched) <= 5 {
		for _, c := range touched {
			if m.cache[c.ID] == nil { // deleted
				continue
			}
			if v, err := viewOf(m.System, c, m.Table.Clock); err == nil {
				resp.Embeds = append(resp.Embeds, viewEmbed(c, v, "", nil))
			}
		}
	}
	if !hidden || resp.Ephemeral {
		return resp
	}
	if m.IsGM() {
		resp.Ephemeral = true
		resp.Content = strings.TrimSpace("(Hidden character: only you see the numbers; players see a word.)\n" + resp.Content)
		return resp
	}
	var lines []string
	var embeds []Embed
	for _, c := range touched {
		if m.cache[c.ID] == nil {
			continue
		}
		st, err := displayStatus(m.Req, m.Table, m.System, c)
		if err != nil {
			continue
		}
		lines = append(lines, fmt.Sprintf("**%s**: %s", Escape(c.Name), st))
		if e, err := displayEmbed(m.Req, m.Table, m.System, c); err == nil && len(embeds) < 5 {
			embeds = append(embeds, e)
		}
	}
	lines = append(lines, m.turns.public...) // the turn order's lines, safe for players
	return &Response{Content: fmt.Sprintf("%s used /%s.\n%s", Escape(m.Req.UserName), m.Req.Command, strings.Join(lines, "\n")),
		Embeds: embeds, Components: resp.Components, UpdateMessage: resp.UpdateMessage}
}

// eventHidden reports whether e touched a hidden character, or the turn
// order's entry of one (initiativeHidden).
func eventHidden(e *storage.Event) bool {
	if initiativeHidden(e) {
		return true
	}
	for _, ch := range e.Changes {
		if (ch.Before != nil && ch.Before.Hidden) || (ch.After != nil && ch.After.Hidden) {
			return true
		}
	}
	return false
}

// renderHiddenEvent renders, for a player, an event that touched a hidden
// character: who, the command's name and each character's word after it;
// no numbers, dice or summary.
func renderHiddenEvent(e *storage.Event, sys System, now int64) string {
	// The command's name, without the options (amounts are numbers).
	fields := strings.Fields(e.Command)
	cmd := ""
	for i, f := range fields {
		if i > 1 || strings.Contains(f, ":") {
			break
		}
		cmd = strings.TrimSpace(cmd + " " + f)
	}
	var parts []string
	for _, ch := range e.Changes {
		c := ch.After
		if c == nil {
			parts = append(parts, Escape(ch.Name)+": gone")
			continue
		}
		v, err := viewOf(sys, c, now)
		if err != nil {
			continue
		}
		parts = append(parts, Escape(ch.Name)+": "+v.Word())
	}
	line := fmt.Sprintf("`#%d` %s · %s · %s", e.Seq, e.At.UTC().Format("Jan 2 15:04"), Escape(e.UserName), Escape(cmd))
	if len(parts) == 0 { // a turn order change only (initiativeHidden)
		return line
	}
	return line + "\n   " + strings.Join(parts, "; ")
}
