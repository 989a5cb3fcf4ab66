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

// each runs fn on each target the caller may change (check), with the
// rules' dice, and says each outcome about its character in a line (its
// saves show every die), led by its name and what (e.g. " spends 3 MP"),
// and notes each step. fn returns the new state and outcome.
func each(m *commands.Mutation, targets []*storage.Character, what string, check func(*storage.Character) error,
	fn func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error)) (*commands.Response, error) {
	for _, ch := range targets {
		m := m.For(ch)
		if err := check(ch); err != nil {
			return nil, err
		}
		char, err := load(ch)
		if err != nil {
			return nil, err
		}
		c := char.c
		next, out, err := fn(c, m.Dice())
		if err != nil {
			return nil, ruleError(ch, err)
		}
		if err := char.store(m, next); err != nil {
			return nil, err
		}
		m.Note("%s", detailText(ch.Name, out))
		m.Say("%s", outcomeText(ch.Name, what, out, nil))
	}
	return &commands.Response{}, nil
}

// damage is /damage (RULES.md §2.2, §2.4).
func damage(m *commands.Mutation) (*commands.Response, error) {
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	hit := rules.Hit{Nonlethal: m.Req.Options["nonlethal"] == "true"}
	if c := m.Req.Options["crit"]; c != "" {
		hit.Crit, _ = strconv.Atoi(c)
	}
	all := m.For(targets...)
	var rolled string
	if hit.Amount, rolled, err = all.Amount(1, commands.MaxAmount, "of damage"); err != nil {
		return nil, err
	}
	if hit.Amount < 1 {
		all.Say("No damage (the roll came to 0).%s", all.RollsLine())
		return &commands.Response{}, nil
	}
	seq, err := m.NextEventSeq()
	if err != nil {
		return nil, err
	}
	// One target's line says the damage, with its dice; several share a
	// line that does.
	head := fmt.Sprintf("%d damage", hit.Amount)
	if rolled != "" {
		head = rolled + " damage"
	}
	if hit.Crit > 0 {
		head += fmt.Sprintf(", critical ×%d", hit.Crit)
	}
	if hit.Nonlethal {
		head += ", non-lethal"
	}
	what := " takes " + head
	if len(targets) > 1 {
		all.Say("%s.", strings.ToUpper(head[:1])+head[1:])
		what = ""
	}
	for _, ch := range targets {
		m := m.For(ch)
		char, err := load(ch)
		if err != nil {
			return nil, err
		}
		c := char.c
		next, out, err := c.TakeDamage(m.Dice(), hit, m.Table.Clock)
		if err != nil {
			return nil, ruleError(ch, err)
		}
		var buttons [][]commands.Button
		if next.ChoicePending && !c.ChoicePending {
			char.sheet.ChoiceSeq = seq // the buttons name this event
			buttons = [][]commands.Button{choiceButtons(ch.ID, seq, false)}
		}
		if err := char.store(m, next); err != nil {
			return nil, err
		}
		rep := outcomeText(ch.Name, what, out, nil)
		m.Note("%s", detailText(ch.Name, out))
		if buttons != nil {
			rep += fmt.Sprintf("\nDie Hard: %s (its owner) or a GM chooses now — **Act Disabled** or **Fall Unconscious** (stable). Damage to **%s** waits for the choice.",
				commands.Escape(ch.OwnerName), commands.Escape(ch.Name))
		}
		m.Post(commands.Part{Text: rep, Buttons: buttons})
	}
	return &commands.Response{}, nil
}

// strain is /strain (RULES.md §2.4).
func strain(m *commands.Mutation) (*commands.Response, error) {
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	return each(m, targets, " strains", m.CanChange, func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error) {
		return c.Strain(src, m.Table.Clock)
	})
}
