package hpmpwp

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// choicePrefix starts the custom_id of the Die Hard buttons (RULES.md
// §2.4): "hmw:<character id>:<event seq>:act|down".
const choicePrefix = "hmw"

func choiceButtons(id, seq uint64, disabled bool) []commands.Button {
	cid := commands.ChoiceID{Prefix: choicePrefix, Character: id, Event: seq}
	return []commands.Button{
		{Label: "Act Disabled", CustomID: cid.With("act"), Style: commands.StylePrimary, Disabled: disabled},
		{Label: "Fall Unconscious", CustomID: cid.With("down"), Style: commands.StyleSecondary, Disabled: disabled},
	}
}

// PendingChoice offers a pending Die Hard choice again (RULES.md §2.4;
// Chooser): the text and the enabled Act Disabled / Fall Unconscious
// buttons with the custom_ids of the event that created the choice, or nil
// buttons when no choice is pending.
func (System) PendingChoice(ch *storage.Character) (string, [][]commands.Button, error) {
	char, err := load(ch)
	if err != nil {
		return "", nil, err
	}
	c, s := char.c, char.sheet
	if !c.ChoicePending || s.ChoiceSeq == 0 {
		return "", nil, nil
	}
	text := fmt.Sprintf("Die Hard: **%s** must choose — **Act Disabled** or **Fall Unconscious** (stable). Damage to %s waits for the choice.",
		commands.Escape(ch.Name), commands.Escape(ch.Name))
	return text, [][]commands.Button{choiceButtons(ch.ID, s.ChoiceSeq, false)}, nil
}

// choices are the Die Hard buttons (RULES.md §2.4), by their custom_id's
// choice; the history names a press by the button's label, as
// hit-protection's 0-HP choice does.
var choices = map[string]commands.ButtonChoice{"act": {Label: "Act Disabled"}, "down": {Label: "Fall Unconscious"}}

// choose handles a press of Act Disabled or Fall Unconscious (RULES.md
// §2.4) for the character ch the button names (commands.ChoiceHandler):
// valid only while it still has the choice of that event.
func choose(m *commands.Mutation, ch *storage.Character, cid commands.ChoiceID) (*commands.Response, error) {
	id, seq, act, label := cid.Character, cid.Event, cid.Choice == "act", choices[cid.Choice].Label
	char, err := load(ch)
	if err != nil {
		return nil, err
	}
	c, st := char.c, char.sheet
	if !c.ChoicePending || st.ChoiceSeq != seq {
		return nil, m.RefuseStale(seq, ch, "Die Hard choice",
			commands.Errorf(commands.CodeConflict, "%s's Die Hard choice is already made or no longer pending; nothing was changed.", commands.Escape(ch.Name)))
	}
	m = m.For(ch)
	next, out, err := c.Choose(act)
	if err != nil {
		return nil, ruleError(ch, err)
	}
	if err := char.store(m, next); err != nil {
		return nil, err
	}
	m.Note("Die Hard: %s (%s pressed %s)", detailText(ch.Name, out), m.Req.UserName, label)
	mine := commands.Part{Text: fmt.Sprintf("Die Hard: %s pressed **%s** for %s", commands.Escape(m.Req.UserName), label, outcomeText(ch.Name, "", out, nil)),
		Buttons: [][]commands.Button{choiceButtons(id, seq, true)}}

	// The message offered the choice to these characters, in this order.
	all, err := m.Characters()
	if err != nil {
		return nil, err
	}
	for _, o := range all {
		if o.ID == id {
			m.Post(mine)
			continue
		}
		ochar, err := load(o)
		if err != nil {
			return nil, err
		}
		oc, os := ochar.c, ochar.sheet
		if oc.ChoicePending && os.ChoiceSeq == seq {
			m.For(o).Post(commands.Part{Text: fmt.Sprintf("**%s**: Die Hard choice pending.", commands.Escape(o.Name)),
				Buttons: [][]commands.Button{choiceButtons(o.ID, seq, false)}})
		}
	}
	return &commands.Response{UpdateMessage: true}, nil
}
