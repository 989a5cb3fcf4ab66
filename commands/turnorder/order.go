package turnorder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The open turn order's walk (RULES.md §0.6): its order and ties, who can
// act, whose turn starts, the rounds the clock moves it through, rerolls,
// leaving and closing.

// ahead reports whether a acts before b (RULES.md §0.6): the higher
// initiative, then the higher bonus, then the one that joined first.
func ahead(a, b storage.Combatant) bool {
	if a.Initiative != b.Initiative {
		return a.Initiative > b.Initiative
	}
	if a.Bonus != b.Bonus {
		return a.Bonus > b.Bonus
	}
	return a.Join < b.Join
}

// sortOrder puts o's combatants in turn order (after a reroll).
func sortOrder(o *storage.Initiative) {
	slices.SortStableFunc(o.Combatants, func(a, b storage.Combatant) int {
		switch {
		case ahead(a, b):
			return -1
		case ahead(b, a):
			return 1
		}
		return 0
	})
}

// insertCombatant puts c into o at its place in the order, giving it the
// next join number, and returns its index. Once the order is under way the
// turn stays with the combatant who has it: one inserted before it acts
// from the next round on.
func insertCombatant(o *storage.Initiative, c storage.Combatant) int {
	o.Joins++
	c.Join = o.Joins
	i := 0
	for i < len(o.Combatants) && ahead(o.Combatants[i], c) {
		i++
	}
	o.Combatants = slices.Insert(o.Combatants, i, c)
	if o.Underway && i <= o.Turn {
		o.Turn++
	}
	return i
}

// combatantIndex returns the index of the character in o, or -1.
func combatantIndex(o *storage.Initiative, id uint64) int {
	for i, c := range o.Combatants {
		if c.CharacterID == id {
			return i
		}
	}
	return -1
}

// canAct reports whether the combatant can act now (Actor), with the
// character (nil when it is gone) and why not, in the rule's terms.
func canAct(m *commands.Mutation, cb storage.Combatant) (*storage.Character, bool, string, error) {
	ch, err := m.CharacterIfAny(cb.CharacterID)
	if err != nil || ch == nil {
		return nil, false, "gone from the table", err
	}
	ok, why, err := actorCanAct(m.System, ch, m.Table.Clock)
	return ch, ok, why, err
}

// actorCanAct asks sys whether c can act at clock round now; a system
// without Actor lets everyone act.
func actorCanAct(sys commands.System, c *storage.Character, now int64) (bool, string, error) {
	a, ok := sys.(initiative.Actor)
	if !ok {
		return true, "", nil
	}
	return a.CanAct(c, now)
}

// combatantName is the bold name of a combatant's character, or a
// stand-in for one that is gone.
func combatantName(ch *storage.Character) string {
	if ch == nil {
		return "a deleted character"
	}
	return "**" + commands.Escape(ch.Name) + "**"
}

// line is one sentence of the turn order's reply (or a few). A sentence
// about a hidden combatant (about) reads to those who may not see it as
// public: what the table sees it do, not why (commands.Part.Public).
type line struct {
	text, public string
	about        *storage.Character
}

// lines are sentences about no combatant in particular.
func lines(texts ...string) []line {
	out := make([]line, len(texts))
	for i, t := range texts {
		out[i] = line{text: t}
	}
	return out
}

// joined is ls as one line of sentences (those not ""): its text, its
// public text (each hidden combatant's sentence as the table sees it),
// and the hidden combatants it is about.
func joined(ls []line) (text, public string, about []*storage.Character) {
	var texts, publics []string
	for _, l := range ls {
		if l.text == "" {
			continue
		}
		texts, publics = append(texts, l.text), append(publics, l.text)
		if l.about != nil {
			publics[len(publics)-1] = l.public
			about = append(about, l.about)
		}
	}
	return strings.Join(texts, " "), strings.Join(publics, " "), about
}

// nextActor walks o from index from to the first combatant that can act
// now and returns its index (len(o.Combatants) when none can) with a
// sentence per combatant passed over (RULES.md §0.6: a skip is reported;
// a hidden one is seen to pass its turn, no more). **Reading** (issue
// 24): a skip is reported in the round the combatant fell; one that could
// not act as the round began (Fallen: dead, taken out, down since an
// earlier round) is passed over without a word.
func nextActor(m *commands.Mutation, from int) (int, []line, error) {
	o := m.Table.Initiative
	var skips []line
	i := from
	for ; i < len(o.Combatants); i++ {
		ch, ok, why, err := canAct(m, o.Combatants[i])
		if err != nil {
			return 0, nil, err
		}
		if ok {
			break
		}
		if o.Combatants[i].Fallen {
			continue
		}
		l := line{text: fmt.Sprintf("%s cannot act (%s): turn skipped.", combatantName(ch), why)}
		if ch != nil && ch.Hidden {
			l.public, l.about = combatantName(ch)+" passes its turn.", ch
		}
		skips = append(skips, l)
	}
	return i, skips, nil
}

// markFallen marks each combatant of the open order that cannot act now,
// as a round begins (Fallen), and clears the mark of the others.
func markFallen(m *commands.Mutation) error {
	o := m.Table.Initiative
	for i := range o.Combatants {
		_, ok, _, err := canAct(m, o.Combatants[i])
		if err != nil {
			return err
		}
		o.Combatants[i].Fallen = !ok
	}
	return nil
}

// startTurn gives the turn to the combatant at index i (len: nobody) and
// returns the sentence that says so: "It is **Lister**'s turn (round 2).",
// without the round when the line has just said it began. With init-ping
// on, the reply may mention the owner of that character, and no one else.
func startTurn(m *commands.Mutation, i int, withRound bool) (string, error) {
	o := m.Table.Initiative
	o.Turn = i
	m.SetMentions()
	if i >= len(o.Combatants) {
		if len(o.Combatants) == 0 {
			return "Nobody is in the turn order yet: `/init join target:NAME`.", nil
		}
		return "Nobody left in the turn order can act this round: `/init next` ends it.", nil
	}
	ch, err := m.CharacterIfAny(o.Combatants[i].CharacterID)
	if err != nil {
		return "", err
	}
	o.Combatants[i].Fallen = false
	line := fmt.Sprintf("It is %s's turn.", combatantName(ch))
	if withRound {
		line = fmt.Sprintf("It is %s's turn (round %d).", combatantName(ch), round(m))
	}
	if ch != nil && ch.OwnerID != "" && m.Table.Options[InitPingOption] == "on" {
		line += " " + commands.Mention(ch.OwnerID)
		m.SetMentions(ch.OwnerID)
	}
	return line, nil
}

// unpinged returns a reply line without the init-ping mention startTurn
// added, for the history.
func unpinged(m *commands.Mutation, line string) string {
	for _, id := range m.Mentions() {
		line = strings.TrimSuffix(line, " "+commands.Mention(id))
	}
	return line
}

// noteLines notes the turn order's sentences for /history as plain text
// without the init-ping mention: one note about the table of each run of
// sentences about no hidden combatant, and each about a hidden combatant
// about it.
func noteLines(m *commands.Mutation, ls []line) {
	var table []string
	flush := func() {
		if len(table) > 0 {
			m.ForTable().Note("%s", strings.Join(table, " "))
			table = nil
		}
	}
	for _, l := range ls {
		if l.text == "" {
			continue
		}
		text := commands.Unmarkdown(unpinged(m, l.text))
		if l.about == nil {
			table = append(table, text)
			continue
		}
		flush()
		m.For(l.about).Note("%s", text)
	}
	flush()
}

// sayLines says the turn order's sentences ls (whose turn it is, who is
// skipped, who leaves: no character's numbers) in one line for everyone,
// a hidden combatant's as its public sentence, and notes them.
func sayLines(m *commands.Mutation, ls []line) {
	text, public, about := joined(ls)
	switch {
	case text == "":
		return
	case len(about) > 0:
		m.For(about...).Post(commands.Part{Text: text, Public: public})
	default:
		m.ForTable().Say("%s", text)
	}
	noteLines(m, ls)
}

// round is the number of the open order's round now, 1 for the first.
func round(m *commands.Mutation) int64 { return m.Table.Clock - m.Table.Initiative.Start + 1 }

// orderFollowsClock carries the open turn order along a clock move by
// unit (RULES.md §0.6), after the system resolved its timers, and says
// what it did. A move by turns, hours or days closes the order: that is
// time outside combat. **Reading:** a move by rounds, of any number, is
// time within the combat (as harm reads its conflicts, §3.2.4): the round
// under way ends and the next starts at the top of the order.
func orderFollowsClock(m *commands.Mutation, unit clock.Unit) error {
	if m.Table.Initiative == nil {
		return nil
	}
	if unit != clock.Round {
		return closeOrder(m, fmt.Sprintf("The turn order is closed: the clock moved by %s, time outside combat.", unit))
	}
	return startRound(m)
}

// startRound starts the next round of the open order at the clock as it
// is now, and says so: with init-reroll each-round everyone who can act
// rerolls, then the turn goes to the first combatant who can act.
func startRound(m *commands.Mutation) error {
	o := m.Table.Initiative
	o.Underway = true
	begins := fmt.Sprintf("Round %d of the turn order begins.", round(m))
	if m.Table.Options[InitRerollOption] == InitRerollEachRound {
		sayLines(m, lines(begins))
		begins = ""
		if err := rerollOrder(m); err != nil {
			return err
		}
	}
	if err := markFallen(m); err != nil {
		return err
	}
	i, skips, err := nextActor(m, 0)
	if err != nil {
		return err
	}
	turn, err := startTurn(m, i, begins == "")
	if err != nil {
		return err
	}
	sayLines(m, append(append(lines(begins), skips...), lines(turn)...))
	return nil
}

// rerollOrder rerolls the initiative of every combatant who can act
// (init-reroll each-round), each said about its character with every die
// (a hidden one's is the GM's), sorts the order again and says the new
// order in one line for everyone, where a hidden combatant shows by name
// only.
//
// **Reading:** "everyone" is everyone who can act at the round's start;
// the dead, the unconscious and the stunned keep their initiative (they
// are skipped anyway) and roll no dice.
func rerollOrder(m *commands.Mutation) error {
	o := m.Table.Initiative
	ini, ok := m.System.(initiative.Initiator)
	if !ok || len(o.Combatants) == 0 {
		return nil
	}
	die, err := initiativeDie(m.Table)
	if err != nil {
		return err
	}
	for i := range o.Combatants {
		cb := &o.Combatants[i]
		ch, ok, _, err := canAct(m, *cb)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		mc := m.For(ch)
		r, err := ini.RollInitiative(mc, ch, die)
		if err != nil {
			return err
		}
		cb.Initiative, cb.Bonus, cb.Roll, cb.Hidden = r.Total, r.Bonus, r.Text, ch.Hidden
		mc.Say("**%s** rerolls initiative: %s.", commands.Escape(ch.Name), r.Text)
		mc.Note("%s rerolls initiative: %s.", ch.Name, commands.Unmarkdown(r.Text))
	}
	sortOrder(o)
	var parts []string
	for _, cb := range o.Combatants {
		ch, err := m.CharacterIfAny(cb.CharacterID)
		if err != nil {
			return err
		}
		if ch != nil && ch.Hidden {
			parts = append(parts, combatantName(ch))
		} else {
			parts = append(parts, fmt.Sprintf("%s %d", combatantName(ch), cb.Initiative))
		}
	}
	sayLines(m, lines("Initiative rerolled (init-reroll each-round): "+strings.Join(parts, ", ")+"."))
	return nil
}

// closeOrder closes the open turn order (/init end, or a clock move of a
// turn or more) and says so, line first, then what the system ends with
// it (CombatEnder: harm's conflict, RULES.md §3.2.4), noted in its scope.
func closeOrder(m *commands.Mutation, text string) error {
	m.Table.Initiative = nil
	m.SetMentions()
	sayLines(m, lines(text))
	if e, ok := m.System.(initiative.CombatEnder); ok {
		return m.NoteSaid(func() error { return e.EndCombat(m) })
	}
	return nil
}

// leaveOrder takes the character out of the open turn order, if it is in
// it (/init remove, /char delete), and returns what happened: it leaves,
// and when it had the turn, the turn passes on within the round. In the
// opening nobody has the turn to pass.
func leaveOrder(m *commands.Mutation, id uint64, name string) ([]line, error) {
	o := m.Table.Initiative
	if o == nil {
		return nil, nil
	}
	i := combatantIndex(o, id)
	if i < 0 {
		return nil, nil
	}
	had := i == o.Turn
	o.Combatants = slices.Delete(o.Combatants, i, i+1)
	if i < o.Turn {
		o.Turn--
	}
	left := lines(fmt.Sprintf("**%s** leaves the turn order.", commands.Escape(name)))
	if !o.Underway || !had {
		return left, nil
	}
	t, skips, err := nextActor(m, o.Turn)
	if err != nil {
		return nil, err
	}
	turn, err := startTurn(m, t, true)
	if err != nil {
		return nil, err
	}
	return append(append(left, skips...), lines(turn)...), nil
}
