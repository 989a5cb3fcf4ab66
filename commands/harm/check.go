package harm

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
)

// fudgeDice returns the Fudge dice of a check at the table: 3, or 4 with
// the table option fudge-dice 4 (RULES.md §3.1).
func fudgeDice(m *commands.Mutation) int {
	if m.Table.Options["fudge-dice"] == "4" {
		return rules.AltFudgeDice
	}
	return rules.DefaultFudgeDice
}

// poolOption reads the option opt naming a pool point to spend for a
// bonus die on a check (RULES.md §3.1): "" when absent, else vigor,
// instinct or reason.
func poolOption(m *commands.Mutation, opt string) (string, error) {
	v, ok := m.Req.Options[opt]
	if !ok {
		return "", nil
	}
	p := strings.ToLower(strings.TrimSpace(v))
	if !rules.IsPool(p) {
		return "", commands.Errorf(commands.CodeInvalid, "/%s %s: is vigor, instinct or reason in the harm system (a point of that pool buys a bonus die on the check), not %s.", m.Req.Command, opt, commands.Clip(v, 16))
	}
	return p, nil
}

// modsText lists a check's bonus and penalty dice with their reasons and,
// when both are present, what is left after they cancel (RULES.md §3.1).
func modsText(k rules.Check) string {
	var parts []string
	for _, md := range k.Mods {
		switch {
		case md.Dice > 0:
			parts = append(parts, fmt.Sprintf("%s (%s)", countDice(md.Dice, "bonus"), md.Why))
		case md.Dice < 0:
			parts = append(parts, fmt.Sprintf("%s (%s)", countDice(-md.Dice, "penalty"), md.Why))
		}
	}
	if k.Bonus() > 0 && k.Penalty() > 0 {
		switch net := k.Net(); {
		case net > 0:
			parts = append(parts, fmt.Sprintf("net %s", countDice(net, "bonus")))
		case net < 0:
			parts = append(parts, fmt.Sprintf("net %s", countDice(-net, "penalty")))
		default:
			parts = append(parts, "they cancel")
		}
	}
	return strings.Join(parts, ", ")
}

// countDice renders "1 bonus die", "2 penalty dice".
func countDice(n int, kind string) string {
	if n == 1 {
		return "1 " + kind + " die"
	}
	return fmt.Sprintf("%d %s dice", n, kind)
}

// checkText shows a rolled check: ability, rank with its label, bonus and
// penalty dice, every Fudge die and the success level (RULES.md §3.1), e.g.
// "Endure 2 (Journeyman), 1 penalty die (Broken): 4dFkl3+2 [~~+~~, 0, 0, −] + 2 = 1 → SL 1".
func checkText(res rules.CheckResult) string {
	k := res.Check
	s := fmt.Sprintf("%s %d (%s)", abilityLabel(k.Ability), k.Rank, rules.RankLabel(k.Rank))
	if mods := modsText(k); mods != "" {
		s += ", " + mods
	}
	return fmt.Sprintf("%s: %s → **SL %d**", s, res.Roll.String(), res.SL)
}

// poolsText shows pool changes, each reason said once: "Vigor 3 → 2
// (bonus die)", "Vigor 1 → 4, Instinct 0 → 3 (day of rest)".
func poolsText(changes []rules.PoolChange) string {
	var parts []string
	for i, ch := range changes {
		parts = append(parts, fmt.Sprintf("%s %d → %d", abilityLabel(ch.Pool), ch.Before, ch.After))
		// Each reason once, after the last change it explains.
		if i == len(changes)-1 || changes[i+1].Why != ch.Why {
			parts[len(parts)-1] += " (" + ch.Why + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// abilityName turns an ability as typed ("First Aid", "climb") into its
// sheet name ("first-aid").
func abilityName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "_", " ")), "-"))
}

// noAbility is the reply to a check of an ability the character lacks,
// with the /char set that adds it Unskilled when the name can be one.
func noAbility(name string, c rules.Character, ability string) error {
	var have []string
	for _, a := range c.AbilityNames() {
		have = append(have, abilityLabel(a))
	}
	add := ""
	if key := abilityName(ability); rules.ValidName(key) {
		add = fmt.Sprintf(" Add it with %s (Unskilled).", commands.CodeSpan("/char set name:"+name+" stats:"+key+"=0"))
	}
	end := commands.DidYouMean(abilityName(ability), c.AbilityNames())
	if end != "" {
		add = "" // a typo, most likely: no ability to add
	} else {
		end = "."
	}
	return commands.Errorf(commands.CodeInvalid, "%s has no ability %q%s It has %s.%s",
		commands.Escape(name), commands.Clip(ability, 32), end, strings.Join(have, ", "), add)
}

// roll answers /roll as:… for harm. With ability it is an action (RULES.md
// §3.1, §3.2): 3dF + rank with the condition's penalty die; pool spends a
// point of the ability's pool for a bonus die; while Broken the bot spends
// the action's point of the ability's pool, and refuses with none left.
// Without ability it rolls expr for the character.
func (sys System) roll(m *commands.Mutation) (*commands.Response, error) {
	ch, err := m.Character(m.Req.Options["as"])
	if err != nil {
		return nil, err
	}
	if err := m.CanChange(ch); err != nil {
		return nil, err
	}
	ability, hasAbility := m.Req.Options["ability"]
	expr, hasExpr := m.Req.Options["expr"]
	pool, hasPool := m.Req.Options["pool"]
	switch {
	case hasAbility && hasExpr:
		return nil, commands.Errorf(commands.CodeInvalid, "A check rolls its own dice: give ability or expr, not both.")
	case !hasAbility && hasPool:
		return nil, commands.Errorf(commands.CodeInvalid, "pool buys a bonus die on a check: give ability too, e.g. ability:endure pool:vigor.")
	case !hasAbility && !hasExpr:
		return nil, commands.Errorf(commands.CodeInvalid, "/roll as:%s needs ability (a check, e.g. ability:endure) or expr.", commands.Escape(ch.Name))
	case !hasAbility:
		m := m.For(ch)
		res, err := m.RollString(expr)
		if err != nil {
			return nil, err
		}
		m.Say("**%s** rolled %s%s", commands.Escape(ch.Name), res.String(), commands.ReadingNotes(res.Expr))
		return &commands.Response{}, nil
	}
	m = m.For(ch)
	char, err := load(ch)
	if err != nil {
		return nil, err
	}
	c := char.c
	name := abilityName(ability)
	if _, ok := c.Abilities[name]; !ok {
		return nil, noAbility(ch.Name, c, ability)
	}
	n, out, err := c.Act(m.Dice(), rules.Action{Ability: name, Pool: strings.ToLower(pool), FudgeDice: fudgeDice(m)})
	if err != nil {
		return nil, ruleError(ch.Name, err)
	}
	if err := char.store(m, n); err != nil {
		return nil, err
	}
	// The check and what it spent; the condition, which a check does not
	// change, is on the card.
	text := fmt.Sprintf("**%s** checks %s", commands.Escape(ch.Name), checkText(out.Check))
	if len(out.Spent) > 0 {
		text += "; spent " + poolsText(out.Spent)
	}
	text += "."
	m.Note("%s", commands.Unmarkdown(text))
	m.Say("%s", text)
	return &commands.Response{}, nil
}
