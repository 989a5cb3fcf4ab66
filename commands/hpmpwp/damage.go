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

// each runs fn on each target the caller may change, with the rules'
// dice, and joins the reports. fn returns the new state and outcome.
func each(m *commands.Mutation, targets []*storage.Character, check func(*storage.Character) error,
	fn func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error)) ([]string, error) {
	var reports []string
	src := m.RecordingDice()
	for _, ch := range targets {
		if err := check(ch); err != nil {
			return nil, err
		}
		c, s, err := load(ch)
		if err != nil {
			return nil, err
		}
		next, out, err := fn(c, src)
		if err != nil {
			return nil, ruleError(ch, err)
		}
		if err := store(m, ch, next, s.ChoiceSeq); err != nil {
			return nil, err
		}
		rep := outcomeText(ch.Name, out)
		m.Note("%s", strings.ReplaceAll(rep, "**", ""))
		reports = append(reports, rep)
	}
	return reports, nil
}

func reply(m *commands.Mutation, reports []string) *commands.Response {
	return &commands.Response{Content: strings.Join(reports, "\n\n")}
}

// damage is /damage (RULES.md §2.2, §2.4).
func damage(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("soak", "type", "lethal", "kind", "pool"); err != nil {
		return nil, err
	}
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	hit := rules.Hit{Nonlethal: m.Req.Options["nonlethal"] == "true"}
	if c := m.Req.Options["crit"]; c != "" {
		hit.Crit, _ = strconv.Atoi(c)
	}
	if hit.Amount, _, err = m.Amount(1, commands.MaxAmount, "of damage"); err != nil {
		return nil, err
	}
	if hit.Amount < 1 {
		return &commands.Response{Content: "No damage (the roll came to 0)." + m.RollsLine()}, nil
	}
	seq, err := m.NextEventSeq()
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf("%d damage", hit.Amount)
	if hit.Crit > 0 {
		head += fmt.Sprintf(", critical ×%d", hit.Crit)
	}
	if hit.Nonlethal {
		head += ", non-lethal"
	}
	var rows [][]commands.Button
	var names []string
	var reports []string
	src := m.RecordingDice()
	for _, ch := range targets {
		c, s, err := load(ch)
		if err != nil {
			return nil, err
		}
		next, out, err := c.TakeDamage(src, hit, m.Table.Clock)
		if err != nil {
			return nil, ruleError(ch, err)
		}
		choiceSeq := s.ChoiceSeq
		if next.ChoicePending && !c.ChoicePending {
			choiceSeq = seq
			rows = append(rows, choiceButtons(ch.ID, seq, false))
			names = append(names, ch.Name)
		}
		if err := store(m, ch, next, choiceSeq); err != nil {
			return nil, err
		}
		rep := outcomeText(ch.Name, out)
		m.Note("%s", strings.ReplaceAll(rep, "**", ""))
		reports = append(reports, rep)
	}
	content := head + ".\n" + strings.Join(reports, "\n\n")
	switch {
	case len(rows) == 1:
		content += "\nDie Hard: the owner (or a GM) chooses now — **Act Disabled** or **Fall Unconscious** (stable). Damage to the character waits for the choice."
	case len(rows) > 1:
		var bold []string
		for _, n := range names {
			bold = append(bold, "**"+commands.Escape(n)+"**")
		}
		content += fmt.Sprintf("\nDie Hard: each owner (or a GM) chooses now on the row with the character's name — **Act Disabled** or **Fall Unconscious** (stable): %s. Damage to them waits for the choice.",
			strings.Join(bold, ", "))
		rows = nameRows(rows, names)
	}
	if len(rows) > maxRows {
		rows = rows[:maxRows]
		content += "\nMore choices than a message holds: /char show offers each character's buttons."
	}
	return &commands.Response{Content: content + m.RollsLine(), Components: rows}, nil
}

// strain is /strain (RULES.md §2.4).
func strain(m *commands.Mutation) (*commands.Response, error) {
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	reports, err := each(m, targets, m.CanChange, func(c rules.Character, src dice.Source) (rules.Character, rules.Outcome, error) {
		return c.Strain(src, m.Table.Clock)
	})
	if err != nil {
		return nil, err
	}
	return reply(m, reports), nil
}
