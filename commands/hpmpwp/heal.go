package hpmpwp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// heal is /heal amount pool:hp|wp (RULES.md §2.5).
func heal(m *commands.Mutation) (*commands.Response, error) {
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	pool := rules.PoolHP // pool is hp or wp (Options)
	if m.Req.Options["pool"] == "wp" {
		pool = rules.PoolWP
	}
	all := m.For(targets...)
	n, rolled, err := all.Amount(1, commands.MaxAmount, "healed")
	if err != nil {
		return nil, err
	}
	if n < 1 {
		for _, ch := range targets {
			if err := m.CanChange(ch); err != nil {
				return nil, err
			}
		}
		all.Say("No healing (the roll came to 0).%s", all.RollsLine())
		return &commands.Response{}, nil
	}
	points := "HP"
	if pool == rules.PoolWP {
		points = "WP"
	}
	what := fmt.Sprintf(" heals %d %s", n, points)
	if rolled != "" {
		what = fmt.Sprintf(" heals %s %s", rolled, points)
	}
	if len(targets) > 1 {
		all.Say("Healing:%s.", strings.TrimPrefix(what, " heals"))
		what = ""
	}
	return each(m, targets, what, m.CanChange, func(c rules.Character, _ dice.Source) (rules.Character, rules.Outcome, error) {
		return c.Heal(pool, n)
	})
}

// attend is /attend bonus:N, a DC 15 Heal check by anyone (RULES.md
// §0.1, §2.4).
func attend(m *commands.Mutation) (*commands.Response, error) {
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	bonus, _ := strconv.Atoi(m.Req.Options["bonus"])
	healer, err := m.Healer(targets...)
	if err != nil {
		return nil, err
	}
	who := commands.Escape(m.Req.UserName)
	if healer != nil {
		who = "**" + commands.Escape(healer.Name) + "**"
	}
	anyone := func(*storage.Character) error { return nil }
	m.ForTable().Say("%s attends (a DC 15 Heal check).", who)
	m.ForTable().Note("%s attends (a DC 15 Heal check).", commands.Unmarkdown(who))
	return each(m, targets, "", anyone, func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error) {
		return c.Attend(src, bonus)
	})
}

// spend is /spend resource:mp (RULES.md §2.5; mp is the only value
// Options gives resource).
func spend(m *commands.Mutation) (*commands.Response, error) {
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(m.Req.Options["amount"])
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "amount must be a whole number.")
	}
	return each(m, targets, fmt.Sprintf(" spends %d MP", n), m.CanChange, func(c rules.Character, _ dice.Source) (rules.Character, rules.Outcome, error) {
		return c.SpendMP(n)
	})
}
