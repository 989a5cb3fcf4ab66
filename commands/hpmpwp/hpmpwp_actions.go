package hpmpwp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// hmwChoicePrefix starts the custom_id of the Die Hard buttons (RULES.md
// §2.4): "hmw:<character id>:<event seq>:act|down".
const hmwChoicePrefix = "hmw"

// hmwLoad decodes a stored character's sheet.
func hmwLoad(ch *storage.Character) (hpmpwp.Character, hmwSheet, error) {
	var s hmwSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return hpmpwp.Character{}, s, err
	}
	return s.character(), s, nil
}

// hmwStore saves c into ch; seq names the event of a pending Die Hard
// choice.
func hmwStore(m *commands.Mutation, ch *storage.Character, c hpmpwp.Character, seq uint64) error {
	raw, err := commands.EncodeSheet(hmwSheetOf(c, seq))
	if err != nil {
		return err
	}
	ch.Sheet = raw
	return m.Save(ch)
}

// hmwRuleError turns an error of the rules into a reply for ch.
func hmwRuleError(ch *storage.Character, err error) error {
	name := commands.Escape(ch.Name)
	switch {
	case errors.Is(err, hpmpwp.ErrDead):
		return commands.Errorf(commands.CodeConflict, "%s is dead; nothing was changed.", name)
	case errors.Is(err, hpmpwp.ErrChoicePending):
		return commands.Errorf(commands.CodeConflict, "%s must first choose (Die Hard): Act Disabled or Fall Unconscious (/char show offers the buttons again). Nothing was changed.", name)
	case errors.Is(err, hpmpwp.ErrNotDisabled):
		return commands.Errorf(commands.CodeConflict, "%s is not disabled: /strain is for a strenuous action at negative WP while conscious.", name)
	case errors.Is(err, hpmpwp.ErrNotDying):
		return commands.Errorf(commands.CodeConflict, "%s is not dying; there is nothing to stabilize.", name)
	case errors.Is(err, hpmpwp.ErrUnconscious):
		return commands.Errorf(commands.CodeConflict, "%s is unconscious and cannot cast.", name)
	case errors.Is(err, hpmpwp.ErrNotEnoughMP), errors.Is(err, hpmpwp.ErrBadAmount):
		return commands.Errorf(commands.CodeInvalid, "%s: %v.", name, err)
	}
	return err
}

// hmwCapped is the note on HP or MP lowered to the maxima lowered by
// fatigue (RULES.md §2.3).
const hmwCapped = " (capped at the fatigued maximum)"

// hmwPoints renders "HP 20 → 12 · MP 4 → 3 (capped at the fatigued maximum)
// · WP 15 → -1 (temp 2 → 0)" from an outcome: HP or MP that went down and
// were capped at fatigue's lowered maxima say so (RULES.md §2.3).
func hmwPoints(out hpmpwp.Outcome) string {
	b, a := out.Before, out.After
	num := func(label string, x, y int) string {
		if x == y {
			return fmt.Sprintf("%s %d", label, y)
		}
		return fmt.Sprintf("%s %d → %d", label, x, y)
	}
	hp, mp := num("HP", b.HP, a.HP), num("MP", b.MP, a.MP)
	if out.CappedHP && a.HP < b.HP {
		hp += hmwCapped
	}
	if out.CappedMP && a.MP < b.MP {
		mp += hmwCapped
	}
	s := hp + " · " + mp + " · " + num("WP", b.WP, a.WP)
	if b.TempWP != 0 || a.TempWP != 0 {
		s += " (" + num("temp", b.TempWP, a.TempWP) + ")"
	}
	return s
}

// hmwStateText describes the state for a reply, e.g. "disabled (conscious)".
func hmwStateText(c hpmpwp.Character) string {
	s := c.State.String()
	switch c.State {
	case hpmpwp.Disabled:
		s += " (conscious)"
	case hpmpwp.Dying, hpmpwp.Stable:
		s += " (unconscious)"
	}
	if c.ChoicePending {
		s += ", Die Hard choice pending"
	}
	if c.Activity == hpmpwp.Sleep && c.State.Conscious() {
		s += ", asleep"
	}
	return s
}

// hmwReport renders an outcome for one character: the points before and
// after, every save and event, the state and fatigue (RULES.md §2).
func hmwReport(name string, out hpmpwp.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s", commands.Escape(name), hmwPoints(out))
	for _, l := range out.Lines {
		b.WriteString("\n• " + l)
	}
	fmt.Fprintf(&b, "\nState: **%s**", hmwStateText(out.After))
	if out.Before.State != out.After.State {
		fmt.Fprintf(&b, " (was %s)", out.Before.State)
	}
	if f := out.After.FatigueSummary(); f != "" {
		b.WriteString("\n" + f)
	}
	return b.String()
}

func (System) Describe(ch *storage.Character) (string, []commands.Field, error) {
	c, _, err := hmwLoad(ch)
	if err != nil {
		return "", nil, err
	}
	status := fmt.Sprintf("HP %d/%d · MP %d/%d · WP %d/%d", c.HP, c.HPMax, c.MP, c.MPMax, c.WP, c.WPMax())
	if c.TempWP > 0 {
		status += fmt.Sprintf(" (+%d temp)", c.TempWP)
	}
	if c.State != hpmpwp.Fine || c.ChoicePending || c.Activity == hpmpwp.Sleep {
		status += " · " + hmwStateText(c)
	}
	if cond := c.Condition(); cond != "" {
		status += " · " + cond
	}
	var abilities []string
	for i, score := range []int{c.Str, c.Dex, c.Con, c.Int, c.Wis, c.Cha} {
		abilities = append(abilities, fmt.Sprintf("%s %d (%+d)", hpmpwp.AbilityNames[i], score, hpmpwp.Modifier(score)))
	}
	feats := "none"
	if f := c.Feats(); len(f) > 0 {
		feats = strings.Join(f, ", ")
	}
	fields := []commands.Field{
		{Name: "Class", Value: fmt.Sprintf("%s %d", commands.Escape(c.Class), c.Level), Inline: true},
		{Name: "Mana die", Value: fmt.Sprintf("d%d", hpmpwp.ManaDie(c.Class)), Inline: true},
		{Name: "Saves", Value: fmt.Sprintf("Fort %+d · Will %+d", c.Fort, c.Will), Inline: true},
		{Name: "Abilities", Value: strings.Join(abilities, " · ")},
		{Name: "Feats", Value: feats, Inline: true},
		{Name: "Activity", Value: fmt.Sprintf("%s%s · %d h worked · %d h awake · exertion saves %d, failures %d",
			c.Activity, hmwSleepUntil(c), c.HoursWorked, c.HoursAwake, c.ExertionSaves, c.ExertionFailures), Inline: true},
	}
	if f := c.FatigueSummary(); f != "" {
		fields = append(fields, commands.Field{Name: "Fatigue", Value: f})
	}
	return status, fields, nil
}

// hmwSleepUntil renders the end of a night's rest (RULES.md §2.6), e.g.
// " (night's rest until day 1, 08:00)", or "".
func hmwSleepUntil(c hpmpwp.Character) string {
	if c.Activity != hpmpwp.Sleep || c.SleepUntil == 0 {
		return ""
	}
	return " (night's rest until " + clock.Time(c.SleepUntil).String() + ")"
}

func (System) Action(name string) commands.ActionFunc {
	switch name {
	case "damage":
		return hmwDamage
	case "heal":
		return hmwHeal
	case "strain":
		return hmwStrain
	case "attend":
		return hmwAttend
	case "spend":
		return hmwSpend
	case "activity":
		return hmwActivity
	case "rest":
		return hmwRest
	case "save":
		return hmwSave
	}
	return nil
}

func (System) Roll() commands.ActionFunc { return nil }

func (System) Components() map[string]commands.HandlerFunc {
	return map[string]commands.HandlerFunc{hmwChoicePrefix: hmwChoice}
}

// hmwEach runs fn on each target the caller may change, with the rules'
// dice, and joins the reports. fn returns the new state and outcome.
func hmwEach(m *commands.Mutation, targets []*storage.Character, check func(*storage.Character) error,
	fn func(c hpmpwp.Character, src dice.Source) (hpmpwp.Character, hpmpwp.Outcome, error)) ([]string, error) {
	var reports []string
	src := m.RecordingDice()
	for _, ch := range targets {
		if err := check(ch); err != nil {
			return nil, err
		}
		c, s, err := hmwLoad(ch)
		if err != nil {
			return nil, err
		}
		next, out, err := fn(c, src)
		if err != nil {
			return nil, hmwRuleError(ch, err)
		}
		if err := hmwStore(m, ch, next, s.ChoiceSeq); err != nil {
			return nil, err
		}
		rep := hmwReport(ch.Name, out)
		m.Note("%s", strings.ReplaceAll(rep, "**", ""))
		reports = append(reports, rep)
	}
	return reports, nil
}

func hmwDone(m *commands.Mutation, reports []string) *commands.Response {
	return &commands.Response{Content: strings.Join(reports, "\n\n")}
}

// hmwDamage is /damage (RULES.md §2.2, §2.4).
func hmwDamage(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("soak", "type", "lethal", "kind", "pool"); err != nil {
		return nil, err
	}
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	hit := hpmpwp.Hit{Nonlethal: m.Req.Options["nonlethal"] == "true"}
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
		c, s, err := hmwLoad(ch)
		if err != nil {
			return nil, err
		}
		next, out, err := c.TakeDamage(src, hit, m.Table.Clock)
		if err != nil {
			return nil, hmwRuleError(ch, err)
		}
		choiceSeq := s.ChoiceSeq
		if next.ChoicePending && !c.ChoicePending {
			choiceSeq = seq
			rows = append(rows, hmwChoiceButtons(ch.ID, seq, false))
			names = append(names, ch.Name)
		}
		if err := hmwStore(m, ch, next, choiceSeq); err != nil {
			return nil, err
		}
		rep := hmwReport(ch.Name, out)
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
		rows = hmwNameRows(rows, names)
	}
	if len(rows) > hmwMaxRows {
		rows = rows[:hmwMaxRows]
		content += "\nMore choices than a message holds: /char show offers each character's buttons."
	}
	return &commands.Response{Content: content + m.RollsLine(), Components: rows}, nil
}

// hmwMaxRows is Discord's limit on button rows in a message.
const hmwMaxRows = 5

func hmwChoiceButtons(id, seq uint64, disabled bool) []commands.Button {
	base := fmt.Sprintf("%s:%d:%d:", hmwChoicePrefix, id, seq)
	return []commands.Button{
		{Label: "Act Disabled", CustomID: base + "act", Style: commands.StylePrimary, Disabled: disabled},
		{Label: "Fall Unconscious", CustomID: base + "down", Style: commands.StyleSecondary, Disabled: disabled},
	}
}

// hmwNameRows leads each row of Die Hard buttons with a disabled button
// naming its character (a label is plain text, not markdown).
func hmwNameRows(rows [][]commands.Button, names []string) [][]commands.Button {
	for i, row := range rows {
		id := strings.TrimSuffix(row[0].CustomID, "act") + "name"
		rows[i] = append([]commands.Button{commands.NameButton(names[i], id)}, row...)
	}
	return rows
}

// PendingChoice offers a pending Die Hard choice again (RULES.md §2.4;
// Chooser): the text and the enabled Act Disabled / Fall Unconscious
// buttons with the custom_ids of the event that created the choice, or nil
// buttons when no choice is pending.
func (System) PendingChoice(ch *storage.Character) (string, [][]commands.Button, error) {
	c, s, err := hmwLoad(ch)
	if err != nil {
		return "", nil, err
	}
	if !c.ChoicePending || s.ChoiceSeq == 0 {
		return "", nil, nil
	}
	text := fmt.Sprintf("Die Hard: **%s** must choose — **Act Disabled** or **Fall Unconscious** (stable). Damage to %s waits for the choice.",
		commands.Escape(ch.Name), commands.Escape(ch.Name))
	return text, [][]commands.Button{hmwChoiceButtons(ch.ID, s.ChoiceSeq, false)}, nil
}

// hmwChoice handles a press of Act Disabled or Fall Unconscious (RULES.md
// §2.4): valid only while the character still has the choice of that event.
func hmwChoice(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	parts := strings.Split(r.CustomID, ":")
	if len(parts) != 4 || (parts[3] != "act" && parts[3] != "down") {
		return nil, commands.Errorf(commands.CodeInvalid, "This button is not one of ours.")
	}
	id, err1 := strconv.ParseUint(parts[1], 10, 64)
	seq, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "This button is not one of ours.")
	}
	r.Command, r.Subcommand, r.Options = "damage", "", map[string]string{"choice": parts[3]}
	return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
		ch, err := m.CharacterByID(id)
		if err != nil {
			return nil, err
		}
		if err := m.CanChange(ch); err != nil {
			return nil, err
		}
		c, st, err := hmwLoad(ch)
		if err != nil {
			return nil, err
		}
		if !c.ChoicePending || st.ChoiceSeq != seq {
			return nil, commands.Errorf(commands.CodeConflict, "%s's Die Hard choice is already made or no longer pending; nothing was changed.", commands.Escape(ch.Name))
		}
		next, out, err := c.Choose(parts[3] == "act")
		if err != nil {
			return nil, hmwRuleError(ch, err)
		}
		if err := hmwStore(m, ch, next, 0); err != nil {
			return nil, err
		}
		label := "Fall Unconscious"
		if parts[3] == "act" {
			label = "Act Disabled"
		}
		rep := hmwReport(ch.Name, out)
		m.Note("Die Hard: %s (%s pressed %s)", strings.ReplaceAll(rep, "**", ""), r.UserName, label)
		content := fmt.Sprintf("Die Hard: %s pressed **%s** for **%s**.\n%s", commands.Escape(r.UserName), label, commands.Escape(ch.Name), rep)

		rows, names := [][]commands.Button{hmwChoiceButtons(id, seq, true)}, []string{ch.Name}
		all, err := m.Characters()
		if err != nil {
			return nil, err
		}
		for _, o := range all {
			if o.ID == id {
				continue
			}
			oc, os, err := hmwLoad(o)
			if err != nil {
				return nil, err
			}
			if oc.ChoicePending && os.ChoiceSeq == seq {
				rows = append(rows, hmwChoiceButtons(o.ID, seq, false))
				names = append(names, o.Name)
				content += fmt.Sprintf("\n**%s**: Die Hard choice pending.", commands.Escape(o.Name))
			}
		}
		if len(rows) > 1 {
			rows = hmwNameRows(rows, names)
		}
		if len(rows) > hmwMaxRows {
			rows = rows[:hmwMaxRows]
		}
		return &commands.Response{Content: content, Components: rows, UpdateMessage: true}, nil
	})

}

// hmwHeal is /heal amount pool:hp|wp (RULES.md §2.5).
func hmwHeal(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("trigger", "healer", "ability", "spend", "healer-pool"); err != nil {
		return nil, err
	}
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	pool := hpmpwp.PoolHP
	switch m.Req.Options["pool"] {
	case "", "hp":
	case "wp":
		pool = hpmpwp.PoolWP
	default:
		return nil, commands.Errorf(commands.CodeInvalid, "In hp-mp-wp, /heal pool is hp or wp (got %s).", m.Req.Options["pool"])
	}
	n, _, err := m.Amount(1, commands.MaxAmount, "healed")
	if err != nil {
		return nil, err
	}
	if n < 1 {
		for _, ch := range targets {
			if err := m.CanChange(ch); err != nil {
				return nil, err
			}
		}
		return &commands.Response{Content: "No healing (the roll came to 0)." + m.RollsLine()}, nil
	}
	reports, err := hmwEach(m, targets, m.CanChange, func(c hpmpwp.Character, _ dice.Source) (hpmpwp.Character, hpmpwp.Outcome, error) {
		return c.Heal(pool, n)
	})
	if err != nil {
		return nil, err
	}
	return &commands.Response{Content: strings.Join(reports, "\n\n") + m.RollsLine()}, nil
}

// hmwStrain is /strain (RULES.md §2.4).
func hmwStrain(m *commands.Mutation) (*commands.Response, error) {
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	reports, err := hmwEach(m, targets, m.CanChange, func(c hpmpwp.Character, src dice.Source) (hpmpwp.Character, hpmpwp.Outcome, error) {
		return c.Strain(src, m.Table.Clock)
	})
	if err != nil {
		return nil, err
	}
	return hmwDone(m, reports), nil
}

// hmwAttend is /attend bonus:N, a DC 15 Heal check by anyone (RULES.md
// §0.1, §2.4).
func hmwAttend(m *commands.Mutation) (*commands.Response, error) {
	if err := m.RefuseOptions("healer"); err != nil {
		return nil, err
	}
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	bonus, _ := strconv.Atoi(m.Req.Options["bonus"])
	anyone := func(*storage.Character) error { return nil }
	reports, err := hmwEach(m, targets, anyone, func(c hpmpwp.Character, src dice.Source) (hpmpwp.Character, hpmpwp.Outcome, error) {
		return c.Attend(src, bonus)
	})
	if err != nil {
		return nil, err
	}
	return &commands.Response{Content: fmt.Sprintf("%s attends.\n%s", commands.Escape(m.Req.UserName), strings.Join(reports, "\n\n"))}, nil
}

// hmwSpend is /spend resource:mp (RULES.md §2.5).
func hmwSpend(m *commands.Mutation) (*commands.Response, error) {
	if r := m.Req.Options["resource"]; r != "mp" {
		return nil, commands.Errorf(commands.CodeInvalid, "hp-mp-wp characters spend mp, not %s.", commands.Clip(r, 20))
	}
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(m.Req.Options["amount"])
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "amount must be a whole number.")
	}
	reports, err := hmwEach(m, targets, m.CanChange, func(c hpmpwp.Character, _ dice.Source) (hpmpwp.Character, hpmpwp.Outcome, error) {
		return c.SpendMP(n)
	})
	if err != nil {
		return nil, err
	}
	return hmwDone(m, reports), nil
}

// hmwActivity is /activity kind:awake|work|sleep (RULES.md §2.6); awake on a
// sleeper is the Will save to wake early.
func hmwActivity(m *commands.Mutation) (*commands.Response, error) {
	a, err := hpmpwp.ParseActivity(m.Req.Options["kind"])
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "%v.", err)
	}
	targets, err := m.Targets(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	reports, err := hmwEach(m, targets, m.CanChange, func(c hpmpwp.Character, src dice.Source) (hpmpwp.Character, hpmpwp.Outcome, error) {
		next, out, err := c.SetActivity(src, a)
		if err == nil && len(out.Lines) == 0 {
			out.Lines = append(out.Lines, fmt.Sprintf("activity: %s", next.Activity))
		}
		return next, out, err
	})
	if err != nil {
		return nil, err
	}
	return hmwDone(m, reports), nil
}

// hmwRest is /rest kind:night (GM): the whole table (or target) goes to
// sleep for 8 hours on the clock, and the clock passes them (RULES.md §2.6).
// Nobody put to bed wakes on their own before the 8 hours are over
// (hpkeeper's reading); the unconscious and the dead are not put to bed.
func hmwRest(m *commands.Mutation) (*commands.Response, error) {
	if m.Req.Options["kind"] != "night" {
		return nil, commands.Errorf(commands.CodeInvalid, "hp-mp-wp has only kind:night (8 hours of sleep on the clock); time heals through /clock advance.")
	}
	if err := m.RequireGM("call a night's rest"); err != nil {
		return nil, err
	}
	var targets []*storage.Character
	var err error
	if t := m.Req.Options["target"]; strings.TrimSpace(t) != "" {
		targets, err = m.Targets(t)
	} else {
		targets, err = m.Characters()
	}
	if err != nil {
		return nil, err
	}
	until := int64(clock.Time(m.Table.Clock).Add(8, clock.Hour))
	var names []string
	for _, ch := range targets {
		c, s, err := hmwLoad(ch)
		if err != nil {
			return nil, err
		}
		next, _, err := c.NightRest(until)
		if err != nil {
			continue // the dead and the unconscious do not go to bed
		}
		until = next.SleepUntil // rounded down to a whole hour
		if err := hmwStore(m, ch, next, s.ChoiceSeq); err != nil {
			return nil, err
		}
		name := commands.Escape(ch.Name)
		if c.Activity == hpmpwp.Sleep {
			name += " (already asleep)"
		}
		names = append(names, name)
	}
	report, err := m.AdvanceClock(8, clock.Hour)
	if err != nil {
		return nil, err
	}
	head := "Night's rest: nobody goes to sleep."
	if len(names) > 0 {
		head = "Night's rest, to sleep until " + clock.Time(until).String() + ": " + strings.Join(names, ", ") + "."
	}
	return &commands.Response{Content: head + "\n" + strings.Join(report, "\n") + m.RollsLine()}, nil
}

// hmwSave is /save type:fort|will bonus:N: d20 + the sheet's save + bonus,
// shown for the GM to compare with a DC (RULES.md §0.4).
func hmwSave(m *commands.Mutation) (*commands.Response, error) {
	kind := m.Req.Options["type"]
	if kind != "fort" && kind != "will" {
		return nil, commands.Errorf(commands.CodeInvalid, "hp-mp-wp saves are fort or will, not %s.", commands.Clip(kind, 20))
	}
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	extra, _ := strconv.Atoi(m.Req.Options["bonus"])
	var lines []string
	for _, ch := range targets {
		c, _, err := hmwLoad(ch)
		if err != nil {
			return nil, err
		}
		bonus, name := c.Fort, "Fort"
		if kind == "will" {
			bonus, name = c.Will, "Will"
		}
		res, err := m.Roll(dice.Expr{Terms: []dice.Term{{Sign: 1, Count: 1, Sides: 20}}})
		if err != nil {
			return nil, err
		}
		note := ""
		switch res.Total {
		case 1:
			note = " (natural 1: fails)"
		case 20:
			note = " (natural 20: succeeds)"
		}
		lines = append(lines, fmt.Sprintf("**%s** %s save: %s %+d = %d%s", commands.Escape(ch.Name), name, res, bonus+extra, res.Total+bonus+extra, note))
	}
	return &commands.Response{Content: strings.Join(lines, "\n")}, nil
}

// AdvanceClock resolves every character's rounds, hours and days between
// from and to (RULES.md §0.2, §2.4–§2.6).
func (System) AdvanceClock(m *commands.Mutation, from, to int64) ([]string, error) {
	chars, err := m.Characters()
	if err != nil {
		return nil, err
	}
	var report []string
	src := m.RecordingDice()
	for _, ch := range chars {
		c, s, err := hmwLoad(ch)
		if err != nil {
			return nil, err
		}
		next, out, err := c.Advance(src, from, to)
		if err != nil {
			return nil, hmwRuleError(ch, err)
		}
		if next == c && len(out.Lines) == 0 {
			continue
		}
		if next != c {
			if err := hmwStore(m, ch, next, s.ChoiceSeq); err != nil {
				return nil, err
			}
		}
		// Every line, every save with its DC: the reply is fitted to
		// Discord's limits by the platform, the /history summary keeps all.
		rep := fmt.Sprintf("**%s**: %s", commands.Escape(ch.Name), hmwPoints(out))
		for _, l := range out.Lines {
			rep += "\n• " + l
		}
		if c.State != next.State || c.Activity != next.Activity {
			rep += "\nState: **" + hmwStateText(next) + "**"
		}
		if f := next.FatigueSummary(); f != "" && f != c.FatigueSummary() {
			rep += "\n" + f
		}
		report = append(report, rep)
	}
	return report, nil
}
