package commands_test

// Twins (BRIEF "Hidden information stays hidden, in every byte"; RULES.md
// §0.1 hidden=true): two tables that differ only in a hidden NPC's state,
// where the NPC reads the same word and does the same thing at the table,
// must look the same to a player, byte for byte: every content, embed
// (colour included), button (custom_id included), file and follow-up a
// player's client receives, of every command tried, and the tracker. A
// difference is something derived from the hidden state: a colour, a
// custom_id, a reason, a line that is there for one twin only.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// twinCase is a pair of states of the hidden Goblin (sheet fields, as
// stored) that players must not tell apart, at a table of system.
type twinCase struct {
	system, pc, goblin string
	name               string
	a, b               map[string]any
	// dice are the faces each twin's hidden timers roll at the probes
	// that move the clock (the rest is random, the same for both).
	dice [2][]int
	// acts says both twins take their turns (or both pass them) alike,
	// so that the turn order's probes apply.
	acts bool
}

var twinCases = []twinCase{
	{system: "hit-protection", pc: "class=fighter hit-die=d6 hp=6", goblin: "class=fighter level=3 hit-die=d8 hp=8",
		name: "down at 0, or down and bleeding out",
		a:    map[string]any{"hp": 0, "status": "down"},
		b:    map[string]any{"hp": 0, "status": "down", "bleeds": []map[string]any{{"wound": "Critical Wound", "dies_at": 500}}},
		acts: true},
	{system: "hit-protection", pc: "class=fighter hit-die=d6 hp=6", goblin: "class=fighter level=3 hit-die=d8 hp=8",
		name: "choosing at 0 HP, or staying up",
		a:    map[string]any{"hp": 0, "status": "0-HP choice pending"},
		b:    map[string]any{"hp": 0, "status": "staying up"},
		acts: true},
	{system: "hit-protection", pc: "class=fighter hit-die=d6 hp=6", goblin: "class=fighter level=3 hit-die=d8 hp=8",
		name: "stunned for a round, or for long",
		a:    map[string]any{"hp": 4, "stunned_until": 300},
		b:    map[string]any{"hp": 4, "stunned_until": 900},
		acts: true},
	{system: "hit-protection", pc: "class=fighter hit-die=d6 hp=6", goblin: "class=fighter level=3 hit-die=d8 hp=8",
		name: "wounded, or wounded with a stun that ends at the next round",
		a:    map[string]any{"hp": 4},
		b:    map[string]any{"hp": 4, "stunned_until": 1}},
	{system: "hit-protection", pc: "class=fighter hit-die=d6 hp=6", goblin: "class=fighter level=3 hit-die=d8 hp=8",
		name: "bleeding out while up, or staying up",
		a:    map[string]any{"hp": 2, "bleeds": []map[string]any{{"wound": "Critical Wound", "dies_at": 500}}},
		b:    map[string]any{"hp": 0, "status": "staying up"},
		acts: true},
	{system: "hp-mp-wp", pc: "hp-max=20 con=12", goblin: "hp-max=10 con=10",
		name: "dying, or stable",
		a:    map[string]any{"hp": 0, "wp": -2, "state": "dying"},
		b:    map[string]any{"hp": 0, "wp": -2, "state": "stable"},
		dice: [2][]int{{5}, nil}, // the dying twin's save fails: still dying
		acts: true},
	{system: "harm", pc: "endure=2 react=1 vigor=5", goblin: "endure=2 react=1 vigor=5",
		name: "Healthy, or Healthy with harm on it",
		a:    map[string]any{"condition": "Healthy", "harm": 0},
		b:    map[string]any{"condition": "Healthy", "harm": 1},
		acts: true},
	{system: "harm", pc: "endure=2 react=1 vigor=5", goblin: "endure=2 react=1 vigor=5",
		name: "Bloody, or Bloody with more harm",
		a:    map[string]any{"condition": "Bloody", "harm": 1},
		b:    map[string]any{"condition": "Bloody", "harm": 3},
		acts: true},
}

// twinProbe is one thing a player reads: a command (by user; "!gm" is the
// GM, whose channel message players read), after some setup lines.
type twinProbe struct {
	setup []string
	user  string
	line  string
	turns bool // a turn order probe (twinCase.acts)
	clock bool // moves the clock (twinCase.dice)
	// setupClock says the setup's last line may move the clock instead
	// (twinCase.dice, for it).
	setupClock bool
}

var twinProbes = []twinProbe{
	{user: "ann", line: "/char show name:Goblin"},
	{user: "ann", line: "/char list"},
	{user: "ann", line: "/table show"},
	{user: "ann", line: "/history"},
	{user: "ann", line: "/history target:Goblin"},
	{user: "!gm", line: "/char show name:Goblin"},
	{user: "!gm", line: "/char list"},
	{user: "!gm", line: "/char delete name:Goblin"},
	{user: "!gm", line: "/clock action:next-round", clock: true},
	{user: "!gm", line: `/char set name:Goblin stats:"hidden=true"`},
	{setup: []string{"/init start", "/init join target:Lister roll:10", "/init join target:Goblin roll:5"}, user: "ann", line: "/init show", turns: true},
	{setup: []string{"/init start", "/init join target:Lister roll:10", "/init join target:Goblin roll:5"}, user: "ann", line: "/init next", turns: true, clock: true},
	{setup: []string{"/init start", "/init join target:Lister roll:10", "/init join target:Goblin roll:5", "/init next"}, user: "!gm", line: "/init next", turns: true, clock: true},
	// Each round's reroll (issue 24: a hidden NPC's word printed where
	// its reroll was), and how /history tells it.
	{setup: []string{"/table option name:init-reroll value:each-round", "/init start", "/init join target:Lister roll:10", "/init join target:Goblin roll:5"},
		user: "!gm", line: "/init next", turns: true, clock: true},
	{setup: []string{"/table option name:init-reroll value:each-round", "/init start", "/init join target:Lister roll:10", "/init join target:Goblin roll:5", "/init next"},
		user: "ann", line: "/history", turns: true, setupClock: true},
}

// TestTwinsLookTheSame is the property over twinCases and twinProbes.
func TestTwinsLookTheSame(t *testing.T) {
	for _, tc := range twinCases {
		for _, p := range twinProbes {
			if p.turns && !tc.acts {
				continue
			}
			t.Run(tc.system+"/"+tc.name+"/"+p.line, func(t *testing.T) {
				var seen [2]string
				for i, state := range []map[string]any{tc.a, tc.b} {
					seen[i] = twinRun(t, tc, state, tc.dice[i], p)
				}
				if seen[0] != seen[1] {
					t.Errorf("a player tells the twins apart (%s):\n%s", tc.name, firstDiff(seen[0], seen[1]))
				}
			})
		}
	}
}

// twinRun sets a table up with the Goblin in state and returns what the
// player's client receives of the probe, and the tracker after it.
func twinRun(t *testing.T, tc twinCase, state map[string]any, faces []int, p twinProbe) string {
	t.Helper()
	tb := commandstest.New(t, allSystems...)
	tb.Dice.SetFallback(dice.NewRandom(7))
	tracker.Of(tb.Svc.Registry()).SetPoster(&fakePoster{}, "")
	tb.OK(tb.Do("!gm", "/table setup system:"+tc.system))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"`+tc.pc+`"`))
	tb.Do("!gm", `/char create name:Goblin stats:"`+tc.goblin+` hidden=true"`)
	tb.PatchSheet("Goblin", state)
	tb.Do("ann", "/table tracker")
	for i, line := range p.setup {
		if p.setupClock && i == len(p.setup)-1 {
			tb.Dice.Push(faces...)
		}
		tb.Do("!gm", line)
	}
	if p.clock {
		tb.Dice.Push(faces...)
	}
	resp := tb.Do(p.user, p.line)
	_, tr, err := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel)
	if err != nil {
		t.Fatal(err)
	}
	return playerBytes(p.user, resp) + "\ntracker " + mustJSON(t, tr)
}

// playerBytes is every byte of resp (answering user) a player's client
// receives, as JSON: the whole answer to a player; of a GM's, the message
// and follow-ups that are not ephemeral.
func playerBytes(user string, resp *commands.Response) string {
	var msgs []*commands.Response
	for i, m := range append([]*commands.Response{resp}, resp.FollowUps...) {
		if !strings.HasPrefix(user, "!") || !m.Ephemeral {
			c := *m
			c.FollowUps = nil
			msgs = append(msgs, &c)
		} else if i == 0 {
			msgs = append(msgs, nil) // the GM's own: not the players'
		}
	}
	b, _ := json.MarshalIndent(msgs, "", " ")
	return string(b)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDiff shows the first line where a and b differ, with its
// neighbours.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			from := max(0, i-3)
			return fmt.Sprintf("line %d:\n  one: %s\n  other: %s\n(one's lines %d-%d:\n%s)", i+1, x, y, from+1, i+1, strings.Join(la[from:min(i+1, len(la))], "\n"))
		}
	}
	return ""
}

// TestHiddenWordAgreesWithTurns: players never read Down, Dead or Taken
// out of a hidden character that still takes its turns, nor a word that
// says it is up of one that is out of the fight: what it does at the table
// would tell them its state (issue: "a hidden Ogre shown Down still takes
// its turns"). Passing a turn for a while (stunned, asleep) is no word's.
func TestHiddenWordAgreesWithTurns(t *testing.T) {
	out := map[string]bool{"Down": true, "Dead": true, "Taken out": true}
	for _, c := range []struct {
		system, stats string
		state         map[string]any
		acts          bool
	}{
		{"hit-protection", "hp=8", map[string]any{"hp": 0, "status": "0-HP choice pending"}, true},
		{"hit-protection", "hp=8", map[string]any{"hp": 0, "status": "staying up"}, true},
		{"hit-protection", "hp=8", map[string]any{"hp": 3, "bleeds": []map[string]any{{"wound": "Critical Wound", "dies_at": 500}}}, true},
		{"hit-protection", "hp=8", map[string]any{"hp": 0, "status": "staying up", "bleeds": []map[string]any{{"wound": "Critical Wound", "dies_at": 500}}}, true},
		{"hit-protection", "hp=8", map[string]any{"hp": 0, "status": "down"}, false},
		{"hit-protection", "hp=8", map[string]any{"hp": 0, "status": "down", "bleeds": []map[string]any{{"wound": "Critical Wound", "dies_at": 500}}}, false},
		{"hit-protection", "hp=8", map[string]any{"hp": 0, "status": "dead"}, false},
		{"hp-mp-wp", "hp-max=10", map[string]any{"hp": 0, "state": "disabled"}, true},
		{"hp-mp-wp", "hp-max=10", map[string]any{"hp": 0, "wp": -2, "state": "dying"}, false},
		{"hp-mp-wp", "hp-max=10", map[string]any{"hp": 0, "wp": -2, "state": "stable"}, false},
		{"hp-mp-wp", "hp-max=10", map[string]any{"state": "dead"}, false},
		{"hp-mp-wp", "hp-max=10", map[string]any{"hp": 0, "wp": -2, "state": "stable", "die_hard": true, "choice_seq": 3}, true}, // its Die Hard choice to make
		{"harm", "vigor=5", map[string]any{"condition": "Broken", "harm": 4}, true},
		{"harm", "vigor=5", map[string]any{"condition": "Broken", "harm": 6, "taken_out": true}, false},
	} {
		tb := commandstest.New(t, allSystems...)
		tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
		tb.Do("!gm", `/char create name:Ogre stats:"`+c.stats+` hidden=true"`)
		tb.PatchSheet("Ogre", c.state)
		tb.OK(tb.Do("!gm", "/init start"))
		tb.Do("!gm", "/init join target:Ogre roll:5")
		tb.OK(tb.Do("ann", `/char create name:Lister stats:"`+c.stats+`"`))
		tb.OK(tb.Do("ann", "/init join target:Lister roll:1"))
		tb.OK(tb.Do("!gm", "/init next")) // the GM begins round 1
		show := tb.OK(tb.Do("ann", "/init show"))
		word := show[strings.Index(show, "(")+1 : strings.Index(show, ")")]
		acts := strings.Contains(show, "It is **Ogre**'s turn.")
		if acts != c.acts || out[word] == acts {
			t.Errorf("%s %v: players read %q and the Ogre takes its turn: %v (want %v)\n%s", c.system, c.state, word, acts, c.acts, show)
		}
	}
}

// TestHiddenSkipSaysNoWhy: a hidden combatant that cannot act is seen to
// pass its turn, and nothing more: not that it is stunned (issue: "**Ogre**
// cannot act (Badly wounded): turn skipped." told players it was stunned);
// the GM reads why.
func TestHiddenSkipSaysNoWhy(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=6"`))
	tb.Do("!gm", `/char create name:Ogre stats:"class=fighter level=4 hit-die=d12 hp=12 hidden=true"`)
	tb.PatchSheet("Ogre", map[string]any{"hp": 0, "status": "staying up", "stunned_until": 50})
	tb.OK(tb.Do("!gm", "/init start"))
	tb.Do("!gm", "/init join target:Lister roll:10")
	tb.Do("!gm", "/init join target:Ogre roll:5")
	tb.OK(tb.Do("!gm", "/init next")) // the GM begins round 1: Lister's turn
	resp := tb.Do("ann", "/init next")
	out := tb.OK(resp)
	commandstest.WantIn(t, "player's /init next", out, "**Lister**'s turn ends. **Ogre** passes its turn.\n")
	for _, not := range []string{"cannot act", "stunned", "Badly wounded", "skipped"} {
		if strings.Contains(out, not) {
			t.Errorf("player's /init next = %q; shows %q of the hidden Ogre", out, not)
		}
	}
	gm := tb.Do("!gm", "/history")
	commandstest.WantIn(t, "the GM's /history", commandstest.FollowUp(gm), "Ogre cannot act (stunned for 50 more rounds): turn skipped.")
}

// TestDeleteConfirmationCarriesNoDigest: the buttons of /char delete name
// the character and the table's latest event, numbers every player reads,
// never a digest of the sheet (issue: a 48-bit SHA-256 prefix of a hidden
// sheet was brute-forced in 5.6 s); a press after the character changed,
// or long after it was asked, is still refused.
func TestDeleteConfirmationCarriesNoDigest(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=6"`))
	tb.Do("!gm", `/char create name:Goblin stats:"class=cleric level=19 hit-die=d12 hp=11 hidden=true"`)
	ask := tb.Do("!gm", "/char delete name:Goblin")
	for _, row := range ask.Components {
		for _, b := range row {
			if b.CustomID != "del:2:3:yes" && b.CustomID != "del:2:3:no" {
				t.Errorf("button %q has custom_id %q; want del:2:3:yes|no (the Goblin's id, the latest event)", b.Label, b.CustomID)
			}
		}
	}
	tb.Do("!gm", "/damage target:Goblin amount:1")
	tb.Refused(tb.Press("gm", ask, "Delete"), "Goblin has changed since deletion was asked")
	ask = tb.Do("!gm", "/char delete name:Goblin")
	for range 51 {
		tb.OK(tb.Do("!gm", `/table option name:sheet-edit value:gm`))
		tb.OK(tb.Do("!gm", `/table option name:sheet-edit value:owner`))
	}
	tb.Refused(tb.Press("gm", ask, "Delete"), "That question is 50 events old")
	ask = tb.Do("!gm", "/char delete name:Goblin")
	tb.OK(tb.Do("!gm", "/damage target:Lister amount:1"))
	commandstest.WantIn(t, "delete", tb.OK(tb.Press("gm", ask, "Delete")), "Deleted **Goblin**")
}

// TestOwnerOfAHiddenCharacterReadsItsNumbers names a reading: the brief's
// rule "the owner of a hidden character and every GM see its numbers;
// nobody else" is followed where the issue lists what such an owner learns
// (its maxima from /char set's refusals, its pools from /spend and /undo)
// as a leak: the owner reads them by right, in answers only they see, and
// every other player reads its word alone, refusals and suggestions
// included.
func TestOwnerOfAHiddenCharacterReadsItsNumbers(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.Do("!gm", `/char create name:Spy owner:bob stats:"class=thief level=3 hit-die=d6 hp=5 hidden=true"`)
	show := tb.Do("bob", "/char show name:Spy")
	commandstest.WantIn(t, "the owner's /char show", commandstest.FollowUp(show), "HP ████████░░ 5/6", "HD ██████████ 3/3")
	if out := tb.OK(show); strings.Contains(out, "5/6") {
		t.Errorf("the owner's /char show in the channel = %q; the numbers belong in the follow-up", out)
	}
	tb.Refused(tb.Do("bob", `/char set name:Spy stats:"hp=99"`), "a whole number from 0 to 6")
	other := tb.Do("ann", `/char set name:Spy stats:"hp=99"`)
	tb.Refused(other, "only its owner or a GM can do that")
	if strings.Contains(other.Content, "6") {
		t.Errorf("another player's /char set refusal = %q; shows the Spy's maximum", other.Content)
	}
	if out := commandstest.Text(tb.Do("ann", "/char show name:Spy")) + commandstest.FollowUp(tb.Do("ann", "/char show name:Spy")); strings.Contains(out, "HP") {
		t.Errorf("another player's /char show = %q; want the word alone", out)
	}
	suggest := func(user string) string {
		resp := tb.Svc.Handle(context.Background(), &commands.Request{Kind: commands.KindAutocomplete, ChannelID: tb.Channel, GuildID: "g1", UserID: user, UserName: user,
			Command: "roll", Options: map[string]string{"expr": ""}, Focused: "expr"})
		var names []string
		for _, c := range resp.Choices {
			names = append(names, c.Name)
		}
		return strings.Join(names, "\n")
	}
	commandstest.WantIn(t, "the owner's roll suggestions", suggest("bob"), "Spy's hit die")
	if s := suggest("ann"); strings.Contains(s, "Spy") {
		t.Errorf("another player's roll suggestions name the hidden Spy's dice:\n%s", s)
	}
}

// TestOthersCannotProbeAHiddenCharacter: a player who neither owns a
// hidden character nor is a GM learns nothing of its numbers by trying
// what would be refused (issue 24: the maxima from /char set's refusal
// ranges, the pools by a binary search of /spend and /undo): two tables
// whose hidden characters differ only in their numbers, one the GM's and
// one another player's, answer every try of theirs byte for byte the same,
// at every amount. Their owner reads the numbers by right
// (TestOwnerOfAHiddenCharacterReadsItsNumbers).
func TestOthersCannotProbeAHiddenCharacter(t *testing.T) {
	tries := []string{
		"/spend target:Spy resource:mp amount:1", "/spend target:Spy resource:mp amount:3", "/spend target:Spy resource:mp amount:99",
		"/spend target:Bandit resource:mp amount:1", "/spend target:Bandit resource:mp amount:99",
		`/char set name:Spy stats:"hp=3"`, `/char set name:Spy stats:"hp=99"`, `/char set name:Bandit stats:"mp=2"`, `/char set name:Bandit stats:"mp=900"`,
		"/heal target:Spy amount:1", "/damage target:Bandit amount:1", "/undo",
	}
	var seen [2][]string
	for i, stats := range []string{"hp-max=12 mp-max=4", "hp-max=30 mp-max=1"} {
		tb := commandstest.New(t, allSystems...)
		tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
		tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp-max=20"`))
		tb.Private(tb.Do("!gm", `/char create name:Bandit stats:"`+stats+` hidden=true"`))
		tb.Private(tb.Do("!gm", `/char create name:Spy owner:bob stats:"`+stats+` hidden=true"`))
		tb.OK(tb.Do("bob", "/spend target:Spy resource:mp amount:1")) // the owner's own: ann's /undo cannot reach it
		for _, line := range tries {
			seen[i] = append(seen[i], line+"\n"+playerBytes("ann", tb.Do("ann", line)))
		}
	}
	for j := range tries {
		if seen[0][j] != seen[1][j] {
			t.Errorf("another player tells the hidden characters' numbers apart by trying %s:\n%s", tries[j], firstDiff(seen[0][j], seen[1][j]))
		}
	}
}

// TestHiddenCreationIsTheGMsAlone: a GM creates a hidden NPC in one step,
// answered to that GM alone, every message of it ephemeral, with its
// numbers (issue 24: create-then-hide posted the full card first, and
// even a one-step hidden=true announced the NPC in the channel). Reading:
// hidden=true hides a character's numbers, not that it exists: players
// find it where the table's characters are listed (/char list, the
// tracker, /history), by its word alone.
func TestHiddenCreationIsTheGMsAlone(t *testing.T) {
	for _, c := range []struct{ system, stats, word string }{
		{"hit-protection", "class=fighter level=4 hit-die=d12 hp=12", "Unhurt"},
		{"hp-mp-wp", "hp-max=40 mp-max=7", "Unhurt"},
		{"harm", "endure=3 vigor=6", "Healthy"},
	} {
		tb := newTable(t)
		tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
		resp := tb.Do("!gm", `/char create name:Ogre stats:"`+c.stats+` hidden=true"`)
		commandstest.WantIn(t, c.system+": the GM's creation", tb.Private(resp), "Created **Ogre** for gm")
		for _, f := range resp.FollowUps {
			if !f.Ephemeral {
				t.Errorf("%s: the GM's creation of a hidden Ogre posts %q in the channel", c.system, commandstest.Text(f))
			}
		}
		for _, line := range []string{"/char list", "/history"} {
			out := tb.OK(tb.Do("ann", line))
			commandstest.WantIn(t, c.system+": a player's "+line, out, "Ogre")
			if strings.Contains(out, "12/12") || strings.Contains(out, "40/40") || strings.Contains(out, "Vigor 6") {
				t.Errorf("%s: a player's %s shows the hidden Ogre's numbers:\n%s", c.system, line, out)
			}
		}
		commandstest.WantIn(t, c.system+": a player's /char show", commandstest.Text(tb.Do("ann", "/char show name:Ogre")), "Ogre\n**"+c.word+"**")
	}
}
