package commands_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// Issue 24, "Simple actions are walls of text": one line per character
// changed, with its dice, in the system's words; nothing unchanged printed
// as a change, nothing said twice, no noise. Each test names the defect it
// pins; the budgets are tests too.

// shownLines counts the lines a reply shows in the channel: its text's,
// and each embed's title, description, fields and footer, as the console
// prints them.
func shownLines(resp *commands.Response) int {
	n := 0
	for _, m := range sent(resp) {
		if m.Ephemeral {
			continue
		}
		if m.Content != "" {
			n += strings.Count(m.Content, "\n") + 1
		}
		for _, e := range m.Embeds {
			for _, s := range []string{e.Title, e.Description, e.Footer} {
				if s != "" {
					n += strings.Count(s, "\n") + 1
				}
			}
			for _, f := range e.Fields {
				n += strings.Count(f.Value, "\n") + 1
			}
		}
	}
	return n
}

// TestDamageBudget: a plain /damage (one target, no choice to make) is at
// most 3 lines at every system (issue 24: a harm /damage was 7 lines and
// 284 characters), one line of its character with every die, and shows no
// card. Avrae answers in one line, `Name: <12/20 HP> (-5)`.
func TestDamageBudget(t *testing.T) {
	for _, c := range []struct {
		system, stats, damage string
		dice                  []int
		want                  string
	}{
		{"hit-protection", `"class=fighter hp=8"`, "amount:1d6", []int{5}, "**Rook** takes 1d6 [5] = 5 damage: HP 8 → 3/8."},
		{"hp-mp-wp", `"hp-max=20 con=12"`, "amount:8 crit:3", []int{12}, "**Rook** takes 8 damage, critical ×3: HP 20 → 12/20 · MP 4 → 3/4 (capped by fatigue) · WP 12 → -4/12; " +
			"Fort DC 10 (reaching negative WP): 1d20 [12] = 12, Fort +0 −1 fatigue = 11, succeeded; becomes disabled"},
		{"harm", `"endure=1"`, "amount:3 kind:physical", []int{0, 0, -1}, "**Rook** takes 3 physical harm, harm counter 0 → 3: Endure 1 (Apprentice): 3dF+1 [0, 0, −] + 1 = 0 → **SL 0** < 3: **Healthy → Bloody**, harm counter back to 0."},
	} {
		t.Run(c.system, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
			tb.OK(tb.Do("ann", "/char create name:Rook stats:"+c.stats))
			tb.Dice.Push(c.dice...)
			resp := tb.Do("!gm", "/damage target:Rook "+c.damage)
			out := tb.OK(resp)
			if n := shownLines(resp); n > 3 || len(resp.Embeds) > 0 {
				t.Errorf("/damage shows %d lines and %d embeds: %q; want at most 3 lines, no card", n, len(resp.Embeds), out)
			}
			if !strings.HasPrefix(out, c.want) {
				t.Errorf("/damage = %q; want it to read %q", out, c.want)
			}
			tb.NoDiceLeft()
		})
	}
}

// TestInitNextBudget: /init next is at most 2 lines mid-round and 3 at a
// quiet round end, at every system (issue 24: a round end where nothing
// fires was 5 lines ending "Nothing ended or fired."; with three dead
// combatants every /init next was 9 lines, "cannot act (Dead): turn
// skipped" each round): the dead and the taken out, after the round they
// fell, are passed over without a word.
func TestInitNextBudget(t *testing.T) {
	for _, c := range []struct {
		system, pc, npc string
		// fall makes the NPC name unable to act.
		fall func(tb *table, name string)
		word string
	}{
		{"hit-protection", "class=fighter hp=6", "class=fighter hp=1", func(tb *table, n string) {
			tb.Submit("gm", tb.Press("gm", tb.Do("!gm", "/damage target:"+n+" amount:1"), "Heroic Death"), "charges")
		}, "dead"},
		{"hp-mp-wp", "hp-max=20 con=12", "hp-max=1 con=1", func(tb *table, n string) {
			tb.OK(tb.Do("!gm", fmt.Sprintf(`/char set name:%s stats:"hp=0 wp=-1 state=dead"`, n)))
		}, "dead"},
		{"harm", "endure=1", "endure=0", func(tb *table, n string) {
			for range 2 { // Healthy → Bloody → Broken, then harm takes it out
				tb.Dice.Push(-1, -1, -1)
				tb.OK(tb.Do("!gm", "/damage target:"+n+" amount:3 kind:physical"))
			}
			tb.OK(tb.Do("!gm", "/damage target:"+n+" amount:1 kind:physical"))
		}, "taken out"},
	} {
		t.Run(c.system, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
			for _, n := range []string{"Lister", "Meghan", "Rimmer"} {
				tb.OK(tb.Do("ann", fmt.Sprintf(`/char create name:%s stats:"%s"`, n, c.pc)))
			}
			for _, n := range []string{"Orc-1", "Orc-2", "Orc-3"} {
				tb.OK(tb.Do("!gm", fmt.Sprintf(`/char create name:%s stats:"%s"`, n, c.npc)))
			}
			tb.OK(tb.Do("!gm", "/init start"))
			for i, n := range []string{"Lister", "Orc-1", "Meghan", "Orc-2", "Rimmer", "Orc-3"} {
				tb.OK(tb.Do("!gm", fmt.Sprintf("/init join target:%s roll:%d", n, 10-i)))
			}
			tb.OK(tb.Do("!gm", "/init next")) // the GM begins round 1
			// The orcs fall in round 1, before their turns.
			for _, n := range []string{"Orc-1", "Orc-2", "Orc-3"} {
				c.fall(tb, n)
			}
			budget := func(what, line string, most int) string {
				t.Helper()
				resp := tb.Do("ann", line)
				out := tb.OK(resp)
				if n := shownLines(resp); n > most {
					t.Errorf("%s: %d lines %q; want at most %d", what, n, out, most)
				}
				return out
			}
			// Round 1: the skips are said, in the round they fell.
			commandstest.WantIn(t, "round 1", budget("round 1, mid-round", "/init next", 2), "**Orc-1** cannot act ("+c.word)
			budget("round 1, mid-round", "/init next", 2)
			out := budget("a quiet round end", "/init next", 3)
			commandstest.WantIn(t, "quiet round end", out, "The clock moves 1 round: day 1, 00:00 → 00:01. Nothing ended or fired.",
				"Round 2 of the turn order begins. It is **Lister**'s turn.")
			// Rounds 2 and 3: the fallen are passed over without a word.
			for round := 2; round <= 3; round++ {
				for _, want := range []string{"It is **Meghan**'s turn", "It is **Rimmer**'s turn"} {
					out := budget(fmt.Sprintf("round %d, mid-round", round), "/init next", 2)
					if strings.Contains(out, "cannot act") || !strings.Contains(out, want) {
						t.Errorf("round %d: %q; want %q, the fallen passed over without a word", round, out, want)
					}
				}
				budget(fmt.Sprintf("round %d's quiet end", round), "/init next", 3)
			}
			commandstest.WantIn(t, "/init show", tb.OK(tb.Do("ann", "/init show")), "**Orc-1** 9 · cannot act: "+c.word)
		})
	}
}

// TestQuietClockIsOneLine: /clock action:next-round when nothing fires is
// one line (issue 24: two, "Nothing ended or fired." on its own).
func TestQuietClockIsOneLine(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	tb.OK(tb.Do("ann", "/char create name:Garrett"))
	resp := tb.Do("!gm", "/clock action:next-round")
	if out := tb.OK(resp); out != "The clock moves 1 round: day 1, 00:00 → 00:01. Nothing ended or fired." {
		t.Errorf("a quiet round = %q; want one line", out)
	}
}

// TestStayUpIsOneLine: a Stay Up press is one line of the injury with
// every die, and its disabled buttons (issue 24: 18 lines, with a card
// and the conditions said again).
func TestStayUpIsOneLine(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`))
	resp := tb.Do("!gm", "/damage target:Lister amount:4")
	tb.Dice.Push(4, 4, 3, 1, 1, 2) // Critical Wound, death save failed, left arm, 3 rounds
	up := tb.Press("ann", resp, "Stay Up")
	out := tb.OK(up)
	want := "**Lister** chooses **Stay Up**: injury 2d6 [4, 4] = 8 → **Critical Wound**: untreated wound (no HP restoring until treated); " +
		"save vs death 1d20 [3] = 3 vs 12: failed → loses the left arm (1d4 [1] = 1); dies in 3 rounds (2d4 [1, 2] = 3) unless attended; " +
		"once attended, no HP restoring for 2d6 weeks; `/attend target:Lister` stops it; each later hit is damage + 1d6 on the injury table."
	if out != want || shownLines(up) != 1 || len(up.Components) != 1 {
		t.Errorf("Stay Up = %q (%d lines, %d rows); want one line and its row of buttons:\n%q", out, shownLines(up), len(up.Components), want)
	}
	tb.NoDiceLeft()
}

// unchangedChanges returns each "X → X" of s where what follows the arrow
// repeats, word for word, what precedes it: "HP 0 → 0", "HP 12/12 · HD
// 4/4 → HP 12/12 · HD 4/4" (any run of words holding a number).
func unchangedChanges(s string) []string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		parts := strings.Split(line, " → ")
		for i := 1; i < len(parts); i++ {
			left, right := strings.Fields(parts[i-1]), strings.Fields(parts[i])
			for k := 1; k <= min(len(left), len(right)); k++ {
				before := strings.TrimRight(strings.Join(left[len(left)-k:], " "), ".,;:)")
				after := strings.TrimRight(strings.Join(right[:k], " "), ".,;:)")
				if before == after && strings.ContainsAny(before, "0123456789") {
					out = append(out, before+" → "+after)
					break
				}
			}
		}
	}
	return out
}

// TestNothingUnchangedIsAChange: no reply or /history line prints a value
// that did not change as a change (issue 24: `HP 0 → 0 · HD 1 → 1` on a
// Stay Up, a damage at 0 and an attend, `Set hidden=true on Ogre: HP 12/12
// · HD 4/4 → HP 12/12 · HD 4/4`).
func TestNothingUnchangedIsAChange(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`))
	tb.OK(tb.Do("!gm", `/char create name:Ogre stats:"class=fighter level=4 hit-die=d12 hp=12"`))
	check := func(what string, resp *commands.Response) {
		t.Helper()
		if got := unchangedChanges(sentText(resp)); len(got) > 0 {
			t.Errorf("%s prints unchanged values as changes: %q", what, got)
		}
	}
	resp := tb.Do("!gm", "/damage target:Lister amount:4")
	check("/damage to 0", resp)
	tb.Dice.Push(1, 2)
	check("Stay Up", tb.Press("ann", resp, "Stay Up"))
	tb.Dice.Push(3, 15, 2, 4, 1, 1)
	check("/damage at 0", tb.Do("!gm", "/damage target:Lister amount:5"))
	check("/char set", tb.Do("!gm", `/char set name:Ogre stats:"hp=12"`))
	resp = tb.Do("!gm", "/damage target:Ogre amount:12")
	tb.Press("gm", resp, "Go Down")
	tb.Dice.Push(6, 6, 6)
	check("/attend", tb.Do("ann", "/attend target:Ogre"))
	check("/char set hidden=true", tb.Do("!gm", `/char set name:Ogre stats:"hidden=true"`))
	check("/history", tb.Do("!gm", "/history"))
	check("/history page:2", tb.Do("!gm", "/history page:2"))
	tb.NoDiceLeft()
	// The quoted case: an NPC at full HP hidden, in the GM's /history.
	tb.OK(tb.Do("!gm", `/char create name:Troll stats:"class=fighter level=4 hit-die=d12 hp=12"`))
	check("/char set hidden=true at full HP", tb.Do("!gm", `/char set name:Troll stats:"hidden=true"`))
	check("/history target:Troll", tb.Do("!gm", "/history target:Troll"))
}

// TestCreationSaysEachNumberOnce: a new character's reply names it and
// shows its card, each number once (issue 24: "HP 5/8 · HD 1/1" three
// times: the line, the card's status, its bars), and a harm card says the
// harm counter once (it said "harm counter 0" three times).
func TestCreationSaysEachNumberOnce(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	out := tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hp=5"`))
	if n := strings.Count(out, "5/8"); n != 1 || !strings.HasPrefix(out, "Created **Lister** for ann.\n") {
		t.Errorf("create = %q: HP 5/8 %d times; want the line and the card, the HP once", out, n)
	}
	harm := newTable(t)
	harm.OK(harm.Do("!gm", "/table setup system:harm"))
	for _, line := range []string{`/char create name:Garrett stats:"endure=2"`, "/char show name:Garrett"} {
		if out := harm.OK(harm.Do("ann", line)); strings.Count(out, "harm counter") != 1 {
			t.Errorf("%s = %q; want the harm counter once", line, out)
		}
	}
}

// TestEveryDieOnce: an hp-mp-wp round end shows each die of its dying
// save once, in the save (issue 24: again in a closing "Rolled …" line),
// and /history lists the dice its summary does not show.
func TestEveryDieOnce(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 con=15 fort=2"`))
	tb.OK(tb.Do("!gm", `/char set name:Vala stats:"wp=-2 state=dying"`))
	tb.Dice.Push(5)
	out := tb.OK(tb.Do("!gm", "/clock action:next-round"))
	if strings.Count(out, "1d20 [5] = 5") != 1 || strings.Contains(out, "Rolled") {
		t.Errorf("round end = %q; want the d20 once, in the save", out)
	}
	if h := tb.OK(tb.Do("!gm", "/history")); strings.Count(h, "1d20 [5] = 5") != 1 {
		t.Errorf("/history = %q; want the d20 once", h)
	}
	tb.NoDiceLeft()
}

// TestNoDiceNoise: a save with no bonus shows its d20 and total once
// (issue 24: `1d20 [7] = 7 +0 = 7`), and an initiative shows its roll with
// no nested parentheses (issue 24: `(1d6+1 [1] + 1 = 2 (init +1))`).
func TestNoDiceNoise(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ann stats:"hp-max=10"`))
	tb.Dice.Push(7)
	out := tb.OK(tb.Do("ann", "/save target:Ann type:will"))
	tb.OK(tb.Do("ann", "/activity target:Ann kind:work"))
	tb.Dice.Push(7)
	out += "\n" + tb.OK(tb.Do("!gm", "/clock action:advance amount:9 unit:hours"))
	if strings.Contains(out, "+0 =") || !strings.Contains(out, "1d20 [7] = 7") {
		t.Errorf("saves at +0 = %q; want 1d20 [7] = 7 and no +0", out)
	}
	hp := newTable(t)
	hp.OK(hp.Do("!gm", "/table setup system:hit-protection"))
	hp.OK(hp.Do("ann", `/char create name:Lister stats:"class=fighter hp=4 init=1"`))
	hp.OK(hp.Do("!gm", "/init start"))
	hp.Dice.Push(1)
	resp := hp.Do("!gm", "/init join target:Lister")
	join := hp.OK(resp)
	show := hp.OK(hp.Do("!gm", "/init show"))
	for _, s := range []string{join, show} {
		if nested.MatchString(s) {
			t.Errorf("%q has nested parentheses", s)
		}
	}
	commandstest.WantIn(t, "join", join, "**Lister** joins the turn order: initiative 1d6+1 [1] + 1 = 2 (init +1).")
}

// nested matches parentheses inside parentheses.
var nested = regexp.MustCompile(`\([^()]*\(`)

// TestShortRepliesEveryCommand: the change lines of the other common
// actions are one line a character, with no card: healing, spending,
// rests and checks.
func TestShortRepliesEveryCommand(t *testing.T) {
	for _, c := range []struct{ system, create, line string }{
		{"hp-mp-wp", `/char create name:Rook stats:"hp-max=20 hp=10"`, "/heal target:Rook amount:3"},
		{"hp-mp-wp", `/char create name:Rook stats:"class=wizard hp-max=20 mp-max=12"`, "/spend target:Rook resource:mp amount:3"},
		{"hit-protection", `/char create name:Rook stats:"class=fighter level=2 hp=4"`, "/spend target:Rook resource:hd amount:1"},
		{"harm", `/char create name:Rook stats:"endure=1 vigor=3"`, "/spend target:Rook resource:vigor amount:1"},
	} {
		t.Run(c.system+" "+c.line, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
			tb.OK(tb.Do("ann", c.create))
			resp := tb.Do("ann", c.line)
			if out := tb.OK(resp); shownLines(resp) != 1 || len(resp.Embeds) != 0 || !strings.HasPrefix(out, "**Rook**") {
				t.Errorf("%s = %q (%d lines); want one line about Rook, no card", c.line, out, shownLines(resp))
			}
		})
	}
}
