package commands_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/storage"
)

func TestNoTableYet(t *testing.T) {
	tb := newTable(t)
	tb.Refused(tb.Do("ann", "/char list"), "/table setup")
	tb.Refused(tb.Do("ann", "/damage target:X amount:3"), "/table setup")
}

func TestTableSetupAndPermissions(t *testing.T) {
	tb := newTable(t)
	out := tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	if !strings.Contains(out, "hit-protection") || !strings.Contains(out, "<@ann>") {
		t.Errorf("setup reply = %q; want the system and the GM", out)
	}
	// Only a GM may change the system; a Manage Channels member is a GM.
	tb.Refused(tb.Do("bob", "/table setup system:harm"), "Only a GM")
	tb.OK(tb.Do("!carol", "/table setup system:harm"))
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.Refused(tb.Do("ann", "/table setup system:hit-protection"), "already plays")
	tb.Refused(tb.Do("ann", "/table setup system:gurps"), "must be one of")

	// Changing the system of a table with characters is refused (RULES §0.1).
	tb.OK(tb.Do("bob", "/char create name:Lister stats:hp=4"))
	tb.Refused(tb.Do("ann", "/table setup system:harm"), "This table has 1 character; delete it before changing the system from hit-protection to harm.")

	// GMs: add, then the new GM may act for anyone.
	tb.Refused(tb.Do("bob", "/table gm action:add user:bob"), "Only a GM")
	tb.OK(tb.Do("ann", "/table gm action:add user:dave"))
	tb.Refused(tb.Do("ann", "/table gm action:add user:dave"), "already")
	tb.OK(tb.Do("dave", "/char set name:Lister stats:hp=3"))
	commandstest.WantIn(t, "remove", tb.OK(tb.Do("ann", "/table gm action:remove user:dave")), "<@dave> is no longer one of this table's added GMs",
		"a member with Discord's Manage Channels permission in this channel stays a GM")
	tb.Refused(tb.Do("dave", "/char set name:Lister stats:hp=2"), "only its owner or a GM")
	// A GM by Manage Channels who removes themself stays a GM, and is told
	// so and what would end it.
	tb.OK(tb.Do("ann", "/table gm action:add user:carol"))
	commandstest.WantIn(t, "remove self", tb.OK(tb.Do("!carol", "/table gm action:remove user:carol")),
		"stays a GM through Discord's Manage Channels permission", "only taking that permission away")
	tb.OK(tb.Do("!carol", "/char set name:Lister stats:hp=3"))

	show := tb.OK(tb.Do("bob", "/table show"))
	for _, want := range []string{"hit-protection", "catch-breath=off", "day 1, 00:00", "Lister", "HP 3/8"} {
		if !strings.Contains(show, want) {
			t.Errorf("/table show = %q; want it to contain %q", show, want)
		}
	}
}

func TestTableOption(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.Refused(tb.Do("bob", "/table option name:catch-breath value:on"), "Only a GM")
	if out := tb.OK(tb.Do("ann", "/table option name:catch-breath value:on")); !strings.Contains(out, "off → on") {
		t.Errorf("option reply = %q", out)
	}
	tb.Refused(tb.Do("ann", "/table option name:catch-breath value:maybe"), "off or on")
	// An unknown option is refused with the options this table has.
	tb.Refused(tb.Do("ann", "/table option name:fudge-dice value:4"), `Unknown table option "fudge-dice"; this hit-protection table has dice, gm-channel, sheet-edit, init-reroll, init-dice, init-ping, catch-breath`)
}

// TestSheetEdit: the table option sheet-edit decides who sets sheet values
// with /char set: owner (the default, RULES.md §0.1: its owner or a GM) or
// gm (GMs only); players still act on their characters either way.
func TestSheetEdit(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=3"`))
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/table show")), "sheet-edit=owner")
	tb.OK(tb.Do("ann", "/char set name:Lister stats:hp=4"))
	tb.Refused(tb.Do("ann", "/table option name:sheet-edit value:gm"), "Only a GM")
	tb.Refused(tb.Do("gm", "/table option name:sheet-edit value:players"), "Option sheet-edit takes owner or gm")
	commandstest.WantIn(t, "set", tb.OK(tb.Do("gm", "/table option name:sheet-edit value:gm")), "sheet-edit: owner → gm")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/table show")), "sheet-edit=gm")
	// It names the commands of this system only: hit-protection has no /heal.
	tb.Refused(tb.Do("ann", "/char set name:Lister stats:hp=6"), "Only a GM can change sheet values at this table (table option sheet-edit=gm); Lister still acts with /damage, /rest and the others.")
	commandstest.WantIn(t, "player acts", tb.OK(tb.Do("ann", "/damage target:Lister amount:1")), "HP 4 → 3")
	tb.OK(tb.Do("ann", `/char create name:Pip stats:"class=thief hp=2"`))
	commandstest.WantIn(t, "GM sets", tb.OK(tb.Do("gm", "/char set name:Lister stats:hp=5")), "**Lister**: set hp=5: HP 3/6 → 5/6.")
	tb.OK(tb.Do("gm", "/table option name:sheet-edit value:owner"))
	tb.OK(tb.Do("ann", "/char set name:Lister stats:hp=4"))
}

func TestCharCreateRollsHP(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.Dice.Push(3)
	out := tb.OK(tb.Do("meg", "/char create name:Meghan stats:\"class=magic-user level=3\""))
	for _, want := range []string{"Created **Meghan** for meg. Rolled 1d4 [3] = 3", "HP ████████░░ 3/4", "HD ██████████ 3/3", "spells 15"} {
		if !strings.Contains(out, want) {
			t.Errorf("create reply = %q; want %q", out, want)
		}
	}
	tb.Refused(tb.Do("bob", "/char create name:meghan stats:hp=2"), "already a character named")
	tb.Refused(tb.Do("bob", "/char create name:Bad,Name stats:hp=2"), "comma")
	tb.Refused(tb.Do("bob", "/char create name:"+strings.Repeat("x", 33)), "1 to 32")
	tb.Refused(tb.Do("bob", "/char create name:X stats:hp=9"), "hp=9")
	tb.Refused(tb.Do("bob", "/char create name:X stats:strength=9"), "Valid keys: class, hd, hit-die, hp, init, level")
	tb.Refused(tb.Do("bob", "/char create name:X stats:hit-die=d7"), "d4, d6, d8, d10 or d12")
	tb.Refused(tb.Do("bob", "/char create name:X stats:level"), "key=value")
	tb.Refused(tb.Do("bob", "/char create name:X owner:carl stats:hp=2"), "Only a GM")
	// Scripted dice ran out: a clear refusal and nothing created.
	tb.Refused(tb.Do("bob", "/char create name:Y"), "ran out")
	tb.Refused(tb.Do("bob", "/char show name:Y"), "No character named")
}

func TestCharSetShowList(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Lister stats:\"class=fighter level=1 hit-die=d6 hp=4\""))
	out := tb.OK(tb.Do("bob", "/char set name:lister stats:\"level=3 save-death=9\""))
	if out != "**Lister**: set level=3 save-death=9: HD 1/1 → 3/3 · Class: fighter 3 · Saves (d20 ≥): death 9*, wands 13, paralysis 14, breath 15, spells 16 (* set on the sheet)." {
		t.Errorf("set reply = %q; want HD to follow the level", out)
	}
	show := tb.OK(tb.Do("bob", "/char show"))
	if !strings.Contains(show, "death 9*") || !strings.Contains(show, "wands 13") {
		t.Errorf("show = %q; want the overridden death save and default wands", show)
	}
	tb.Refused(tb.Do("meg", "/char show"), "no character")
	list := tb.OK(tb.Do("meg", "/char list"))
	if !strings.Contains(list, "Lister") || !strings.Contains(list, "bob") {
		t.Errorf("list = %q", list)
	}
}

func TestCharDeleteButtons(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Lister stats:hp=4"))
	tb.Refused(tb.Do("meg", "/char delete name:Lister"), "only its owner or a GM")

	ask := tb.OK(tb.Do("bob", "/char delete name:Lister"))
	if !strings.Contains(ask, "Delete") {
		t.Fatalf("delete prompt = %q", ask)
	}
	resp := tb.Do("bob", "/char delete name:Lister")
	// Another user may not press it.
	tb.Refused(tb.Press("meg", resp, "Delete"), "only its owner or a GM")
	// Cancel keeps it and disables both buttons.
	cancel := tb.Press("bob", resp, "Cancel")
	if !cancel.UpdateMessage || !strings.Contains(cancel.Content, "Kept") || !cancel.Components[0][0].Disabled {
		t.Errorf("cancel = %+v; want the message updated with disabled buttons", cancel)
	}
	// A state change makes the confirmation stale.
	tb.OK(tb.Do("bob", "/char set name:Lister stats:hp=2"))
	tb.Refused(tb.Press("bob", resp, "Delete"), "has changed since")

	resp = tb.Do("bob", "/char delete name:Lister")
	del := tb.Press("bob", resp, "Delete")
	if !del.UpdateMessage || !strings.Contains(del.Content, "Deleted") {
		t.Fatalf("delete = %+v", del)
	}
	tb.Refused(tb.Press("bob", resp, "Delete"), "already gone")
	tb.Refused(tb.Do("bob", "/char show name:Lister"), "No character")
	// Undo brings it back with its id and sheet.
	tb.OK(tb.Do("bob", "/undo"))
	if out := tb.OK(tb.Do("bob", "/char show name:Lister")); !strings.Contains(out, "HP ███░░░░░░░ 2/8") {
		t.Errorf("after undo show = %q", out)
	}
}

func TestRoll(t *testing.T) {
	tb := newTable(t)
	tb.Dice.Push(5, 2, 1)
	out := tb.OK(tb.Do("ann", "/roll expr:3d6dl1"))
	if !strings.Contains(out, "3d6dl1 [5, 2, ~~1~~] = 7") {
		t.Errorf("roll = %q", out)
	}
	tb.Refused(tb.Do("ann", "/roll expr:1000d1000"), "1000d1000")
	tb.Refused(tb.Do("ann", "/roll expr:2x6"), "2x6")
	tb.Refused(tb.Do("ann", "/roll"), "needs expr")
	tb.Refused(tb.Do("ann", "/roll expr:1d6"), "ran out")
	// As a character: it must exist and be yours (or you a GM).
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Lister stats:hp=4"))
	tb.Dice.Push(17)
	if out := tb.OK(tb.Do("bob", "/roll expr:d20 as:lister")); !strings.Contains(out, "Lister") || !strings.Contains(out, "= 17") {
		t.Errorf("roll as = %q", out)
	}
	tb.Refused(tb.Do("meg", "/roll expr:d20 as:Lister"), "only its owner or a GM")
}

func TestOptionValidation(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.Refused(tb.Do("ann", "/damage amount:3"), "needs the option target")
	tb.Refused(tb.Do("ann", "/damage target:X amount:3 colour:red"), "no option \"colour\"")
	tb.Refused(tb.Do("ann", "/damage target:X amount:3 soak:maybe"), "true or false")
	tb.Refused(tb.Do("ann", "/clock action:advance amount:-3"), "from 1 to 10000")
	tb.Refused(tb.Do("ann", "/clock action:advance amount:9223372036854775808"), "whole number")
	tb.Refused(tb.Do("ann", "/table"), "needs a subcommand")
	tb.Refused(tb.Do("ann", "/frobnicate"), "Unknown command")
	tb.Refused(tb.Do("ann", "/char create name:"+strings.Repeat("x", 300)), "at most 200")
}

func TestClock(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.Refused(tb.Do("bob", "/clock action:next-round"), "Only a GM")
	if out := tb.OK(tb.Do("bob", "/clock action:show")); !strings.Contains(out, "day 1, 00:00") {
		t.Errorf("show = %q", out)
	}
	tb.OK(tb.Do("ann", "/clock action:next-round"))
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:25 unit:hours"))
	if !strings.Contains(out, "25 hours") || !strings.Contains(out, "day 2, 01:01") {
		t.Errorf("advance = %q", out)
	}
	tb.OK(tb.Do("ann", "/undo"))
	if out := tb.OK(tb.Do("bob", "/clock")); !strings.Contains(out, "day 1, 00:01") {
		t.Errorf("after undo show = %q", out)
	}
}

// TestRepliesDoNotCiteTheSpecification: players have no RULES.md; a help
// page or a refusal says the rule in its own words, without "(RULES.md
// §0.6)".
func TestRepliesDoNotCiteTheSpecification(t *testing.T) {
	tb := newTable(t)
	topics := []string{""}
	for _, c := range tb.Svc.Registry().Commands() {
		topics = append(topics, c.Name)
	}
	for _, sys := range allSystems {
		topics = append(topics, sys.Name())
	}
	for _, topic := range topics {
		line := "/help"
		if topic != "" {
			line += " topic:" + topic
		}
		if out := commandstest.Text(tb.Do("ann", line)); strings.Contains(out, "RULES.md") {
			t.Errorf("%s cites RULES.md: %q", line, out)
		}
	}
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp=1"`))
	tb.OK(tb.Do("ann", "/damage target:Lister amount:1"))
	out := tb.Do("ann", "/attend target:Lister")
	tb.Refused(out, "**Lister** is yours: another character's player or a GM attends **Lister**. Nothing was changed.")
}

func TestEscapedNames(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	out := tb.Do("ann", "/char create name:*@everyone* stats:hp=1").Content
	if strings.Contains(out, "@everyone") || !strings.Contains(out, `\*@`+"\u200b"+`everyone\*`) {
		t.Errorf("reply = %q; want the name escaped", out)
	}
}

func TestNothingHalfApplied(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", "/char create name:A stats:hp=1"))
	// Multi-target commands resolve every name before changing anything.
	tb.Refused(tb.Do("ann", "/char set name:A stats:\"hp=2 level=99\""), "level=99")
	if out := tb.OK(tb.Do("ann", "/char show name:A")); !strings.Contains(out, "HP █░░░░░░░░░ 1/8") {
		t.Errorf("after a refused set: %q", out)
	}
	var n int
	tb.DB.View(func(tx *storage.Tx) error {
		return tx.EachEventBackward(tb.Channel, func(*storage.Event) (bool, error) { n++; return true, nil })
	})
	if n != 2 {
		t.Errorf("events = %d; want 2 (setup and create)", n)
	}
}

func TestPanicContained(t *testing.T) {
	// A request with an unknown kind gets a clear reply, not a panic.
	tb := newTable(t)
	resp := tb.Svc.Handle(context.Background(), &commands.Request{Kind: 99})
	if !resp.Ephemeral {
		t.Errorf("unknown kind: %+v", resp)
	}
	resp = tb.Svc.Handle(context.Background(), &commands.Request{Kind: commands.KindComponent, CustomID: "zzz:1"})
	if !resp.Ephemeral || !strings.Contains(resp.Content, "no longer handled") {
		t.Errorf("unknown component: %+v", resp)
	}
}

// TestRemovedSetupUserIsNoGM: the set-up user is a GM only while in the GM
// list (RULES.md §0.1); removing them takes effect.
func TestRemovedSetupUserIsNoGM(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", "/table gm action:add user:bob"))
	tb.OK(tb.Do("bob", "/table gm action:remove user:ann"))
	tb.Refused(tb.Do("ann", "/clock action:next-round"), "Only a GM")
	tb.Refused(tb.Do("bob", "/table gm action:remove user:bob"), "without a GM")
	if out := tb.OK(tb.Do("ann", "/table show")); strings.Contains(out, "<@ann>") || !strings.Contains(out, "<@bob>") {
		t.Errorf("/table show = %q; want bob as the only GM", out)
	}
}
