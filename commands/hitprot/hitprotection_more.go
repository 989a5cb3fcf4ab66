package hitprot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// hpAttend answers /attend (RULES.md §1.3 item 6, §1.4): any other
// character's player, or a GM, may attend — not the target's own player,
// who could otherwise undo and re-roll its hidden fate; a down character's
// fate is rolled with 3d6dh1, and bleed-outs stop as the wound allows
// (healer:true for a Fatal Wound I).
func hpAttend(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("bonus"); err != nil {
		return nil, err
	}
	targets, err := hpTargets(m, m.Req.Options["target"], false)
	if err != nil {
		return nil, err
	}
	healer := m.Req.Options["healer"] == "true"
	var lines []string
	for _, h := range targets {
		if h.ch.OwnerID == m.Req.UserID && !m.IsGM() {
			return nil, commands.Errorf(commands.CodeForbidden, "%s is yours: another character's player or a GM attends %s (RULES.md §1.3). Nothing was changed.", h.name(), h.name())
		}
		hpBefore, hdBefore := h.c.HP, h.c.HD
		c, o, err := h.c.Attend(m.Dice(), healer, clock.Time(m.Table.Clock))
		if err != nil {
			return nil, hpError(h, err)
		}
		m.Record(o.Rolls...)
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		who := commands.Escape(m.Req.UserName)
		if healer {
			who += " (a skilled healer)"
		}
		lines = append(lines, fmt.Sprintf("%s attends %s (a round): HP %d → %d · HD %d → %d", who, h.name(), hpBefore, c.HP, hdBefore, c.HD))
		if o.Injury != nil {
			lines = append(lines, "  Fate revealed, with advantage:")
		}
		lines = append(lines, injuryLines(o)...)
		for _, n := range o.Notes {
			lines = append(lines, "  · "+n)
		}
		if c.Status == hitprot.Dead {
			lines = append(lines, h.name()+" is dead.")
		}
		lines[len(lines)-1] += h.conditions(m)
		m.Note("%s attended %s.", m.Req.UserName, h.ch.Name)
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}

// hpTreat answers /treat (RULES.md §1.4): anyone may treat a character's
// untreated wounds, ending the mobility handicap.
func hpTreat(m *commands.Mutation) (*commands.Response, error) {
	targets, err := hpTargets(m, m.Req.Options["target"], false)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, h := range targets {
		n, mobility := h.c.Untreated, h.c.Mobility
		c, err := h.c.Treat()
		if err != nil {
			return nil, hpError(h, err)
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		gone := ""
		if mobility {
			gone = "; the mobility handicap ends"
		}
		lines = append(lines, fmt.Sprintf("%s treats %s: untreated wounds %d → 0%s.%s", commands.Escape(m.Req.UserName), h.name(), n, gone, h.conditions(m)))
		m.Note("%s treated %s (%d wounds).", m.Req.UserName, h.ch.Name, n)
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}

// hpOwnTarget resolves `target`, or the caller's first character when none
// is given.
func hpOwnTarget(m *commands.Mutation) ([]*hpChar, error) {
	if t, ok := m.Req.Options["target"]; ok {
		return hpTargets(m, t, true)
	}
	all, err := m.Characters()
	if err != nil {
		return nil, err
	}
	for _, ch := range all {
		if ch.OwnerID == m.Req.UserID {
			h, err := loadHP(ch)
			if err != nil {
				return nil, err
			}
			return []*hpChar{h}, nil
		}
	}
	return nil, commands.Errorf(commands.CodeNotFound, "You have no character at this table; name one with target.")
}

// hpRest answers /rest (RULES.md §1.5): turn (spend 1 HD, keep the higher),
// breath (table option catch-breath, fighters only) and the GM's night (the
// whole table: the clock moves 1 day first; every sleeper re-rolls keeping
// the higher and regains 1 HD).
func hpRest(m *commands.Mutation) (*commands.Response, error) {
	kind := m.Req.Options["kind"]
	switch kind {
	case "turn", "breath":
		if kind == "breath" && m.Table.Options["catch-breath"] != "on" {
			return nil, commands.Errorf(commands.CodeConflict, "Catching breath is off at this table; a GM turns it on with /table option name:catch-breath value:on.")
		}
		targets, err := hpOwnTarget(m)
		if err != nil {
			return nil, err
		}
		now := clock.Time(m.Table.Clock)
		var lines []string
		for _, h := range targets {
			var c hitprot.Character
			var res hitprot.RestResult
			if kind == "turn" {
				c, res, err = h.c.Rest(m.Dice(), now)
			} else {
				c, res, err = h.c.CatchBreath(m.Dice(), now)
			}
			if errors.Is(err, hitprot.ErrNotFighter) {
				return nil, commands.Errorf(commands.CodeConflict, "%s is a %s: only a fighter may catch its breath.", h.name(), commands.Escape(h.c.Class))
			}
			if errors.Is(err, hitprot.ErrCannotRestore) || errors.Is(err, hitprot.ErrNoHD) {
				why := trimSentinel(hpReason(err, hitprot.ErrCannotRestore), hitprot.ErrNoHD)
				if errors.Is(err, hitprot.ErrNoHD) {
					why = "no hit dice left; " + why
				}
				return nil, commands.Errorf(commands.CodeConflict, "%s cannot rest to restore HP: %s. Nothing was changed.", h.name(), why)
			}
			if err != nil {
				return nil, hpError(h, err)
			}
			m.Record(res.Roll)
			if err := h.store(m, c); err != nil {
				return nil, err
			}
			what := "rests a turn"
			if kind == "breath" {
				what = "steps out of the fight for a round to catch its breath (not in melee)"
			}
			lines = append(lines, fmt.Sprintf("%s %s, spends a hit die: %s, keeps the higher: HP %d → %d · HD %d → %d%s",
				h.name(), what, res.Roll, res.HPBefore, res.HPAfter, res.HDBefore, res.HDAfter, h.conditions(m)))
			m.Note("%s %s: HP %d → %d, HD %d → %d.", h.ch.Name, what, res.HPBefore, res.HPAfter, res.HDBefore, res.HDAfter)
		}
		return &commands.Response{Content: strings.Join(lines, "\n")}, nil
	case "night":
		if err := m.RequireGM("call a night's sleep"); err != nil {
			return nil, err
		}
		var lines []string
		var sleepers []*hpChar
		var err error
		if t, ok := m.Req.Options["target"]; ok {
			sleepers, err = hpTargets(m, t, false)
			if err != nil {
				return nil, err
			}
		} else {
			report, err := m.AdvanceClock(1, clock.Day)
			if err != nil {
				return nil, err
			}
			lines = append(lines, report...)
			all, err := m.Characters()
			if err != nil {
				return nil, err
			}
			for _, ch := range all {
				h, err := loadHP(ch)
				if err != nil {
					return nil, err
				}
				sleepers = append(sleepers, h)
			}
		}
		now := clock.Time(m.Table.Clock)
		for _, h := range sleepers {
			if h.c.Status == hitprot.Dead {
				if _, ok := m.Req.Options["target"]; ok {
					return nil, hpError(h, hitprot.ErrDead)
				}
				continue
			}
			c, res, err := h.c.Night(m.Dice(), now)
			if err != nil {
				return nil, hpError(h, err)
			}
			m.Record(res.Roll)
			if err := h.store(m, c); err != nil {
				return nil, err
			}
			roll := "re-rolls " + res.Roll.String() + ", keeps the higher"
			if res.Skipped != "" {
				roll = "no re-roll (" + res.Skipped + ")"
			}
			lines = append(lines, fmt.Sprintf("%s sleeps the night: %s: HP %d → %d · HD %d → %d (regains 1 hit die, up to the level)%s",
				h.name(), roll, res.HPBefore, res.HPAfter, res.HDBefore, res.HDAfter, h.conditions(m)))
			m.Note("%s slept: HP %d → %d, HD %d → %d.", h.ch.Name, res.HPBefore, res.HPAfter, res.HDBefore, res.HDAfter)
		}
		if len(sleepers) == 0 {
			lines = append(lines, "Nobody here to sleep.")
		}
		return &commands.Response{Content: strings.Join(lines, "\n")}, nil
	}
	return nil, commands.Errorf(commands.CodeInvalid, "The hit-protection system rests with kind turn, breath (catch-breath) or night; not %s.", commands.Clip(kind, 20))
}

// hpSave answers /save (RULES.md §0.4, §1.2, §1.6): d20 + hit dice + bonus
// against the character's target.
func hpSave(m *commands.Mutation) (*commands.Response, error) {
	cat := m.Req.Options["type"]
	if !isSaveCategory(cat) {
		return nil, commands.Errorf(commands.CodeInvalid, "The hit-protection saves are %s; not %s.", strings.Join(hitprot.SaveCategories, ", "), commands.Clip(cat, 20))
	}
	hd, _ := strconv.Atoi(m.Req.Options["hd"])
	bonus, _ := strconv.Atoi(m.Req.Options["bonus"])
	targets, err := hpTargets(m, m.Req.Options["target"], true)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, h := range targets {
		hdBefore := h.c.HD
		c, s, err := h.c.Save(m.Dice(), cat, hd, bonus)
		if err != nil {
			return nil, hpError(h, err)
		}
		m.Record(s.Roll, s.HD)
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("%s: %s", h.name(), s)
		if hd > 0 {
			line += fmt.Sprintf(" · HD %d → %d", hdBefore, c.HD)
		}
		lines = append(lines, line+h.conditions(m))
		m.Note("%s %s", h.ch.Name, s)
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}

// hpSpend answers /spend resource:hd (RULES.md §1.6).
func hpSpend(m *commands.Mutation) (*commands.Response, error) {
	if r := m.Req.Options["resource"]; r != "hd" {
		return nil, commands.Errorf(commands.CodeInvalid, "The hit-protection system spends only hd (hit dice), not %s.", commands.Clip(r, 20))
	}
	n, _ := strconv.Atoi(m.Req.Options["amount"])
	targets, err := hpTargets(m, m.Req.Options["target"], true)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, h := range targets {
		before := h.c.HD
		c, err := h.c.SpendHD(n)
		if err != nil {
			return nil, hpError(h, err)
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		lines = append(lines, fmt.Sprintf("%s spends %d hit %s: HD %d → %d", h.name(), n, map[bool]string{true: "die", false: "dice"}[n == 1], before, c.HD))
		m.Note("%s spent %d HD: %d → %d.", h.ch.Name, n, before, c.HD)
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}

// hpRoll answers /roll as:… (RULES.md §1.6): the expression, plus hd hit
// dice within the one-die rule and its class exceptions.
func hpRoll(m *commands.Mutation) (*commands.Response, error) {
	for _, opt := range []string{"ability", "pool"} {
		if _, ok := m.Req.Options[opt]; ok {
			return nil, commands.Errorf(commands.CodeUnavailable, "/roll %s: is not available for the hit-protection system.", opt)
		}
	}
	ch, err := m.Character(m.Req.Options["as"])
	if err != nil {
		return nil, err
	}
	if err := m.CanChange(ch); err != nil {
		return nil, err
	}
	h, err := loadHP(ch)
	if err != nil {
		return nil, err
	}
	if h.c.Status == hitprot.Dead {
		return nil, hpError(h, hitprot.ErrDead)
	}
	hd, _ := strconv.Atoi(m.Req.Options["hd"])
	purpose := m.Req.Options["purpose"]
	if purpose == "" {
		purpose = hitprot.PurposeOther
	}
	melee := m.Req.Options["melee"] == "true"
	expr, hasExpr := m.Req.Options["expr"]
	if !hasExpr && hd == 0 {
		return nil, commands.Errorf(commands.CodeInvalid, "/roll needs expr, e.g. expr:1d20+3 (and hd:N to add hit dice).")
	}
	var base dice.Result
	if hasExpr {
		e, err := dice.Parse(expr)
		if err != nil {
			return nil, commands.Errorf(commands.CodeInvalid, "Bad dice expression: %v.", err)
		}
		// Check the hit dice before rolling anything.
		if lim := hitprot.HDLimit(h.c.Class, purpose, melee); hd > 0 && lim != hitprot.Unlimited && hd > lim {
			_, _, err := h.c.AddHD(nil, hd, purpose, melee)
			return nil, hpError(h, err)
		}
		if hd > h.c.HD {
			_, _, err := h.c.AddHD(nil, hd, purpose, melee)
			return nil, hpError(h, err)
		}
		if base, err = m.Roll(e); err != nil {
			return nil, err
		}
	}
	before := h.c.HD
	c, hdRoll, err := h.c.AddHD(m.Dice(), hd, purpose, melee)
	if err != nil {
		return nil, hpError(h, err)
	}
	m.Record(hdRoll)
	if hd > 0 {
		if err := h.store(m, c); err != nil {
			return nil, err
		}
	}
	var parts []string
	total := 0
	if hasExpr {
		parts = append(parts, base.String())
		total += base.Total
	}
	if hd > 0 {
		parts = append(parts, "hit dice "+hdRoll.String())
		total += hdRoll.Total
	}
	line := fmt.Sprintf("%s rolled %s", h.name(), strings.Join(parts, " + "))
	if hasExpr && hd > 0 {
		line += fmt.Sprintf(" → **%d**", total)
	}
	if hd > 0 || m.Req.Options["purpose"] != "" {
		kind := purpose
		if melee {
			kind = "melee " + kind
		}
		line += " (" + kind + ")"
	}
	if hd > 0 {
		line += fmt.Sprintf(" · HD %d → %d", before, c.HD)
		m.Note("%s rolled %s, spending %d HD.", ch.Name, strings.Join(parts, " + "), hd)
	}
	return &commands.Response{Content: line}, nil
}

// AdvanceClock resolves every hit-protection timer as the clock moves
// (RULES.md §0.2, §1.4): stuns that end, limbs back in use, no-restoring
// periods that end, bleed-outs that kill.
func (System) AdvanceClock(m *commands.Mutation, from, to int64) ([]string, error) {
	all, err := m.Characters()
	if err != nil {
		return nil, err
	}
	var report []string
	for _, ch := range all {
		h, err := loadHP(ch)
		if err != nil {
			return nil, err
		}
		c, notes := h.c.Advance(clock.Time(from), clock.Time(to))
		if len(notes) == 0 {
			continue
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		for _, n := range notes {
			report = append(report, fmt.Sprintf("%s %s", h.name(), n))
		}
	}
	return report, nil
}
