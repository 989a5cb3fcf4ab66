package hpmpwp

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// View shows an hp-mp-wp character (RULES.md §2): HP, MP and WP bars (WP
// max is the Con score; temporary WP on top of the current WP and the
// maximum alike); at 0 when disabled or stable at negative WP, dying while
// Dying.
func (System) View(ch *storage.Character, now int64) (commands.CharacterView, error) {
	char, err := load(ch)
	if err != nil {
		return commands.CharacterView{}, err
	}
	c := char.c
	wp := c.WP // temporary WP on top of the current WP, as on top of the maximum
	if wp >= 0 {
		wp += c.TempWP
	}
	v := commands.CharacterView{Bars: []commands.Bar{{Label: "HP", Current: c.HP, Max: c.HPMax}, {Label: "MP", Current: c.MP, Max: c.MPMax}, {Label: "WP", Current: wp, Max: c.WPMax() + c.TempWP}}, State: c.State.String(), Choosing: c.ChoicePending}
	if c.State != rules.Fine || c.ChoicePending || c.Activity == rules.Sleep {
		v.Conditions = append(v.Conditions, stateText(c))
	}
	if cond := condition(c); cond != "" {
		v.Conditions = append(v.Conditions, cond)
	}
	if until := sleepUntil(c); until != "" {
		v.Timers = append(v.Timers, strings.Trim(until, " ()"))
	}
	switch c.State {
	case rules.Dead:
		v.Level = commands.LevelDead
	case rules.Dying:
		v.Level = commands.LevelDying
	case rules.Disabled, rules.Stable:
		v.Level = commands.LevelZero
		v.Standing = c.State == rules.Disabled // conscious (§2.4)
	default:
		if c.HP < c.HPMax || c.WP < c.WPMax() {
			v.Level = commands.LevelWounded
		}
	}
	return v, nil
}

// Describe renders a character for /char show (RULES.md §2): the status
// "HP 12/12 · MP 4/4 · WP 10/10" with state and fatigue, and the class,
// mana die, saves, abilities, feats, activity and fatigue as fields.
func (System) Describe(ch *storage.Character) (string, []commands.Field, error) {
	char, err := load(ch)
	if err != nil {
		return "", nil, err
	}
	c := char.c
	status := fmt.Sprintf("HP %d/%d · MP %d/%d · WP %d/%d", c.HP, c.HPMax, c.MP, c.MPMax, c.WP, c.WPMax())
	if c.TempWP > 0 {
		status += fmt.Sprintf(" (+%d temp)", c.TempWP)
	}
	if c.State != rules.Fine || c.ChoicePending || c.Activity == rules.Sleep {
		status += " · " + stateText(c)
	}
	if cond := condition(c); cond != "" {
		status += " · " + cond
	}
	var abilities []string
	for i, score := range []int{c.Str, c.Dex, c.Con, c.Int, c.Wis, c.Cha} {
		abilities = append(abilities, fmt.Sprintf("%s %d (%+d)", rules.AbilityNames[i], score, rules.Modifier(score)))
	}
	feats := "none"
	if f := c.Feats(); len(f) > 0 {
		feats = strings.Join(f, ", ")
	}
	fields := []commands.Field{
		{Name: "Class", Value: fmt.Sprintf("%s %d", commands.Escape(c.Class), c.Level), Inline: true},
		{Name: "Mana die", Value: fmt.Sprintf("d%d", rules.ManaDie(c.Class)), Inline: true},
		{Name: "Saves", Value: savesText(c), Inline: true},
		{Name: "Abilities", Value: strings.Join(abilities, " · ")},
		{Name: "Feats", Value: feats, Inline: true},
		{Name: "Activity", Value: fmt.Sprintf("%s%s · %d h worked · %d h awake · exertion saves %d, failures %d",
			c.Activity, sleepUntil(c), c.HoursWorked, c.HoursAwake, c.ExertionSaves, c.ExertionFailures), Inline: true},
	}
	if f := fatigue(c); f != "" {
		fields = append(fields, commands.Field{Name: "Fatigue", Value: f})
	}
	if c.Init != 0 {
		bonus, why := initiativeBonus(c)
		fields = append(fields, commands.Field{Name: "Initiative", Value: fmt.Sprintf("d20 %+d (%s)", bonus, why), Inline: true})
	}
	return status, fields, nil
}

// savesText renders the sheet's Fort and Will, the rested values, and
// while fatigue or exertion penalties lower them (RULES.md §2.3 Reading)
// what they are now, e.g. "Fort +2 · Will +1; −1 fatigue: Fort +1 · Will
// +0".
func savesText(c rules.Character) string {
	s := fmt.Sprintf("Fort %+d · Will %+d", c.Fort, c.Will)
	fort, will := c.FatigueAdjust()
	if fort == 0 && will == 0 || c.State == rules.Dead {
		return s
	}
	return s + fmt.Sprintf("; −%d %s: Fort %+d · Will %+d", -fort, rules.FatigueWord(fort), c.Fort+fort, c.Will+will)
}

// sleepUntil renders the end of a night's rest (RULES.md §2.6), e.g.
// " (night's rest until day 1, 08:00)", or "".
func sleepUntil(c rules.Character) string {
	if c.Activity != rules.Sleep || c.SleepUntil == 0 {
		return ""
	}
	return " (night's rest until " + clock.Time(c.SleepUntil).String() + ")"
}

// stateText describes the state as a player would say it (RULES.md §2.4),
// e.g. "conscious", "asleep", "disabled (conscious)", "dying (unconscious)",
// "dead"; "choosing (Die Hard)" while the Die Hard choice is pending, which
// decides between disabled and stable (the rules hold it stable until
// then, a state it may never reach).
func stateText(c rules.Character) string {
	if c.ChoicePending {
		return "choosing (Die Hard)"
	}
	s := stateWord(c.State)
	switch {
	case c.State == rules.Fine && c.Activity == rules.Sleep:
		s = "asleep"
	case c.State == rules.Disabled:
		s += " (conscious)"
	case c.State == rules.Dying, c.State == rules.Stable:
		s += " (unconscious)"
	}
	if c.Activity == rules.Sleep && c.State == rules.Disabled {
		s += ", asleep"
	}
	return s
}

// stateLine is the state of a reply's State line: the state and the
// fatigue condition, e.g. "conscious, exhausted" (RULES.md §2.3, §2.4).
func stateLine(c rules.Character) string {
	if cond := condition(c); cond != "" {
		return stateText(c) + ", " + cond
	}
	return stateText(c)
}

// stateWord names a state for players: "conscious" for fine (a state with
// no name in RULES.md §2.4: WP 0 or more), else its rule name.
func stateWord(s rules.State) string {
	if s == rules.Fine {
		return "conscious"
	}
	return s.String()
}

// condition is c's fatigue condition, "fatigued", "exhausted" or ""; the
// dead have none (RULES.md §2.3 is about the living).
func condition(c rules.Character) string {
	if c.State == rules.Dead {
		return ""
	}
	return c.Condition()
}

// fatigue is c's fatigue for a reply (rules.Character.FatigueSummary), or
// "" for the dead.
func fatigue(c rules.Character) string {
	if c.State == rules.Dead {
		return ""
	}
	return c.FatigueSummary()
}

// capped is the note on HP or MP lowered to the maxima lowered by
// fatigue (RULES.md §2.3).
const capped = " (capped at the fatigued maximum)"

// points renders "HP 20 → 12 · MP 4 → 3 (capped at the fatigued maximum)
// · WP 15 → -1 (temp 2 → 0)" from an outcome: HP or MP that went down and
// were capped at fatigue's lowered maxima say so (RULES.md §2.3).
func points(out rules.Outcome) string {
	b, a := out.Before, out.After
	num := func(label string, x, y int) string {
		if x == y {
			return fmt.Sprintf("%s %d", label, y)
		}
		return fmt.Sprintf("%s %d → %d", label, x, y)
	}
	hp, mp := num("HP", b.HP, a.HP), num("MP", b.MP, a.MP)
	if out.CappedHP && a.HP < b.HP {
		hp += capped
	}
	if out.CappedMP && a.MP < b.MP {
		mp += capped
	}
	s := hp + " · " + mp + " · " + num("WP", b.WP, a.WP)
	if b.TempWP != 0 || a.TempWP != 0 {
		s += " (" + num("temp", b.TempWP, a.TempWP) + ")"
	}
	return s
}

// outcomeText renders an outcome for one character: the points before and
// after, every save and event, the state and fatigue (RULES.md §2).
func outcomeText(name string, out rules.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s", commands.Escape(name), points(out))
	for _, l := range out.Lines {
		b.WriteString("\n• " + l)
	}
	fmt.Fprintf(&b, "\nState: **%s**", stateLine(out.After))
	if out.Before.State != out.After.State {
		fmt.Fprintf(&b, " (was %s)", stateWord(out.Before.State))
	}
	if f := fatigue(out.After); f != "" {
		b.WriteString("\n" + f)
	}
	return b.String()
}
