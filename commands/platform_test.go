package commands_test

import (
	"context"
	"fmt"
	"regexp"
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
	tb.Refused(tb.Do("ann", "/table option name:fudge-dice value:4"), `Unknown table option "fudge-dice"; this hit-protection table has dice, sheet-edit, init-reroll, init-dice, init-ping, catch-breath`)
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
	commandstest.WantIn(t, "GM sets", tb.OK(tb.Do("gm", "/char set name:Lister stats:hp=5")), "HP 3/6 · HD 1/1 → HP 5/6 · HD 1/1")
	tb.OK(tb.Do("gm", "/table option name:sheet-edit value:owner"))
	tb.OK(tb.Do("ann", "/char set name:Lister stats:hp=4"))
}

func TestCharCreateRollsHP(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.Dice.Push(3)
	out := tb.OK(tb.Do("meg", "/char create name:Meghan stats:\"class=magic-user level=3\""))
	for _, want := range []string{"Meghan", "HP 3/4", "HD 3/3", "1d4 [3] = 3", "spells 15"} {
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
	if !strings.Contains(out, "HP 4/6 · HD 1/1 → HP 4/6 · HD 3/3") {
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
	if out := tb.OK(tb.Do("bob", "/char show name:Lister")); !strings.Contains(out, "HP 2/8") {
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

func TestSystemSeam(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Lister stats:hp=4"))
	for _, line := range []string{
		"/heal target:Lister amount:2",
		"/strain target:Lister",
		"/activity target:Lister kind:work",
	} {
		tb.Refused(tb.Do("bob", line), "not part of the hit-protection system")
	}
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

// TestHistoryPages: /history shows ten events a page; page:N and
// before:#N page back, filters by target and user combine, and every page
// that leaves older events out ends with the one line that shows them, a
// command that works as printed.
func TestHistoryPages(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection")) // #1
	tb.OK(tb.Do("ann", `/char create name:"Sir Bob" stats:"class=fighter hit-die=d12 hp=12"`))
	tb.OK(tb.Do("bob", `/char create name:Rook stats:"class=thief hp=2"`)) // #3
	for i := 0; i < 12; i++ {                                              // #4 … #15: ann, gm, ann, gm …
		user := []string{"ann", "gm"}[i%2]
		tb.OK(tb.Do(user, `/damage target:"Sir Bob" amount:1`))
	}
	seqs := func(out string) []string { return regexp.MustCompile("`#(\\d+)`").FindAllString(out, -1) }
	page := tb.OK(tb.Do("bob", "/history"))
	if got := seqs(page); len(got) != 10 || got[0] != "`#15`" || got[9] != "`#6`" {
		t.Fatalf("first page = %v; want #15 … #6", got)
	}
	commandstest.WantIn(t, "first page", page, "Older events: /history before:#6")
	if got := seqs(tb.OK(tb.Do("bob", "/history before:#6"))); len(got) != 5 || got[0] != "`#5`" || got[4] != "`#1`" {
		t.Errorf("before:#6 = %v; want #5 … #1", got)
	}
	last := tb.OK(tb.Do("bob", "/history page:2"))
	if got := seqs(last); len(got) != 5 || got[0] != "`#5`" || strings.Contains(last, "Older events") {
		t.Errorf("page:2 = %v %q; want #5 … #1 and no older-events line", got, last)
	}
	commandstest.WantIn(t, "page 3", tb.OK(tb.Do("bob", "/history page:3")), "No events here on page 3.")
	tb.Refused(tb.Do("bob", "/history page:2 before:#6"), "before or page, not both")
	tb.Refused(tb.Do("bob", "/history before:soon"), "before:#12")

	// Filters: the older-events line keeps them, and works as printed.
	byGM := tb.OK(tb.Do("bob", `/history target:"Sir Bob" user:gm`))
	if got := seqs(byGM); len(got) != 6 || got[0] != "`#15`" {
		t.Errorf("target and user = %v; want the GM's six damages", got)
	}
	if strings.Contains(byGM, "Older events") {
		t.Errorf("target and user = %q; want no older-events line when nothing older matches", byGM)
	}
	filtered := tb.OK(tb.Do("bob", `/history target:"Sir Bob"`))
	commandstest.WantIn(t, "target", filtered, `Older events: /history before:#6 target:"Sir Bob"`)
	if got := seqs(tb.OK(tb.Do("bob", `/history before:#6 target:"Sir Bob"`))); len(got) != 3 || got[2] != "`#2`" {
		t.Errorf("the older page of a target = %v; want #5, #4 and the creation #2", got)
	}
	commandstest.WantIn(t, "user", tb.OK(tb.Do("bob", "/history user:bob")), "/char create name:Rook")
}

func TestHistoryAndUndo(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Lister stats:hp=4"))
	tb.OK(tb.Do("meg", "/char create name:Meghan stats:\"class=magic-user level=3 hp=1\""))
	tb.OK(tb.Do("bob", "/char set name:Lister stats:hp=2"))

	h := tb.OK(tb.Do("meg", "/history"))
	if strings.Index(h, "#4") > strings.Index(h, "#1") || !strings.Contains(h, "/char set name:Lister stats:hp=2") {
		t.Errorf("history = %q; want newest first with the command", h)
	}
	if h := tb.OK(tb.Do("meg", "/history target:Meghan")); strings.Contains(h, "Lister") {
		t.Errorf("history target:Meghan = %q; want only Meghan's events", h)
	}

	// A player undoes their own latest event, skipping others'.
	out := tb.OK(tb.Do("meg", "/undo"))
	if !strings.Contains(out, "#3") {
		t.Errorf("meg's undo = %q; want #3 (her create)", out)
	}
	tb.Refused(tb.Do("meg", "/char show name:Meghan"), "No character")
	tb.Refused(tb.Do("meg", "/undo"), "nothing here that you can undo")

	// Bob undoes his set: HP back to 4, exactly.
	tb.OK(tb.Do("bob", "/undo"))
	if out := tb.OK(tb.Do("bob", "/char show name:Lister")); !strings.Contains(out, "HP 4/8") {
		t.Errorf("after undo = %q", out)
	}
	// Undo is recorded and the undone events are not undone twice.
	h = tb.OK(tb.Do("bob", "/history"))
	if !strings.Contains(h, "Undid #4") || !strings.Contains(h, "Undid #3") {
		t.Errorf("history = %q; want both undos recorded", h)
	}
	out = tb.OK(tb.Do("bob", "/undo"))
	if !strings.Contains(out, "#2") {
		t.Errorf("bob's second undo = %q; want #2", out)
	}
	tb.Refused(tb.Do("ann", "/undo"), "nothing here")
}

func TestUndoRefusesOverLaterChange(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Lister stats:hp=4"))
	tb.OK(tb.Do("bob", "/char set name:Lister stats:hp=3"))
	tb.OK(tb.Do("ann", "/char set name:Lister stats:hp=2")) // the GM's change
	// A player undoes only events they made: not the GM's #4 on Lister, so
	// Bob's latest is #3, but #4 changed Lister since: refused.
	tb.Refused(tb.Do("bob", "/undo"), "Undo the later event first")
	if out := tb.OK(tb.Do("bob", "/char show name:Lister")); !strings.Contains(out, "HP 2/8") {
		t.Errorf("refused undo changed state: %q", out)
	}
}

func TestAutocomplete(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	for _, n := range []string{"Lister", "Meghan", "Elisa"} {
		tb.OK(tb.Do("ann", "/char create name:"+n+" stats:hp=1"))
	}
	ac := func(value string) []string {
		resp := tb.Svc.Handle(context.Background(), &commands.Request{
			Kind: commands.KindAutocomplete, ChannelID: tb.Channel, UserID: "ann", UserName: "ann",
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
	out := tb.Do("ann", "/help")
	if !strings.Contains(out.Content, "/damage") || !strings.Contains(out.Content, "/table setup") {
		t.Errorf("help = %q", out.Content)
	}
	// The command to start with works as printed.
	if !strings.Contains(out.Content, "Start with `/table setup system:hit-protection` (or hp-mp-wp, harm).") {
		t.Errorf("help = %q; want a /table setup that works as printed", out.Content)
	}
	if out := tb.Do("ann", "/help topic:hit-protection"); !strings.Contains(out.Content, "Stats keys") || !strings.Contains(out.Content, "catch-breath") {
		t.Errorf("help hit-protection = %q", out.Content)
	}
	if out := tb.Do("ann", "/help topic:/roll"); !strings.Contains(out.Content, "keep/drop") {
		t.Errorf("help roll = %q", out.Content)
	}
	tb.Refused(tb.Do("ann", "/help topic:nonsense"), "No help topic")
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

// TestHelpTemplatesHaveRequiredOptions: a command template in backticks in
// a system's help or in /help topic:<command> (`/heal target:NAME …`) gives
// every option the command requires, so that it works when typed as
// printed with the placeholders filled in.
func TestHelpTemplatesHaveRequiredOptions(t *testing.T) {
	tb := newTable(t)
	reg := tb.Svc.Registry()
	texts := map[string]string{}
	for _, sys := range allSystems {
		texts[sys.Name()] = sys.Help()
	}
	for _, c := range reg.Commands() {
		texts["/help topic:"+c.Name] = tb.Do("ann", "/help topic:"+c.Name).Content
	}
	span := regexp.MustCompile("`(/[a-z]+)( [a-z]+)?((?: [a-z-]+:[^` ]*)+)`")
	for where, text := range texts {
		for _, m := range span.FindAllStringSubmatch(text, -1) {
			c := reg.Lookup(strings.TrimPrefix(m[1], "/"))
			if c == nil {
				t.Errorf("%s: %q names no command", where, m[0])
				continue
			}
			opts := c.Options
			if sub := strings.TrimSpace(m[2]); sub != "" {
				if s := c.Sub(sub); s != nil {
					opts = s.Options
				}
			}
			for _, o := range opts {
				if o.Required && !strings.Contains(m[3], " "+o.Name+":") {
					t.Errorf("%s: %q lacks the required option %s:", where, m[0], o.Name)
				}
			}
		}
	}
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
	if out := tb.OK(tb.Do("ann", "/char show name:A")); !strings.Contains(out, "HP 1/8") {
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

// TestUndoStopsAtSystemChange: characters of the old system can never come
// back into a table that changed system.
func TestUndoStopsAtSystemChange(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", "/char create name:Bobby stats:hp=3"))
	tb.Press("bob", tb.Do("bob", "/char delete name:Bobby"), "Delete")
	tb.OK(tb.Do("ann", "/table setup system:harm"))
	tb.OK(tb.Do("ann", "/char create name:Gm1"))
	tb.Refused(tb.Do("bob", "/undo"), "changed its system")
	tb.OK(tb.Do("ann", "/undo")) // the GM's own create
	tb.Refused(tb.Do("ann", "/undo"), "changed its system")
	if out := tb.OK(tb.Do("bob", "/char list")); !strings.Contains(out, "No characters") {
		t.Errorf("/char list = %q; want no characters", out)
	}
}

// TestHistoryPagesOfALongHistory: on a history longer than storage's
// checkpoints are apart (events are read back from the records and the
// events after them), every before:#N page, the deep ones included, is
// exactly the page:P that shows the same events, which reads the history
// from the newest: for a player (a hidden NPC's word only) and for the GM
// (its numbers in the follow-up).
func TestHistoryPagesOfALongHistory(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:"Sir Bob" stats:"class=fighter hit-die=d12 hp=12"`))
	commandstest.Text(tb.Do("gm", `/char create name:Goblin stats:"class=fighter hit-die=d8 hp=7 hidden=true"`))
	goblin := 0
	for i := 0; i < 300; i++ {
		switch i % 3 {
		case 0:
			tb.OK(tb.Do("ann", fmt.Sprintf(`/char set name:"Sir Bob" stats:hp=%d`, 1+i%12)))
		default: // the Goblin's word, read from its state after the event, changes each time
			goblin++
			commandstest.Text(tb.Do("gm", fmt.Sprintf(`/char set name:Goblin stats:hp=%d`, []int{8, 3}[goblin%2])))
		}
	}
	var newest uint64
	if err := tb.DB.View(func(tx *storage.Tx) error {
		var err error
		newest, err = tx.LastEventSeq(tb.Channel)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if newest < 300 {
		t.Fatalf("%d events; want more than 300", newest)
	}
	for p := uint64(2); p <= newest/10; p++ {
		before := newest + 1 - 10*(p-1)
		for _, user := range []string{"ann", "gm"} {
			byPage := tb.Do(user, fmt.Sprintf("/history page:%d", p))
			byBefore := tb.Do(user, fmt.Sprintf("/history before:#%d", before))
			a, b := commandstest.Text(byPage)+"\n"+commandstest.FollowUp(byPage), commandstest.Text(byBefore)+"\n"+commandstest.FollowUp(byBefore)
			if a != b {
				t.Errorf("%s: /history before:#%d =\n%s\nwant what page:%d shows:\n%s", user, before, b, p, a)
			}
			commandstest.WantIn(t, fmt.Sprintf("page %d", p), a, "Goblin: Unhurt", "Goblin: Wounded", fmt.Sprintf("`#%d`", before-1))
		}
	}
}
