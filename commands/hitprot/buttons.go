package hitprot

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// choicePrefix starts the custom_id of the 0-HP choice buttons and the
// Heroic Death modal: "hp0:<character id>:<event seq>:<heroic|up|down|action>".
const choicePrefix = "hp0"

// heroicInput is the custom_id of the Heroic Death modal's text input.
const heroicInput = "heroic-action"

// choiceRows is the row of 0-HP buttons of h, disabled once the choice is
// made (the kernel leads it with h's name when a message offers several
// characters the choice).
func choiceRows(h *character, seq uint64) [][]commands.Button {
	id := commands.ChoiceID{Prefix: choicePrefix, Character: h.ch.ID, Event: seq}
	done := h.sheet.Chose != "" || h.c.Status != rules.Choosing
	return [][]commands.Button{{
		{Label: "Heroic Death", CustomID: id.With("heroic"), Style: commands.StyleDanger, Disabled: done},
		{Label: "Stay Up", CustomID: id.With("up"), Style: commands.StylePrimary, Disabled: done},
		{Label: "Go Down", CustomID: id.With("down"), Style: commands.StyleSecondary, Disabled: done},
	}}
}

// choosingLine says that h is at 0 HP and who chooses (RULES.md §1.3 item
// 3): its owner or a GM.
func choosingLine(h *character) string {
	return fmt.Sprintf("%s is at 0 HP: %s (its owner) or a GM chooses **Heroic Death**, **Stay Up** or **Go Down**.", h.name(), commands.Escape(h.ch.OwnerName))
}

// PendingChoice offers c's pending 0-HP choice again (RULES.md §1.3 item 3;
// the Chooser interface): the choice with its exact odds, and the three
// buttons enabled with the custom_ids the hp0 handler accepts now (the
// sheet's ChoiceSeq). It returns nil buttons when no choice is pending. A
// choice brought back by /undo, whose message has its buttons disabled, is
// made from /char show this way.
func (System) PendingChoice(ch *storage.Character) (string, [][]commands.Button, error) {
	h, err := load(ch)
	if err != nil {
		return "", nil, err
	}
	if h.c.Status != rules.Choosing || h.sheet.Chose != "" || h.sheet.ChoiceSeq == 0 {
		return "", nil, nil
	}
	e := oddsEmbed()
	lines := []string{choosingLine(h), e.Description}
	for _, f := range e.Fields {
		lines = append(lines, f.Name+": "+f.Value)
	}
	return strings.Join(lines, "\n"), choiceRows(h, h.sheet.ChoiceSeq), nil
}

// oddsEmbed is the 0-HP choice with its exact odds (RULES.md §1.3, §1.4).
func oddsEmbed() commands.Embed {
	return commands.Embed{
		Title:       "The 0-HP choice",
		Description: "**Heroic Death** (one heroic action, then death), **Stay Up** (roll 2d6 on the injury table now; each later hit adds 1d6) or **Go Down** (fate hidden until attended: 3d6 keeping the two lowest).",
		Color:       0xED4245,
		Fields: []commands.Field{
			{Name: "Stay Up: 2d6", Value: oddsLine(rules.StayUpRoll)},
			{Name: "Go Down: 3d6 keep the two lowest (3d6dh1)", Value: oddsLine(rules.GoDownRoll)},
		},
	}
}

// pointsAfter is ", HP … · HD …" when a choice changed them (points), or
// "": at 0 HP a choice changes neither.
func pointsAfter(hpBefore, hdBefore int, c rules.Character) string {
	if ch := points(hpBefore, hdBefore, c); ch != "" {
		return ", " + ch
	}
	return ""
}

// stayUpTail ends a Stay Up reply (RULES.md §1.3 item 5) with what the
// injury's effects do not say: the command that stops a bleed-out, that a character
// neither dead nor stunned fights on at 0 HP, and, while it lives, that
// each later hit adds 1d6 on the injury table; "" for the dead.
func stayUpTail(h *character, c rules.Character, now clock.Time) string {
	if c.Status == rules.Dead {
		return ""
	}
	var out []string
	for _, b := range c.Bleeds {
		switch b.Wound {
		case rules.FatalWoundI:
			out = append(out, commands.CodeSpan("/attend target:"+h.ch.Name+" skilled:true")+" stops it")
		case rules.FatalWoundII: // nothing stops it
		default:
			out = append(out, commands.CodeSpan("/attend target:"+h.ch.Name)+" stops it")
		}
	}
	if len(out) == 0 && len(c.Bleeds) == 0 && c.StunnedUntil <= now {
		out = append(out, "fights on at 0 HP")
	}
	return "; " + strings.Join(append(out, "each later hit is damage + 1d6 on the injury table"), "; ")
}

// choices are the 0-HP choice's buttons (RULES.md §1.3 item 3) and the
// Heroic Death modal's submit, by their custom_id's choice.
var choices = map[string]commands.ButtonChoice{
	"heroic": {Label: "Heroic Death"}, "action": {Label: "Heroic Death", Modal: true},
	"up": {Label: "Stay Up"}, "down": {Label: "Go Down"},
}

// choose answers a press of Heroic Death, Stay Up or Go Down, and the
// Heroic Death modal (RULES.md §1.3 items 3–6), for the character ch the
// button names (commands.ChoiceHandler).
func choose(m *commands.Mutation, ch *storage.Character, cid commands.ChoiceID) (*commands.Response, error) {
	seq, choice, label := cid.Event, cid.Choice, choices[cid.Choice].Label
	h, err := load(ch)
	if err != nil {
		return nil, err
	}
	if h.sheet.ChoiceSeq != seq || h.sheet.Chose != "" || h.c.Status != rules.Choosing {
		what := "already chosen"
		if h.sheet.Chose != "" && h.sheet.ChoiceSeq == seq {
			what += ": " + h.sheet.Chose
		} else {
			what += "; this message is no longer pending"
		}
		return nil, m.RefuseStale(seq, ch, "0-HP choice",
			commands.Errorf(commands.CodeConflict, "%s's 0-HP choice is %s. Nothing was changed.", h.name(), what))
	}
	now := clock.Time(m.Table.Clock)
	var lines []string
	mc := m.For(ch)
	switch choice {
	case "heroic":
		return &commands.Response{Modal: &commands.Modal{
			CustomID: cid.With("action"),
			Title:    "Heroic Death",
			Inputs: []commands.TextInput{{CustomID: heroicInput, Label: "The one heroic action", Paragraph: true, Required: true, MaxLength: 300,
				Placeholder: "Strike a deadly blow, push an ally out of harm's way…"}},
		}}, nil
	case "action":
		action := strings.TrimSpace(m.Req.Values[heroicInput])
		if action == "" {
			return nil, commands.Errorf(commands.CodeInvalid, "Describe the heroic action.")
		}
		action = commands.Clip(action, 300)
		hpBefore, hdBefore := h.c.HP, h.c.HD
		c, err := h.c.HeroicDeath(action)
		if err != nil {
			return nil, ruleError(h, err)
		}
		h.sheet.Chose = label
		if err := h.store(mc, c); err != nil {
			return nil, err
		}
		act := commands.Escape(action)
		if !strings.ContainsAny(act[len(act)-1:], ".!?") {
			act += "."
		}
		lines = append(lines, fmt.Sprintf("%s chooses **Heroic Death**%s: %s %s is dead.", h.name(), pointsAfter(hpBefore, hdBefore, c), act, h.name()))
		mc.Note("%s: Heroic Death (%s).", ch.Name, action)
	case "up":
		hpBefore, hdBefore := h.c.HP, h.c.HD
		c, o, err := h.c.StayUp(mc.Dice(), now)
		if err != nil {
			return nil, ruleError(h, err)
		}
		h.sheet.Chose = label
		if err := h.store(mc, c); err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("%s chooses **Stay Up**%s: %s%s.", h.name(), pointsAfter(hpBefore, hdBefore, c), injuryText(o), stayUpTail(h, c, now)))
		mc.Note("%s", commands.Unmarkdown(lines[0]))
	case "down":
		hpBefore, hdBefore := h.c.HP, h.c.HD
		c, err := h.c.GoDown()
		if err != nil {
			return nil, ruleError(h, err)
		}
		h.sheet.Chose = label
		if err := h.store(mc, c); err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("%s chooses **Go Down**%s: down at 0 HP, its fate hidden until another character's player or a GM attends (/attend: 3d6 keeping the two lowest); lethal damage kills it.", h.name(), pointsAfter(hpBefore, hdBefore, c)))
		mc.Note("%s: Go Down.", ch.Name)
	}
	// The message offered the choice to these characters, in this order.
	all, err := m.Characters()
	if err != nil {
		return nil, err
	}
	var waiting []*storage.Character
	for _, o := range all {
		oh, err := load(o)
		if err != nil {
			return nil, err
		}
		if o.ID == ch.ID {
			mc.Post(commands.Part{Text: strings.Join(lines, "\n"), Buttons: choiceRows(h, seq)})
			continue
		}
		if oh.sheet.ChoiceSeq != seq {
			continue
		}
		p := commands.Part{Buttons: choiceRows(oh, seq)}
		if oh.sheet.Chose == "" && oh.c.Status == rules.Choosing {
			p.Text = choosingLine(oh)
			waiting = append(waiting, o)
		}
		m.For(o).Post(p)
	}
	if len(waiting) > 0 {
		m.For(waiting...).Post(commands.Part{Embeds: []commands.Embed{oddsEmbed()}})
	}
	return &commands.Response{UpdateMessage: true}, nil
}
