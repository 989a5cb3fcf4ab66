package hitprot

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// attend answers /attend (RULES.md §1.3 item 6, §1.4): any other
// character's player, or a GM, may attend — not the target's own player,
// who could otherwise undo and re-roll its hidden fate — optionally naming
// the attending character (healer); a down character's fate is rolled with
// 3d6dh1, and bleed-outs stop as the wound allows (skilled:true, a skilled
// healer or healing magic, for a Fatal Wound I).
func attend(m *commands.Mutation) (*commands.Response, error) {
	targets, err := loadTargets(m, m.Req.Options["target"], false)
	if err != nil {
		return nil, err
	}
	skilled := m.Req.Options["skilled"] == "true"
	// healer:true and healer:false are the old spelling of skilled (RULES.md
	// §1.4 still says healer:true), unless a character has that name.
	if v, ok := m.Req.Options["healer"]; ok && (strings.EqualFold(v, "true") || strings.EqualFold(v, "false")) {
		if _, err := m.Character(v); err != nil {
			skilled = skilled || strings.EqualFold(v, "true")
			delete(m.Req.Options, "healer")
		}
	}
	patients := make([]*storage.Character, len(targets))
	for i, h := range targets {
		patients[i] = h.ch
	}
	healer, err := m.Healer(patients...)
	if err != nil {
		return nil, err
	}
	who := commands.Escape(m.Req.UserName)
	if healer != nil {
		who = "**" + commands.Escape(healer.Name) + "**"
	}
	if skilled {
		who += " (a skilled healer)"
	}
	for _, h := range targets {
		m := m.For(h.ch)
		if h.ch.OwnerID == m.Req.UserID && !m.IsGM() {
			return nil, commands.Errorf(commands.CodeForbidden, "%s is yours: another character's player or a GM attends %s. Nothing was changed.", h.name(), h.name())
		}
		hpBefore, hdBefore := h.c.HP, h.c.HD
		c, o, err := h.c.Attend(m.Dice(), skilled, clock.Time(m.Table.Clock))
		switch {
		case err == nil:
		case h.ch.Hidden && !m.IsGM():
			// Why is the hidden character's wound and countdown: its GM's.
			return nil, commands.Errorf(commands.CodeConflict, "%s: this attend can do nothing for it now. Nothing was changed.", h.name())
		case errors.Is(err, rules.ErrCannotStop) && !skilled && slices.ContainsFunc(h.c.Bleeds, func(b rules.Bleed) bool { return b.Wound == rules.FatalWoundI }):
			return nil, commands.Errorf(commands.CodeConflict, "%s: %s. Nothing was changed. A skilled healer or healing magic attends with %s.",
				h.name(), reason(err), commands.CodeSpan("/attend target:"+h.ch.Name+" skilled:true"))
		default:
			return nil, ruleError(h, err)
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		var parts []string
		if ch := points(hpBefore, hdBefore, c); ch != "" {
			parts = append(parts, ch)
		}
		if inj := injuryText(o); inj != "" {
			parts = append(parts, "fate revealed, with advantage: "+inj)
		}
		parts = append(parts, o.Notes...)
		line := fmt.Sprintf("%s attends %s (a round)", who, h.name())
		if len(parts) > 0 {
			line += ": " + strings.Join(parts, "; ")
		}
		line += "."
		if c.Status == rules.Dead {
			line += " " + h.name() + " is dead."
		}
		m.Say("%s", line)
		m.Note("%s", commands.Unmarkdown(line))
	}
	return &commands.Response{}, nil
}

// treat answers /treat (RULES.md §1.4): anyone may treat a character's
// untreated wounds, ending the mobility handicap.
func treat(m *commands.Mutation) (*commands.Response, error) {
	targets, err := loadTargets(m, m.Req.Options["target"], false)
	if err != nil {
		return nil, err
	}
	for _, h := range targets {
		m := m.For(h.ch)
		n, mobility := h.c.Untreated, h.c.Mobility
		c, err := h.c.Treat()
		if err != nil {
			return nil, ruleError(h, err)
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		gone := ""
		if mobility {
			gone = "; the mobility handicap ends"
		}
		m.Say("%s treats %s: untreated wounds %d → 0%s.", commands.Escape(m.Req.UserName), h.name(), n, gone)
		m.Note("%s treated %s: untreated wounds %d → 0.", m.Req.UserName, h.ch.Name, n)
	}
	return &commands.Response{}, nil
}
