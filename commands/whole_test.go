package commands_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Issue 24, "Results are lost where replies are longest": a reply past
// Discord's limits on one message continues in follow-ups, and nothing a
// player should read is cut. These tests name each reply the issue found
// cut, then check every command at its input limits.

// sent returns every message resp sends: itself, then its follow-ups.
func sent(resp *commands.Response) []*commands.Response {
	return append([]*commands.Response{resp}, resp.FollowUps...)
}

// sentText is the text of every message resp sends, as the console shows
// it (commandstest.Text of each), one after the other.
func sentText(resp *commands.Response) string {
	var parts []string
	for _, m := range sent(resp) {
		parts = append(parts, commandstest.Text(m))
	}
	return strings.Join(parts, "\n")
}

// wholeAndWithinLimits fails when a message resp sends breaks a limit
// Discord enforces (it would refuse it), when one ends cut ("…" closing its
// text, a description or a field), or when the messages leave out one of
// wants.
func wholeAndWithinLimits(t *testing.T, what string, resp *commands.Response, wants ...string) {
	t.Helper()
	for i, m := range sent(resp) {
		for _, p := range limitProblems(m) {
			t.Errorf("%s, message %d: %s", what, i, p)
		}
		cut := strings.HasSuffix(m.Content, "…")
		for _, e := range m.Embeds {
			cut = cut || strings.HasSuffix(e.Description, "…")
			for _, f := range e.Fields {
				cut = cut || strings.HasSuffix(f.Value, "…") || strings.Contains(f.Value, "more not shown")
			}
		}
		if cut {
			t.Errorf("%s, message %d ends cut: %q", what, i, commandstest.Text(m))
		}
	}
	out := sentText(resp)
	if len(resp.FollowUps) > 0 && strings.Contains(out, "more not shown") {
		t.Errorf("%s leaves results out: %q", what, out)
	}
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s: the %d messages sent leave out %q", what, len(sent(resp)), w)
		}
	}
}

// longNames returns n distinct names of the longest length a name may have
// (32 characters), prefixed.
func longNames(prefix string, n int) []string { return namesOf(prefix, n, 32) }

// namesOf returns n distinct names of size characters, prefixed.
func namesOf(prefix string, n, size int) []string {
	var out []string
	for i := range n {
		name := fmt.Sprintf("%s-%02d-", prefix, i)
		out = append(out, name+strings.Repeat("x", size-len(name)))
	}
	return out
}

// TestAdvanceOfADayWhole: an hp-mp-wp /clock advance of a day with a party
// of 4 ended "… (exertion, hours aw…" and two characters' results were
// gone (issue 24); every character's result is in the messages sent.
func TestAdvanceOfADayWhole(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	names := longNames("Wanderer", 4)
	for _, n := range names {
		tb.OK(tb.Do("!gm", fmt.Sprintf(`/char create name:%s stats:"class=wizard level=3 hp-max=14 con=12 wis=14 mp-max=23"`, n)))
	}
	tb.Dice.SetFallback(dice.NewRandom(1))
	before := latestEvent(t, tb).Seq
	resp := tb.Do("!gm", "/clock action:advance amount:1 unit:days")
	tb.OK(resp)
	var wants []string
	for _, n := range names {
		wants = append(wants, "**"+n+"**: ")
	}
	wholeAndWithinLimits(t, "a day's advance", resp, wants...)
	everyDieShown(t, "a day's advance", tb, before, resp)
}

// TestMultiTargetDamageWhole: a multi-target /damage was cut inside the
// 6th target at hp-mp-wp and the 9th at harm (issue 24); every target's
// result is in the messages sent.
func TestMultiTargetDamageWhole(t *testing.T) {
	// The most targets of the longest names the target option takes (200
	// characters): 6 of 32 characters, 9 of 21.
	for _, c := range []struct {
		system, stats, damage string
		targets, size         int
	}{
		{"hp-mp-wp", `"hp-max=14 con=12"`, "amount:30 crit:4", 6, 32},
		{"harm", `"endure=2"`, "amount:3 kind:physical pool:vigor", 9, 21},
	} {
		t.Run(c.system, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("!gm", "/table setup system:"+c.system))
			names := namesOf("Target", c.targets, c.size)
			for _, n := range names {
				tb.OK(tb.Do("!gm", fmt.Sprintf("/char create name:%s stats:%s", n, c.stats)))
			}
			tb.Dice.SetFallback(dice.NewRandom(2))
			before := latestEvent(t, tb).Seq
			resp := tb.Do("!gm", fmt.Sprintf("/damage target:%s %s", strings.Join(names, ","), c.damage))
			tb.OK(resp)
			var wants []string
			for _, n := range names {
				wants = append(wants, "**"+n+"**")
			}
			wholeAndWithinLimits(t, "/damage", resp, wants...)
			everyDieShown(t, "/damage", tb, before, resp)
		})
	}
}

// TestNightForTheTableWhole: a hit-protection /rest kind:night was cut
// from about the 11th character (issue 24); every sleeper's line is in
// the messages sent.
func TestNightForTheTableWhole(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	names := longNames("Sleeper", commands.MaxCharacters)
	for _, n := range names {
		tb.OK(tb.Do("!gm", fmt.Sprintf(`/char create name:%s stats:"class=fighter hp=1 level=3 hd=0"`, n)))
	}
	tb.Dice.SetFallback(dice.NewRandom(3))
	before := latestEvent(t, tb).Seq
	resp := tb.Do("!gm", "/rest kind:night")
	tb.OK(resp)
	var wants []string
	for _, n := range names {
		wants = append(wants, "**"+n+"** sleeps the night")
	}
	wholeAndWithinLimits(t, "/rest kind:night", resp, wants...)
	everyDieShown(t, "/rest kind:night", tb, before, resp)
}

// TestLongHistoryEventWhole: /history of a long event, and the GM's
// private copy of hidden characters' events, which shrank to "… and 5
// more" (issue 24), hold every character's result.
func TestLongHistoryEventWhole(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	names := longNames("Hidden", 6)
	for _, n := range names {
		tb.Do("!gm", fmt.Sprintf(`/char create name:%s stats:"hp-max=900 con=12 hidden=true"`, n))
	}
	tb.Dice.SetFallback(dice.NewRandom(4))
	for range 4 {
		tb.Do("!gm", fmt.Sprintf("/damage target:%s amount:9", strings.Join(names, ",")))
	}
	resp := tb.Do("!gm", "/history")
	tb.OK(resp)
	var wants []string
	for _, n := range names {
		wants = append(wants, n+":")
	}
	wholeAndWithinLimits(t, "the GM's /history", resp, wants...)
	if got := strings.Count(commandstest.FollowUp(resp), names[0]+":"); got < 4 {
		t.Errorf("the GM's private copy names %s %d times; want once in each of the 4 damage events", names[0], got)
	}
}

// TestEveryResultWholeAtTheLimits is the property of issue 24's first
// deliverable, over every command at its input limits, in every system:
// at a table of 50 characters with the longest names, /table show, /char
// list, the turn order with all 50 (/init join, /init show, a round's
// end), a multi-target /damage of the longest target option (6 of those
// names) and of the most targets it holds (50 short names), a 90-day
// /clock advance, the GM's rest for the whole table, and /history after
// them: no message breaks a limit Discord enforces, none ends cut, every
// character a command is about is named in its messages, and every die
// its event records is in them (the dice past an event's 500 counted).
func TestEveryResultWholeAtTheLimits(t *testing.T) {
	rests := map[string]string{"hit-protection": "/rest kind:night", "hp-mp-wp": "/rest kind:night", "harm": "/rest kind:day"}
	stats := map[string]string{"hit-protection": `"class=fighter hp=8"`, "hp-mp-wp": `"class=wizard level=5 hp-max=40 con=14 wis=14 mp-max=20"`, "harm": `"endure=2 react=1"`}
	damage := map[string]string{"hit-protection": "amount:1", "hp-mp-wp": "amount:5", "harm": "amount:1 kind:physical"}
	for _, sys := range []string{"hit-protection", "hp-mp-wp", "harm"} {
		t.Run(sys, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("!gm", "/table setup system:"+sys))
			long := longNames("Character-with-a-name", 44)
			var short []string
			for i := range commands.MaxCharacters - len(long) {
				short = append(short, fmt.Sprintf("S%d", i))
			}
			all := append(append([]string{}, long...), short...)
			for _, n := range all {
				tb.OK(tb.Do("!gm", fmt.Sprintf("/char create name:%s stats:%s", n, stats[sys])))
			}
			tb.Dice.SetFallback(dice.NewRandom(24))
			check := func(line string, names []string) {
				t.Helper()
				before := latestEvent(t, tb).Seq
				resp := tb.Do("!gm", line)
				tb.OK(resp)
				var wants []string
				for _, n := range names {
					wants = append(wants, "**"+n+"**")
				}
				wholeAndWithinLimits(t, line, resp, wants...)
				everyDieShown(t, line, tb, before, resp)
			}
			check("/table show", all)
			check("/char list", all)
			tb.OK(tb.Do("!gm", "/init start"))
			for i := 0; i < len(long); i += 6 {
				check("/init join target:"+strings.Join(long[i:min(i+6, len(long))], ","), long[i:min(i+6, len(long))])
			}
			check("/init join target:"+strings.Join(short, ","), short)
			check("/init show", all)
			check("/damage target:"+strings.Join(long[:6], ",")+" "+damage[sys], long[:6])
			check("/damage target:"+strings.Join(all[len(all)-50+len(long):], ",")+" "+damage[sys], short)
			for range len(all) - 1 {
				tb.OK(tb.Do("!gm", "/init next"))
			}
			check("/init next", nil) // the round's end
			check("/clock action:advance amount:90 unit:days", nil)
			check(rests[sys], nil)
			check("/history", nil)
			check("/history page:2", nil)
		})
	}
}

// latestEvent returns the table's latest event (nil for none).
func latestEvent(t *testing.T, tb *table) *storage.Event {
	t.Helper()
	var latest *storage.Event
	err := tb.DB.View(func(tx *storage.Tx) error {
		return tx.EachEventBefore(tb.Channel, 0, func(e *storage.Event) (bool, error) {
			latest = e
			return false, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return latest
}

// everyDieShown fails unless the messages resp sends show every die the
// event it wrote records (the table's latest, when it is newer than
// before): each roll as the event writes it, or in a run of one die ("6 ×
// 1d20: 19, 11, …"), and the count of those past what an event lists.
func everyDieShown(t *testing.T, what string, tb *table, before uint64, resp *commands.Response) {
	t.Helper()
	e := latestEvent(t, tb)
	if e == nil || e.Seq <= before {
		return
	}
	dice := e.Dice
	out := sentText(resp)
	shown := map[string]int{}
	for _, m := range diceRun.FindAllStringSubmatch(out, -1) {
		for f := range strings.SplitSeq(m[2], ", ") {
			shown[fmt.Sprintf("%s [%s] = %s", m[1], f, f)]++
		}
	}
	counted := map[string]bool{}
	for _, d := range dice {
		if strings.HasPrefix(d, "… and ") {
			if n := strings.TrimSuffix(strings.TrimPrefix(d, "… and "), "s"); !strings.Contains(out, "… and "+n) {
				t.Errorf("%s: the messages do not count the dice the event does not list (%q)", what, d)
			}
			continue
		}
		if !counted[d] {
			counted[d] = true
			shown[d] += strings.Count(out, d)
		}
		if shown[d] == 0 {
			t.Errorf("%s: the messages do not show the die %q", what, d)
			continue
		}
		shown[d]--
	}
}

// diceRun matches a run of rolls of one die: "6 × 1d20: 19, 11, 4".
var diceRun = regexp.MustCompile(`\d+ × (1d\d+): (\d+(?:, \d+)*)`)
