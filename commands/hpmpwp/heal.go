package hpmpwp

import (
	"errors"
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
	check := canHeal(m)
	if n < 1 {
		for _, ch := range targets {
			if err := check(ch); err != nil {
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
	return each(m, targets, what, check, func(c rules.Character, _ dice.Source) (rules.Character, rules.Outcome, error) {
		return c.Heal(pool, n)
	})
}

// canHeal is m.CanChange for a /heal patient. Refused on another's dying
// character that players see, it adds the way that needs no leave: a Heal
// check by a conscious character of the caller's own, /attend (RULES.md
// §0.1, §2.4), typed as it works.
func canHeal(m *commands.Mutation) func(*storage.Character) error {
	return func(patient *storage.Character) error {
		err := m.CanChange(patient)
		var e *commands.Error
		if err == nil || patient.Hidden || !errors.As(err, &e) {
			return err
		}
		p, lerr := load(patient)
		if lerr != nil {
			return lerr
		}
		if p.c.State != rules.Dying {
			return err
		}
		all, lerr := m.Tx().Characters(m.Req.ChannelID)
		if lerr != nil {
			return lerr
		}
		for _, ch := range all {
			if ch.OwnerID != m.Req.UserID || ch.ID == patient.ID {
				continue
			}
			if h, lerr := load(ch); lerr != nil || !h.c.State.Conscious() {
				continue
			}
			attend := commands.CodeSpan("/attend target:" + patient.Name + " healer:" + ch.Name)
			return commands.Errorf(e.Code, "%s Or stabilize it with a Heal check (DC 15), which needs no leave: %s.", e.Message, attend)
		}
		return err
	}
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
