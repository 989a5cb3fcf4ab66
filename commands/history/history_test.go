package history_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/storage"
)

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
	commandstest.WantIn(t, "first page", page, "Older events: `/history before:#6`")
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
	commandstest.WantIn(t, "target", filtered, "Older events: `/history before:#6 target:Sir Bob`")
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
	out := tb.OK(tb.Press("meg", tb.Do("meg", "/undo"), "Undo"))
	if !strings.Contains(out, "#3") {
		t.Errorf("meg's undo = %q; want #3 (her create)", out)
	}
	tb.Refused(tb.Do("meg", "/char show name:Meghan"), "No character")
	tb.Refused(tb.Do("meg", "/undo"), "nothing here that you can undo")

	// Bob undoes his set: HP back to 4, exactly.
	tb.OK(tb.Do("bob", "/undo"))
	if out := tb.OK(tb.Do("bob", "/char list")); !strings.Contains(out, "HP 4/8") {
		t.Errorf("after undo = %q", out)
	}
	// Undo is recorded and the undone events are not undone twice.
	h = tb.OK(tb.Do("bob", "/history"))
	if !strings.Contains(h, "Undid #4") || !strings.Contains(h, "Undid #3") {
		t.Errorf("history = %q; want both undos recorded", h)
	}
	out = tb.OK(tb.Press("bob", tb.Do("bob", "/undo"), "Undo"))
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
	tb.Refused(tb.Do("bob", "/undo"), "Cannot undo `#3`")
	if out := tb.OK(tb.Do("bob", "/char list")); !strings.Contains(out, "HP 2/8") {
		t.Errorf("refused undo changed state: %q", out)
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
	tb.OK(tb.Press("ann", tb.Do("ann", "/undo"), "Undo")) // the GM's own create
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

// TestHistoryTimesAreTimestamps: /history gives each event's time as a
// Discord timestamp, which every reader's client shows in their own time
// zone ("Jan 2 15:04" had none), in a player's view and in a GM's.
func TestHistoryTimesAreTimestamps(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection")) // 19:01 UTC
	tb.Private(tb.Do("gm", `/char create name:Orc stats:"hp=5 hidden=true"`))
	resp := tb.Do("ann", "/history")
	stamp := regexp.MustCompile(`<t:(\d+):f>`)
	got := stamp.FindAllStringSubmatch(tb.OK(resp), -1)
	if len(got) != 2 || got[1][1] != "1795978860" {
		t.Errorf("/history = %q; want two timestamps, the oldest <t:1795978860:f>", tb.OK(resp))
	}
	if gm := commandstest.FollowUp(tb.Do("gm", "/history")); !stamp.MatchString(gm) {
		t.Errorf("a GM's /history = %q; want timestamps", gm)
	}
}

// TestHistoryOfACharacterHiddenLater: once a character is hidden, the
// events about it from before read to players as its word, as every later
// one does (issue: /history target:Ogre still showed players "Created Ogre
// for dm: HP 12/12 · HD 4/4"); a GM reads them whole, privately.
func TestHistoryOfACharacterHiddenLater(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("dm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=6"`))
	tb.OK(tb.Do("dm", `/char create name:Ogre stats:"class=fighter level=4 hit-die=d12 hp=12"`))
	tb.OK(tb.Do("dm", "/damage target:Ogre,Lister amount:2"))
	tb.OK(tb.Do("dm", `/char set name:Ogre stats:"hidden=true"`))
	for _, line := range []string{"/history", "/history target:Ogre"} {
		out := tb.OK(tb.Do("ann", line))
		commandstest.WantIn(t, "player's "+line, out, "· dm · /char create\n   Ogre: Unhurt", "· dm · /damage\n   Ogre: Wounded")
		for _, secret := range []string{"12/12", "4/4", "HP 12 → 10", "10/12"} {
			if strings.Contains(out, secret) {
				t.Errorf("player's %s shows the hidden Ogre's %q:\n%s", line, secret, out)
			}
		}
	}
	gm := tb.Do("dm", "/history")
	commandstest.WantIn(t, "the GM's /history", commandstest.FollowUp(gm), "Created Ogre for dm: HP 12/12 · HD 4/4")
	private := tb.Private(tb.Do("dm", "/history target:Ogre"))
	commandstest.WantIn(t, "the GM's /history target:Ogre", private, "Created Ogre for dm: HP 12/12 · HD 4/4", "Set hidden=true on Ogre")
}

// TestHistoryTargetFindsTimers: a GM's /history target: of a hidden
// character keeps the events of its timers, a round end's dying save that
// kept it dying (changing nothing) included, and answers the GM alone
// (issue: /history target:Bandit left the round-end event out); a player's
// keeps only what players read of it, so the save is not told by the
// event's place in the list.
func TestHistoryTargetFindsTimers(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("dm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp-max=20"`))
	tb.Private(tb.Do("dm", `/char create name:Bandit stats:"hp-max=10 fort=2 hidden=true"`))
	tb.OK(tb.Do("dm", `/char set name:Bandit stats:"wp=-2 state=dying"`))
	tb.OK(tb.Do("dm", "/init start"))
	tb.OK(tb.Do("ann", "/init join target:Lister roll:12"))
	tb.OK(tb.Do("dm", "/init join target:Bandit roll:3"))
	tb.OK(tb.Do("dm", "/init next")) // the GM begins round 1: Lister's turn
	tb.Dice.Push(5)                  // the Bandit's save fails: still dying
	tb.OK(tb.Do("ann", "/init next"))
	gm := tb.Private(tb.Do("dm", "/history target:Bandit"))
	commandstest.WantIn(t, "the GM's /history target:Bandit", gm, "· ann · /init next", "Fort DC 10 (stabilize): 1d20 [5]", "is still dying")
	if out := tb.OK(tb.Do("ann", "/history target:Bandit")); strings.Contains(out, "/init next") || strings.Contains(out, "stabilize") {
		t.Errorf("player's /history target:Bandit lists the round end that only saved it:\n%s", out)
	}
	tb.NoDiceLeft()
}
