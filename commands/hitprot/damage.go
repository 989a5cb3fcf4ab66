package hitprot

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// damage answers /damage (RULES.md §1.3): soak, HP loss, the 0-HP choice,
// the injury table while staying up, and lethal damage to the down.
func damage(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("crit", "nonlethal", "kind", "pool"); err != nil {
		return nil, err
	}
	targets, err := loadTargets(m, m.Req.Options["target"], true)
	if err != nil {
		return nil, err
	}
	amount, rolled, err := m.Amount(0, commands.MaxAmount, "of damage")
	if err != nil {
		return nil, err
	}
	typ := m.Req.Options["type"]
	hit := rules.Hit{Amount: amount, Soak: m.Req.Options["soak"] == "true", Type: typ,
		NonLethal: m.Req.Options["lethal"] == "false", Now: clock.Time(m.Table.Clock)}
	var lines []string
	if rolled != "" {
		lines = append(lines, "Damage "+rolled)
	}
	var zero []*character
	for _, h := range targets {
		hpBefore, hdBefore := h.c.HP, h.c.HD
		c, o, res, err := h.c.TakeDamage(m.Dice(), hit)
		if err != nil {
			return nil, ruleError(h, err)
		}
		m.Record(o.Rolls...)
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		kind := ""
		if typ != "" && typ != rules.Other {
			kind = " " + typ
		}
		line := fmt.Sprintf("%s takes %d%s damage", h.name(), amount, kind)
		if hit.Soak {
			line += fmt.Sprintf(" (soaked %d → %d)", res.Soaked, res.Taken)
		}
		line += fmt.Sprintf(": HP %d → %d · HD %d → %d", hpBefore, c.HP, hdBefore, c.HD)
		lines = append(lines, line)
		for _, n := range o.Notes {
			lines = append(lines, "  "+n)
		}
		lines = append(lines, injuryLines(o)...)
		lines[len(lines)-1] += h.conditions(m)
		m.Note("%s takes %d damage: HP %d → %d, HD %d → %d", h.ch.Name, amount, hpBefore, c.HP, hdBefore, c.HD)
		if res.ReachedZero {
			zero = append(zero, h)
		}
	}
	resp := &commands.Response{Content: strings.Join(lines, "\n")}
	if len(zero) == 0 {
		return resp, nil
	}
	if len(zero) > 5 {
		return nil, commands.Errorf(commands.CodeInvalid, "%d characters would reach 0 HP at once; a message holds at most 5 choices. Split the targets.", len(zero))
	}
	seq, err := m.NextEventSeq()
	if err != nil {
		return nil, err
	}
	for _, h := range zero {
		h.sheet.ChoiceSeq, h.sheet.Chose = seq, ""
		if err := h.store(m, h.c); err != nil {
			return nil, err
		}
	}
	resp.Components = choiceRows(zero, seq)
	resp.Embeds = []commands.Embed{oddsEmbed(zero)}
	resp.Files = []commands.File{injuryOddsLater()} // the odds chart, drawn after the transaction
	return resp, nil
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
