package commands

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The turn order (RULES.md §0.6): a table may have one open at a time, in
// storage.Table.Initiative, so every /init change is a table change whose
// event undoes it exactly. The core keeps the order, the turns and the
// rounds; a system rolls initiative (Initiator) and says who can act
// (Actor). The /init command itself is in initcommand.go.

// Initiator is implemented by a system whose characters can join a turn
// order (RULES.md §0.6). Without it, /init is refused at the system's
// tables.
type Initiator interface {
	// InitiativeBonus returns c's initiative bonus: what its roll adds to
	// the die, which breaks ties between equal initiatives, also for a
	// total rolled at the table (/init join roll:…).
	InitiativeBonus(c *storage.Character) (int, error)
	// RollInitiative rolls c's initiative through m, scoped to c (m.Roll
	// or m.RecordingDice, so that the event records every die, a hidden
	// c's dice stay the GM's and a dice=manual table asks c's owner for
	// the faces). die is the table option
	// init-dice, already accepted by InitiativeDice, or nil for the
	// system's own die. A character that cannot roll is a CodeInvalid
	// *Error.
	RollInitiative(m *Mutation, c *storage.Character, die *dice.Expr) (InitiativeRoll, error)
	// InitiativeDice checks a value of the table option init-dice (an
	// expression with at least one die): nil, or a CodeInvalid *Error
	// saying what the system takes.
	InitiativeDice(die dice.Expr) error
}

// Actor is implemented by a system whose characters can be unable to act
// (RULES.md §0.6): dead, unconscious, stunned past this round, taken out.
// Without it, every combatant acts.
type Actor interface {
	// CanAct reports whether c can act when its turn comes at clock round
	// now; when it cannot, reason says why in the rule's terms ("dead",
	// "stunned until day 1, 00:03").
	CanAct(c *storage.Character, now int64) (ok bool, reason string, err error)
}

// CombatEnder is implemented by a system with something to end when a
// turn order closes (harm: the conflict, and with it taken out; RULES.md
// §3.2.4). EndCombat saves what it changes through m and says one part
// per character changed, about that character (m.For(c).Say); the core
// notes what was said for /history.
type CombatEnder interface {
	EndCombat(m *Mutation) error
}

// InitiativeRoll is one character's initiative as its system rolled it
// (RULES.md §0.6).
type InitiativeRoll struct {
	// Total is the initiative: higher acts first.
	Total int
	// Bonus is the character's initiative bonus, which breaks ties.
	Bonus int
	// Text shows how it was rolled, every die included, e.g.
	// "1d6+1 [4] + 1 = 5".
	Text string
}

// RollInitiativeDie rolls a die + bonus through m (recorded in the event)
// as an initiative: the roll of a system whose initiative is a die plus a
// bonus (hit-protection 1d6 + init, hp-mp-wp d20 + Dex modifier + init;
// RULES.md §0.6). The die is init-dice, the die RollInitiative was given,
// or the system's own die def when that is nil. why names the parts of the
// bonus for the reply, e.g. "Dex +1, init +2" ("" for none).
func (m *Mutation) RollInitiativeDie(def dice.Expr, initDice *dice.Expr, bonus int, why string) (InitiativeRoll, error) {
	die := def
	if initDice != nil {
		die = *initDice
	}
	e := dice.Expr{Terms: append([]dice.Term(nil), die.Terms...)}
	switch {
	case bonus > 0:
		e.Terms = append(e.Terms, dice.Term{Sign: 1, Const: bonus})
	case bonus < 0:
		e.Terms = append(e.Terms, dice.Term{Sign: -1, Const: -bonus})
	}
	res, err := m.Roll(e)
	if err != nil {
		return InitiativeRoll{}, err
	}
	text := res.String()
	if why != "" {
		text += " (" + why + ")"
	}
	return InitiativeRoll{Total: res.Total, Bonus: bonus, Text: text}, nil
}

// The range of the sheet stat init, the initiative bonus of hit-protection
// and hp-mp-wp characters (RULES.md §0.6).
const (
	MinInitiativeBonus = -20
	MaxInitiativeBonus = 20
)

// MaxCombatants bounds a turn order, so that a round's walk and its
// rerolls stay short: every character of the largest table (MaxCharacters).
const MaxCombatants = MaxCharacters

// The table options of the turn order (RULES.md §0.6), which every system
// with an Initiator offers.
const (
	// InitRerollOption: never (the default), or each-round to reroll
	// everyone who can act at each round's start.
	InitRerollOption    = "init-reroll"
	InitRerollNever     = "never"
	InitRerollEachRound = "each-round"
	// InitDiceOption: default (the system's die), or a dice expression
	// that replaces it (e.g. d20).
	InitDiceOption  = "init-dice"
	InitDiceDefault = "default"
	// InitPingOption: off (the default), or on to mention the owner of the
	// character whose turn starts, and only that user.
	InitPingOption = "init-ping"
)

// initiativeOptions are the turn order's table options.
func initiativeOptions() []TableOption {
	return []TableOption{
		{Name: InitRerollOption, Help: "reroll everyone's initiative at each round's start", Default: InitRerollNever, Values: []string{InitRerollNever, InitRerollEachRound}},
		{Name: InitDiceOption, Help: "the die of an initiative roll: default (the system's) or a dice expression, e.g. d20", Default: InitDiceDefault, Values: []string{InitDiceDefault}},
		{Name: InitPingOption, Help: "mention the owner of the character whose turn starts", Default: "off", Values: []string{"off", "on"}},
	}
}

// isInitiativeOption reports whether name is one of the turn order's
// table options.
func isInitiativeOption(name string) bool {
	return name == InitRerollOption || name == InitDiceOption || name == InitPingOption
}

// setInitiativeOption carries out /table option for the turn order's
// options (GM only; the caller checked). init-dice takes default or a dice
// expression the system accepts, stored in canonical notation.
func setInitiativeOption(m *Mutation, name, value string) (*Response, error) {
	ini, ok := m.System.(Initiator)
	if !ok { // tableOptions lists these options only at a system with initiative
		return nil, Errorf(CodeInvalid, "The %s system has no initiative, so option %s does nothing here.", m.Table.System, name)
	}
	stored := value
	switch name {
	case InitRerollOption:
		if value != InitRerollNever && value != InitRerollEachRound {
			return nil, Errorf(CodeInvalid, "Option %s takes never or each-round (got %q).", name, Clip(value, 40))
		}
	case InitPingOption:
		if value != "off" && value != "on" {
			return nil, Errorf(CodeInvalid, "Option %s takes off or on (got %q).", name, Clip(value, 40))
		}
	case InitDiceOption:
		if value != InitDiceDefault {
			e, err := dice.Parse(value)
			if err != nil {
				return nil, Errorf(CodeInvalid, "Option init-dice takes default or a dice expression such as d20: %v.", err)
			}
			if e.DiceCount() == 0 {
				return nil, Errorf(CodeInvalid, "Option init-dice needs at least one die, e.g. d20 (got %q).", Clip(value, 40))
			}
			if err := ini.InitiativeDice(e); err != nil {
				return nil, err
			}
			stored = e.String()
		}
	}
	old := m.Table.Options[name]
	if old == "" {
		old = initiativeOptionDefault(name)
	}
	opts := make(map[string]string, len(m.Table.Options)+1)
	for k, v := range m.Table.Options {
		opts[k] = v
	}
	if stored == initiativeOptionDefault(name) {
		delete(opts, name)
	} else {
		opts[name] = stored
	}
	m.Table.Options = opts
	m.ForTable().Note("Set %s from %s to %s.", name, old, stored)
	m.ForTable().Say("Table option %s: %s → %s.", name, old, stored)
	return &Response{}, nil
}

// initiativeOptionDefault is the default value of a turn order option.
func initiativeOptionDefault(name string) string {
	for _, o := range initiativeOptions() {
		if o.Name == name {
			return o.Default
		}
	}
	return ""
}

// initiativeOptionsSet lists the turn order options t sets, as name=value,
// for /table show.
func initiativeOptionsSet(t *storage.Table) []string {
	var out []string
	for _, o := range initiativeOptions() {
		if v, ok := t.Options[o.Name]; ok {
			out = append(out, o.Name+"="+v)
		}
	}
	return out
}

// initiativeDie returns the table's init-dice expression, or nil for the
// system's own die.
func initiativeDie(t *storage.Table) (*dice.Expr, error) {
	v, ok := t.Options[InitDiceOption]
	if !ok || v == InitDiceDefault {
		return nil, nil
	}
	e, err := dice.Parse(v)
	if err != nil {
		return nil, Errorf(CodeInvalid, "The table option init-dice=%s no longer reads (%v); a GM sets it again with /table option.", Clip(v, 40), err)
	}
	return &e, nil
}

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

// characterIfAny returns the character with the id, tracked by the
// mutation, or nil when it no longer exists.
func (m *Mutation) characterIfAny(id uint64) (*storage.Character, error) {
	if c := m.cache[id]; c != nil {
		return c, nil
	}
	c, err := m.tx.Character(m.Req.ChannelID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return m.track(c)
}

// canAct reports whether the combatant can act now (Actor), with the
// character (nil when it is gone) and why not: the system's reason, or,
// for a hidden character, its word only, so that any reader may see it.
func (m *Mutation) canAct(cb storage.Combatant) (*storage.Character, bool, string, error) {
	ch, err := m.characterIfAny(cb.CharacterID)
	if err != nil || ch == nil {
		return nil, false, "gone from the table", err
	}
	ok, why, err := actorCanAct(m.System, ch, m.Table.Clock)
	if err != nil || ok {
		return ch, ok, "", err
	}
	if ch.Hidden {
		v, err := viewOf(m.System, ch, m.Table.Clock)
		if err != nil {
			return nil, false, "", err
		}
		why = v.Word()
	}
	return ch, false, why, nil
}

// actorCanAct asks sys whether c can act at clock round now; a system
// without Actor lets everyone act.
func actorCanAct(sys System, c *storage.Character, now int64) (bool, string, error) {
	a, ok := sys.(Actor)
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
	return "**" + Escape(ch.Name) + "**"
}

// nextActor walks o from index from to the first combatant that can act
// now and returns its index (len(o.Combatants) when none can) with one
// line per combatant passed over (RULES.md §0.6: a skip is reported).
func (m *Mutation) nextActor(from int) (int, []string, error) {
	o := m.Table.Initiative
	var skips []string
	i := from
	for ; i < len(o.Combatants); i++ {
		ch, ok, why, err := m.canAct(o.Combatants[i])
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
func (m *Mutation) startTurn(i int) (string, error) {
	o := m.Table.Initiative
	o.Turn = i
	m.log.pings = nil
	if i >= len(o.Combatants) {
		if len(o.Combatants) == 0 {
			return "Nobody is in the turn order yet: `/init join target:NAME`.", nil
		}
		return "Nobody left in the turn order can act this round: `/init next` ends it.", nil
	}
	ch, err := m.characterIfAny(o.Combatants[i].CharacterID)
	if err != nil {
		return "", err
	}
	line := fmt.Sprintf("It is %s's turn (round %d).", combatantName(ch), m.round())
	if ch != nil && ch.OwnerID != "" && m.Table.Options[InitPingOption] == "on" {
		line += " " + mention(ch.OwnerID)
		m.log.pings = []string{ch.OwnerID}
	}
	return line, nil
}

// unpinged returns a reply line without the init-ping mention startTurn
// added, for the history.
func (m *Mutation) unpinged(line string) string {
	for _, id := range m.log.pings {
		line = strings.TrimSuffix(line, " "+mention(id))
	}
	return line
}

// noteLines notes the turn order's reply lines for /history, about the
// table, as plain text without the init-ping mention.
func (m *Mutation) noteLines(lines []string) {
	for _, l := range lines {
		m.ForTable().Note("%s", Unmarkdown(m.unpinged(l)))
	}
}

// sayLines says the turn order's lines (whose turn it is, who is skipped,
// who leaves: no character's numbers) for everyone, and notes them.
func (m *Mutation) sayLines(lines []string) {
	for _, l := range lines {
		m.ForTable().Say("%s", l)
	}
	m.noteLines(lines)
}

// round is the number of the open order's round now, 1 for the first.
func (m *Mutation) round() int64 { return m.Table.Clock - m.Table.Initiative.Start + 1 }

// orderFollowsClock carries the open turn order along a clock move by
// unit (RULES.md §0.6), after the system resolved its timers, and says
// what it did. A move by turns, hours or days closes the order: that is
// time outside combat. **Reading:** a move by rounds, of any number, is
// time within the combat (as harm reads its conflicts, §3.2.4): the round
// under way ends and the next starts at the top of the order.
func (m *Mutation) orderFollowsClock(unit clock.Unit) error {
	if m.Table.Initiative == nil {
		return nil
	}
	if unit != clock.Round {
		return m.closeOrder(fmt.Sprintf("The turn order is closed: the clock moved by %s, time outside combat.", unit))
	}
	return m.startRound()
}

// startRound starts the next round of the open order at the clock as it
// is now, and says so: with init-reroll each-round everyone who can act
// rerolls, then the turn goes to the first combatant who can act.
func (m *Mutation) startRound() error {
	o := m.Table.Initiative
	o.Underway = true
	m.sayLines([]string{fmt.Sprintf("Round %d of the turn order begins.", m.round())})
	if m.Table.Options[InitRerollOption] == InitRerollEachRound {
		if err := m.rerollOrder(); err != nil {
			return err
		}
	}
	i, skips, err := m.nextActor(0)
	if err != nil {
		return err
	}
	turn, err := m.startTurn(i)
	if err != nil {
		return err
	}
	m.sayLines(append(skips, turn))
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
func (m *Mutation) rerollOrder() error {
	o := m.Table.Initiative
	ini, ok := m.System.(Initiator)
	if !ok || len(o.Combatants) == 0 {
		return nil
	}
	die, err := initiativeDie(m.Table)
	if err != nil {
		return err
	}
	for i := range o.Combatants {
		cb := &o.Combatants[i]
		ch, ok, _, err := m.canAct(*cb)
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
		mc.Say("**%s** rerolls initiative: %d (%s).", Escape(ch.Name), r.Total, r.Text)
		mc.Note("%s rerolls initiative: %d (%s).", ch.Name, r.Total, Unmarkdown(r.Text))
	}
	sortOrder(o)
	var parts []string
	for _, cb := range o.Combatants {
		ch, err := m.characterIfAny(cb.CharacterID)
		if err != nil {
			return err
		}
		if ch != nil && ch.Hidden {
			parts = append(parts, combatantName(ch))
		} else {
			parts = append(parts, fmt.Sprintf("%s %d", combatantName(ch), cb.Initiative))
		}
	}
	m.sayLines([]string{"Initiative rerolled (init-reroll each-round): " + strings.Join(parts, ", ") + "."})
	return nil
}

// closeOrder closes the open turn order (/init end, or a clock move of a
// turn or more) and says so, line first, then what the system ends with
// it (CombatEnder: harm's conflict, RULES.md §3.2.4), noted in its scope.
func (m *Mutation) closeOrder(line string) error {
	m.Table.Initiative = nil
	m.log.pings = nil
	m.sayLines([]string{line})
	if e, ok := m.System.(CombatEnder); ok {
		first := len(m.log.parts)
		if err := e.EndCombat(m); err != nil {
			return err
		}
		m.noteSaid(first)
	}
	return nil
}

// leaveOrder takes the character out of the open turn order, if it is in
// it (/init remove, /char delete), and returns what happened: it leaves,
// and when it had the turn, the turn passes on within the round. In the
// opening the first turn is the top of the order again.
func (m *Mutation) leaveOrder(id uint64, name string) ([]string, error) {
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
	lines := []string{fmt.Sprintf("**%s** leaves the turn order.", Escape(name))}
	from := o.Turn
	switch {
	case !o.Underway:
		from = 0
	case !had:
		return lines, nil
	}
	prev := o.Turn
	t, skips, err := m.nextActor(from)
	if err != nil {
		return nil, err
	}
	if !had && t == prev {
		o.Turn = t
		return lines, nil
	}
	turn, err := m.startTurn(t)
	if err != nil {
		return nil, err
	}
	return append(append(lines, skips...), turn), nil
}

// initiativeHidden reports whether event e changed the entry of a hidden
// combatant in the turn order (joined, rerolled, left): its numbers are
// the GM's, so /history shows players the event as for a hidden character.
// An event written now says the same through its parts (the join and the
// reroll are noted about the combatant); one written before events had
// parts keeps the roll in its summary, and this keeps it from players.
func initiativeHidden(e *storage.Event) bool {
	var before, after []storage.Combatant
	if e.TableBefore != nil && e.TableBefore.Initiative != nil {
		before = e.TableBefore.Initiative.Combatants
	}
	if e.TableAfter != nil && e.TableAfter.Initiative != nil {
		after = e.TableAfter.Initiative.Combatants
	}
	had := make(map[uint64]storage.Combatant, len(before))
	for _, c := range before {
		had[c.CharacterID] = c
	}
	for _, c := range after {
		b, ok := had[c.CharacterID]
		if (c.Hidden || b.Hidden) && (!ok || b != c) {
			return true
		}
		delete(had, c.CharacterID)
	}
	for _, c := range had {
		if c.Hidden {
			return true
		}
	}
	return false
}

// orderView is the turn order as players see it, with what only a GM
// reads apart.
type orderView struct {
	// head is "Turn order · round 2 · day 1, 00:01".
	head string
	// lines are one per combatant, the current turn marked ▶; a hidden
	// combatant shows its word only.
	lines []string
	// turn says whose turn it is.
	turn string
	// hidden are the hidden combatants' numbers, one line each, for a GM
	// alone.
	hidden []string
}

// viewOrder renders t's open turn order: each combatant with its
// initiative, the current one marked, who cannot act and why; a hidden
// combatant shows its word only, and its initiative and roll go to
// v.hidden.
func viewOrder(tx *storage.Tx, t *storage.Table, sys System) (orderView, error) {
	o := t.Initiative
	v := orderView{head: fmt.Sprintf("Turn order · round %d · %s", t.Clock-o.Start+1, clock.Time(t.Clock))}
	for i, cb := range o.Combatants {
		ch, err := tx.Character(t.ChannelID, cb.CharacterID)
		if errors.Is(err, storage.ErrNotFound) {
			ch, err = nil, nil
		}
		if err != nil {
			return v, err
		}
		mark := "▫"
		if i == o.Turn {
			mark = "▶"
		}
		line := fmt.Sprintf("%s %s", mark, combatantName(ch))
		hidden := ch != nil && ch.Hidden
		if hidden {
			w, err := viewOf(sys, ch, t.Clock)
			if err != nil {
				return v, err
			}
			line += " (" + w.Word() + ")"
			secret := fmt.Sprintf("%s initiative %d (%s)", combatantName(ch), cb.Initiative, cb.Roll)
			if ok, why, err := actorCanAct(sys, ch, t.Clock); err != nil {
				return v, err
			} else if !ok {
				secret += " · cannot act: " + Escape(why)
			}
			v.hidden = append(v.hidden, secret)
		} else {
			line += fmt.Sprintf(" %d", cb.Initiative)
		}
		if ch != nil && !hidden {
			if ok, why, err := actorCanAct(sys, ch, t.Clock); err != nil {
				return v, err
			} else if !ok {
				line += " · cannot act: " + Escape(why)
			}
		}
		v.lines = append(v.lines, line)
		if i == o.Turn {
			v.turn = fmt.Sprintf("It is %s's turn.", combatantName(ch))
		}
	}
	switch {
	case len(o.Combatants) == 0:
		v.turn = "Nobody is in the turn order yet: `/init join target:NAME`."
	case o.Turn >= len(o.Combatants):
		v.turn = "Nobody left in the turn order can act this round: `/init next` ends it."
	}
	return v, nil
}

// orderField is the tracker's field for t's open turn order, as players
// see it; ok is false when no order is open.
func orderField(tx *storage.Tx, t *storage.Table, sys System) (Field, bool, error) {
	if t.Initiative == nil {
		return Field{}, false, nil
	}
	v, err := viewOrder(tx, t, sys)
	if err != nil {
		return Field{}, false, err
	}
	lines := v.lines
	if len(lines) == 0 {
		lines = []string{v.turn}
	}
	return Field{Name: v.head, Value: joinWithin(lines, maxFieldValue, " (/init show)")}, true, nil
}
