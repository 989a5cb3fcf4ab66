package commands_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

func TestNoTableYet(t *testing.T) {
	tb := newTable(t)
	tb.refused(tb.do("ann", "/char list"), "/table setup")
	tb.refused(tb.do("ann", "/damage target:X amount:3"), "/table setup")
}

func TestTableSetupAndPermissions(t *testing.T) {
	tb := newTable(t)
	out := tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	if !strings.Contains(out, "hit-protection") || !strings.Contains(out, "<@ann>") {
		t.Errorf("setup reply = %q; want the system and the GM", out)
	}
	// Only a GM may change the system; a Manage Channels member is a GM.
	tb.refused(tb.do("bob", "/table setup system:harm"), "Only a GM")
	tb.ok(tb.do("!carol", "/table setup system:harm"))
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.refused(tb.do("ann", "/table setup system:hit-protection"), "already plays")
	tb.refused(tb.do("ann", "/table setup system:gurps"), "must be one of")

	// Changing the system of a table with characters is refused (RULES §0.1).
	tb.ok(tb.do("bob", "/char create name:Lister stats:hp=4"))
	tb.refused(tb.do("ann", "/table setup system:harm"), "delete them")

	// GMs: add, then the new GM may act for anyone.
	tb.refused(tb.do("bob", "/table gm action:add user:bob"), "Only a GM")
	tb.ok(tb.do("ann", "/table gm action:add user:dave"))
	tb.refused(tb.do("ann", "/table gm action:add user:dave"), "already")
	tb.ok(tb.do("dave", "/char set name:Lister stats:hp=3"))
	tb.ok(tb.do("ann", "/table gm action:remove user:dave"))
	tb.refused(tb.do("dave", "/char set name:Lister stats:hp=2"), "only its owner or a GM")

	show := tb.ok(tb.do("bob", "/table show"))
	for _, want := range []string{"hit-protection", "catch-breath=off", "day 1, 00:00", "Lister", "HP 3/8"} {
		if !strings.Contains(show, want) {
			t.Errorf("/table show = %q; want it to contain %q", show, want)
		}
	}
}

func TestTableOption(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.refused(tb.do("bob", "/table option name:catch-breath value:on"), "Only a GM")
	if out := tb.ok(tb.do("ann", "/table option name:catch-breath value:on")); !strings.Contains(out, "off → on") {
		t.Errorf("option reply = %q", out)
	}
	tb.refused(tb.do("ann", "/table option name:catch-breath value:maybe"), "off or on")
	tb.refused(tb.do("ann", "/table option name:fudge-dice value:4"), "Unknown table option")
}

func TestCharCreateRollsHP(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.dice.Push(3)
	out := tb.ok(tb.do("meg", "/char create name:Meghan stats:\"class=magic-user level=3\""))
	for _, want := range []string{"Meghan", "HP 3/4", "HD 3/3", "1d4 [3] = 3", "spells 15"} {
		if !strings.Contains(out, want) {
			t.Errorf("create reply = %q; want %q", out, want)
		}
	}
	tb.refused(tb.do("bob", "/char create name:meghan stats:hp=2"), "already a character named")
	tb.refused(tb.do("bob", "/char create name:Bad,Name stats:hp=2"), "comma")
	tb.refused(tb.do("bob", "/char create name:"+strings.Repeat("x", 33)), "1 to 32")
	tb.refused(tb.do("bob", "/char create name:X stats:hp=9"), "hp=9")
	tb.refused(tb.do("bob", "/char create name:X stats:strength=9"), "Valid keys: class, hd, hit-die, hp, level")
	tb.refused(tb.do("bob", "/char create name:X stats:hit-die=d7"), "d4, d6, d8, d10 or d12")
	tb.refused(tb.do("bob", "/char create name:X stats:level"), "key=value")
	tb.refused(tb.do("bob", "/char create name:X owner:carl stats:hp=2"), "Only a GM")
	// Scripted dice ran out: a clear refusal and nothing created.
	tb.refused(tb.do("bob", "/char create name:Y"), "ran out")
	tb.refused(tb.do("bob", "/char show name:Y"), "No character named")
}

func TestCharSetShowList(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("bob", "/char create name:Lister stats:\"class=fighter level=1 hit-die=d6 hp=4\""))
	out := tb.ok(tb.do("bob", "/char set name:lister stats:\"level=3 save-death=9\""))
	if !strings.Contains(out, "HP 4/6 · HD 1/1 → HP 4/6 · HD 3/3") {
		t.Errorf("set reply = %q; want HD to follow the level", out)
	}
	show := tb.ok(tb.do("bob", "/char show"))
	if !strings.Contains(show, "death 9*") || !strings.Contains(show, "wands 13") {
		t.Errorf("show = %q; want the overridden death save and default wands", show)
	}
	tb.refused(tb.do("meg", "/char show"), "no character")
	list := tb.ok(tb.do("meg", "/char list"))
	if !strings.Contains(list, "Lister") || !strings.Contains(list, "bob") {
		t.Errorf("list = %q", list)
	}
}

func TestCharDeleteButtons(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("bob", "/char create name:Lister stats:hp=4"))
	tb.refused(tb.do("meg", "/char delete name:Lister"), "only its owner or a GM")

	ask := tb.ok(tb.do("bob", "/char delete name:Lister"))
	if !strings.Contains(ask, "Delete") {
		t.Fatalf("delete prompt = %q", ask)
	}
	resp := tb.do("bob", "/char delete name:Lister")
	// Another user may not press it.
	tb.refused(tb.press("meg", resp, "Delete"), "only its owner or a GM")
	// Cancel keeps it and disables both buttons.
	cancel := tb.press("bob", resp, "Cancel")
	if !cancel.UpdateMessage || !strings.Contains(cancel.Content, "Kept") || !cancel.Components[0][0].Disabled {
		t.Errorf("cancel = %+v; want the message updated with disabled buttons", cancel)
	}
	// A state change makes the confirmation stale.
	tb.ok(tb.do("bob", "/char set name:Lister stats:hp=2"))
	tb.refused(tb.press("bob", resp, "Delete"), "has changed since")

	resp = tb.do("bob", "/char delete name:Lister")
	del := tb.press("bob", resp, "Delete")
	if !del.UpdateMessage || !strings.Contains(del.Content, "Deleted") {
		t.Fatalf("delete = %+v", del)
	}
	tb.refused(tb.press("bob", resp, "Delete"), "already gone")
	tb.refused(tb.do("bob", "/char show name:Lister"), "No character")
	// Undo brings it back with its id and sheet.
	tb.ok(tb.do("bob", "/undo"))
	if out := tb.ok(tb.do("bob", "/char show name:Lister")); !strings.Contains(out, "HP 2/8") {
		t.Errorf("after undo show = %q", out)
	}
}

func TestRoll(t *testing.T) {
	tb := newTable(t)
	tb.dice.Push(5, 2, 1)
	out := tb.ok(tb.do("ann", "/roll expr:3d6dl1"))
	if !strings.Contains(out, "3d6dl1 [5, 2, ~~1~~] = 7") {
		t.Errorf("roll = %q", out)
	}
	tb.refused(tb.do("ann", "/roll expr:1000d1000"), "1000d1000")
	tb.refused(tb.do("ann", "/roll expr:2x6"), "2x6")
	tb.refused(tb.do("ann", "/roll"), "needs expr")
	tb.refused(tb.do("ann", "/roll expr:1d6"), "ran out")
	// As a character: it must exist and be yours (or you a GM).
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("bob", "/char create name:Lister stats:hp=4"))
	tb.dice.Push(17)
	if out := tb.ok(tb.do("bob", "/roll expr:d20 as:lister")); !strings.Contains(out, "Lister") || !strings.Contains(out, "= 17") {
		t.Errorf("roll as = %q", out)
	}
	tb.refused(tb.do("meg", "/roll expr:d20 as:Lister"), "only its owner or a GM")
}

func TestSystemSeam(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("bob", "/char create name:Lister stats:hp=4"))
	for _, line := range []string{
		"/heal target:Lister amount:2",
		"/strain target:Lister",
		"/activity target:Lister kind:work",
	} {
		tb.refused(tb.do("bob", line), "not part of the hit-protection system")
	}
}

func TestOptionValidation(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.refused(tb.do("ann", "/damage amount:3"), "needs the option target")
	tb.refused(tb.do("ann", "/damage target:X amount:3 colour:red"), "no option \"colour\"")
	tb.refused(tb.do("ann", "/damage target:X amount:3 soak:maybe"), "true or false")
	tb.refused(tb.do("ann", "/clock action:advance amount:-3"), "from 1 to 10000")
	tb.refused(tb.do("ann", "/clock action:advance amount:9223372036854775808"), "whole number")
	tb.refused(tb.do("ann", "/table"), "needs a subcommand")
	tb.refused(tb.do("ann", "/frobnicate"), "Unknown command")
	tb.refused(tb.do("ann", "/char create name:"+strings.Repeat("x", 300)), "at most 200")
}

func TestClock(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.refused(tb.do("bob", "/clock action:next-round"), "Only a GM")
	if out := tb.ok(tb.do("bob", "/clock action:show")); !strings.Contains(out, "day 1, 00:00") {
		t.Errorf("show = %q", out)
	}
	tb.ok(tb.do("ann", "/clock action:next-round"))
	out := tb.ok(tb.do("ann", "/clock action:advance amount:25 unit:hours"))
	if !strings.Contains(out, "25 hours") || !strings.Contains(out, "day 2, 01:01") {
		t.Errorf("advance = %q", out)
	}
	tb.ok(tb.do("ann", "/undo"))
	if out := tb.ok(tb.do("bob", "/clock")); !strings.Contains(out, "day 1, 00:01") {
		t.Errorf("after undo show = %q", out)
	}
}

func TestHistoryAndUndo(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("bob", "/char create name:Lister stats:hp=4"))
	tb.ok(tb.do("meg", "/char create name:Meghan stats:\"class=magic-user level=3 hp=1\""))
	tb.ok(tb.do("bob", "/char set name:Lister stats:hp=2"))

	h := tb.ok(tb.do("meg", "/history"))
	if strings.Index(h, "#4") > strings.Index(h, "#1") || !strings.Contains(h, "/char set name:Lister stats:hp=2") {
		t.Errorf("history = %q; want newest first with the command", h)
	}
	if h := tb.ok(tb.do("meg", "/history target:Meghan")); strings.Contains(h, "Lister") {
		t.Errorf("history target:Meghan = %q; want only Meghan's events", h)
	}

	// A player undoes their own latest event, skipping others'.
	out := tb.ok(tb.do("meg", "/undo"))
	if !strings.Contains(out, "#3") {
		t.Errorf("meg's undo = %q; want #3 (her create)", out)
	}
	tb.refused(tb.do("meg", "/char show name:Meghan"), "No character")
	tb.refused(tb.do("meg", "/undo"), "nothing here that you can undo")

	// Bob undoes his set: HP back to 4, exactly.
	tb.ok(tb.do("bob", "/undo"))
	if out := tb.ok(tb.do("bob", "/char show name:Lister")); !strings.Contains(out, "HP 4/8") {
		t.Errorf("after undo = %q", out)
	}
	// Undo is recorded and the undone events are not undone twice.
	h = tb.ok(tb.do("bob", "/history"))
	if !strings.Contains(h, "Undid #4") || !strings.Contains(h, "Undid #3") {
		t.Errorf("history = %q; want both undos recorded", h)
	}
	out = tb.ok(tb.do("bob", "/undo"))
	if !strings.Contains(out, "#2") {
		t.Errorf("bob's second undo = %q; want #2", out)
	}
	tb.refused(tb.do("ann", "/undo"), "nothing here")
}

func TestUndoRefusesOverLaterChange(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("bob", "/char create name:Lister stats:hp=4"))
	tb.ok(tb.do("bob", "/char set name:Lister stats:hp=3"))
	tb.ok(tb.do("ann", "/char set name:Lister stats:hp=2")) // the GM's change
	// A player undoes only events they made: not the GM's #4 on Lister, so
	// Bob's latest is #3, but #4 changed Lister since: refused.
	tb.refused(tb.do("bob", "/undo"), "Undo the later event first")
	if out := tb.ok(tb.do("bob", "/char show name:Lister")); !strings.Contains(out, "HP 2/8") {
		t.Errorf("refused undo changed state: %q", out)
	}
}

func TestAutocomplete(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	for _, n := range []string{"Lister", "Meghan", "Elisa"} {
		tb.ok(tb.do("ann", "/char create name:"+n+" stats:hp=1"))
	}
	ac := func(value string) []string {
		resp := tb.svc.Handle(context.Background(), &commands.Request{
			Kind: commands.KindAutocomplete, ChannelID: tb.channel, UserID: "ann", UserName: "ann",
			Command: "damage", Options: map[string]string{"target": value}, Focused: "target",
		})
		var out []string
		for _, c := range resp.Choices {
			out = append(out, c.Value)
		}
		return out
	}
	if got := strings.Join(ac("li"), "|"); got != "Lister|Elisa" {
		t.Errorf("autocomplete li = %q; want prefix matches first", got)
	}
	if got := strings.Join(ac("Lister, me"), "|"); got != "Lister, Meghan" {
		t.Errorf("autocomplete list = %q", got)
	}
	if got := ac("zzz"); len(got) != 0 {
		t.Errorf("autocomplete zzz = %q", got)
	}
}

func TestHelp(t *testing.T) {
	tb := newTable(t)
	out := tb.do("ann", "/help")
	if !strings.Contains(out.Content, "/damage") || !strings.Contains(out.Content, "/table setup") {
		t.Errorf("help = %q", out.Content)
	}
	if out := tb.do("ann", "/help topic:hit-protection"); !strings.Contains(out.Content, "Stats keys") || !strings.Contains(out.Content, "catch-breath") {
		t.Errorf("help hit-protection = %q", out.Content)
	}
	if out := tb.do("ann", "/help topic:/roll"); !strings.Contains(out.Content, "keep/drop") {
		t.Errorf("help roll = %q", out.Content)
	}
	tb.refused(tb.do("ann", "/help topic:nonsense"), "No help topic")
}

func TestEscapedNames(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	out := tb.do("ann", "/char create name:*@everyone* stats:hp=1").Content
	if strings.Contains(out, "@everyone") || !strings.Contains(out, `\*@`+"\u200b"+`everyone\*`) {
		t.Errorf("reply = %q; want the name escaped", out)
	}
}

func TestNothingHalfApplied(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("ann", "/char create name:A stats:hp=1"))
	// Multi-target commands resolve every name before changing anything.
	tb.refused(tb.do("ann", "/char set name:A stats:\"hp=2 level=99\""), "level=99")
	if out := tb.ok(tb.do("ann", "/char show name:A")); !strings.Contains(out, "HP 1/8") {
		t.Errorf("after a refused set: %q", out)
	}
	var n int
	tb.db.View(func(tx *storage.Tx) error {
		return tx.EachEventBackward(tb.channel, func(*storage.Event) (bool, error) { n++; return true, nil })
	})
	if n != 2 {
		t.Errorf("events = %d; want 2 (setup and create)", n)
	}
}

func TestPanicContained(t *testing.T) {
	// A request with an unknown kind gets a clear reply, not a panic.
	tb := newTable(t)
	resp := tb.svc.Handle(context.Background(), &commands.Request{Kind: 99})
	if !resp.Ephemeral {
		t.Errorf("unknown kind: %+v", resp)
	}
	resp = tb.svc.Handle(context.Background(), &commands.Request{Kind: commands.KindComponent, CustomID: "zzz:1"})
	if !resp.Ephemeral || !strings.Contains(resp.Content, "no longer handled") {
		t.Errorf("unknown component: %+v", resp)
	}
}

// TestRemovedSetupUserIsNoGM: the set-up user is a GM only while in the GM
// list (RULES.md §0.1); removing them takes effect.
func TestRemovedSetupUserIsNoGM(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("ann", "/table gm action:add user:bob"))
	tb.ok(tb.do("bob", "/table gm action:remove user:ann"))
	tb.refused(tb.do("ann", "/clock action:next-round"), "Only a GM")
	tb.refused(tb.do("bob", "/table gm action:remove user:bob"), "without a GM")
	if out := tb.ok(tb.do("ann", "/table show")); strings.Contains(out, "<@ann>") || !strings.Contains(out, "<@bob>") {
		t.Errorf("/table show = %q; want bob as the only GM", out)
	}
}

// TestUndoStopsAtSystemChange: characters of the old system can never come
// back into a table that changed system.
func TestUndoStopsAtSystemChange(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hit-protection"))
	tb.ok(tb.do("bob", "/char create name:Bobby stats:hp=3"))
	tb.press("bob", tb.do("bob", "/char delete name:Bobby"), "Delete")
	tb.ok(tb.do("ann", "/table setup system:harm"))
	tb.ok(tb.do("ann", "/char create name:Gm1"))
	tb.refused(tb.do("bob", "/undo"), "changed its system")
	tb.ok(tb.do("ann", "/undo")) // the GM's own create
	tb.refused(tb.do("ann", "/undo"), "changed its system")
	if out := tb.ok(tb.do("bob", "/char list")); !strings.Contains(out, "No characters") {
		t.Errorf("/char list = %q; want no characters", out)
	}
}
