package hitprot

import (
	"context"
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

// choiceRows builds one row of 0-HP buttons per character; with several
// characters a disabled button naming each leads its row.
func choiceRows(hs []*character, seq uint64) [][]commands.Button {
	var rows [][]commands.Button
	for _, h := range hs {
		id := commands.ChoiceID{Prefix: choicePrefix, Character: h.ch.ID, Event: seq}
		done := h.sheet.Chose != "" || h.c.Status != rules.Choosing
		row := []commands.Button{
			{Label: "Heroic Death", CustomID: id.With("heroic"), Style: commands.StyleDanger, Disabled: done},
			{Label: "Stay Up", CustomID: id.With("up"), Style: commands.StylePrimary, Disabled: done},
			{Label: "Go Down", CustomID: id.With("down"), Style: commands.StyleSecondary, Disabled: done},
		}
		if len(hs) > 1 {
			row = append([]commands.Button{commands.NameButton(h.ch.Name, id.With("name"))}, row...)
		}
		rows = append(rows, row)
	}
	return rows
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
	e := oddsEmbed([]*character{h})
	lines := []string{"**" + e.Title + "**: the 0-HP choice is pending.", e.Description}
	for _, f := range e.Fields {
		lines = append(lines, f.Name+": "+f.Value)
	}
	return strings.Join(lines, "\n"), choiceRows([]*character{h}, h.sheet.ChoiceSeq), nil
}

// oddsEmbed is the 0-HP choice with its exact odds (RULES.md §1.3, §1.4).
func oddsEmbed(hs []*character) commands.Embed {
	names := make([]string, len(hs))
	owners := map[string]bool{}
	var who []string
	for i, h := range hs {
		names[i] = commands.Escape(h.ch.Name)
		if !owners[h.ch.OwnerName] {
			owners[h.ch.OwnerName] = true
			who = append(who, commands.Escape(h.ch.OwnerName))
		}
	}
	verb := "is"
	if len(hs) > 1 {
		verb = "are"
	}
	return commands.Embed{
		Title:       fmt.Sprintf("%s %s at 0 HP", strings.Join(names, ", "), verb),
		Description: fmt.Sprintf("Choose what happens (%s or a GM): **Heroic Death** (one heroic action, then death), **Stay Up** (roll 2d6 on the injury table now; each later hit adds 1d6) or **Go Down** (fate hidden until attended: 3d6 keeping the two lowest).", strings.Join(who, ", ")),
		Color:       0xED4245,
		Fields: []commands.Field{
			{Name: "Stay Up: 2d6", Value: oddsLine(rules.StayUpRoll)},
			{Name: "Go Down: 3d6 keep the two lowest (3d6dh1)", Value: oddsLine(rules.GoDownRoll)},
		},
	}
}

// stayUpLine is the last line of a Stay Up reply (RULES.md §1.3 item 5):
// the character fights on at 0 HP only when the injury neither killed nor
// incapacitated it; otherwise the line states the death, the bleed-out or
// the stun.
func stayUpLine(h *character, c rules.Character, now clock.Time) string {
	const later = "each later hit is damage + 1d6 on the injury table"
	if c.Status == rules.Dead {
		return h.name() + " is dead."
	}
	var out []string
	for _, b := range c.Bleeds {
		how := "unless attended (/attend)"
		switch b.Wound {
		case rules.FatalWoundI:
			how = "unless a skilled healer or healing magic attends (/attend healer:true)"
		case rules.FatalWoundII:
			how = "and nothing can prevent it"
		}
		out = append(out, fmt.Sprintf("bleeding out from the %s: dies at %s %s", b.Wound, b.DiesAt, how))
	}
	if c.StunnedUntil > now {
		out = append(out, fmt.Sprintf("stunned until %s", c.StunnedUntil))
	}
	if len(out) == 0 {
		return h.name() + " fights on at 0 HP; " + later + "."
	}
	return fmt.Sprintf("%s is %s; %s.", h.name(), strings.Join(out, "; "), later)
}

// choiceButton answers a press of Heroic Death, Stay Up or Go Down, and
// the Heroic Death modal (RULES.md §1.3 items 3–6).
func choiceButton(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	cid, err := commands.ParseChoiceID(r.CustomID)
	if err != nil {
		return nil, err
	}
	id, seq, choice := cid.Character, cid.Event, cid.Choice
	label := map[string]string{"heroic": "Heroic Death", "action": "Heroic Death", "up": "Stay Up", "down": "Go Down"}[choice]
	if label == "" || (choice == "action") != (r.Kind == commands.KindModal) {
		return nil, commands.Errorf(commands.CodeInvalid, "This button is not one of ours.")
	}
	r.Command, r.Subcommand = "choose", ""
	r.Options = map[string]string{"choice": label}
	return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
		ch, err := m.CharacterByID(id)
		if err != nil {
			return nil, err
		}
		r.Options["target"] = ch.Name
		if err := m.CanChange(ch); err != nil {
			return nil, err
		}
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
			return nil, commands.Errorf(commands.CodeConflict, "%s's 0-HP choice is %s. Nothing was changed.", h.name(), what)
		}
		now := clock.Time(m.Table.Clock)
		var lines []string
		switch choice {
		case "heroic":
			return &commands.Response{Modal: &commands.Modal{
				CustomID: cid.With("action"),
				Title:    "Heroic Death",
				Inputs: []commands.TextInput{{CustomID: heroicInput, Label: "The one heroic action", Paragraph: true, Required: true, MaxLength: 300,
					Placeholder: "Strike a deadly blow, push an ally out of harm's way…"}},
			}}, nil
		case "action":
			action := strings.TrimSpace(r.Values[heroicInput])
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
			if err := h.store(m, c); err != nil {
				return nil, err
			}
			lines = append(lines, fmt.Sprintf("%s chooses **Heroic Death**: %s\n%s is dead: HP %d → %d · HD %d → %d.", h.name(), commands.Escape(action), h.name(), hpBefore, c.HP, hdBefore, c.HD))
			m.Note("%s: Heroic Death (%s).", ch.Name, action)
		case "up":
			hpBefore, hdBefore := h.c.HP, h.c.HD
			c, o, err := h.c.StayUp(m.Dice(), now)
			if err != nil {
				return nil, ruleError(h, err)
			}
			m.Record(o.Rolls...)
			h.sheet.Chose = label
			if err := h.store(m, c); err != nil {
				return nil, err
			}
			lines = append(lines, fmt.Sprintf("%s chooses **Stay Up**: HP %d → %d · HD %d → %d", h.name(), hpBefore, c.HP, hdBefore, c.HD))
			lines = append(lines, injuryLines(o)...)
			lines = append(lines, stayUpLine(h, c, now))
			lines[len(lines)-1] += h.conditions(m)
			m.Note("%s: Stay Up, %s → %s.", ch.Name, o.Injury.Roll, o.Injury.Band)
		case "down":
			hpBefore, hdBefore := h.c.HP, h.c.HD
			c, err := h.c.GoDown()
			if err != nil {
				return nil, ruleError(h, err)
			}
			h.sheet.Chose = label
			if err := h.store(m, c); err != nil {
				return nil, err
			}
			lines = append(lines, fmt.Sprintf("%s chooses **Go Down**: HP %d → %d · HD %d → %d; down at HP 0, fate hidden until another character's player or a GM attends (/attend: 3d6 keeping the two lowest). Lethal damage kills a down character.", h.name(), hpBefore, c.HP, hdBefore, c.HD))
			m.Note("%s: Go Down.", ch.Name)
		}

		all, err := m.Characters()
		if err != nil {
			return nil, err
		}
		var offered []*character
		pending := false
		for _, o := range all {
			oh, err := load(o)
			if err != nil {
				return nil, err
			}
			if oh.sheet.ChoiceSeq != seq {
				continue
			}
			offered = append(offered, oh)
			if oh.sheet.Chose == "" && oh.c.Status == rules.Choosing {
				pending = true
				lines = append(lines, fmt.Sprintf("%s is at 0 HP: choice pending.", oh.name()))
			}
		}
		resp := &commands.Response{Content: strings.Join(lines, "\n"), UpdateMessage: true, Components: choiceRows(offered, seq)}
		if pending {
			var waiting []*character
			for _, oh := range offered {
				if oh.sheet.Chose == "" {
					waiting = append(waiting, oh)
				}
			}
			resp.Embeds = []commands.Embed{oddsEmbed(waiting)}
		}
		return resp, nil
	})

}
