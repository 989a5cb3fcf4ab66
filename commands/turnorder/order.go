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
// character (nil when it is gone) and why not: the system's reason, or,
// for a hidden character, its word only, so that any reader may see it.
func canAct(m *commands.Mutation, cb storage.Combatant) (*storage.Character, bool, string, error) {
	ch, err := m.CharacterIfAny(cb.CharacterID)
	if err != nil || ch == nil {
		return nil, false, "gone from the table", err
	}
	ok, why, err := actorCanAct(m.System, ch, m.Table.Clock)
	if err != nil || ok {
		return ch, ok, "", err
	}
	if ch.Hidden {
		v, err := commands.ViewOf(m.System, ch, m.Table.Clock)
		if err != nil {
			return nil, false, "", err
		}
		why = v.Word()
	}
	return ch, false, why, nil
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

// nextActor walks o from index from to the first combatant that can act
// now and returns its index (len(o.Combatants) when none can) with one
// line per combatant passed over (RULES.md §0.6: a skip is reported).
func nextActor(m *commands.Mutation, from int) (int, []string, error) {
	o := m.Table.Initiative
	var skips []string
	i := from
	for ; i < len(o.Combatants); i++ {
		ch, ok, why, err := canAct(m, o.Combatants[i])
		if err != nil {
			return 0, nil, err
		}
		if ok {
			break
		}
		skips = append(skips, fmt.Sprintf("%s cannot act (%s): turn skipped.", combatantName(ch), why))
	}
	return i, skips, nil
}

// startTurn gives the turn to the combatant at index i (len: nobody) and
// returns the line that says so. With init-ping on, the reply may mention
// the owner of that character, and no one else.
func startTurn(m *commands.Mutation, i int) (string, error) {
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
	line := fmt.Sprintf("It is %s's turn (round %d).", combatantName(ch), round(m))
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

// noteLines notes the turn order's reply lines for /history, about the
// table, as plain text without the init-ping mention.
func noteLines(m *commands.Mutation, lines []string) {
	for _, l := range lines {
		m.ForTable().Note("%s", commands.Unmarkdown(unpinged(m, l)))
	}
}

// sayLines says the turn order's lines (whose turn it is, who is skipped,
// who leaves: no character's numbers) for everyone, and notes them.
func sayLines(m *commands.Mutation, lines []string) {
	for _, l := range lines {
		m.ForTable().Say("%s", l)
	}
	noteLines(m, lines)
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
	sayLines(m, []string{fmt.Sprintf("Round %d of the turn order begins.", round(m))})
	if m.Table.Options[InitRerollOption] == InitRerollEachRound {
		if err := rerollOrder(m); err != nil {
			return err
		}
	}
	i, skips, err := nextActor(m, 0)
	if err != nil {
		return err
	}
	turn, err := startTurn(m, i)
	if err != nil {
		return err
	}
	sayLines(m, append(skips, turn))
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
		mc.Say("**%s** rerolls initiative: %d (%s).", commands.Escape(ch.Name), r.Total, r.Text)
		mc.Note("%s rerolls initiative: %d (%s).", ch.Name, r.Total, commands.Unmarkdown(r.Text))
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
	sayLines(m, []string{"Initiative rerolled (init-reroll each-round): " + strings.Join(parts, ", ") + "."})
	return nil
}

// closeOrder closes the open turn order (/init end, or a clock move of a
// turn or more) and says so, line first, then what the system ends with
// it (CombatEnder: harm's conflict, RULES.md §3.2.4), noted in its scope.
func closeOrder(m *commands.Mutation, line string) error {
	m.Table.Initiative = nil
	m.SetMentions()
	sayLines(m, []string{line})
	if e, ok := m.System.(initiative.CombatEnder); ok {
		return m.NoteSaid(func() error { return e.EndCombat(m) })
	}
	return nil
}

// leaveOrder takes the character out of the open turn order, if it is in
// it (/init remove, /char delete), and returns what happened: it leaves,
// and when it had the turn, the turn passes on within the round. In the
// opening the first turn is the top of the order again.
func leaveOrder(m *commands.Mutation, id uint64, name string) ([]string, error) {
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
	lines := []string{fmt.Sprintf("**%s** leaves the turn order.", commands.Escape(name))}
	from := o.Turn
	switch {
	case !o.Underway:
		from = 0
	case !had:
		return lines, nil
	}
	prev := o.Turn
	t, skips, err := nextActor(m, from)
	if err != nil {
		return nil, err
	}
	if !had && t == prev {
		o.Turn = t
		return lines, nil
	}
	turn, err := startTurn(m, t)
	if err != nil {
		return nil, err
	}
	return append(append(lines, skips...), turn), nil
}
