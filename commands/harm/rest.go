package harm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

// rest answers /rest for harm (RULES.md §3.3): kind:day (GM). Without
// target a day passes on the table's clock (which ends any conflict) and
// every character's pools refill; with target only those characters rest:
// their pools refill and each gains a day of rest for itself, while the
// clock stands (rules.Character.RestDay). It tells who may now heal with
// trigger:rest. The pools refill before the clock moves, so that the day
// the clock passes (AdvanceClock) finds them full and says nothing more.
func (sys System) rest(m *commands.Mutation) (*commands.Response, error) {
	// kind is day, the only value Options gives it.
	if err := m.RequireGM("pass a day of rest"); err != nil {
		return nil, err
	}
	var chars []*storage.Character
	t, alone := m.Req.Options["target"]
	if alone {
		var err error
		if chars, err = m.Targets(t); err != nil {
			return nil, err
		}
		names := make([]string, len(chars))
		for i, ch := range chars {
			names[i] = "**" + commands.Escape(ch.Name) + "**"
		}
		verb := "rests"
		if len(chars) > 1 {
			verb = "rest"
		}
		head := fmt.Sprintf("%s %s a day; the table's clock does not move (%s).", strings.Join(names, ", "), verb, clock.Time(m.Table.Clock))
		m.ForTable().Note("%s", commands.Unmarkdown(head))
		m.ForTable().Say("%s", head)
	} else {
		var err error
		if chars, err = m.Characters(); err != nil {
			return nil, err
		}
	}
	rested := make([]rules.Character, len(chars))
	changed := make([][]rules.PoolChange, len(chars))
	for i, ch := range chars {
		char, err := load(ch)
		if err != nil {
			return nil, err
		}
		c := char.c
		n, changes := c.RefreshPools()
		if alone {
			n, changes = c.RestDay()
		}
		if err := char.store(m, n); err != nil {
			return nil, err
		}
		rested[i], changed[i] = n, changes
	}
	if !alone {
		if _, err := m.AdvanceClock(1, clock.Day); err != nil {
			return nil, err
		}
	}
	now := clock.Time(m.Table.Clock)
	for i, ch := range chars {
		m := m.For(ch)
		if len(changed[i]) > 0 {
			m.Note("%s: %s.", ch.Name, poolsText(changed[i]))
		}
		if line := restLine(ch, rested[i], changed[i], now); line != "" {
			m.Say("%s.", line)
		}
	}
	return &commands.Response{}, nil
}

// restLine says what a day of rest did to ch's pools at clock time now
// (RULES.md §3.3), e.g. "**Garrett**: Vigor 1 → 4, Reason 2 → 3 (day of
// rest); may heal (Bloody) with /heal target:Garrett trigger:rest", or ""
// when it changed nothing and leaves nothing to heal (no period: the
// caller ends the sentence).
func restLine(ch *storage.Character, n rules.Character, changes []rules.PoolChange, now clock.Time) string {
	var parts []string
	if len(changes) > 0 {
		parts = append(parts, poolsText(changes))
	}
	if n.NeedsHealing() && n.RestHealings(now) > 0 {
		parts = append(parts, fmt.Sprintf("may heal (%s) with %s", n.Condition, commands.CodeSpan("/heal target:"+ch.Name+" trigger:rest")))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("**%s**: %s", commands.Escape(ch.Name), strings.Join(parts, "; "))
}

// spend answers /spend for harm: pool points spent outside a check (RULES.md
// §3.1).
func (sys System) spend(m *commands.Mutation) (*commands.Response, error) {
	pool := m.Req.Options["resource"] // a pool (Options)
	n, err := strconv.Atoi(m.Req.Options["amount"])
	if err != nil || n < 1 {
		return nil, commands.Errorf(commands.CodeInvalid, "amount is a whole number of 1 or more.")
	}
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	for _, ch := range targets {
		m := m.For(ch)
		char, err := load(ch)
		if err != nil {
			return nil, err
		}
		c := char.c
		nc, change, err := c.Spend(pool, n)
		if err != nil {
			return nil, ruleError(ch.Name, err)
		}
		if err := char.store(m, nc); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("**%s** spends %d %s: %s %d → %d.", commands.Escape(ch.Name), n, abilityLabel(pool), abilityLabel(pool), change.Before, change.After)
		m.Note("%s", commands.Unmarkdown(line))
		m.Say("%s", line)
	}
	return &commands.Response{}, nil
}
