package hitprot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// save answers /save (RULES.md §0.4, §1.2, §1.6): d20 + hit dice + bonus
// against the character's target.
func save(m *commands.Mutation) (*commands.Response, error) {
	cat := m.Req.Options["type"] // one of rules.SaveCategories (Options)
	hd, _ := strconv.Atoi(m.Req.Options["hd"])
	bonus, _ := strconv.Atoi(m.Req.Options["bonus"])
	targets, err := loadTargets(m, m.Req.Options["target"], true)
	if err != nil {
		return nil, err
	}
	for _, h := range targets {
		m := m.For(h.ch)
		hdBefore := h.c.HD
		c, s, err := h.c.Save(m.Dice(), cat, hd, bonus)
		if err != nil {
			return nil, ruleError(h, err)
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("%s: %s", h.name(), s)
		if hd := commands.Change("HD", hdBefore, c.HD, c.Level); hd != "" {
			line += " · " + hd
		}
		m.Say("%s", line)
		m.Note("%s %s", h.ch.Name, s)
	}
	return &commands.Response{}, nil
}

// spend answers /spend resource:hd (RULES.md §1.6; hd is the only value
// Options gives resource).
func spend(m *commands.Mutation) (*commands.Response, error) {
	n, _ := strconv.Atoi(m.Req.Options["amount"])
	targets, err := loadTargets(m, m.Req.Options["target"], true)
	if err != nil {
		return nil, err
	}
	for _, h := range targets {
		m := m.For(h.ch)
		before := h.c.HD
		c, err := h.c.SpendHD(n)
		if err != nil {
			return nil, ruleError(h, err)
		}
		if err := h.store(m, c); err != nil {
			return nil, err
		}
		m.Say("%s spends %d hit %s: %s", h.name(), n, map[bool]string{true: "die", false: "dice"}[n == 1], commands.Change("HD", before, c.HD, c.Level))
		m.Note("%s spent %d HD: %d → %d.", h.ch.Name, n, before, c.HD)
	}
	return &commands.Response{}, nil
}

// roll answers /roll as:… (RULES.md §1.6): the expression, plus hd hit
// dice within the one-die rule and its class exceptions.
func roll(m *commands.Mutation) (*commands.Response, error) {
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
	h, err := load(ch)
	if err != nil {
		return nil, err
	}
	if h.c.Status == rules.Dead {
		return nil, ruleError(h, rules.ErrDead)
	}
	m = m.For(ch)
	hd, _ := strconv.Atoi(m.Req.Options["hd"])
	purpose := m.Req.Options["purpose"]
	if purpose == "" {
		purpose = rules.PurposeOther
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
		if lim := rules.HDLimit(h.c.Class, purpose, melee); hd > 0 && lim != rules.Unlimited && hd > lim {
			_, _, err := h.c.AddHD(nil, hd, purpose, melee)
			return nil, ruleError(h, err)
		}
		if hd > h.c.HD {
			_, _, err := h.c.AddHD(nil, hd, purpose, melee)
			return nil, ruleError(h, err)
		}
		if base, err = m.Roll(e); err != nil {
			return nil, err
		}
	}
	before := h.c.HD
	c, hdRoll, err := h.c.AddHD(m.Dice(), hd, purpose, melee)
	if err != nil {
		return nil, ruleError(h, err)
	}
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
		line += " · " + commands.Change("HD", before, c.HD, c.Level)
		m.Note("%s rolled %s, spending %d HD.", ch.Name, strings.Join(parts, " + "), hd)
	}
	m.Say("%s", line+commands.ReadingNotes(base.Expr))
	return &commands.Response{}, nil
}
