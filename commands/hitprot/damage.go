package hitprot

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// damage answers /damage (RULES.md §1.3): soak, HP loss, the 0-HP choice,
// the injury table while staying up, and lethal damage to the down.
func damage(m *commands.Mutation) (*commands.Response, error) {
	targets, err := loadTargets(m, m.Req.Options["target"], true)
	if err != nil {
		return nil, err
	}
	all := make([]*storage.Character, len(targets))
	for i, h := range targets {
		all[i] = h.ch
	}
	amount, rolled, err := m.For(all...).Amount(0, commands.MaxAmount, "of damage")
	if err != nil {
		return nil, err
	}
	if rolled != "" {
		m.For(all...).Say("Damage %s", rolled)
	}
	typ := m.Req.Options["type"]
	hit := rules.Hit{Amount: amount, Soak: m.Req.Options["soak"] == "true", Type: typ,
		NonLethal: m.Req.Options["lethal"] == "false", Now: clock.Time(m.Table.Clock)}
	var zero []*character
	for _, h := range targets {
		m := m.For(h.ch)
		hpBefore, hdBefore := h.c.HP, h.c.HD
		c, o, res, err := h.c.TakeDamage(m.Dice(), hit)
		if err != nil {
			return nil, ruleError(h, err)
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		kind := ""
		if typ != "" && typ != rules.Other {
			kind = " " + typ
		}
		line := fmt.Sprintf("%s takes %d%s damage", h.name(), amount, kind)
		if hit.Soak {
			// The soak roll and its dice are on the note line below.
			line += fmt.Sprintf(", soaked to %d", res.Taken)
		}
		line += fmt.Sprintf(": HP %d → %d · HD %d → %d", hpBefore, c.HP, hdBefore, c.HD)
		lines := []string{line}
		for _, n := range o.Notes {
			lines = append(lines, "  "+n)
		}
		lines = append(lines, injuryLines(o)...)
		lines[len(lines)-1] += h.conditions(m)
		m.Say("%s", strings.Join(lines, "\n"))
		m.Note("%s takes %d damage: HP %d → %d, HD %d → %d", h.ch.Name, amount, hpBefore, c.HP, hdBefore, c.HD)
		if res.ReachedZero {
			zero = append(zero, h)
		}
	}
	if len(zero) == 0 {
		return &commands.Response{}, nil
	}
	if len(zero) > 5 {
		return nil, commands.Errorf(commands.CodeInvalid, "%d characters would reach 0 HP at once; a message holds at most 5 choices. Split the targets.", len(zero))
	}
	seq, err := m.NextEventSeq()
	if err != nil {
		return nil, err
	}
	var down []*storage.Character
	for _, h := range zero {
		h.sheet.ChoiceSeq, h.sheet.Chose = seq, ""
		if err := h.store(m, h.c); err != nil {
			return nil, err
		}
		m.For(h.ch).Post(commands.Part{Text: choosingLine(h), Buttons: choiceRows(h, seq)})
		down = append(down, h.ch)
	}
	// The odds chart, drawn after the transaction.
	chart, err := injuryOddsFile()
	if err != nil {
		return nil, err
	}
	m.For(down...).Post(commands.Part{Embeds: []commands.Embed{oddsEmbed()}, Files: []commands.File{chart}})
	return &commands.Response{}, nil
}

// injuryLines renders an outcome's injury roll and its effects.
func injuryLines(o rules.Outcome) []string {
	if o.Injury == nil {
		return nil
	}
	inj := o.Injury
	head := "  Injury table: " + inj.Roll.String()
	if inj.Damage > 0 {
		head += fmt.Sprintf(" + %d damage = %d", inj.Damage, inj.Total)
	}
	if inj.Total < 2 || inj.Total > 12 {
		head += fmt.Sprintf(" (counts as %d)", max(2, min(inj.Total, 12)))
	}
	head += " → **" + inj.Band.String() + "**"
	out := []string{head}
	for _, e := range inj.Effects {
		out = append(out, "  · "+e)
	}
	return out
}
