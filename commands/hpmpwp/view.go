package hpmpwp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

var _ commands.Statuser = System{}

// View shows an hp-mp-wp character (RULES.md §2): HP, MP and WP bars (WP
// max is the Con score; temporary WP on top of the current WP and the
// maximum alike); at 0 when disabled or stable at negative WP, dying while
// Dying.
func (System) View(ch *storage.Character, now int64) (view.Character, error) {
	char, err := load(ch)
	if err != nil {
		return view.Character{}, err
	}
	c := char.c
	wp := c.WP // temporary WP on top of the current WP, as on top of the maximum
	if wp >= 0 {
		wp += c.TempWP
	}
	v := view.Character{Bars: []view.Bar{{Label: "HP", Current: c.HP, Max: c.HPMax}, {Label: "MP", Current: c.MP, Max: c.MPMax}, {Label: "WP", Current: wp, Max: c.WPMax() + c.TempWP}}, State: c.State.String()}
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
		v.Level = view.LevelDead
	case rules.Dying:
		v.Level = view.LevelDying
	case rules.Disabled, rules.Stable:
		v.Level = view.LevelZero
		// Conscious (§2.4), or its Die Hard choice to make: it takes its
		// turns either way, so players never read "Down" of it.
		v.Standing = c.State == rules.Disabled || c.ChoicePending
	default:
		if c.HP < c.HPMax || c.WP < c.WPMax() {
			v.Level = view.LevelWounded
		}
	}
	return v, nil
}

// Status is Describe's status alone (commands.Statuser): "HP 12/12 · MP
// 4/4 · WP 10/10" with state and fatigue.
func (System) Status(ch *storage.Character) (string, error) {
	char, err := load(ch)
	if err != nil {
		return "", err
	}
	return statusLine(char.c), nil
}

// statusLine is a character's one-line status: HP, MP and WP (temporary
// WP beside), its state when not plainly conscious, and its fatigue.
func statusLine(c rules.Character) string {
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
	return status
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
	status := statusLine(c)
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
	if c.TempWP > 0 { // the WP bar counts them: the card says how many
		fields = append(fields, commands.Field{Name: "Temporary WP", Value: strconv.Itoa(c.TempWP), Inline: true})
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
const capped = " (capped by fatigue)"

// points renders the HP, MP and WP that changed in an outcome with their
// maxima, e.g. "HP 20 → 12/20 · MP 4 → 3/4 (capped by fatigue) · WP 15 →
// -1/15 (temp 2 → 0)", or "" when none did: HP or MP that went down to
// fatigue's lowered maxima say so (RULES.md §2.3).
func points(out rules.Outcome) string {
	b, a := out.Before, out.After
	hp, mp := commands.Change("HP", b.HP, a.HP, a.HPMax), commands.Change("MP", b.MP, a.MP, a.MPMax)
	if out.CappedHP && a.HP < b.HP {
		hp += capped
	}
	if out.CappedMP && a.MP < b.MP {
		mp += capped
	}
	wp := commands.Change("WP", b.WP, a.WP, a.WPMax())
	switch t := commands.Change("temp", b.TempWP, a.TempWP, 0); {
	case t != "" && wp != "":
		wp += " (" + t + ")"
	case t != "":
		wp = "temporary WP " + strings.TrimPrefix(t, "temp ")
	}
	return commands.Changes(hp, mp, wp)
}

// restates reports whether a line of an outcome says what a reply says
// already: the damage or healing the points show, the MP spent, the
// Die Hard choice its prompt asks for.
func restates(line string) bool {
	for _, s := range []string{"damage to HP", "damage beyond HP to WP", "taken by temporary WP"} {
		if strings.HasSuffix(line, s) || strings.Contains(line, s+" ") {
			return true
		}
	}
	for _, p := range []string{"critical ×", "heals ", "spends ", "Die Hard: must choose"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// outcomeText renders an outcome for one character in one line (RULES.md
// §2): its name and what (e.g. " takes 8 damage, critical ×3"), what
// changed of HP, MP and WP, each save with its die and what else happened
// (lines, the outcome's or a summary's), and a fatigue condition that
// began or ended; each step of the rule is in the event's detail
// (detailText). lines nil means the outcome's own.
func outcomeText(name, what string, out rules.Outcome, lines []string) string {
	if lines == nil {
		lines = out.Lines
	}
	var parts []string
	if p := points(out); p != "" {
		parts = append(parts, p)
	}
	said := ""
	for _, l := range lines {
		if !restates(l) {
			parts = append(parts, l)
			said += l
		}
	}
	switch b, a := condition(out.Before), condition(out.After); {
	case b == a:
	case a == "" && !strings.Contains(said, "no longer"):
		parts = append(parts, "no longer "+b)
	case a != "" && !strings.Contains(said, a):
		parts = append(parts, "now "+a)
	}
	text := "**" + commands.Escape(name) + "**" + what
	if len(parts) == 0 {
		return text + ": nothing changes."
	}
	return text + ": " + strings.Join(parts, "; ") + "."
}

// detailText renders an outcome for /history, each step on a line of its
// own (RULES.md §2): the points that changed, every line of the rule, the
// state and the fatigue with what it does.
func detailText(name string, out rules.Outcome) string {
	var b strings.Builder
	b.WriteString(name + ":")
	if p := points(out); p != "" {
		b.WriteString(" " + p)
	}
	for _, l := range out.Lines {
		b.WriteString("\n• " + l)
	}
	if out.Before.State != out.After.State || condition(out.Before) != condition(out.After) {
		fmt.Fprintf(&b, "\nState: %s; was %s", stateLine(out.After), stateLine(out.Before))
	}
	if f := fatigue(out.After); f != "" && f != fatigue(out.Before) {
		b.WriteString("\n" + f)
	}
	return b.String()
}
