package harm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

// heal answers /heal for harm (RULES.md §3.3): trigger first-aid or counsel
// (the healer's check, an action of the healer, gives its SL as bonus dice),
// rest (a day of rest not yet used), or pools (5 points, chosen with spend or
// from the fullest pools); then the healing check with ability. pool spends
// a point of the healing ability's pool for a bonus die on the healing
// check, healer-pool one of the healer's Reason on First Aid or Counsel
// (§3.1). With a healer, the caller must be able to act for the healer;
// otherwise for the patient.
func (sys System) heal(m *commands.Mutation) (*commands.Response, error) {
	pool, err := poolOption(m, "pool")
	if err != nil {
		return nil, err
	}
	healerPool, err := poolOption(m, "healer-pool")
	if err != nil {
		return nil, err
	}
	trigS, ok := m.Req.Options["trigger"]
	if !ok {
		return nil, commands.Errorf(commands.CodeInvalid, "Healing needs a trigger: first-aid or counsel (with healer), rest (a day of rest) or pools (5 pool points).")
	}
	trig, err := rules.ParseTrigger(trigS)
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "%v.", err)
	}
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	if len(targets) > 1 {
		return nil, commands.Errorf(commands.CodeInvalid, "Heal one character at a time.")
	}
	patient := targets[0]
	h := rules.Healing{Trigger: trig, Ability: abilityName(m.Req.Options["ability"]), FudgeDice: fudgeDice(m), Now: clock.Time(m.Table.Clock), Pool: pool}
	if s, ok := m.Req.Options["spend"]; ok {
		if trig != rules.PoolPoints {
			return nil, commands.Errorf(commands.CodeInvalid, "spend chooses the points of trigger:pools.")
		}
		if h.Spend, err = spendMix(s); err != nil {
			return nil, err
		}
	}
	if h.Ability != "" && !rules.IsInnate(h.Ability) {
		return nil, commands.Errorf(commands.CodeInvalid, "The healing check uses an innate ability: endure, react or willpower, not %s.", commands.Clip(h.Ability, 32))
	}
	healerName, hasHealer := m.Req.Options["healer"]
	helper := trig.HelperAbility()
	switch {
	case helper != "" && !hasHealer:
		return nil, commands.Errorf(commands.CodeInvalid, "trigger:%s needs healer: the character giving %s.", trig, strings.ToLower(abilityLabel(helper)))
	case helper == "" && hasHealer:
		return nil, commands.Errorf(commands.CodeInvalid, "healer gives first aid or counsel: use trigger:first-aid or trigger:counsel.")
	case helper == "" && healerPool != "":
		return nil, commands.Errorf(commands.CodeInvalid, "healer-pool buys the healer a bonus die on first aid or counsel: use trigger:first-aid or trigger:counsel with healer; pool buys the patient one.")
	}
	char, err := load(patient)
	if err != nil {
		return nil, err
	}
	c := char.c
	if !c.NeedsHealing() {
		return nil, commands.Errorf(commands.CodeConflict, "**%s** is Healthy with harm counter 0: there is nothing to heal.", commands.Escape(patient.Name))
	}
	if helper == "" || h.Pool != "" {
		// The patient's own trigger, or a point of its pool: the caller
		// must be able to act for the patient.
		if err := m.CanChange(patient); err != nil {
			return nil, withHealer(m, patient, err)
		}
	}
	if helper != "" {
		healer, err := m.Character(healerName)
		if err != nil {
			return nil, err
		}
		if healer.ID == patient.ID {
			return nil, commands.Errorf(commands.CodeInvalid, "%s comes from another character, not from %s.", abilityLabel(helper), commands.Escape(patient.Name))
		}
		if err := m.CanChange(healer); err != nil {
			return nil, err
		}
		hchar, err := load(healer)
		if err != nil {
			return nil, err
		}
		hc := hchar.c
		if _, ok := hc.Abilities[helper]; !ok {
			return nil, noAbility(healer.Name, hc, helper)
		}
		mh := m.For(healer)
		hn, aid, err := hc.Help(mh.Dice(), trig, h.FudgeDice, healerPool)
		if err != nil {
			return nil, ruleError(healer.Name, err)
		}
		if err := hchar.store(mh, hn); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("**%s** gives **%s** %s: %s = %s", commands.Escape(healer.Name), commands.Escape(patient.Name),
			strings.ToLower(abilityLabel(helper)), checkText(aid.Check), countDice(aid.Check.SL, "bonus"))
		if len(aid.Spent) > 0 {
			line += "; spent " + poolsText(aid.Spent)
		}
		line += "."
		mh.Note("%s", commands.Unmarkdown(line))
		mh.Say("%s", line)
		h.HelpSL = aid.Check.SL
	}
	m = m.For(patient)
	n, out, err := c.Heal(m.Dice(), h)
	if err != nil {
		return nil, ruleError(patient.Name, err)
	}
	if err := char.store(m, n); err != nil {
		return nil, err
	}
	var bonus, healing []rules.PoolChange
	for _, ch := range out.Spent {
		if ch.Why == "healing" {
			healing = append(healing, ch)
		} else {
			bonus = append(bonus, ch)
		}
	}
	// One line for the patient: why it may heal, the check, what changed.
	var why string
	switch trig {
	case rules.DayOfRest:
		why = " has rested a day (taken alone, while the table's clock stood)"
		if !out.RestAlone {
			why = fmt.Sprintf(" has rested a day (since %s", out.RestFrom)
			if left := n.RestHealings(h.Now); left > 0 {
				days := "days"
				if left == 1 {
					days = "day"
				}
				why += fmt.Sprintf("; %d more %s of rest left", left, days)
			}
			why += ")"
		}
	case rules.PoolPoints:
		why = fmt.Sprintf(" spends %d pool points: %s", rules.PoolCost, poolsText(healing))
	}
	line := fmt.Sprintf("**%s**%s; healing check: %s", commands.Escape(patient.Name), why, checkText(out.Check))
	if why == "" {
		line = fmt.Sprintf("**%s**'s healing check: %s", commands.Escape(patient.Name), checkText(out.Check))
	}
	counter := commands.Change("harm counter", out.CounterBefore, out.CounterAfter, 0)
	switch {
	case out.Check.SL == 0:
		line += fmt.Sprintf(": nothing changes (%s)", triggerUsed(trig))
	case out.After != out.Before:
		line += fmt.Sprintf(": **%s → %s**", out.Before, out.After)
		if counter != "" {
			line += ", " + counter
		}
	case counter != "":
		line += ": " + counter
	default:
		line += fmt.Sprintf(": stays **%s**, harm counter %d", out.After, out.CounterAfter)
	}
	if len(bonus) > 0 {
		line += "; spent " + poolsText(bonus)
	}
	line += "."
	m.Note("%s", commands.Unmarkdown(line))
	m.Say("%s", line)
	return &commands.Response{}, nil
}

// spendMix reads /heal spend: pool=points pairs separated by commas or
// spaces, e.g. "vigor=2,reason=3" (RULES.md §3.3).
func spendMix(s string) (map[string]int, error) {
	mix := map[string]int{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			k, v, ok = strings.Cut(f, ":")
		}
		k = strings.ToLower(strings.TrimSpace(k))
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || !rules.IsPool(k) || err != nil || n < 0 || n > rules.PoolCost {
			return nil, commands.Errorf(commands.CodeInvalid, "spend takes pool=points pairs adding up to %d, e.g. spend:vigor=2,reason=3; %q is not one.", rules.PoolCost, commands.Clip(f, 32))
		}
		if _, dup := mix[k]; dup {
			return nil, commands.Errorf(commands.CodeInvalid, "spend names %s twice.", k)
		}
		mix[k] = n
	}
	return mix, nil
}

// triggerUsed says that a healing trigger is used up (RULES.md §3.3).
func triggerUsed(t rules.Trigger) string {
	switch t {
	case rules.FirstAidHelp:
		return "the first aid is used up"
	case rules.CounselHelp:
		return "the counsel is used up"
	case rules.DayOfRest:
		return "the day of rest is used up"
	}
	return "the pool points are spent"
}

// withHealer adds to err, the refusal of a healing of another's patient,
// the way that needs no leave (RULES.md §3.3): first aid (or counsel)
// from a character of the caller's own, the healer given or the first
// the caller owns; err as it is when they own none.
func withHealer(m *commands.Mutation, patient *storage.Character, err error) error {
	var e *commands.Error
	healer, trig := m.Req.Options["healer"], m.Req.Options["trigger"]
	if healer == "" {
		all, lerr := m.Tx().Characters(m.Req.ChannelID)
		if lerr != nil {
			return lerr
		}
		for _, c := range all {
			if c.OwnerID == m.Req.UserID && c.ID != patient.ID && healer == "" {
				healer, trig = c.Name, "first-aid"
			}
		}
	}
	if healer == "" || patient.Hidden || !errors.As(err, &e) {
		return err
	}
	return commands.Errorf(e.Code, "%s Or give first aid or counsel yourself, which needs no leave: %s.", e.Message, commands.CodeSpan("/heal target:"+patient.Name+" trigger:"+trig+" healer:"+healer))
}
