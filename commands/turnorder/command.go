package turnorder

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// initCommand is /init, the turn order (RULES.md §0.6, COMMANDS.md).
func initCommand() *commands.Command {
	target := func(desc string) commands.Option {
		return commands.Option{Name: "target", Description: desc, Type: commands.OptionString, Required: true, Autocomplete: true, MaxLength: 200}
	}
	return &commands.Command{
		Name: "init", Description: "A turn order that drives the round clock",
		Topic: "A turn order for combat. A GM opens it with `/init start`; `/init join target:NAME` rolls each character's initiative " +
			"(each system's roll is below; `roll:` takes one rolled at the table) " +
			"and puts it in order: higher first, ties to the higher bonus, then to who joined first. Once all have joined, the GM's `/init next` begins round 1. " +
			"Then `/init next` (the acting character's owner, or a GM) ends the turn; a combatant that cannot act (dead, unconscious, stunned, taken out) is skipped, named in the round it falls and passed over without a word after, " +
			"and passing the last one ends the round: the clock moves one round exactly as `/clock action:next-round` does, every round timer fires (bleed-outs, stuns, dying saves) " +
			"and the new round starts at the top. `/init show` shows the order, `/init remove` takes a character out, `/init end` (GM) closes it (and what it ends, below). " +
			"Moving the clock by turns, hours or days closes the order (time outside combat). " +
			"Hidden characters keep their place; players see their word, never their initiative. " +
			"Table options: `init-reroll` never|each-round, `init-dice` default|a die such as d20 (a system may take only its own), `init-ping` off|on (mention the owner whose turn starts).",
		Subcommands: []*commands.Subcommand{
			{Name: "start", Description: "Open a turn order at this table (GM only)", Handler: initMutation(initStart)},
			{Name: "join", Description: "Roll initiative and join the turn order", Handler: initMutation(initJoin),
				Options: []commands.Option{
					target("Character name; several separated by commas"),
					{Name: "roll", Description: "The initiative rolled at the table, instead of the bot's roll", Type: commands.OptionInteger, MinValue: -1000, MaxValue: 1000, BySystem: true},
				}},
			{Name: "next", Description: "End the current turn; the next combatant acts", Handler: initMutation(initNext)},
			{Name: "show", Description: "The turn order, the round and whose turn it is", Handler: initShow},
			{Name: "remove", Description: "Take characters out of the turn order", Handler: initMutation(initRemove),
				Options: []commands.Option{target("Character name; several separated by commas")}},
			{Name: "end", Description: "Close the turn order (GM only; ends a conflict where the system has one)", Handler: initMutation(initEnd)},
		},
		HelpFor: func(sys commands.System) string {
			if ce, ok := sys.(initiative.CombatEnder); ok {
				return "`/init end` also ends " + ce.EndCombatHelp()
			}
			return ""
		},
	}
}

// initMutation runs an /init change in one write transaction, at a table
// whose system has initiative, with the options the system gives a meaning
// (System.Options, e.g. /init join roll:) checked.
func initMutation(fn func(m *commands.Mutation, ini initiative.Initiator) (*commands.Response, error)) commands.HandlerFunc {
	return func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
		return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
			ini, ok := m.System.(initiative.Initiator)
			if !ok {
				return nil, commands.Errorf(commands.CodeUnavailable, "The %s system has no initiative, so /init is not part of it.", m.Table.System)
			}
			if err := m.CheckSystemOptions(); err != nil {
				return nil, err
			}
			return fn(m, ini)
		})
	}
}

// openOrder returns the table's open turn order, or the CodeConflict error
// saying there is none.
func openOrder(m *commands.Mutation) (*storage.Initiative, error) {
	if m.Table.Initiative == nil {
		return nil, commands.Errorf(commands.CodeConflict, "No turn order is open at this table; a GM opens one with `/init start`.")
	}
	return m.Table.Initiative, nil
}

// initStart answers /init start (GM): it opens an empty turn order whose
// first round is the clock's round now.
func initStart(m *commands.Mutation, _ initiative.Initiator) (*commands.Response, error) {
	if err := m.RequireGM("open a turn order"); err != nil {
		return nil, err
	}
	if o := m.Table.Initiative; o != nil && !o.Underway {
		return nil, commands.Errorf(commands.CodeConflict, "A turn order is already open (%s, round 1 not begun yet); `/init next` begins round 1, `/init end` closes it.", commands.Count(len(o.Combatants), "combatant"))
	} else if o != nil {
		return nil, commands.Errorf(commands.CodeConflict, "A turn order is already open (round %d, %s); `/init end` closes it.", round(m), commands.Count(len(o.Combatants), "combatant"))
	}
	m.Table.Initiative = &storage.Initiative{Combatants: []storage.Combatant{}, Start: m.Table.Clock}
	m.ForTable().Note("Opened the turn order at %s.", clock.Time(m.Table.Clock))
	m.ForTable().Say("A turn order is open at %s. Characters join with `/init join target:NAME` (owner or GM); once they have, the GM begins round 1 with `/init next`.", clock.Time(m.Table.Clock))
	return &commands.Response{}, nil
}

// initJoin answers /init join (owner or GM): each character named rolls
// initiative (or takes the total given with roll) and goes to its place in
// the order (RULES.md §0.6). In the opening nobody has the turn until the
// GM begins round 1 (initNext); once under way the turn stays where it
// is. Each join is said
// about its character, with the roll: players read that a hidden one
// joins, and its word; the GM who joined it reads its roll in the
// follow-up (hidden.go).
func initJoin(m *commands.Mutation, ini initiative.Initiator) (*commands.Response, error) {
	o, err := openOrder(m)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range strings.Split(m.Req.Options["target"], ",") {
		if strings.TrimSpace(n) != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, commands.Errorf(commands.CodeInvalid, "Name at least one character in target.")
	}
	given, hasRoll := m.Req.Options["roll"]
	if hasRoll && len(names) > 1 {
		return nil, commands.Errorf(commands.CodeInvalid, "roll is one total rolled at the table: join one character at a time with it.")
	}
	die, err := initiativeDie(m.Table)
	if err != nil {
		return nil, err
	}
	done := map[uint64]bool{}
	for _, name := range names {
		// One at a time, so that a dice=manual prompt names the character
		// whose roll it asks for.
		ch, err := m.Character(name)
		if err != nil {
			return nil, err
		}
		if done[ch.ID] {
			continue
		}
		done[ch.ID] = true
		if err := m.CanChange(ch); err != nil {
			return nil, err
		}
		if i := combatantIndex(o, ch.ID); i >= 0 {
			return nil, commands.Errorf(commands.CodeConflict, "%s is already in the turn order; `/init remove` takes it out first.", commands.Escape(ch.Name))
		}
		if len(o.Combatants) >= commands.MaxCombatants {
			return nil, commands.Errorf(commands.CodeInvalid, "A turn order holds at most %d combatants.", commands.MaxCombatants)
		}
		mc := m.For(ch)
		var r initiative.Roll
		if hasRoll {
			n, _ := strconv.Atoi(given)
			bonus, err := ini.InitiativeBonus(ch)
			if err != nil {
				return nil, err
			}
			r = initiative.Roll{Total: n, Bonus: bonus, Text: fmt.Sprintf("%d, rolled at the table", n)}
		} else if r, err = ini.RollInitiative(mc, ch, die); err != nil {
			return nil, err
		}
		insertCombatant(o, storage.Combatant{CharacterID: ch.ID, Initiative: r.Total, Bonus: r.Bonus, Roll: r.Text, Hidden: ch.Hidden})
		if ch.Hidden {
			sayLines(m, lines(fmt.Sprintf("**%s** joins the turn order.", commands.Escape(ch.Name))))
		}
		mc.Say("**%s** joins the turn order: initiative %s.", commands.Escape(ch.Name), r.Text)
		mc.Note("%s joins the turn order: initiative %s.", ch.Name, commands.Unmarkdown(r.Text))
	}
	return &commands.Response{}, nil
}

// initNext answers /init next (the acting character's owner, or a GM): the
// turn ends and passes to the next combatant who can act, each one passed
// over reported. Passing the last one ends the round: the clock moves one
// round on the very path of /clock action:next-round (MoveClock), which
// reports every timer that ended or fired and starts the next round at the
// top of the order (RULES.md §0.2, §0.6). In the opening, the GM's begins
// round 1: the first turn goes to the top of the order, announced then,
// not as characters join.
func initNext(m *commands.Mutation, _ initiative.Initiator) (*commands.Response, error) {
	o, err := openOrder(m)
	if err != nil {
		return nil, err
	}
	if len(o.Combatants) == 0 {
		return nil, commands.Errorf(commands.CodeConflict, "Nobody is in the turn order yet: `/init join target:NAME`.")
	}
	if !o.Underway {
		if err := m.RequireGM("begin round 1 (with `/init next`, once everyone has joined)"); err != nil {
			return nil, err
		}
		o.Underway = true // nobody is Fallen yet: round 1 names every skip
		t, skips, err := nextActor(m, 0)
		if err != nil {
			return nil, err
		}
		turn, err := startTurn(m, t, false)
		if err != nil {
			return nil, err
		}
		sayLines(m, append(append(lines(fmt.Sprintf("Round %d of the turn order begins.", round(m))), skips...), lines(turn)...))
		return &commands.Response{}, nil
	}
	var cur *storage.Character
	if o.Turn < len(o.Combatants) {
		if cur, err = m.CharacterIfAny(o.Combatants[o.Turn].CharacterID); err != nil {
			return nil, err
		}
	}
	if err := mayEndTurn(m, o, cur); err != nil {
		return nil, err
	}
	var said []line
	if cur != nil {
		said = lines(fmt.Sprintf("%s's turn ends.", combatantName(cur)))
	}
	t, skips, err := nextActor(m, min(o.Turn+1, len(o.Combatants)))
	if err != nil {
		return nil, err
	}
	said = append(said, skips...)
	if t < len(o.Combatants) {
		turn, err := startTurn(m, t, true)
		if err != nil {
			return nil, err
		}
		sayLines(m, append(said, lines(turn)...))
		return &commands.Response{}, nil
	}
	// The last combatant is passed: the round ends.
	sayLines(m, said)
	o.Turn = len(o.Combatants)
	if _, err := m.MoveClock(1, clock.Round); err != nil {
		return nil, err
	}
	return &commands.Response{}, nil
}

// mayEndTurn returns a CodeForbidden error unless the caller may end the
// turn of cur: its owner or a GM. When nobody has the turn (cur nil), the
// owner of any combatant may end the round.
func mayEndTurn(m *commands.Mutation, o *storage.Initiative, cur *storage.Character) error {
	if m.IsGM() {
		return nil
	}
	if cur != nil {
		if cur.OwnerID == m.Req.UserID {
			return nil
		}
		return commands.Errorf(commands.CodeForbidden, "It is %s's turn: only its owner or a GM ends it.", commands.Escape(cur.Name))
	}
	for _, cb := range o.Combatants {
		ch, err := m.CharacterIfAny(cb.CharacterID)
		if err != nil {
			return err
		}
		if ch != nil && ch.OwnerID == m.Req.UserID {
			return nil
		}
	}
	return commands.Errorf(commands.CodeForbidden, "Only a GM or the owner of a combatant can end this round.")
}

// initRemove answers /init remove (owner or GM): each character named
// leaves the order; when it had the turn, the turn passes on within the
// round (the clock does not move).
func initRemove(m *commands.Mutation, _ initiative.Initiator) (*commands.Response, error) {
	o, err := openOrder(m)
	if err != nil {
		return nil, err
	}
	chs, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	var said []line
	for _, ch := range chs {
		if combatantIndex(o, ch.ID) < 0 {
			return nil, commands.Errorf(commands.CodeNotFound, "%s is not in the turn order.", commands.Escape(ch.Name))
		}
		more, err := leaveOrder(m, ch.ID, ch.Name)
		if err != nil {
			return nil, err
		}
		said = append(said, more...)
	}
	sayLines(m, said)
	return &commands.Response{}, nil
}

// initEnd answers /init end (GM): the turn order closes; at a harm table
// the conflict ends with it, and taken out is cleared (RULES.md §0.6,
// §3.2.4).
func initEnd(m *commands.Mutation, _ initiative.Initiator) (*commands.Response, error) {
	if err := m.RequireGM("close the turn order"); err != nil {
		return nil, err
	}
	if _, err := openOrder(m); err != nil {
		return nil, err
	}
	if err := closeOrder(m, fmt.Sprintf("The turn order is closed after round %d.", round(m))); err != nil {
		return nil, err
	}
	return &commands.Response{}, nil
}

// initShow answers /init show (anyone): the order, the round and whose
// turn it is, as players see it; a GM who asks in the channel reads the
// hidden combatants' initiative in an ephemeral follow-up (ForGM).
func initShow(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	var resp *commands.Response
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		if t.Initiative == nil {
			return commands.Errorf(commands.CodeNotFound, "No turn order is open at this table; a GM opens one with `/init start`.")
		}
		sys, err := s.System(t.System)
		if err != nil {
			return err
		}
		v, err := viewOrder(tx, t, sys)
		if err != nil {
			return err
		}
		lines := append([]string{"**" + v.head + "**"}, v.lines...)
		resp = &commands.Response{Content: strings.Join(append(lines, v.turn), "\n")}
		if len(v.hidden) > 0 {
			resp = commands.ForGM(r, t, resp, &commands.Response{Content: strings.Join(v.hidden, "\n")})
		}
		return nil
	})
	return resp, err
}
