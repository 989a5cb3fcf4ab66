package commands_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
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

// wholeAt plays line as the GM, with random dice from seed, at a new
// table of system with a character of stats for each of names, and checks
// that its messages fit Discord, none ends cut, each name's want is in
// them and every die its event records is shown.
func wholeAt(t *testing.T, system, stats string, names []string, seed uint64, line string, want func(name string) string) {
	t.Helper()
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:"+system))
	for _, n := range names {
		tb.OK(tb.Do("!gm", fmt.Sprintf("/char create name:%s stats:%s", n, stats)))
	}
	tb.Dice.SetFallback(dice.NewRandom(seed))
	before := latestEvent(t, tb).Seq
	resp := tb.Do("!gm", line)
	tb.OK(resp)
	var wants []string
	for _, n := range names {
		wants = append(wants, want(n))
	}
	wholeAndWithinLimits(t, line, resp, wants...)
	everyDieShown(t, line, tb, before, resp)
}

// TestAdvanceOfADayWhole: an hp-mp-wp /clock advance of a day with a party
// of 4 ended "… (exertion, hours aw…" and two characters' results were
// gone (issue 24); every character's result is in the messages sent. The
// party stays awake (awake:true), as the did: otherwise the
// advance asks first.
func TestAdvanceOfADayWhole(t *testing.T) {
	wholeAt(t, "hp-mp-wp", `"class=wizard level=3 hp-max=14 con=12 wis=14 mp-max=23"`, longNames("Wanderer", 4), 1,
		"/clock action:advance amount:1 unit:days awake:true", func(n string) string { return "**" + n + "**: " })
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
			names := namesOf("Target", c.targets, c.size)
			wholeAt(t, c.system, c.stats, names, 2, fmt.Sprintf("/damage target:%s %s", strings.Join(names, ","), c.damage),
				func(n string) string { return "**" + n + "**" })
		})
	}
}

// TestNightForTheTableWhole: a hit-protection /rest kind:night was cut
// from about the 11th character (issue 24); every sleeper's line is in
// the messages sent.
func TestNightForTheTableWhole(t *testing.T) {
	wholeAt(t, "hit-protection", `"class=fighter hp=1 level=3 hd=0"`, longNames("Sleeper", commands.MaxCharacters), 3,
		"/rest kind:night", func(n string) string { return "**" + n + "** sleeps the night" })
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

// limitScenarios are the lines each command path of the registry runs in
// TestEveryCommandWholeAtItsLimits, at its input limits, in this order; a
// line "[system] …" runs at that system's table only. {targets} is the
// most characters the target option (200 characters) holds, {one} the
// first character, {stats} the system's longest sheet, {system} the
// table's system, {five} the first 5 characters (a hit-protection /damage
// offers at most 5 0-HP choices at once, the rows of buttons one message
// holds, and refuses more). Special lines: {party} creates the table's 50
// characters; "{each} …" runs once for each of {targets}, named {each};
// "{press X}" presses every button X of the last reply; "dice:F*K …"
// queues the face F K times for each target of the line first; "refused:
// …" is refused, saying what to do instead; {import} imports the table's
// export into a new channel. The test fails when a path of the
// registry has no scenario, so a new command must say how it is tried at
// its limits.
var limitScenarios = []struct {
	path  string
	lines []string
}{
	{"table setup", []string{"/table setup system:{system}"}},
	{"char create", []string{"{party}"}},
	{"table show", []string{"/table show"}},
	{"table tracker", []string{"/table tracker"}},
	{"table gm", []string{"/table gm action:add user:bob", "/table gm action:remove user:bob"}},
	{"table option", []string{"/table option name:init-ping value:on", "[hit-protection] /table option name:catch-breath value:on"}},
	{"char list", []string{"/char list"}},
	{"char show", []string{"/char show name:{one}"}},
	{"char set", []string{"/char set name:{one} stats:{stats}"}},
	{"char delete", []string{"/char delete name:{one}", "{press Delete}", "/char create name:{one} stats:{stats}"}},
	{"init start", []string{"/init start"}},
	{"init join", []string{"/init join target:{batches}"}},
	{"init show", []string{"/init show"}},
	{"init next", []string{"/init next {round}"}},
	{"init remove", []string{"/init remove target:{targets}"}},
	{"init end", []string{"/init end"}},
	{"roll", []string{"/roll expr:100d1000", "/roll expr:25d1000+25d999+25d998+25d997+1000000",
		"[hit-protection] /roll as:{one} expr:1d20 hd:18 purpose:spell", "[harm] /roll as:{one} ability:{ability} pool:vigor"}},
	{"save", []string{"[hit-protection] /save target:{targets} type:death", "[hp-mp-wp] /save target:{targets} type:fort bonus:100"}},
	{"spend", []string{"[hit-protection] /spend target:{targets} resource:hd amount:1", "[hp-mp-wp] /spend target:{targets} resource:mp amount:1",
		"[harm] /spend target:{targets} resource:vigor amount:1"}},
	{"activity", []string{"[hp-mp-wp] /activity target:{targets} kind:work"}},
	{"wake", []string{"[hp-mp-wp] /activity target:{targets} kind:sleep", "[hp-mp-wp] /wake target:{targets} listen-dc:100"}},
	{"rest", []string{"[hit-protection] /rest kind:turn target:{targets}", "[hit-protection] /rest kind:night", "[hp-mp-wp] /rest kind:night", "[harm] /rest kind:day"}},
	{"heal", []string{"[hp-mp-wp] /heal target:{targets} amount:100d10", "[harm] /damage target:{targets} amount:1 kind:mental", "[harm] /heal target:{one} trigger:pools"}},
	{"damage", []string{"[hit-protection] /damage target:{targets} amount:1", "[hit-protection] refused: /damage target:{targets} amount:100d10",
		"[hit-protection] /damage target:{five} amount:100d10", "[hit-protection] {press Go Down}",
		"[hp-mp-wp] dice:5*1 /damage target:{targets} amount:251", "[hp-mp-wp] {press Act Disabled}",
		"[harm] /damage target:{targets} amount:1000 kind:physical pool:vigor"}},
	{"strain", []string{"[hp-mp-wp] /strain target:{targets}"}},
	{"attend", []string{"[hit-protection] dice:2*3 /attend target:{five}",
		`[hp-mp-wp] {each} /char set name:{each} stats:"wp=-2 state=dying"`, "[hp-mp-wp] /attend target:{targets} bonus:100"}},
	{"treat", []string{"[hit-protection] /treat target:{five}"}},
	{"damage", []string{"[hp-mp-wp] /damage target:{targets} amount:100d10 crit:4"}},
	{"clock", []string{"/clock action:next-round", "[hit-protection] /clock action:advance amount:10000 unit:rounds", "[hit-protection] /clock action:advance amount:90 unit:days",
		"[harm] /clock action:advance amount:10000 unit:rounds", "[harm] /clock action:advance amount:90 unit:days",
		// Kept awake, as a long advance asks at hp-mp-wp (awake:true).
		"[hp-mp-wp] /clock action:advance amount:10000 unit:rounds awake:true", "[hp-mp-wp] /clock action:advance amount:90 unit:days awake:true"}},
	{"history", []string{"/history", "/history page:2", "/history target:{one}"}},
	{"undo", []string{"/undo"}},
	{"odds", []string{"[hit-protection] /odds", "[harm] /odds", "/odds expr:59d2"}},
	{"help", []string{"/help", "/help topic:{system}", "/help topic:damage"}},
	{"table export", []string{"/table export"}},
	{"table import", []string{"{import}"}},
}

// limitStats are each system's longest sheet (the stats option takes 500
// characters): every key, the largest values, and at harm the most
// abilities of the longest names.
var limitStats = map[string]string{
	"hit-protection": `"class=magic-user level=20 hit-die=d12 hp=12 hd=20 init=20 save-death=20 save-wands=20 save-paralysis=20 save-breath=20 save-spells=20"`,
	"hp-mp-wp":       `"class=wizard level=20 hp-max=200 mp-max=1000 con=50 str=50 dex=50 int=50 wis=50 cha=50 fort=0 will=30 init=20 feats=die-hard"`,
	"harm":           `"endure=6 react=6 willpower=6 vigor=20 instinct=20 reason=20 ` + harmAbilities(12) + `"`,
}

// harmAbilities returns n abilities of the longest name a harm ability may
// have, at the highest rank: "aaaaaaaaaaaaaaaaaaaaaa00=6:vigor …".
func harmAbilities(n int) string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s%02d=6:vigor", strings.Repeat("a", 22), i))
	}
	return strings.Join(out, " ")
}

// TestEveryCommandWholeAtItsLimits is the property of issue 24's first
// deliverable, over every command path of the registry at its input
// limits, in every system, at two tables of the most characters a table
// holds: one of the longest names (32 characters; 6 fill the target
// option) and one of names short enough that all 50 fill it. Every reply
// and its follow-ups, and the tracker: no message breaks a limit Discord
// enforces (it would refuse it), none ends cut, every character the
// command is about is named, every die its event records is shown (past
// an event's 500, their count), and, as deliverable 2 asks, no unchanged
// value reads as a change and no parentheses nest.
func TestEveryCommandWholeAtItsLimits(t *testing.T) {
	covered := map[string]bool{}
	for _, s := range limitScenarios {
		covered[s.path] = true
	}
	for _, p := range registryPaths(newTable(t).Svc.Registry()) {
		if !covered[p] {
			t.Fatalf("no scenario at the input limits for /%s: add one to limitScenarios", p)
		}
	}
	tables := []struct {
		name  string
		names []string
	}{
		{"longest names", longNames("Character-with-a-name", commands.MaxCharacters)},
		{"most targets", shortNames(commands.MaxCharacters)},
	}
	for _, sys := range []string{"hit-protection", "hp-mp-wp", "harm"} {
		for _, tab := range tables {
			t.Run(sys+", "+tab.name, func(t *testing.T) { playAtTheLimits(t, sys, tab.names) })
		}
	}
}

// shortNames returns n names of 3 characters, "N00", "N01", …: 50 of them
// and their commas fill the target option.
func shortNames(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("N%02d", i))
	}
	return out
}

// playAtTheLimits plays limitScenarios at a table of sys with a character
// of each of names.
func playAtTheLimits(t *testing.T, sys string, names []string) {
	tb := newTable(t)
	tr := tracker.Of(tb.Svc.Registry())
	tr.SetPoster(&fakePoster{}, "")
	// targets are the most names the target option takes (200 characters).
	var targets []string
	for i := 1; i <= len(names) && len(strings.Join(names[:i], ",")) <= 200; i++ {
		targets = names[:i]
	}
	tb.Dice.SetFallback(dice.NewRandom(24))
	var last *commands.Response
	run := func(line string, about []string) {
		t.Helper()
		line, refused := strings.CutPrefix(line, "refused: ")
		before := uint64(0)
		if e := latestEvent(t, tb); e != nil {
			before = e.Seq
		}
		if line == "{import}" {
			data, channel := tb.ExportFile("!gm"), tb.Channel
			tb.Channel = channel + "-imported"
			last = tb.ImportFile("!gm", data)
			tb.Channel = channel
		} else {
			last = tb.Do("!gm", line)
		}
		if refused {
			if last.Outcome != commands.OutcomeUserError || !last.Ephemeral || !strings.Contains(last.Content, "Split the targets") {
				t.Errorf("%s = %q; want it refused, saying to split the targets", line, commandstest.Text(last))
			}
			wholeAndWithinLimits(t, line, last)
			return
		}
		if last.Outcome != commands.OutcomeOK {
			t.Errorf("%s: refused: %q", line, commandstest.Text(last))
			return
		}
		var wants []string
		for _, n := range about {
			wants = append(wants, "**"+n+"**")
		}
		wholeAndWithinLimits(t, line, last, wants...)
		everyDieShown(t, line, tb, before, last)
		if got := unchangedChanges(sentText(last)); len(got) > 0 {
			t.Errorf("%s prints unchanged values as changes: %q", line, got)
		}
		if m := nested.FindString(sentText(last)); m != "" {
			t.Errorf("%s has parentheses inside parentheses: %q", line, m)
		}
		if _, msg, err := tr.Tracker(tb.Channel); err != nil {
			t.Fatal(err)
		} else if msg != nil {
			wholeAndWithinLimits(t, line+", the tracker", msg)
		}
	}
	for _, s := range limitScenarios {
		for _, line := range s.lines {
			if rest, ok := strings.CutPrefix(line, "["+sys+"] "); ok {
				line = rest
			} else if strings.HasPrefix(line, "[") {
				continue
			}
			line = strings.NewReplacer("{one}", names[0], "{stats}", limitStats[sys], "{system}", sys,
				"{ability}", strings.Repeat("a", 22)+"00", "{five}", strings.Join(names[:5], ",")).Replace(line)
			var face, times int
			if n, _ := fmt.Sscanf(line, "dice:%d*%d ", &face, &times); n == 2 {
				line = line[strings.Index(line, " ")+1:]
				count := len(targets)
				if _, list, ok := strings.Cut(line, "target:"); ok && !strings.Contains(list, "{targets}") {
					count = strings.Count(strings.Fields(list)[0], ",") + 1
				}
				for range times * count {
					tb.Dice.Push(face)
				}
			}
			switch {
			case line == "{party}":
				for _, n := range names {
					run(fmt.Sprintf("/char create name:%s stats:%s", n, limitStats[sys]), []string{n})
				}
			case strings.HasPrefix(line, "{press "):
				label := strings.TrimSuffix(strings.TrimPrefix(line, "{press "), "}")
				pressed := 0
				for _, m := range sent(last) {
					for _, row := range m.Components {
						for _, b := range row {
							if b.Label == label && !b.Disabled {
								resp := tb.Svc.Handle(context.Background(), pressOf(tb, b.CustomID))
								if resp.Outcome != commands.OutcomeOK {
									t.Errorf("[%s]: refused: %q", label, commandstest.Text(resp))
								}
								wholeAndWithinLimits(t, "["+label+"]", resp)
								pressed++
							}
						}
					}
				}
				if pressed == 0 {
					t.Errorf("no [%s] to press in %q", label, sentText(last))
				}
			case strings.HasPrefix(line, "{each} "):
				for _, n := range targets {
					run(strings.ReplaceAll(strings.TrimPrefix(line, "{each} "), "{each}", n), []string{n})
				}
			case strings.Contains(line, "{batches}"):
				for i := 0; i < len(names); i += len(targets) {
					batch := names[i:min(i+len(targets), len(names))]
					run(strings.ReplaceAll(line, "{batches}", strings.Join(batch, ",")), batch)
				}
			case strings.Contains(line, "{round}"):
				for range len(names) {
					run(strings.TrimSuffix(line, " {round}"), nil)
				}
			case strings.Contains(line, "{targets}"):
				run(strings.ReplaceAll(line, "{targets}", strings.Join(targets, ",")), targets)
			case strings.Contains(line, "target:"+strings.Join(names[:5], ",")):
				run(line, names[:5])
			case line == "/table show" || line == "/char list" || line == "/init show":
				run(line, names)
			default:
				run(line, nil)
			}
		}
	}
}

// pressOf is a press of the button customID by the GM at tb.
func pressOf(tb *table, customID string) *commands.Request {
	r := tb.Request("!gm", "/table show")
	r.Kind, r.CustomID, r.Command, r.Subcommand = commands.KindComponent, customID, "", ""
	return r
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
