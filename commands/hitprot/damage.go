package hitprot

import (
	"fmt"
	"strconv"
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
	// One target shows the dice in its line; several share one line of them.
	taken := strconv.Itoa(amount)
	if rolled != "" && len(targets) > 1 {
		m.For(all...).Say("Damage %s.", rolled)
	} else if rolled != "" {
		taken = rolled
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
		line := fmt.Sprintf("%s takes %s%s damage", h.name(), taken, kind)
		notes := o.Notes
		if hit.Soak { // the soak's note comes first: said here, with its die
			line += fmt.Sprintf(", soaked to %d with a hit die (%s)", res.Taken, o.Rolls[0])
			notes = notes[1:]
		}
		if res.ReachedZero { // its note comes last: the choice follows
			notes = notes[:len(notes)-1]
		}
		if inj := injuryText(o); inj != "" {
			notes = append(notes, inj)
		}
		if ch := points(hpBefore, hdBefore, c); ch != "" {
			notes = append([]string{ch}, notes...)
		}
		if len(notes) > 0 {
			line += ": " + strings.Join(notes, "; ")
		}
		m.Say("%s.", line)
		m.Note("%s.", commands.Unmarkdown(line))
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

// points renders the HP and HD that changed since hpBefore and hdBefore,
// e.g. "HP 4 → 0/6 · HD 1 → 0/1", or "" when neither did.
func points(hpBefore, hdBefore int, c rules.Character) string {
	return commands.Changes(commands.Change("HP", hpBefore, c.HP, c.HitDie), commands.Change("HD", hdBefore, c.HD, c.Level))
}

// injuryText renders an outcome's injury roll and its effects on one
// line (RULES.md §1.4), e.g. "injury 1d6 [2] = 2 + 7 damage = 9 →
// **Critical Wound**: untreated wound …; stunned 4 rounds (…)", or "".
func injuryText(o rules.Outcome) string {
	if o.Injury == nil {
		return ""
	}
	inj := o.Injury
	s := "injury " + inj.Roll.String()
	if inj.Damage > 0 {
		s += fmt.Sprintf(" + %d damage = %d", inj.Damage, inj.Total)
	}
	if inj.Total < 2 || inj.Total > 12 {
		s += fmt.Sprintf(" (counts as %d)", max(2, min(inj.Total, 12)))
	}
	s += " → **" + inj.Band.String() + "**"
	if len(inj.Effects) > 0 {
		s += ": " + strings.Join(inj.Effects, "; ")
	}
	return s
}
