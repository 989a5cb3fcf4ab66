package harm

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
)

// damage answers /damage for harm (RULES.md §3.2): amount is the success
// level of the harm, kind (default physical) picks Endure, React or
// Willpower, pool spends a point of that ability's pool for a bonus die on
// the check (§3.1). Each target takes the harm in turn.
func (sys System) damage(m *commands.Mutation) (*commands.Response, error) {
	kind := rules.Physical
	if k, ok := m.Req.Options["kind"]; ok {
		var err error
		if kind, err = rules.ParseKind(k); err != nil {
			return nil, commands.Errorf(commands.CodeInvalid, "%v.", err)
		}
	}
	pool, err := poolOption(m, "pool")
	if err != nil {
		return nil, err
	}
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	// The amount is the harm's success level: a number ≥ 1, or dice (the
	// opponent's check, e.g. 3dF+2) whose total, floored at 0, is the SL.
	all := m.For(targets...)
	sl, rolled, err := all.Amount(1, commands.MaxAmount, "of harm (its success level)")
	if err != nil {
		return nil, err
	}
	if rolled != "" {
		all.Say("Harm rolled: %s → SL %d.", rolled, sl)
	}
	if sl < 1 {
		all.Say("SL 0: no harm is dealt.")
		all.Note("Harm rolled: %s → SL 0: no harm is dealt.", rolled)
		return &commands.Response{}, nil
	}
	for _, ch := range targets {
		m := m.For(ch)
		char, err := load(ch)
		if err != nil {
			return nil, err
		}
		c := char.c
		n, out, err := c.TakeHarm(m.Dice(), rules.Harm{SL: sl, Kind: kind, FudgeDice: fudgeDice(m), At: clock.Time(m.Table.Clock), Pool: pool})
		if err != nil {
			return nil, ruleError(ch.Name, err)
		}
		if err := char.store(m, n); err != nil {
			return nil, err
		}
		text := outcomeText(ch.Name, out)
		m.Note("%s", commands.Unmarkdown(text))
		m.Say("%s", text)
	}
	return &commands.Response{}, nil
}

// outcomeText shows a harm in one line (RULES.md §3.2): the harm and the
// counter it makes, the check with every die, and the condition it keeps
// or worsens to; what the condition does is on the card.
func outcomeText(name string, out rules.HarmOutcome) string {
	who := "**" + commands.Escape(name) + "**"
	if out.TakenOut {
		s := fmt.Sprintf("%s takes %d %s harm while Broken: **taken out** of the conflict; the opponent gets its goal.", who, out.Harm.SL, out.Harm.Kind)
		if out.Harm.Pool != "" {
			s += fmt.Sprintf(" No check is made, so no %s point is spent.", abilityLabel(out.Harm.Pool))
		}
		return s
	}
	s := fmt.Sprintf("%s takes %d %s harm, harm counter %d → %d: %s", who, out.Harm.SL, out.Harm.Kind, out.CounterBefore, out.Counter, checkText(out.Check))
	if !out.Worsened() {
		s += fmt.Sprintf(" ≥ %d: stays **%s**", out.Counter, out.After)
	} else {
		s += fmt.Sprintf(" < %d: **%s → %s**, harm counter back to %d", out.Counter, out.Before, out.After, out.CounterAfter)
	}
	if len(out.Spent) > 0 {
		s += "; spent " + poolsText(out.Spent)
	}
	return s + "."
}

// conditionText says what a condition does (RULES.md §3.2), for the card.
func conditionText(c rules.Condition) string {
	switch c {
	case rules.Bloody:
		return "a penalty die on every check except Endure, React and Willpower; may change its goal at any time"
	case rules.Broken:
		return "a penalty die on every check; each action costs 1 point of the ability's pool; more harm takes it out; may change its goal at any time"
	}
	return ""
}
