package harm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The mutation rolls every check, so that each die is recorded in the event.
var _ harm.Roller = (*commands.Mutation)(nil)

// Action returns the harm commands (RULES.md §3): /damage deals harm,
// /heal heals, /rest kind:day passes a day, /spend spends pool points.
func (sys System) Action(name string) commands.ActionFunc {
	switch name {
	case "damage":
		return sys.damage
	case "heal":
		return sys.heal
	case "rest":
		return sys.rest
	case "spend":
		return sys.spend
	}
	return nil
}

// Roll returns the handler of /roll as:… for harm: with `ability`, a check
// (RULES.md §3.1); without, a plain roll of `expr` for the character.
func (sys System) Roll() commands.ActionFunc { return sys.roll }

// Components returns nil: harm has no buttons.
func (System) Components() map[string]commands.HandlerFunc { return nil }

// AdvanceClock ends the conflict when the GM moves the clock (RULES.md
// §3.2.4): every taken-out character is back.
//
// **Reading:** moving the clock by rounds only (/clock next-round, or
// /clock advance with unit rounds, the default) is time within the
// conflict and ends nothing; advancing by turns, hours or days, or a day of
// rest for the whole table, ends it.
func (System) AdvanceClock(m *commands.Mutation, from, to int64) ([]string, error) {
	if harmWithinConflict(m.Req) {
		return nil, nil
	}
	chars, err := m.Characters()
	if err != nil {
		return nil, err
	}
	var report []string
	for _, ch := range chars {
		c, err := harmLoad(ch)
		if err != nil {
			return nil, err
		}
		n, ended := c.EndConflict()
		if !ended {
			continue
		}
		if err := harmStore(m, ch, n); err != nil {
			return nil, err
		}
		report = append(report, fmt.Sprintf("**%s** is no longer taken out: the conflict is over (%s).", commands.Escape(ch.Name), n.Condition))
	}
	return report, nil
}

// harmWithinConflict reports whether r moves the clock by rounds only, which
// is time within the conflict (the reading on AdvanceClock).
func harmWithinConflict(r *commands.Request) bool {
	if r.Command != "clock" {
		return false
	}
	switch r.Options["action"] {
	case "next-round":
		return true
	case "advance":
		u, ok := r.Options["unit"]
		if !ok {
			return true
		}
		unit, err := clock.ParseUnit(u)
		return err == nil && unit == clock.Round
	}
	return false
}

func harmLoad(ch *storage.Character) (harm.Character, error) {
	var s harmSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return harm.Character{}, err
	}
	return s.character()
}

func harmStore(m *commands.Mutation, ch *storage.Character, c harm.Character) error {
	raw, err := commands.EncodeSheet(harmSheetOf(c))
	if err != nil {
		return err
	}
	ch.Sheet = raw
	return m.Save(ch)
}

// harmFudge returns the Fudge dice of a check at the table: 3, or 4 with
// the table option fudge-dice 4 (RULES.md §3.1).
func harmFudge(m *commands.Mutation) int {
	if m.Table.Options["fudge-dice"] == "4" {
		return harm.AltFudgeDice
	}
	return harm.DefaultFudgeDice
}

// harmStatus is a character's one-line status: condition, harm counter,
// pools and taken out.
func harmStatus(c harm.Character) string {
	status := fmt.Sprintf("%s · harm %d", c.Condition, c.HarmCounter)
	for _, name := range harm.Pools {
		p := c.PoolNamed(name)
		status += fmt.Sprintf(" · %s %d/%d", harmAbilityLabel(name), p.Current, p.Max)
	}
	if c.TakenOut {
		status += " · taken out"
	}
	return status
}

// harmErr turns an error of the harm rules into a reply naming the
// character; other errors (a dice error is already an *Error) pass through.
func harmErr(name string, err error) error {
	var e *commands.Error
	if errors.As(err, &e) {
		return err
	}
	code := commands.Code(0)
	switch {
	case errors.Is(err, harm.ErrPoolEmpty), errors.Is(err, harm.ErrNothingToHeal), errors.Is(err, harm.ErrRestTooSoon):
		code = commands.CodeConflict
	case errors.Is(err, harm.ErrNoAbility), errors.Is(err, harm.ErrWrongPool), errors.Is(err, harm.ErrNotInnate),
		errors.Is(err, harm.ErrBadSpend), errors.Is(err, harm.ErrNoHarm), errors.Is(err, harm.ErrTooManyDice),
		errors.Is(err, harm.ErrBadFudgeDice):
		code = commands.CodeInvalid
	default:
		return err
	}
	return commands.Errorf(code, "%s: %v. Nothing was changed.", commands.Escape(name), err)
}

// harmPoolOption reads the option opt naming a pool point to spend for a
// bonus die on a check (RULES.md §3.1): "" when absent, else vigor,
// instinct or reason.
func harmPoolOption(m *commands.Mutation, opt string) (string, error) {
	v, ok := m.Req.Options[opt]
	if !ok {
		return "", nil
	}
	p := strings.ToLower(strings.TrimSpace(v))
	if !harm.IsPool(p) {
		return "", commands.Errorf(commands.CodeInvalid, "/%s %s: is vigor, instinct or reason in the harm system (a point of that pool buys a bonus die on the check), not %s.", m.Req.Command, opt, commands.Clip(v, 16))
	}
	return p, nil
}

// harmModsText lists a check's bonus and penalty dice with their reasons and,
// when both are present, what is left after they cancel (RULES.md §3.1).
func harmModsText(k harm.Check) string {
	var parts []string
	for _, md := range k.Mods {
		switch {
		case md.Dice > 0:
			parts = append(parts, fmt.Sprintf("%s (%s)", harmDice(md.Dice, "bonus"), md.Why))
		case md.Dice < 0:
			parts = append(parts, fmt.Sprintf("%s (%s)", harmDice(-md.Dice, "penalty"), md.Why))
		}
	}
	if k.Bonus() > 0 && k.Penalty() > 0 {
		switch net := k.Net(); {
		case net > 0:
			parts = append(parts, fmt.Sprintf("net %s", harmDice(net, "bonus")))
		case net < 0:
			parts = append(parts, fmt.Sprintf("net %s", harmDice(-net, "penalty")))
		default:
			parts = append(parts, "they cancel")
		}
	}
	return strings.Join(parts, ", ")
}

// harmDice renders "1 bonus die", "2 penalty dice".
func harmDice(n int, kind string) string {
	if n == 1 {
		return "1 " + kind + " die"
	}
	return fmt.Sprintf("%d %s dice", n, kind)
}

// harmCheckText shows a rolled check: ability, rank with its label, bonus and
// penalty dice, every Fudge die and the success level (RULES.md §3.1), e.g.
// "Endure 2 (Journeyman), 1 penalty die (Broken): 4dFkl3+2 [~~+~~, 0, 0, −] + 2 = 1 → SL 1".
func harmCheckText(res harm.CheckResult) string {
	k := res.Check
	s := fmt.Sprintf("%s %d (%s)", harmAbilityLabel(k.Ability), k.Rank, harm.RankLabel(k.Rank))
	if mods := harmModsText(k); mods != "" {
		s += ", " + mods
	}
	return fmt.Sprintf("%s: %s → **SL %d**", s, res.Roll.String(), res.SL)
}

// harmConditionText says what a condition does (RULES.md §3.2).
func harmConditionText(c harm.Condition) string {
	switch c {
	case harm.Bloody:
		return "Bloody: a penalty die on every check except Endure, React and Willpower; may change its goal at any time."
	case harm.Broken:
		return "Broken: a penalty die on every check; each action costs 1 point of the ability's pool; more harm takes it out; may change its goal at any time."
	}
	return "Healthy."
}

// harmPoolsText shows pool changes: "Vigor 3 → 2 (bonus die)".
func harmPoolsText(changes []harm.PoolChange) string {
	var parts []string
	for _, ch := range changes {
		parts = append(parts, fmt.Sprintf("%s %d → %d (%s)", harmAbilityLabel(ch.Pool), ch.Before, ch.After, ch.Why))
	}
	return strings.Join(parts, ", ")
}

// damage answers /damage for harm (RULES.md §3.2): amount is the success
// level of the harm, kind (default physical) picks Endure, React or
// Willpower, pool spends a point of that ability's pool for a bonus die on
// the check (§3.1). Each target takes the harm in turn.
func (sys System) damage(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("soak", "type", "crit", "nonlethal", "lethal"); err != nil {
		return nil, err
	}
	kind := harm.Physical
	if k, ok := m.Req.Options["kind"]; ok {
		var err error
		if kind, err = harm.ParseKind(k); err != nil {
			return nil, commands.Errorf(commands.CodeInvalid, "%v.", err)
		}
	}
	pool, err := harmPoolOption(m, "pool")
	if err != nil {
		return nil, err
	}
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	// The amount is the harm's success level: a number ≥ 1, or dice (the
	// opponent's check, e.g. 3dF+2) whose total, floored at 0, is the SL.
	sl, rolled, err := m.Amount(1, commands.MaxAmount, "of harm (its success level)")
	if err != nil {
		return nil, err
	}
	var lines []string
	if rolled != "" {
		lines = append(lines, fmt.Sprintf("Harm rolled: %s → SL %d.", rolled, sl))
	}
	if sl < 1 {
		lines = append(lines, "SL 0: no harm is dealt.")
		m.Note("%s", strings.Join(lines, " "))
		return &commands.Response{Content: strings.Join(lines, "\n")}, nil
	}
	for _, ch := range targets {
		c, err := harmLoad(ch)
		if err != nil {
			return nil, err
		}
		n, out, err := c.TakeHarm(m, harm.Harm{SL: sl, Kind: kind, FudgeDice: harmFudge(m), At: clock.Time(m.Table.Clock), Pool: pool})
		if err != nil {
			return nil, harmErr(ch.Name, err)
		}
		if err := harmStore(m, ch, n); err != nil {
			return nil, err
		}
		text := harmOutcomeText(ch.Name, out)
		m.Note("%s", strings.ReplaceAll(text, "\n", " "))
		lines = append(lines, text)
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}

// harmOutcomeText shows a harm: counter before and after, the check with
// every die, and the condition (RULES.md §3.2).
func harmOutcomeText(name string, out harm.HarmOutcome) string {
	who := "**" + commands.Escape(name) + "**"
	if out.TakenOut {
		s := fmt.Sprintf("%s is Broken and takes %d %s harm: **taken out** of the conflict; the opponent gets its goal. Nothing else changes: **Broken**, counter %d.",
			who, out.Harm.SL, out.Harm.Kind, out.CounterAfter)
		if out.Harm.Pool != "" {
			s += fmt.Sprintf(" No check is made, so no %s point is spent.", harmAbilityLabel(out.Harm.Pool))
		}
		return s
	}
	s := fmt.Sprintf("%s takes %d %s harm: counter %d → %d.\n%s", who, out.Harm.SL, out.Harm.Kind, out.CounterBefore, out.Counter, harmCheckText(out.Check))
	if !out.Worsened() {
		s += fmt.Sprintf(" ≥ %d: stays **%s**, counter %d.", out.Counter, out.After, out.CounterAfter)
	} else {
		s += fmt.Sprintf(" < %d: **%s → %s**, counter %d → %d.", out.Counter, out.Before, out.After, out.Counter, out.CounterAfter)
	}
	if len(out.Spent) > 0 {
		s += " Spent " + harmPoolsText(out.Spent) + "."
	}
	if out.Worsened() {
		s += "\n" + harmConditionText(out.After)
	}
	return s
}

// harmAbilityName turns an ability as typed ("First Aid", "climb") into its
// sheet name ("first-aid").
func harmAbilityName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "_", " ")), "-"))
}

// harmNoAbility is the reply to a check of an ability the character lacks.
func harmNoAbility(name string, c harm.Character, ability string) error {
	var have []string
	for _, a := range c.AbilityNames() {
		have = append(have, harmAbilityLabel(a))
	}
	return commands.Errorf(commands.CodeInvalid, "%s has no ability %q; it has %s. Add one with /char set stats:%s=0 (Unskilled).",
		commands.Escape(name), commands.Clip(ability, 32), strings.Join(have, ", "), commands.Clip(harmAbilityName(ability), 32))
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
	if err := m.RefuseOptions("hd", "melee", "purpose"); err != nil {
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
		res, err := m.RollString(expr)
		if err != nil {
			return nil, err
		}
		return &commands.Response{Content: fmt.Sprintf("**%s** rolled %s", commands.Escape(ch.Name), res.String())}, nil
	}
	c, err := harmLoad(ch)
	if err != nil {
		return nil, err
	}
	name := harmAbilityName(ability)
	if _, ok := c.Abilities[name]; !ok {
		return nil, harmNoAbility(ch.Name, c, ability)
	}
	n, out, err := c.Act(m, harm.Action{Ability: name, Pool: strings.ToLower(pool), FudgeDice: harmFudge(m)})
	if err != nil {
		return nil, harmErr(ch.Name, err)
	}
	if err := harmStore(m, ch, n); err != nil {
		return nil, err
	}
	text := fmt.Sprintf("**%s** checks %s.\n%s.", commands.Escape(ch.Name), harmAbilityLabel(name), harmCheckText(out.Check))
	if len(out.Spent) > 0 {
		text += "\nSpent " + harmPoolsText(out.Spent) + "."
	}
	text += fmt.Sprintf("\n**%s**, counter %d", n.Condition, n.HarmCounter)
	if n.TakenOut {
		text += ", taken out of the conflict"
	}
	text += "."
	m.Note("%s", strings.ReplaceAll(text, "\n", " "))
	return &commands.Response{Content: text}, nil
}

// harmSpendMix reads /heal spend: pool=points pairs separated by commas or
// spaces, e.g. "vigor=2,reason=3" (RULES.md §3.3).
func harmSpendMix(s string) (map[string]int, error) {
	mix := map[string]int{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			k, v, ok = strings.Cut(f, ":")
		}
		k = strings.ToLower(strings.TrimSpace(k))
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || !harm.IsPool(k) || err != nil || n < 0 || n > harm.PoolCost {
			return nil, commands.Errorf(commands.CodeInvalid, "spend takes pool=points pairs adding up to %d, e.g. spend:vigor=2,reason=3; %q is not one.", harm.PoolCost, commands.Clip(f, 32))
		}
		if _, dup := mix[k]; dup {
			return nil, commands.Errorf(commands.CodeInvalid, "spend names %s twice.", k)
		}
		mix[k] = n
	}
	return mix, nil
}

// heal answers /heal for harm (RULES.md §3.3): trigger first-aid or counsel
// (the healer's check, an action of the healer, gives its SL as bonus dice),
// rest (a day of rest not yet used), or pools (5 points, chosen with spend or
// from the fullest pools); then the healing check with ability. pool spends
// a point of the healing ability's pool for a bonus die on the healing
// check, healer-pool one of the healer's Reason on First Aid or Counsel
// (§3.1). With a healer, the caller must be able to act for the healer;
// otherwise for the patient.
func (sys System) heal(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("amount"); err != nil {
		return nil, err
	}
	pool, err := harmPoolOption(m, "pool")
	if err != nil {
		return nil, err
	}
	healerPool, err := harmPoolOption(m, "healer-pool")
	if err != nil {
		return nil, err
	}
	trigS, ok := m.Req.Options["trigger"]
	if !ok {
		return nil, commands.Errorf(commands.CodeInvalid, "Healing needs a trigger: first-aid or counsel (with healer), rest (a day of rest) or pools (5 pool points).")
	}
	trig, err := harm.ParseTrigger(trigS)
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
	h := harm.Healing{Trigger: trig, Ability: harmAbilityName(m.Req.Options["ability"]), FudgeDice: harmFudge(m), Now: clock.Time(m.Table.Clock), Pool: pool}
	if s, ok := m.Req.Options["spend"]; ok {
		if trig != harm.PoolPoints {
			return nil, commands.Errorf(commands.CodeInvalid, "spend chooses the points of trigger:pools.")
		}
		if h.Spend, err = harmSpendMix(s); err != nil {
			return nil, err
		}
	}
	if h.Ability != "" && !harm.IsInnate(h.Ability) {
		return nil, commands.Errorf(commands.CodeInvalid, "The healing check uses an innate ability: endure, react or willpower, not %s.", commands.Clip(h.Ability, 32))
	}
	healerName, hasHealer := m.Req.Options["healer"]
	helper := trig.HelperAbility()
	switch {
	case helper != "" && !hasHealer:
		return nil, commands.Errorf(commands.CodeInvalid, "trigger:%s needs healer: the character giving %s.", trig, strings.ToLower(harmAbilityLabel(helper)))
	case helper == "" && hasHealer:
		return nil, commands.Errorf(commands.CodeInvalid, "healer gives first aid or counsel: use trigger:first-aid or trigger:counsel.")
	case helper == "" && healerPool != "":
		return nil, commands.Errorf(commands.CodeInvalid, "healer-pool buys the healer a bonus die on first aid or counsel: use trigger:first-aid or trigger:counsel with healer; pool buys the patient one.")
	}
	c, err := harmLoad(patient)
	if err != nil {
		return nil, err
	}
	if !c.NeedsHealing() {
		return nil, commands.Errorf(commands.CodeConflict, "**%s** is Healthy with harm counter 0: there is nothing to heal.", commands.Escape(patient.Name))
	}
	if helper == "" || h.Pool != "" {
		// The patient's own trigger, or a point of its pool: the caller
		// must be able to act for the patient.
		if err := m.CanChange(patient); err != nil {
			return nil, err
		}
	}
	var lines []string
	if helper != "" {
		healer, err := m.Character(healerName)
		if err != nil {
			return nil, err
		}
		if healer.ID == patient.ID {
			return nil, commands.Errorf(commands.CodeInvalid, "%s comes from another character, not from %s.", harmAbilityLabel(helper), commands.Escape(patient.Name))
		}
		if err := m.CanChange(healer); err != nil {
			return nil, err
		}
		hc, err := harmLoad(healer)
		if err != nil {
			return nil, err
		}
		if _, ok := hc.Abilities[helper]; !ok {
			return nil, harmNoAbility(healer.Name, hc, helper)
		}
		hn, aid, err := hc.Help(m, trig, h.FudgeDice, healerPool)
		if err != nil {
			return nil, harmErr(healer.Name, err)
		}
		if err := harmStore(m, healer, hn); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("**%s** gives **%s** %s: %s = %s.", commands.Escape(healer.Name), commands.Escape(patient.Name),
			strings.ToLower(harmAbilityLabel(helper)), harmCheckText(aid.Check), harmDice(aid.Check.SL, "bonus"))
		if len(aid.Spent) > 0 {
			line += " Spent " + harmPoolsText(aid.Spent) + "."
		}
		lines = append(lines, line)
		h.HelpSL = aid.Check.SL
	}
	n, out, err := c.Heal(m, h)
	if err != nil {
		return nil, harmErr(patient.Name, err)
	}
	if err := harmStore(m, patient, n); err != nil {
		return nil, err
	}
	var bonus, healing []harm.PoolChange
	for _, ch := range out.Spent {
		if ch.Why == "healing" {
			healing = append(healing, ch)
		} else {
			bonus = append(bonus, ch)
		}
	}
	switch trig {
	case harm.DayOfRest:
		if out.RestAlone {
			lines = append(lines, fmt.Sprintf("**%s** has rested a day (taken alone, while the table's clock stood).", commands.Escape(patient.Name)))
			break
		}
		line := fmt.Sprintf("**%s** has rested a day (since %s", commands.Escape(patient.Name), out.RestFrom)
		if left := n.RestHealings(h.Now); left > 0 {
			days := "days"
			if left == 1 {
				days = "day"
			}
			line += fmt.Sprintf("; %d more %s of rest left", left, days)
		}
		lines = append(lines, line+").")
	case harm.PoolPoints:
		lines = append(lines, fmt.Sprintf("**%s** spends %d pool points: %s.", commands.Escape(patient.Name), harm.PoolCost, harmPoolsText(healing)))
	}
	line := fmt.Sprintf("Healing check: %s", harmCheckText(out.Check))
	if out.Check.SL == 0 {
		line += fmt.Sprintf(": nothing changes (%s); **%s**, counter %d.", harmTriggerUsed(trig), out.After, out.CounterAfter)
	} else if out.After != out.Before {
		line += fmt.Sprintf(": **%s → %s**, counter %d → %d.", out.Before, out.After, out.CounterBefore, out.CounterAfter)
	} else {
		line += fmt.Sprintf(": stays **%s**, counter %d → %d.", out.After, out.CounterBefore, out.CounterAfter)
	}
	if len(bonus) > 0 {
		line += " Spent " + harmPoolsText(bonus) + "."
	}
	lines = append(lines, line)
	text := strings.Join(lines, "\n")
	m.Note("%s", strings.ReplaceAll(text, "\n", " "))
	return &commands.Response{Content: text}, nil
}

// harmTriggerUsed says that a healing trigger is used up (RULES.md §3.3).
func harmTriggerUsed(t harm.Trigger) string {
	switch t {
	case harm.FirstAidHelp:
		return "the first aid is used up"
	case harm.CounselHelp:
		return "the counsel is used up"
	case harm.DayOfRest:
		return "the day of rest is used up"
	}
	return "the pool points are spent"
}

// rest answers /rest for harm (RULES.md §3.3): kind:day (GM). Without
// target a day passes on the table's clock (which ends any conflict) and
// every character's pools refill; with target only those characters rest:
// their pools refill and each gains a day of rest for itself, while the
// clock stands (harm.Character.RestDay). It tells who may now heal with
// trigger:rest.
func (sys System) rest(m *commands.Mutation) (*commands.Response, error) {
	if m.Req.Options["kind"] != "day" {
		return nil, commands.Errorf(commands.CodeInvalid, "The harm system rests by the day: /rest kind:day (GM) passes a day and refreshes the pools; then /heal trigger:rest heals.")
	}
	if err := m.RequireGM("pass a day of rest"); err != nil {
		return nil, err
	}
	var chars []*storage.Character
	var lines []string
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
		m.Note("%s", head)
		lines = append(lines, head)
	} else {
		var err error
		if chars, err = m.Characters(); err != nil {
			return nil, err
		}
		if lines, err = m.AdvanceClock(1, clock.Day); err != nil {
			return nil, err
		}
	}
	now := clock.Time(m.Table.Clock)
	for _, ch := range chars {
		c, err := harmLoad(ch)
		if err != nil {
			return nil, err
		}
		n, changes := c.RefreshPools()
		if alone {
			n, changes = c.RestDay()
		}
		if err := harmStore(m, ch, n); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("**%s**: pools full", commands.Escape(ch.Name))
		if len(changes) > 0 {
			line = fmt.Sprintf("**%s**: %s", commands.Escape(ch.Name), harmPoolsText(changes))
			m.Note("%s: %s.", ch.Name, harmPoolsText(changes))
		}
		if n.NeedsHealing() && n.RestHealings(now) > 0 {
			line += fmt.Sprintf("; **%s**, counter %d: may heal with /heal target:%s trigger:rest", n.Condition, n.HarmCounter, commands.Escape(ch.Name))
		}
		lines = append(lines, line+".")
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}

// spend answers /spend for harm: pool points spent outside a check (RULES.md
// §3.1).
func (sys System) spend(m *commands.Mutation) (*commands.Response, error) {
	pool := m.Req.Options["resource"]
	if !harm.IsPool(pool) {
		return nil, commands.Errorf(commands.CodeInvalid, "The harm system spends vigor, instinct or reason, not %s.", commands.Clip(pool, 32))
	}
	n, err := strconv.Atoi(m.Req.Options["amount"])
	if err != nil || n < 1 {
		return nil, commands.Errorf(commands.CodeInvalid, "amount is a whole number of 1 or more.")
	}
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, ch := range targets {
		c, err := harmLoad(ch)
		if err != nil {
			return nil, err
		}
		nc, change, err := c.Spend(pool, n)
		if err != nil {
			return nil, harmErr(ch.Name, err)
		}
		if err := harmStore(m, ch, nc); err != nil {
			return nil, err
		}
		line := fmt.Sprintf("**%s** spends %d %s: %s %d → %d.", commands.Escape(ch.Name), n, harmAbilityLabel(pool), harmAbilityLabel(pool), change.Before, change.After)
		m.Note("%s", line)
		lines = append(lines, line)
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}
