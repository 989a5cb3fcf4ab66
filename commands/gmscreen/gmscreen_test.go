package gmscreen_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/gmscreen"
	"github.com/hpkeeper/hpkeeper/storage"
)

// posts records what the GM screen posts in GM channels; fail makes the
// next post fail.
type posts struct {
	mu   sync.Mutex
	got  []string // "channel: text"
	fail bool
}

func (p *posts) PostToGMs(ctx context.Context, channelID string, msg *commands.Response) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		p.fail = false
		return errors.New("403 Missing Access")
	}
	p.got = append(p.got, channelID+": "+commandstest.Text(msg))
	return nil
}

// banditTable is an hp-mp-wp table with Vala (ann's) and a hidden Bandit,
// dying, in a turn order where Vala acts last: ann's /init next ends the
// round, and the Bandit makes its dying save. gm set the table up; bob is
// a second GM.
func banditTable(t *testing.T) *commandstest.Table {
	tb := commandstest.New(t, commandstest.Systems()...)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("gm", "/table gm action:add user:bob"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20"`))
	tb.Private(tb.Do("gm", `/char create name:Bandit stats:"hp-max=10 fort=2 hidden=true"`))
	tb.OK(tb.Do("gm", `/char set name:Bandit stats:"wp=-2 state=dying"`))
	tb.OK(tb.Do("gm", "/init start"))
	tb.OK(tb.Do("gm", "/init join target:Bandit roll:3"))
	tb.OK(tb.Do("ann", "/init join target:Vala roll:1"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1: the Bandit passes, Vala's turn
	return tb
}

const save = "Fort DC 10 (stabilize): 1d20 [5]"

// TestPlayersRoundEndReachesEveryGM: when a player's /init next ends the
// round, the hidden Bandit's dying save reaches every GM (issue: it went to
// nobody, the follow-up going to the player who ran the command): without
// a GM channel, each GM gets it on their next interaction at the table,
// whatever it is, in a follow-up only they see, once; the player reads
// none of it.
func TestPlayersRoundEndReachesEveryGM(t *testing.T) {
	tb := banditTable(t)
	tb.Dice.Push(5) // the Bandit's save fails: still dying
	resp := tb.Do("ann", "/init next")
	if out := tb.OK(resp); strings.Contains(out, "Fort") || len(resp.FollowUps) > 0 {
		t.Errorf("the player's round end = %q, follow-ups %+v; want no save", out, resp.FollowUps)
	}
	if f := commandstest.FollowUp(tb.Do("ann", "/char list")); f != "" {
		t.Errorf("the player's next command has a follow-up %q", f)
	}
	for _, gm := range []string{"gm", "bob"} {
		got := commandstest.FollowUp(tb.Do(gm, "/clock action:show"))
		commandstest.WantIn(t, gm+"'s next command", got, gmscreen.CatchUpHeader, "From ann's /init next:", save, "is still dying")
		if again := commandstest.FollowUp(tb.Do(gm, "/char list")); strings.Contains(again, save) {
			t.Errorf("%s gets the save a second time: %q", gm, again)
		}
	}
	// Both listed GMs had it: it leaves the inbox.
	if tbl := tb.State(); strings.Contains(tbl, "GMInbox:[{") {
		t.Errorf("the inbox still holds the save every GM had:\n%s", tbl)
	}
	tb.NoDiceLeft()
}

// TestGMWhoEndsTheRoundIsNotToldTwice: a GM whose /init next ends the
// round reads the save in the reply's follow-up; the other GM gets it on
// their next command, and the first never again.
func TestGMWhoEndsTheRoundIsNotToldTwice(t *testing.T) {
	tb := banditTable(t)
	tb.Dice.Push(6)
	tb.OK(tb.Do("ann", "/init next")) // round 2: the Bandit passes, Vala's turn …
	tb.OK(tb.Do("bob", "/clock action:show"))
	tb.OK(tb.Do("gm", "/clock action:show"))
	tb.Dice.Push(5)
	resp := tb.Do("gm", "/init next") // … which the GM ends
	const save2 = "Fort DC 11 (stabilize): 1d20 [5]"
	commandstest.WantIn(t, "the GM's round end", commandstest.FollowUp(resp), save2)
	if again := commandstest.FollowUp(tb.Do("gm", "/char list")); strings.Contains(again, save2) {
		t.Errorf("the GM who read the save gets it again: %q", again)
	}
	commandstest.WantIn(t, "bob's next command", commandstest.FollowUp(tb.Do("bob", "/init show")), "From gm's /init next:", save2)
}

// TestGMChannel: a table that names a GM channel has every result only GMs
// may read posted there, whoever triggered it, and nobody is caught up
// later; a post Discord refuses waits in the inbox instead. The option
// refuses the table's own channel and works only with the bot token.
func TestGMChannel(t *testing.T) {
	tb := banditTable(t)
	tb.OK(tb.Do("bob", "/char list")) // bob is caught up with the set-up
	commandstest.WantIn(t, "/help", tb.Do("ann", "/help").Content, "reach each GM on their next command at this table")
	tb.Refused(tb.Do("gm", "/table option name:gm-channel value:<#555>"), "needs the bot token")
	p := &posts{}
	gmscreen.Of(tb.Svc.Registry()).SetPoster(p, "")
	tb.Refused(tb.Do("gm", "/table option name:gm-channel value:<#chan-1>"), "another channel than the table's")
	commandstest.WantIn(t, "gm-channel", tb.OK(tb.Do("gm", "/table option name:gm-channel value:<#555>")), "gm-channel: off → <#555>. Results only GMs may read", "are posted in <#555> for every GM")
	commandstest.WantIn(t, "/help", tb.Do("ann", "/help").Content, "are posted in <#555> for every GM")
	tb.Dice.Push(5)
	tb.OK(tb.Do("ann", "/init next"))
	if len(p.got) != 1 || !strings.HasPrefix(p.got[0], "555: From ann's /init next:") || !strings.Contains(p.got[0], save) {
		t.Errorf("GM channel posts %q; want the save in 555", p.got)
	}
	for _, gm := range []string{"gm", "bob"} {
		if f := commandstest.FollowUp(tb.Do(gm, "/char list")); strings.Contains(f, gmscreen.CatchUpHeader) {
			t.Errorf("%s is caught up with what the GM channel had: %q", gm, f)
		}
	}
	p.fail = true
	tb.Dice.Push(6)
	tb.OK(tb.Do("ann", "/init next"))
	tb.Dice.Push(4)
	tb.OK(tb.Do("ann", "/init next"))
	if len(p.got) != 2 {
		t.Errorf("GM channel posts %d; want the third round's only (the second's was refused)", len(p.got))
	}
	commandstest.WantIn(t, "caught up after a refused post", commandstest.FollowUp(tb.Do("bob", "/char list")), "1d20 [6]")
	tb.NoDiceLeft()
}

// TestBleedingOutReachesTheGM: a hidden Ogre that bleeds out at a round a
// player ends reaches the GM as what happened, with its cause (issue: the
// GM read only "**Ogre**: Dead"), and players as its word.
func TestBleedingOutReachesTheGM(t *testing.T) {
	tb := commandstest.New(t, commandstest.Systems()...)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=6"`))
	tb.Private(tb.Do("gm", `/char create name:Ogre stats:"class=fighter level=4 hit-die=d12 hp=12 hidden=true"`))
	tb.PatchSheet("Ogre", map[string]any{"hp": 0, "status": "down", "fate_revealed": true, "bleeds": []map[string]any{{"wound": "Critical Wound", "dies_at": 1}}})
	tb.OK(tb.Do("gm", "/init start"))
	tb.OK(tb.Do("ann", "/init join target:Lister roll:4"))
	tb.OK(tb.Do("gm", "/init join target:Ogre roll:2"))
	tb.OK(tb.Do("gm", "/init next")) // the GM begins round 1: Lister's turn
	out := tb.OK(tb.Do("ann", "/init next"))
	commandstest.WantIn(t, "the player's round end", out, "**Ogre**: Dead")
	if strings.Contains(out, "Critical Wound") {
		t.Errorf("the player's round end = %q; tells the hidden Ogre's wound", out)
	}
	commandstest.WantIn(t, "the GM's next command", commandstest.FollowUp(tb.Do("gm", "/char show name:Lister")), "From ann's /init next:", "**Ogre** dies of the Critical Wound")
}

// hordeTable is an hp-mp-wp table with gm, a second GM bob, and n hidden
// Bandits, all dying: each round's end makes n dying saves, which only
// GMs read (pushRound).
func hordeTable(t *testing.T, n int) *commandstest.Table {
	tb := commandstest.New(t, commandstest.Systems()...)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("gm", "/table gm action:add user:bob"))
	for i := range n {
		name := fmt.Sprintf("Bandit%02d", i+1)
		tb.Private(tb.Do("gm", `/char create name:`+name+` stats:"hp-max=10 fort=2 hidden=true"`))
		tb.OK(tb.Do("gm", `/char set name:`+name+` stats:"wp=-2 state=dying"`))
	}
	tb.OK(tb.Do("bob", "/char list")) // bob is caught up with the set-up
	return tb
}

// pushRound queues the faces of n dying Bandits' saves at the end of
// their round-th round (1, 2, …): each fails by 1 (Fort +2 against DC 9
// + round), so that they stay dying.
func pushRound(tb *commandstest.Table, n, round int) {
	for range n {
		tb.Dice.Push(6 + round)
	}
}

// wantWhole fails unless every message of msgs fits Discord's 2,000
// characters and together they hold every Bandit's save.
func wantWhole(t *testing.T, what string, msgs []string, n int) {
	t.Helper()
	for i, m := range msgs {
		if c := len([]rune(m)); c > commands.MaxContent {
			t.Errorf("%s: message %d has %d characters; Discord takes %d", what, i+1, c, commands.MaxContent)
		}
	}
	all := strings.Join(msgs, "\n")
	for i := range n {
		commandstest.WantIn(t, what, all, fmt.Sprintf("**Bandit%02d**", i+1))
	}
	if strings.Contains(all, "…") {
		t.Errorf("%s: cut (…):\n%s", what, all)
	}
}

// TestLongResultsReachEveryGMWhole: a result only GMs may read that is
// longer than a message (a round end with 30 hidden NPCs' dying saves)
// reaches every GM whole, in as many messages as it needs, in the GM
// channel and on a GM's next command alike.
func TestLongResultsReachEveryGMWhole(t *testing.T) {
	const n = 30
	tb := hordeTable(t, n)
	pushRound(tb, n, 1)
	tb.OK(tb.Do("gm", "/clock action:next-round"))
	var got []string
	for _, f := range tb.Do("bob", "/clock action:show").FollowUps {
		if f.Ephemeral {
			got = append(got, f.Content)
		}
	}
	if len(got) < 2 {
		t.Errorf("bob's catching up is %d message(s); the saves need more than one", len(got))
	}
	wantWhole(t, "bob's catching up", got, n)

	p := &posts{}
	gmscreen.Of(tb.Svc.Registry()).SetPoster(p, "")
	tb.OK(tb.Do("gm", "/table option name:gm-channel value:<#555>"))
	pushRound(tb, n, 2)
	tb.OK(tb.Do("gm", "/clock action:next-round"))
	wantWhole(t, "the GM channel", p.got, n)
	if f := commandstest.FollowUp(tb.Do("bob", "/clock action:show")); f != "" {
		t.Errorf("bob is caught up with what the GM channel had: %q", f)
	}
	tb.NoDiceLeft()
}

// TestInboxSaysWhatItNoLongerHolds: the GM inbox keeps the latest
// MaxNotes results; a GM who missed more reads those and that older ones
// are in /history, never silently fewer.
func TestInboxSaysWhatItNoLongerHolds(t *testing.T) {
	tb := hordeTable(t, 1)
	for round := range gmscreen.MaxNotes + 2 {
		pushRound(tb, 1, round+1)
		tb.OK(tb.Do("gm", "/clock action:next-round"))
	}
	got := commandstest.FollowUp(tb.Do("bob", "/char list"))
	commandstest.WantIn(t, "bob's catching up", got, gmscreen.CatchUpHeader, gmscreen.OlderInHistory)
	if c := strings.Count(got, "From gm's /clock action:next-round:"); c != gmscreen.MaxNotes {
		t.Errorf("bob reads %d results; want the latest %d", c, gmscreen.MaxNotes)
	}
	if again := commandstest.FollowUp(tb.Do("bob", "/clock action:show")); again != "" {
		t.Errorf("bob is caught up again: %q", again)
	}
	// gm read every result as it happened: no note of older ones.
	if f := commandstest.FollowUp(tb.Do("gm", "/clock action:show")); f != "" {
		t.Errorf("gm, who read each result in its reply, is caught up: %q", f)
	}
	tb.NoDiceLeft()
}

// TestInboxKeepsItsTextBounded: the GM inbox, stored with the table,
// keeps at most MaxInboxText characters of results, the newest whole, and
// a GM who missed older ones is told /history has them.
func TestInboxKeepsItsTextBounded(t *testing.T) {
	const n = 30
	tb := hordeTable(t, n)
	for round := range 6 {
		pushRound(tb, n, round+1)
		tb.OK(tb.Do("gm", "/clock action:next-round"))
	}
	err := tb.DB.View(func(tx *storage.Tx) error {
		tbl, err := tx.Table(tb.Channel)
		if err != nil {
			return err
		}
		size := 0
		for _, note := range tbl.GMInbox {
			size += len([]rune(note.Text))
		}
		if size > gmscreen.MaxInboxText || len(tbl.GMInbox) < 2 {
			t.Errorf("the GM inbox holds %d results of %d characters; want the newest whole and at most %d characters", len(tbl.GMInbox), size, gmscreen.MaxInboxText)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range tb.Do("bob", "/clock action:show").FollowUps {
		got = append(got, f.Content)
	}
	all := strings.Join(got, "\n")
	commandstest.WantIn(t, "bob's catching up", all, gmscreen.OlderInHistory, "Fort DC 15 (stabilize)")
	wantWhole(t, "bob's catching up", got, n)
	tb.NoDiceLeft()
}
