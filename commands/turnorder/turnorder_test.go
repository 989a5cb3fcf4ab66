package turnorder_test

// The turn order (/init, RULES.md §0.6) with the real systems and scripted
// dice.

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/export"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
	"github.com/hpkeeper/hpkeeper/storage"
)

// table is the harness of the turn order's tests: a commandstest.Table
// playing allSystems, with the helpers these tests use as its methods.
type table struct{ *commandstest.Table }

func newTable(t *testing.T) *table {
	t.Helper()
	return &table{commandstest.New(t, commandstest.Systems()...)}
}

// fakePoster records tracker posts.
type fakePoster struct{ posts []*commands.Response }

func (p *fakePoster) PostTracker(ctx context.Context, channelID string, resp *commands.Response) (string, error) {
	p.posts = append(p.posts, resp)
	return "msg-1", nil
}

// systemOptionOf returns what option name of command means in sys, or nil.
func systemOptionOf(sys commands.System, command, name string) *commands.SystemOption {
	for _, so := range sys.Options() {
		if so.Command == command && so.Name == name {
			return &so
		}
	}
	return nil
}

// order returns the stored turn order of the harness table (nil: none).
func (tb *table) order() *storage.Initiative {
	tb.T.Helper()
	var o *storage.Initiative
	if err := tb.DB.View(func(tx *storage.Tx) error {
		t, err := tx.Table(tb.Channel)
		o = t.Initiative
		return err
	}); err != nil {
		tb.T.Fatal(err)
	}
	return o
}

// clock returns the harness table's clock in rounds.
func (tb *table) clock() int64 {
	tb.T.Helper()
	var c int64
	if err := tb.DB.View(func(tx *storage.Tx) error {
		t, err := tx.Table(tb.Channel)
		c = t.Clock
		return err
	}); err != nil {
		tb.T.Fatal(err)
	}
	return c
}

// noPointer drops the address of the turn order from a Table.State()
// rendering (order() compares the order itself).
func noPointer(s string) string {
	return regexp.MustCompile(`Initiative:0x[0-9a-f]+`).ReplaceAllString(s, "Initiative:…")
}

// hitProtParty sets up a hit-protection table run by gm with bob's
// Lister (init 1), meg's Meghan and bob's Kryten (init 1), and an open
// turn order.
func hitProtParty(t *testing.T) *table {
	t.Helper()
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4 init=1"`))
	tb.OK(tb.Do("meg", `/char create name:Meghan stats:"class=magic-user level=3 hp=3"`))
	tb.OK(tb.Do("bob", `/char create name:Kryten stats:"class=fighter hit-die=d8 hp=8 init=1"`))
	tb.OK(tb.Do("gm", "/init start"))
	return tb
}

// TestInitiativeOrderAndTies: hit-protection rolls 1d6 + init; higher
// goes first, ties to the higher bonus, then to who joined first; roll:
// takes a total rolled at the table. In the opening nobody has the turn
// (it jumped to the top as characters joined): the GM's /init next begins
// round 1 and announces the first turn.
func TestInitiativeOrderAndTies(t *testing.T) {
	tb := hitProtParty(t)
	tb.Dice.Push(4)
	out := tb.OK(tb.Do("bob", "/init join target:Lister"))
	commandstest.WantIn(t, "first join", out, "**Lister** joins the turn order: initiative 1d6+1 [4] + 1 = 5 (init +1).")
	tb.Dice.Push(5, 4)
	out = tb.OK(tb.Do("gm", "/init join target:Meghan,Kryten"))
	commandstest.WantIn(t, "two joins", out, "**Meghan** joins the turn order: initiative 1d6 [5] = 5.", "**Kryten** joins the turn order: initiative 1d6+1 [4] + 1 = 5")
	// Lister and Kryten 5 with bonus 1, Meghan 5 with bonus 0: Lister
	// joined before Kryten.
	show := tb.OK(tb.Do("meg", "/init show"))
	commandstest.WantIn(t, "show", show, "**Turn order · round 1 · day 1, 00:00**\n▫ **Lister** 5\n▫ **Kryten** 5\n▫ **Meghan** 5\nRound 1 has not begun: the GM begins it with `/init next`")
	// A total rolled at the table: no dice; at the top, and no turn jumps
	// to it: nobody has one yet.
	tb.OK(tb.Do("gm", `/char create name:Goblin stats:"class=fighter hit-die=d6 hp=6"`))
	out = tb.OK(tb.Do("gm", "/init join target:Goblin roll:6"))
	commandstest.WantIn(t, "roll given", out, "**Goblin** joins the turn order: initiative 6, rolled at the table.")
	for _, o := range []string{out, show} {
		if strings.Contains(o, "turn (round") || strings.Contains(o, "▶") {
			t.Errorf("the opening gives someone the turn: %q", o)
		}
	}
	tb.NoDiceLeft()
	tb.Refused(tb.Do("bob", "/init next"), "Only a GM can begin round 1")
	commandstest.WantIn(t, "the GM begins", tb.OK(tb.Do("gm", "/init next")), "Round 1 of the turn order begins. It is **Goblin**'s turn.")

	tb.Refused(tb.Do("meg", "/init join target:Lister"), "only its owner or a GM")
	tb.Refused(tb.Do("bob", "/init join target:Lister"), "already in the turn order")
	tb.Refused(tb.Do("gm", `/init join target:"Lister,Meghan" roll:3`), "one character at a time")
	tb.Refused(tb.Do("bob", "/init start"), "Only a GM")
	tb.Refused(tb.Do("gm", "/init start"), "already open")
	tb.Refused(tb.Do("bob", "/init end"), "Only a GM")
	tb.Refused(tb.Do("bob", "/init next"), "It is Goblin's turn: only its owner or a GM ends it.")
	if o := tb.order(); len(o.Combatants) != 4 || o.Turn != 0 || !o.Underway || tb.clock() != 0 {
		t.Errorf("order = %+v, clock %d; want 4 combatants, the Goblin's turn, under way, in round 1", o, tb.clock())
	}
}

// TestInitiativeTurnsAndSkips: /init next passes the turn down the
// order, skipping (and naming) whoever cannot act when its turn comes:
// dead, down, stunned until a later round. A stun that ends at the round
// end lets the character act in the next round.
func TestInitiativeTurnsAndSkips(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", `/char create name:Corpse stats:"class=fighter hit-die=d6 hp=1"`))
	tb.OK(tb.Do("gm", `/char create name:Rook stats:"class=thief hp=1"`))
	tb.OK(tb.Do("gm", "/init join target:Lister roll:6"))
	tb.OK(tb.Do("gm", "/init join target:Corpse roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Rook roll:4"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:3"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	// Corpse: a Heroic Death. Rook: goes down. Meghan: stunned 1 round
	// (Stay Up: 2d6 [3, 3] = 6 Nasty Wound, paralysis save 1 fails, 1d4
	// days).
	resp := tb.Do("gm", "/damage target:Corpse amount:1")
	tb.Submit("gm", tb.Press("gm", resp, "Heroic Death"), "holds the door")
	tb.Press("gm", tb.Do("gm", "/damage target:Rook amount:1"), "Go Down")
	tb.OK(tb.Do("gm", "/char set name:Meghan stats:hp=1"))
	tb.Dice.Push(3, 3, 1, 1)
	commandstest.WantIn(t, "stun", commandstest.Text(tb.Press("meg", tb.Do("gm", "/damage target:Meghan amount:1"), "Stay Up")), "stunned 1 round")

	out := tb.OK(tb.Do("bob", "/init next"))
	want := "**Lister**'s turn ends. " +
		"**Corpse** cannot act (dead): turn skipped. " +
		"**Rook** cannot act (down, its fate hidden until attended): turn skipped. " +
		"**Meghan** cannot act (stunned for 1 more round): turn skipped.\n" +
		"The clock moves 1 round: day 1, 00:00 → 00:01.\n" +
		"**Meghan** no longer stunned (day 1, 00:01).\n" +
		"Round 2 of the turn order begins. It is **Lister**'s turn."
	if out != want {
		t.Errorf("/init next =\n%s\nwant it to start with\n%s", out, want)
	}
	if tb.clock() != 1 {
		t.Errorf("clock = %d; want 1 (one round)", tb.clock())
	}
	// Meghan's stun ended at the round end: she acts in round 2. The dead
	// and the down, skipped in the round they fell, are passed over
	// without a word (issue 24).
	out = tb.OK(tb.Do("bob", "/init next"))
	if want := "**Lister**'s turn ends. It is **Meghan**'s turn (round 2)."; out != want {
		t.Errorf("round 2 = %q; want %q", out, want)
	}
	show := tb.OK(tb.Do("meg", "/init show"))
	commandstest.WantIn(t, "show", show, "▫ **Corpse** 5 · cannot act: dead", "▶ **Meghan** 3")
	tb.Refused(tb.Do("bob", "/init next"), "It is Meghan's turn: only its owner or a GM")
	tb.NoDiceLeft()
}

// TestInitiativeRoundEndIsNextRound: passing the last combatant moves the
// clock exactly as /clock action:next-round does: same clock, same
// report, same event summary; /clock next-round in an open order starts
// its next round at the top.
func TestInitiativeRoundEndIsNextRound(t *testing.T) {
	viaInit, viaClock := hitProtParty(t), hitProtParty(t)
	for _, tb := range []*table{viaInit, viaClock} {
		tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
		tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
		tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
		tb.OK(tb.Do("bob", "/init next"))
	}
	a := viaInit.OK(viaInit.Do("meg", "/init next"))
	b := viaClock.OK(viaClock.Do("gm", "/clock action:next-round"))
	head := "The clock moves 1 round: day 1, 00:00 → 00:01. Nothing ended or fired.\nRound 2 of the turn order begins. It is **Lister**'s turn."
	if a != "**Meghan**'s turn ends.\n"+head || b != head {
		t.Errorf("round end via /init next =\n%s\nvia /clock next-round =\n%s\nwant the same report after Meghan's turn ends", a, b)
	}
	for _, tb := range []*table{viaInit, viaClock} {
		if o := tb.order(); tb.clock() != 1 || o.Turn != 0 {
			t.Errorf("after the round end: clock %d, turn %d; want 1 and the top", tb.clock(), o.Turn)
		}
	}
	commandstest.WantIn(t, "history", viaInit.OK(viaInit.Do("gm", "/history")), "/init next", "The clock moves 1 round", "Round 2 of the turn order begins.")
}

// TestInitiativeCriticalWoundBleedOut: RULES.md §1.4's Critical Wound
// with a failed save dies in 2d4 rounds unless attended; with the turn
// order it dies exactly at the round end its timer names, and that
// reply says so.
func TestInitiativeCriticalWoundBleedOut(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	// Lister at 0 HP stays up: 2d6 [4, 4] = 8 Critical Wound, death save
	// 3 fails, 1d4 = 1 (left arm), 2d4 [1, 2] = 3 rounds: dies at 00:03.
	tb.OK(tb.Do("gm", "/char set name:Lister stats:hp=1"))
	resp := tb.Do("gm", "/damage target:Lister amount:1")
	tb.Dice.Push(4, 4, 3, 1, 1, 2)
	commandstest.WantIn(t, "critical", commandstest.Text(tb.Press("bob", resp, "Stay Up")), "dies in 3 rounds (2d4 [1, 2] = 3) unless attended; once attended")
	for round := 1; round <= 3; round++ {
		tb.OK(tb.Do("bob", "/init next")) // Lister (or his skip) → Meghan
		out := tb.OK(tb.Do("meg", "/init next"))
		died := strings.Contains(out, "**Lister** dies of the Critical Wound (day 1, 00:03)")
		if died != (round == 3) {
			t.Fatalf("round %d end: %q; want Lister to die at the third round end exactly", round, out)
		}
		if round == 3 {
			// He died as round 4 began: it passes over him without a word.
			want := "**Meghan**'s turn ends.\nThe clock moves 1 round: day 1, 00:02 → 00:03.\n" +
				"**Lister** dies of the Critical Wound (day 1, 00:03).\nRound 4 of the turn order begins. It is **Meghan**'s turn."
			if out != want {
				t.Errorf("bleed-out round = %q; want %q", out, want)
			}
		}
	}
	tb.NoDiceLeft()
}

// TestInitiativeDyingSaves: a dying hp-mp-wp character makes its
// per-round save (RULES.md §2.4) at each round end of the turn order,
// the DC rising by one per round after the first, every die in the
// reply; a turn that does not end the round rolls nothing.
func TestInitiativeDyingSaves(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 con=12 fort=2 dex=14"`))
	tb.OK(tb.Do("bob", `/char create name:Orm stats:"hp-max=10 dex=8 init=2"`))
	tb.OK(tb.Do("gm", "/init start"))
	// d20 + Dex modifier + init: Vala 10 + 2, Orm 10 − 1 + 2.
	tb.Dice.Push(10, 10)
	out := tb.OK(tb.Do("gm", "/init join target:Vala,Orm"))
	commandstest.WantIn(t, "joins", out, "**Vala** joins the turn order: initiative 1d20+2 [10] + 2 = 12 (Dex +2).",
		"**Orm** joins the turn order: initiative 1d20+1 [10] + 1 = 11 (Dex -1, init +2).")
	commandstest.WantIn(t, "the GM begins", tb.OK(tb.Do("gm", "/init next")), "Round 1 of the turn order begins. It is **Vala**'s turn.")
	tb.OK(tb.Do("gm", `/char set name:Vala stats:"wp=-2 state=dying"`))
	out = tb.OK(tb.Do("gm", "/init next"))
	commandstest.WantIn(t, "dying skipped", out, "**Vala**'s turn ends.", "It is **Orm**'s turn (round 1).")
	if strings.Contains(out, "Fort") {
		t.Errorf("a turn within the round made a save: %q", out)
	}
	// Dying, Vala is exhausted: fatigue's −2 takes Con 12 to 10, its
	// modifier from +1 to +0, so Fort +2 −1 = +1 (RULES.md §2.3 Reading).
	tb.Dice.Push(5)
	out = tb.OK(tb.Do("bob", "/init next"))
	// The save shows its die, once; Vala, dying since the round before,
	// is passed over without a word.
	if want := "**Orm**'s turn ends.\nThe clock moves 1 round: day 1, 00:00 → 00:01.\n" +
		"**Vala**: Fort DC 10 (stabilize): 1d20 [5] = 5, Fort +2 −1 fatigue = 6, failed; is still dying.\n" +
		"Round 2 of the turn order begins. It is **Orm**'s turn."; out != want {
		t.Errorf("round 1 end = %q; want %q", out, want)
	}
	tb.Dice.Push(10)
	out = tb.OK(tb.Do("bob", "/init next"))
	commandstest.WantIn(t, "round 2 end", out, "Fort DC 11 (stabilize): 1d20 [10] = 10, Fort +2 −1 fatigue = 11, succeeded", "now **stable (unconscious), exhausted**",
		"Round 3 of the turn order begins. It is **Orm**'s turn.")
	tb.NoDiceLeft()
}

// TestInitiativeUndoRoundEnd: /undo of a round-ending /init next
// restores the order, the turn, the clock and every character the
// round's timers changed, and rolls no dice.
func TestInitiativeUndoRoundEnd(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	tb.OK(tb.Do("gm", "/char set name:Lister stats:hp=1"))
	resp := tb.Do("gm", "/damage target:Lister amount:1")
	tb.Dice.Push(4, 4, 3, 1, 1, 1) // Critical Wound: dies at 00:02
	tb.Press("bob", resp, "Stay Up")
	tb.OK(tb.Do("bob", "/init next"))
	tb.OK(tb.Do("meg", "/init next"))
	tb.OK(tb.Do("bob", "/init next"))
	before, beforeOrder := tb.State(), tb.order()
	out := tb.OK(tb.Do("meg", "/init next"))
	commandstest.WantIn(t, "round end", out, "**Lister** dies of the Critical Wound (day 1, 00:02)", "Round 3 of the turn order begins. It is **Meghan**'s turn.")
	commandstest.WantIn(t, "undo", tb.OK(tb.Do("gm", "/undo")), "Undid", "/init next", "no dice were rerolled")
	after := tb.State()
	// The event count grows by the round end and its undo; all else is back.
	trim := func(s string) string { return noPointer(s[:strings.LastIndex(s, "events")]) }
	if trim(after) != trim(before) {
		t.Errorf("after undo:\n%s\nwant as before the round end:\n%s", after, before)
	}
	if o := tb.order(); !reflect.DeepEqual(o, beforeOrder) {
		t.Errorf("order after undo = %+v; want %+v", o, beforeOrder)
	}
	if o := tb.order(); tb.clock() != 1 || o.Turn != 1 {
		t.Errorf("after undo: clock %d, turn %d; want 1 and Meghan's turn", tb.clock(), o.Turn)
	}
	commandstest.WantIn(t, "Lister after undo", tb.OK(tb.Do("bob", "/char show name:Lister")), "Critical Wound: dies in 1 round")
	tb.NoDiceLeft()
}

// TestInitiativeHiddenNPC: a hidden NPC keeps its place in the order, but
// players see only its word (hidden.go): the GM's join says publicly that
// it joins, with its word, and gives the GM its roll in the ephemeral
// follow-up; /init show, the tracker and /history show players no number
// (a GM reads them in follow-ups), and an each-round reroll shows players
// its name only.
func TestInitiativeHiddenNPC(t *testing.T) {
	tb := hitProtParty(t)
	commandstest.Text(tb.Do("gm", `/char create name:Goblin stats:"class=fighter hit-die=d8 hp=7 hidden=true init=2"`))
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	noNumbers := func(what, s string) {
		t.Helper()
		if strings.Contains(s, "Goblin** 8") || strings.Contains(s, "**8**") || strings.Contains(s, "[6]") || strings.Contains(s, "= 8") ||
			strings.Contains(s, "initiative: 4") || strings.Contains(s, "[2]") || strings.Contains(s, "= 4") {
			t.Errorf("%s shows the hidden Goblin's initiative: %q", what, s)
		}
	}
	tb.Dice.Push(6)
	resp := tb.Do("gm", "/init join target:Goblin")
	join := tb.OK(resp)
	noNumbers("GM's join, public", join)
	commandstest.WantIn(t, "GM's join, public", join, "**Goblin** joins the turn order.", "**Goblin**: Wounded")
	commandstest.WantIn(t, "the GM begins", tb.OK(tb.Do("gm", "/init next")), "Round 1 of the turn order begins. It is **Goblin**'s turn.")
	commandstest.WantIn(t, "GM's join, follow-up", commandstest.FollowUp(resp), "Hidden from players",
		"**Goblin** joins the turn order: initiative 1d6+2 [6] + 2 = 8 (init +2).")
	show := tb.OK(tb.Do("bob", "/init show"))
	noNumbers("player /init show", show)
	commandstest.WantIn(t, "player /init show", show, "▶ **Goblin** (Wounded)", "▫ **Lister** 5", "It is **Goblin**'s turn.")
	gmShow := tb.Do("gm", "/init show")
	noNumbers("GM's /init show, public", tb.OK(gmShow))
	commandstest.WantIn(t, "GM's /init show, follow-up", commandstest.FollowUp(gmShow), "**Goblin** initiative 1d6+2 [6] + 2 = 8 (init +2)")
	hist := tb.OK(tb.Do("bob", "/history"))
	noNumbers("player /history", hist)
	commandstest.WantIn(t, "player /history", hist, "/init join\n   Goblin joins the turn order.")
	commandstest.WantIn(t, "GM /history", commandstest.FollowUp(tb.Do("gm", "/history")), "1d6+2 [6] + 2 = 8")
	p := &fakePoster{}
	tracker.Of(tb.Svc.Registry()).SetPoster(p, "")
	commandstest.Text(tb.Do("gm", "/table tracker"))
	_, tr, err := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel)
	if err != nil {
		t.Fatal(err)
	}
	noNumbers("tracker", commandstest.Text(tr))
	commandstest.WantIn(t, "tracker", commandstest.Text(tr), "Turn order · round 1 · day 1, 00:00: ▶ **Goblin** (Wounded)\n▫ **Lister** 5")

	// Each round rerolls everyone who can act; players read the Goblin's
	// name and word, the event keeps its die.
	tb.OK(tb.Do("gm", "/table option name:init-reroll value:each-round"))
	tb.OK(tb.Do("gm", "/init next"))
	tb.Dice.Push(2, 1) // Goblin 1d6+2 [2] = 4, then Lister 1d6+1 [1] = 2
	out := tb.OK(tb.Do("bob", "/init next"))
	noNumbers("player's round start", out)
	commandstest.WantIn(t, "reroll", out, "**Lister** rerolls initiative: 1d6+1 [1] + 1 = 2 (init +1).",
		"Initiative rerolled (init-reroll each-round): **Goblin**, **Lister** 2.", "It is **Goblin**'s turn (round 2).")
	if strings.Contains(out, "**Goblin**:") {
		t.Errorf("reroll %q names the Goblin's word where its reroll was: that tells it rerolled", out)
	}
	commandstest.WantIn(t, "GM /history", commandstest.FollowUp(tb.Do("gm", "/history")), "1d6+2 [2] + 2 = 4")
	hist = tb.OK(tb.Do("bob", "/history"))
	noNumbers("player /history after the reroll", hist)
	commandstest.WantIn(t, "player /history after the reroll", hist, "· bob · /init next\n   Lister's turn ends.")
	tb.NoDiceLeft()
}

// TestInitiativePing: with init-ping on, the reply that starts a turn may
// mention the owner of that character and no one else; off (the
// default), nobody.
func TestInitiativePing(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	resp := tb.Do("bob", "/init next")
	if resp.Mentions != nil || strings.Contains(resp.Content, "<@") {
		t.Errorf("init-ping off: %+v; want no mention", resp)
	}
	tb.OK(tb.Do("gm", "/table option name:init-ping value:on"))
	resp = tb.Do("meg", "/init next")
	if len(resp.Mentions) != 1 || resp.Mentions[0] != "bob" || !strings.Contains(resp.Content, "Round 2 of the turn order begins. It is **Lister**'s turn. <@bob>") {
		t.Errorf("init-ping on, Lister's turn: %+v; want a mention of bob only", resp)
	}
	if resp := tb.Do("meg", "/init show"); resp.Mentions != nil {
		t.Errorf("/init show pings %v; only a turn's start does", resp.Mentions)
	}
	if resp := tb.Do("gm", "/clock action:next-round"); len(resp.Mentions) != 1 || resp.Mentions[0] != "bob" {
		t.Errorf("/clock next-round starting Lister's turn mentions %v; want bob", resp.Mentions)
	}
}

// TestInitiativeClockCloses: a clock advance of a turn or more closes the
// order (and says so); an advance by rounds starts the next round.
// **Reading:** "a turn or more" is the unit (turns, hours, days), as harm
// reads time within a conflict: an advance of 12 rounds keeps the order.
func TestInitiativeClockCloses(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
	out := tb.OK(tb.Do("gm", "/clock action:advance amount:12"))
	commandstest.WantIn(t, "12 rounds", out, "The clock moves 12 rounds", "Round 13 of the turn order begins. It is **Lister**'s turn.")
	out = tb.OK(tb.Do("gm", "/clock action:advance amount:1 unit:turns"))
	commandstest.WantIn(t, "a turn", out, "The clock moves 1 turn", "The turn order is closed: the clock moved by turns, time outside combat.")
	if tb.order() != nil {
		t.Errorf("order after a turn passed = %+v; want closed", tb.order())
	}
	tb.Refused(tb.Do("bob", "/init next"), "No turn order is open")
	tb.Refused(tb.Do("bob", "/init show"), "No turn order is open")
	// A night's rest passes a day: the order closes too.
	tb.OK(tb.Do("gm", "/init start"))
	tb.Dice.Push(1, 1, 1)
	commandstest.WantIn(t, "night", tb.OK(tb.Do("gm", "/rest kind:night")), "The turn order is closed: the clock moved by days")
	tb.NoDiceLeft()
}

// TestInitiativeHarmConflict: harm's initiative is a React check whose SL
// is the initiative, with the condition's penalty dice (none for Bloody:
// React is innate; one for Broken, which spends no pool point: it is not
// an action). A round end of the order is time within the conflict;
// /init end ends it and clears taken out (RULES.md §3.2.4).
func TestInitiativeHarmConflict(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:harm"))
	tb.OK(tb.Do("ann", `/char create name:Garrett stats:"endure=2 react=1"`))
	tb.OK(tb.Do("bob", `/char create name:Vex stats:"react=2 instinct=3"`))
	tb.OK(tb.Do("gm", "/init start"))
	tb.Dice.Push(1, 0, 0)
	out := tb.OK(tb.Do("ann", "/init join target:Garrett"))
	commandstest.WantIn(t, "React check", out, "**Garrett** joins the turn order: initiative React 1 (Apprentice): 3dF+1 [+, 0, 0] + 1 = 2 → **SL 2**.")
	tb.OK(tb.Do("gm", `/char set name:Vex stats:"react=2"`))
	// Vex is Broken: one penalty die (4dFkl3), no pool point spent.
	setHarm(t, tb, "Vex", `"condition":"Broken","harm":0`)
	tb.Dice.Push(1, 1, -1, 1)
	out = tb.OK(tb.Do("bob", "/init join target:Vex"))
	commandstest.WantIn(t, "Broken", out, "initiative React 2 (Journeyman), 1 penalty die (Broken): 4dFkl3+2 [~~+~~, +, −, +] + 2 = 3 → **SL 3**.")
	commandstest.WantIn(t, "no pool spent", tb.OK(tb.Do("bob", "/char list")), "Instinct 3/3")
	// Vex is taken out; the round end keeps him out (within the conflict).
	setHarm(t, tb, "Vex", `"condition":"Broken","harm":0,"taken_out":true`)
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1: Vex is skipped
	out = tb.OK(tb.Do("ann", "/init next"))
	// Taken out in round 1, Vex is passed over without a word in round 2.
	commandstest.WantIn(t, "round end", out, "Round 2 of the turn order begins. It is **Garrett**'s turn.")
	if strings.Contains(out, "Vex") {
		t.Errorf("round end = %q; want Vex, taken out in the round before, passed over without a word", out)
	}
	out = tb.OK(tb.Do("gm", "/init end"))
	commandstest.WantIn(t, "end", out, "The turn order is closed after round 2.", "**Vex** is no longer taken out: the conflict is over (Broken).")
	// init-dice at harm is the React check's Fudge dice.
	tb.Refused(tb.Do("gm", "/table option name:init-dice value:d20"), "3dF or 4dF")
	tb.OK(tb.Do("gm", "/table option name:init-dice value:4dF"))
	tb.OK(tb.Do("gm", "/init start"))
	tb.Dice.Push(1, 1, 0, -1)
	commandstest.WantIn(t, "4dF", tb.OK(tb.Do("ann", "/init join target:Garrett")), "4dF+1 [+, +, 0, −] + 1 = 2 → **SL 2**")
	tb.NoDiceLeft()
}

// setHarm rewrites a harm character's condition fields in its stored
// sheet (what /damage reaches with many dice).
func setHarm(t *testing.T, tb *table, name, fields string) {
	t.Helper()
	if err := tb.DB.Update(func(tx *storage.Tx) error {
		c, err := tx.CharacterByName(tb.Channel, name)
		if err != nil {
			return err
		}
		s := string(c.Sheet)
		i := strings.Index(s, `"condition"`)
		j := strings.Index(s[i:], `,"pools"`)
		if j < 0 {
			j = len(s[i:]) - 1
		}
		c.Sheet = []byte(s[:i] + fields + s[i+j:])
		return tx.PutCharacter(c)
	}); err != nil {
		t.Fatal(err)
	}
}

// TestInitiativeOptions: init-dice replaces the die (validated, in
// canonical notation, default restores the system's), init-reroll and
// init-ping take their values; /table show lists each with its value.
func TestInitiativeOptions(t *testing.T) {
	tb := hitProtParty(t)
	tb.Refused(tb.Do("bob", "/table option name:init-dice value:d20"), "Only a GM")
	tb.Refused(tb.Do("gm", "/table option name:init-dice value:d7x"), "init-dice takes default or a dice expression")
	tb.Refused(tb.Do("gm", "/table option name:init-dice value:5"), "at least one die")
	tb.Refused(tb.Do("gm", "/table option name:init-reroll value:sometimes"), "never or each-round")
	tb.Refused(tb.Do("gm", "/table option name:init-ping value:loud"), "off or on")
	commandstest.WantIn(t, "init-dice", tb.OK(tb.Do("gm", "/table option name:init-dice value:D20")), "init-dice: default → 1d20.")
	commandstest.WantIn(t, "table show", tb.OK(tb.Do("bob", "/table show")), "init-dice=1d20")
	tb.Dice.Push(17)
	commandstest.WantIn(t, "d20", tb.OK(tb.Do("bob", "/init join target:Lister")), "initiative 1d20+1 [17] + 1 = 18 (init +1).")
	commandstest.WantIn(t, "default", tb.OK(tb.Do("gm", "/table option name:init-dice value:default")), "init-dice: 1d20 → default.")
	tb.Dice.Push(2)
	commandstest.WantIn(t, "1d6 again", tb.OK(tb.Do("meg", "/init join target:Meghan")), "initiative 1d6 [2] = 2.")
	commandstest.WantIn(t, "table show after default", tb.OK(tb.Do("bob", "/table show")), "init-reroll=never, init-dice=default, init-ping=off")
	tb.NoDiceLeft()
}

// TestInitiativeEachRoundReroll: init-reroll each-round rerolls everyone
// who can act at each round's start, each with every die, and sorts the
// order again; every die is in the event.
func TestInitiativeEachRoundReroll(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/table option name:init-reroll value:each-round"))
	tb.Dice.Push(6, 1)
	tb.OK(tb.Do("gm", "/init join target:Lister,Meghan"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	tb.OK(tb.Do("bob", "/init next"))
	tb.Dice.Push(1, 6) // Lister 1d6+1 [1] = 2, Meghan 1d6 [6] = 6
	out := tb.OK(tb.Do("meg", "/init next"))
	commandstest.WantIn(t, "reroll", out, "**Lister** rerolls initiative: 1d6+1 [1] + 1 = 2 (init +1).\n**Meghan** rerolls initiative: 1d6 [6] = 6.\n"+
		"Initiative rerolled (init-reroll each-round): **Meghan** 6, **Lister** 2.", "It is **Meghan**'s turn (round 2).")
	commandstest.WantIn(t, "history", tb.OK(tb.Do("gm", "/history")), "Lister rerolls initiative: 1d6+1 [1] + 1 = 2 (init +1).", "Meghan rerolls initiative: 1d6 [6] = 6.")
	tb.NoDiceLeft()
}

// TestInitiativeManualDice: at a dice=manual table the owner is asked for
// the faces of the initiative roll, as for any roll; roll: needs none.
func TestInitiativeManualDice(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/table option name:dice value:manual"))
	prompt := tb.Do("bob", "/init join target:Lister")
	commandstest.WantIn(t, "prompt", commandstest.Text(prompt), "**Lister**: <@bob>, roll **1d6**", "Nothing has happened yet.")
	if o := tb.order(); len(o.Combatants) != 0 {
		t.Fatalf("order before the faces = %+v; want nobody", o)
	}
	out := commandstest.Text(tb.Submit("bob", tb.Press("bob", prompt, "Enter dice"), "3"))
	commandstest.WantIn(t, "entered", out, "**Lister** joins the turn order: initiative 1d6+1 [3] + 1 = 4 (init +1).")
	commandstest.WantIn(t, "given", tb.OK(tb.Do("meg", "/init join target:Meghan roll:2")), "initiative 2, rolled at the table.")
}

// TestInitiativeRemoveAndDelete: /init remove takes a character out; when
// it had the turn, the turn passes on within the round (the clock stands);
// deleting a character takes it out of the order too.
func TestInitiativeRemoveAndDelete(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Kryten roll:4"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	tb.OK(tb.Do("bob", "/init next"))
	tb.Refused(tb.Do("meg", "/init remove target:Kryten"), "only its owner or a GM")
	out := tb.OK(tb.Do("bob", "/init remove target:Kryten"))
	commandstest.WantIn(t, "remove current", out, "**Kryten** leaves the turn order.", "It is **Meghan**'s turn (round 1).")
	tb.Refused(tb.Do("bob", "/init remove target:Kryten"), "not in the turn order")
	out = tb.OK(tb.Do("bob", "/init remove target:Lister"))
	if out != "**Lister** leaves the turn order." {
		t.Errorf("remove another = %q; want only the leaving", out)
	}
	if o := tb.order(); len(o.Combatants) != 1 || o.Turn != 0 || tb.clock() != 0 {
		t.Errorf("order %+v, clock %d; want Meghan alone, her turn, the clock standing", o, tb.clock())
	}
	del := tb.Do("meg", "/char delete name:Meghan")
	out = commandstest.Text(tb.Press("meg", del, "Delete"))
	commandstest.WantIn(t, "delete", out, "Deleted **Meghan**", "**Meghan** leaves the turn order.", "Nobody is in the turn order yet")
	if o := tb.order(); len(o.Combatants) != 0 {
		t.Errorf("order after delete = %+v; want empty", o)
	}
	tb.Refused(tb.Do("gm", "/init next"), "Nobody is in the turn order yet")
	out = tb.OK(tb.Do("gm", "/init end"))
	commandstest.WantIn(t, "end", out, "The turn order is closed after round 1.")
}

// TestInitiativeLimits: a turn order holds at most MaxCombatants, every
// character of the largest table, all of which may join (a system without
// initiative has no /init: the kernel's TestTallyHasNoInitiative).
func TestInitiativeLimits(t *testing.T) {
	tb := hitProtParty(t)
	names := []string{"Lister", "Meghan", "Kryten"}
	for i := range commands.MaxCombatants - len(names) {
		name := "M" + string(rune('A'+i/26)) + string(rune('a'+i%26))
		names = append(names, name)
		tb.OK(tb.Do("gm", `/char create name:`+name+` stats:"hp=1"`))
	}
	tb.Refused(tb.Do("gm", `/char create name:Extra stats:"hp=1"`), "the most a table may hold")
	for _, n := range names {
		tb.OK(tb.Do("gm", "/init join target:"+n+" roll:1"))
	}
	if o := tb.order(); len(o.Combatants) != commands.MaxCombatants {
		t.Errorf("order holds %d combatants; want %d", len(o.Combatants), commands.MaxCombatants)
	}
	before := noPointer(tb.State())
	tb.Refused(tb.Do("gm", "/init join target:Lister roll:1"), "Lister")
	if noPointer(tb.State()) != before {
		t.Error("a refused join changed the table")
	}
}

// TestInitiativeHelp: /help topic:init explains the turn order.
func TestInitiativeHelp(t *testing.T) {
	tb := newTable(t)
	out := commandstest.Text(tb.Do("ann", "/help topic:init"))
	commandstest.WantIn(t, "help", out, "**/init**", "/init start", "/init join` target:… [roll:…]", "/init next", "/init show", "/init remove` target:…", "/init end",
		"1d6 + init", "d20 + Dex modifier + init", "React check", "ends the round", "`/clock action:next-round`", "init-reroll", "init-dice", "init-ping")
}

// TestInitiativeHiddenRoundEnd: a round end whose timers report on a
// hidden NPC (a dying save that leaves it dying, which changes nothing)
// shows that save to nobody but the GM: a player who ended the turn reads
// the turn order's lines, never the save, nor does /history show it to
// players; a GM who ends the round reads the same public reply and the
// save in the ephemeral follow-up (hidden.go: the save is said about the
// NPC).
func TestInitiativeHiddenRoundEnd(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20"`))
	commandstest.Text(tb.Do("gm", `/char create name:Orc stats:"hp-max=10 fort=2 hidden=true"`))
	commandstest.Text(tb.Do("gm", `/char set name:Orc stats:"wp=-2 state=dying"`))
	tb.OK(tb.Do("gm", "/init start"))
	tb.OK(tb.Do("ann", "/init join target:Vala roll:12"))
	commandstest.Text(tb.Do("gm", "/init join target:Orc roll:3"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	noSave := func(what, s string) {
		t.Helper()
		for _, not := range []string{"Fort", "[4]", "[5]", "[6]", "WP -", "still dying", "-2"} {
			if strings.Contains(s, not) {
				t.Errorf("%s shows the hidden Orc's %q: %q", what, not, s)
			}
		}
	}
	tb.Dice.Push(5) // the Orc's save fails: still dying
	resp := tb.Do("ann", "/init next")
	out := tb.OK(resp)
	noSave("player's round end", out)
	if len(resp.FollowUps) != 0 {
		t.Errorf("player's round end has follow-ups %+v; want none", resp.FollowUps)
	}
	commandstest.WantIn(t, "player's round end", out, "**Vala**'s turn ends. **Orc** passes its turn.\n",
		"The clock moves 1 round", "Nothing ended or fired.\nRound 2 of the turn order begins. It is **Vala**'s turn.")
	if strings.Contains(out, "**Orc**:") {
		t.Errorf("player's round end %q names the Orc's word (Down before and after): that tells its save was made", out)
	}
	tb.Dice.Push(4)
	tb.OK(tb.Do("ann", "/init next")) // Orc skipped again; round 3
	hist := tb.OK(tb.Do("ann", "/history"))
	noSave("player /history", hist)
	commandstest.WantIn(t, "player /history", hist, "· ann · /init next\n   Vala's turn ends.")
	tb.Dice.Push(6)
	resp = tb.Do("gm", "/init next")
	noSave("GM's round end, public", tb.OK(resp))
	commandstest.WantIn(t, "GM's round end, follow-up", commandstest.FollowUp(resp), "Fort DC 12 (stabilize): 1d20 [6]")
	commandstest.WantIn(t, "GM /history", commandstest.FollowUp(tb.Do("gm", "/history")), "1d20 [4]", "1d20 [5]")
	tb.NoDiceLeft()
}

// TestInitiativeExport: an export carries the open turn order (and the
// orders in its history) as version 2; imported, the order plays on and
// undoes exactly. A table that never had one still exports as version 1,
// which readers of version 1 read.
func TestInitiativeExport(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`))
	tb.OK(tb.Do("meg", `/char create name:Meghan stats:"class=magic-user level=3 hp=3"`))
	v1 := tb.ExportFile("gm")
	if !strings.Contains(string(v1), `"version": 1`) || strings.Contains(string(v1), "initiative") {
		t.Errorf("export before any turn order: %.200s; want version 1 without initiative", v1)
	}
	tb.OK(tb.Do("gm", "/init start"))
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	tb.OK(tb.Do("bob", "/init next"))
	data := tb.ExportFile("gm")
	var ex export.File
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Version != 2 || ex.Table.Initiative == nil || len(ex.Table.Initiative.Combatants) != 2 || ex.Table.Initiative.Turn != 1 {
		t.Fatalf("export with an open order: version %d, order %+v; want version 2 with Lister and Meghan, Meghan's turn", ex.Version, ex.Table.Initiative)
	}
	tb.Channel = "chan-2"
	tb.OK(tb.ImportFile("!gm", data))
	commandstest.WantIn(t, "imported", tb.OK(tb.Do("meg", "/init show")), "▫ **Lister** 5\n▶ **Meghan** 2")
	commandstest.WantIn(t, "plays on", tb.OK(tb.Do("meg", "/init next")), "Round 2 of the turn order begins. It is **Lister**'s turn.")
	tb.OK(tb.Do("!gm", "/undo"))
	commandstest.WantIn(t, "undone", tb.OK(tb.Do("meg", "/init show")), "round 1", "▶ **Meghan** 2")
	// A closed order stays in the history: still version 2.
	tb.OK(tb.Do("!gm", "/init end"))
	var again export.File
	if err := json.Unmarshal(tb.ExportFile("!gm"), &again); err != nil || again.Version != 2 || again.Table.Initiative != nil {
		t.Errorf("export after /init end: version %d, order %+v, %v; want version 2 (the history has orders), none open", again.Version, again.Table.Initiative, err)
	}
}

// TestInitiativeNobodyCanAct: when nobody in the order can act, a round
// end says so and leaves the turn with nobody; each /init next then ends
// one round (never more), which the owner of any combatant may do, and
// the round timers fire each time.
func TestInitiativeNobodyCanAct(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:2"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	tb.Press("bob", tb.Do("gm", "/damage target:Lister amount:4"), "Go Down")
	tb.Press("meg", tb.Do("gm", "/damage target:Meghan amount:3"), "Go Down")
	out := tb.OK(tb.Do("bob", "/init next"))
	commandstest.WantIn(t, "nobody", out, "**Lister**'s turn ends. **Meghan** cannot act (down, its fate hidden until attended): turn skipped.",
		"The clock moves 1 round: day 1, 00:00 → 00:01.", "Round 2 of the turn order begins. Nobody left in the turn order can act this round: `/init next` ends it.")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("meg", "/init show")), "Nobody left in the turn order can act this round")
	tb.Refused(tb.Do("carl", "/init next"), "Only a GM or the owner of a combatant")
	out = tb.OK(tb.Do("meg", "/init next"))
	if strings.Count(out, "The clock moves") != 1 || !strings.Contains(out, "day 1, 00:01 → 00:02") || !strings.Contains(out, "Round 3 of the turn order begins.") {
		t.Errorf("/init next with nobody acting = %q; want exactly one round end", out)
	}
	if tb.clock() != 2 {
		t.Errorf("clock = %d; want 2", tb.clock())
	}
}

// TestInitiativeUndoIsTheGMs: a turn order change is a change of the
// table, which only a GM undoes (as every table change): a player's /undo
// passes over their own /init join and /init next.
func TestInitiativeUndoIsTheGMs(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("gm", `/char create name:Lister owner:bob stats:"hp=4"`))
	tb.OK(tb.Do("gm", "/init start"))
	tb.OK(tb.Do("bob", "/init join target:Lister roll:3"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	tb.OK(tb.Do("bob", "/init next"))
	tb.Refused(tb.Do("bob", "/undo"), "nothing here that you can undo")
	commandstest.WantIn(t, "GM undo", tb.OK(tb.Do("gm", "/undo")), "/init next")
	commandstest.WantIn(t, "GM undo", tb.OK(tb.Do("gm", "/undo")), "/init next")
	commandstest.WantIn(t, "GM undo", tb.OK(tb.Do("gm", "/undo")), "/init join")
	if o := tb.order(); len(o.Combatants) != 0 {
		t.Errorf("order after undoing the join = %+v; want empty", o)
	}
}

// TestInitiativeRollBySystem: /init join roll: is an option whose meaning
// the table's system gives (System.Options): each system says what total
// it takes, /help topic:init lists them per system, whole and within
// Discord's 2,000 characters, and the registry marks the option BySystem.
func TestInitiativeRollBySystem(t *testing.T) {
	tb := newTable(t)
	resp := tb.Do("ann", "/help topic:init")
	help := commandstest.Text(resp)
	if n := len([]rune(resp.Content)); n > 2000 || strings.HasSuffix(resp.Content, "…") {
		t.Errorf("/help topic:init is %d characters, cut: %q", n, resp.Content)
	}
	commandstest.WantIn(t, "help", help, "`/init join` option:\n• `roll`: The initiative rolled at the table",
		"hit-protection: 1d6 + init", "hp-mp-wp: d20 + Dex modifier + init", "harm: the success level of a React check")
	join := tb.Svc.Registry().Lookup("init").Sub("join")
	for _, o := range join.Options {
		if o.Name == "roll" && !o.BySystem {
			t.Errorf("/init join roll is not BySystem")
		}
	}
	for _, sys := range commandstest.Systems() {
		if systemOptionOf(sys, "init join", "roll") == nil {
			t.Errorf("%s does not say what /init join roll: means", sys.Name())
		}
	}
}

// TestInitiativeHistoryIsPlain: the history notes a harm initiative (whose
// roll text bolds the SL) as plain text, as it notes every reply line.
func TestInitiativeHistoryIsPlain(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:harm"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"endure=2 react=1 vigor=5"`))
	tb.OK(tb.Do("gm", "/init start"))
	tb.Dice.Push(1, 0, -1)
	commandstest.WantIn(t, "join", tb.OK(tb.Do("ann", "/init join target:Vala")), "= 1 → **SL 1**.")
	hist := tb.OK(tb.Do("ann", "/history"))
	commandstest.WantIn(t, "history", hist, "Vala joins the turn order: initiative React 1 (Apprentice): 3dF+1 [+, 0, −] + 1 = 1 → SL 1.")
	if strings.Contains(hist, "**SL") {
		t.Errorf("/history keeps the roll's markdown: %q", hist)
	}
}

// TestReadingSkipSaidInTheRoundItFell is RULES.md §0.6's "the skip is
// reported" as issue 24 reads it: a combatant that cannot act is named
// when its turn is passed over in the round it fell, and one that already
// could not act as a round began is passed over without a word (/init show
// still says why); once it can act again, it gets its turn. Meghan goes
// down in round 1 before her turn: round 1 names her; round 2 passes her
// silently; once the GM raises her HP she acts in round 3.
func TestReadingSkipSaidInTheRoundItFell(t *testing.T) {
	tb := hitProtParty(t)
	tb.OK(tb.Do("gm", "/init join target:Lister roll:5"))
	tb.OK(tb.Do("gm", "/init join target:Meghan roll:3"))
	tb.OK(tb.Do("gm", "/init join target:Kryten roll:1"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1
	tb.Press("meg", tb.Do("gm", "/damage target:Meghan amount:3"), "Go Down")
	if out := tb.OK(tb.Do("bob", "/init next")); out != "**Lister**'s turn ends. **Meghan** cannot act (down, its fate hidden until attended): turn skipped. It is **Kryten**'s turn (round 1)." {
		t.Errorf("round 1 = %q; want Meghan's skip said", out)
	}
	tb.OK(tb.Do("bob", "/init next")) // round 2
	if out := tb.OK(tb.Do("bob", "/init next")); out != "**Lister**'s turn ends. It is **Kryten**'s turn (round 2)." {
		t.Errorf("round 2 = %q; want Meghan passed over without a word", out)
	}
	commandstest.WantIn(t, "show", tb.OK(tb.Do("meg", "/init show")), "▫ **Meghan** 3 · cannot act: down")
	tb.OK(tb.Do("gm", "/char set name:Meghan stats:hp=2"))
	tb.OK(tb.Do("bob", "/init next")) // round 3
	if out := tb.OK(tb.Do("bob", "/init next")); out != "**Lister**'s turn ends. It is **Meghan**'s turn (round 3)." {
		t.Errorf("round 3 = %q; want Meghan's turn again", out)
	}
}
