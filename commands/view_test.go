package commands_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

var updateEmbeds = flag.Bool("update-embeds", false, "rewrite testdata/embeds/*.json")

func TestBarText(t *testing.T) {
	for _, c := range []struct {
		bar  commands.Bar
		want string
	}{
		{commands.Bar{Label: "HP", Current: 6, Max: 10}, "HP ██████░░░░ 6/10"},
		{commands.Bar{Label: "HP", Current: 10, Max: 10}, "HP ██████████ 10/10"},
		{commands.Bar{Label: "HP", Current: 0, Max: 10}, "HP ░░░░░░░░░░ 0/10"},
		{commands.Bar{Label: "HP", Current: 1, Max: 40}, "HP █░░░░░░░░░ 1/40"},   // never empty above 0
		{commands.Bar{Label: "HP", Current: 39, Max: 40}, "HP █████████░ 39/40"}, // never full below max
		{commands.Bar{Label: "WP", Current: -3, Max: 12}, "WP ░░░░░░░░░░ -3/12"}, // negative WP
		{commands.Bar{Label: "MP", Current: 0, Max: 0}, "MP ░░░░░░░░░░ 0/0"},
	} {
		if got := c.bar.Text(); got != c.want {
			t.Errorf("%+v.Text() = %q, want %q", c.bar, got, c.want)
		}
	}
}

func TestLevelColorsAndWords(t *testing.T) {
	want := map[commands.Level][2]any{
		commands.LevelFine:    {0x57F287, "Unhurt"},
		commands.LevelWounded: {0xFEE75C, "Wounded"},
		commands.LevelZero:    {0xE67E22, "Down"},
		commands.LevelDying:   {0xED4245, "Down"},
		commands.LevelDead:    {0x2C2F33, "Dead"},
	}
	for l, w := range want {
		if l.Color() != w[0].(int) || l.Word() != w[1].(string) {
			t.Errorf("level %s: color %#x word %q, want %#x %q", l, l.Color(), l.Word(), w[0], w[1])
		}
	}
}

// embedGolden compares the embeds of the replies with testdata/embeds/name.json.
func embedGolden(t *testing.T, name string, replies map[string]*commands.Response, order []string) {
	t.Helper()
	type entry struct {
		Case   string           `json:"case"`
		Embeds []commands.Embed `json:"embeds"`
	}
	var all []entry
	for _, k := range order {
		all = append(all, entry{k, replies[k].Embeds})
	}
	got, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "embeds", name+".json")
	if *updateEmbeds {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./commands -run TestEmbedsGolden -update-embeds)", err)
	}
	if string(got) != string(want) {
		t.Errorf("embeds of %s differ from %s:\n%s", name, path, got)
	}
}

// TestEmbedsGolden renders the character embeds of every system at several
// levels and compares them with golden JSON: colour by level, text bars,
// conditions, then the system's fields.
func TestEmbedsGolden(t *testing.T) {
	t.Run("hit-protection", func(t *testing.T) {
		tb := newTable(t)
		tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
		tb.OK(tb.Do("ann", `/char create name:Fine stats:"class=fighter hit-die=d8 hp=8"`))
		tb.OK(tb.Do("ann", `/char create name:Hurt stats:"class=fighter hit-die=d8 hp=3"`))
		tb.OK(tb.Do("ann", `/char create name:Zero stats:"class=fighter hit-die=d8 hp=2"`))
		tb.OK(tb.Do("ann", "/damage target:Zero amount:2"))
		r := map[string]*commands.Response{}
		for _, n := range []string{"Fine", "Hurt", "Zero"} {
			r[n] = tb.Do("ann", "/char show name:"+n)
		}
		embedGolden(t, "hit-protection", r, []string{"Fine", "Hurt", "Zero"})
		if r["Fine"].Embeds[0].Color != commands.ColorFine || r["Hurt"].Embeds[0].Color != commands.ColorWounded || r["Zero"].Embeds[0].Color != commands.ColorZero {
			t.Errorf("colours %#x %#x %#x", r["Fine"].Embeds[0].Color, r["Hurt"].Embeds[0].Color, r["Zero"].Embeds[0].Color)
		}
	})
	t.Run("hp-mp-wp", func(t *testing.T) {
		tb := newTable(t)
		tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
		tb.OK(tb.Do("ann", `/char create name:Fine stats:"hp-max=20 con=12"`))
		tb.OK(tb.Do("ann", `/char create name:Hurt stats:"hp-max=20 hp=7 con=12"`))
		tb.OK(tb.Do("ann", `/char create name:Disabled stats:"hp-max=20 hp=0 con=12 wp=-1"`))
		r := map[string]*commands.Response{}
		for _, n := range []string{"Fine", "Hurt", "Disabled"} {
			r[n] = tb.Do("ann", "/char show name:"+n)
		}
		embedGolden(t, "hp-mp-wp", r, []string{"Fine", "Hurt", "Disabled"})
	})
	t.Run("harm", func(t *testing.T) {
		tb := newTable(t)
		tb.OK(tb.Do("!gm", "/table setup system:harm"))
		tb.OK(tb.Do("ann", `/char create name:Fine stats:"endure=2"`))
		tb.OK(tb.Do("ann", `/char create name:Hurt stats:"endure=2"`))
		tb.Dice.Push(-1, -1, -1)
		tb.OK(tb.Do("ann", "/damage target:Hurt amount:3"))
		r := map[string]*commands.Response{}
		for _, n := range []string{"Fine", "Hurt"} {
			r[n] = tb.Do("ann", "/char show name:"+n)
		}
		embedGolden(t, "harm", r, []string{"Fine", "Hurt"})
	})
}

// TestActionRepliesCarryEmbeds: a system reply about a character ends with
// its embed (colour and bars), in every system.
func TestActionRepliesCarryEmbeds(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d8 hp=8"`))
	resp := tb.Do("ann", "/damage target:Lister amount:3")
	tb.OK(resp)
	if len(resp.Embeds) != 1 || resp.Embeds[0].Color != commands.ColorWounded || !strings.Contains(resp.Embeds[0].Description, "HP ██████░░░░ 5/8") {
		t.Errorf("damage reply embeds = %+v", resp.Embeds)
	}
}

func TestHiddenCharacters(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d8 hp=8"`))
	tb.Refused(tb.Do("ann", `/char create name:Goblin stats:"hp=7 hidden=true"`), "Only a GM can hide or reveal a character")
	tb.Refused(tb.Do("ann", `/char set name:Lister stats:"hidden=true"`), "Only a GM can hide")
	tb.Refused(tb.Do("!gm", `/char create name:Goblin stats:"hidden=maybe"`), "true or false")
	resp := tb.Do("!gm", `/char create name:Goblin stats:"class=fighter hit-die=d8 hp=7 hidden=true"`)
	if !resp.Ephemeral || !strings.Contains(commandstest.Text(resp), "HP 7/8") {
		t.Errorf("GM's create reply should be private with numbers: %+v", resp)
	}
	tb.Dice.Push(3)
	resp = tb.Do("!gm", "/damage target:Goblin amount:1d6")
	if !resp.Ephemeral || !strings.Contains(commandstest.Text(resp), "HP 7 → 4") || !strings.Contains(commandstest.Text(resp), "1d6 [3] = 3") {
		t.Errorf("GM's damage reply should be private with numbers and dice: %+v", resp)
	}

	noNumbers := func(what string, s string) {
		t.Helper()
		if strings.Contains(s, "4/8") || strings.Contains(s, "7 → 4") || strings.Contains(s, "[3]") || strings.Contains(s, "amount") {
			t.Errorf("%s shows a hidden character's numbers: %q", what, s)
		}
	}
	out := tb.OK(tb.Do("bob", "/char show name:Goblin"))
	noNumbers("char show", out)
	commandstest.WantIn(t, "char show", out, "Wounded")
	out = tb.OK(tb.Do("bob", "/char list"))
	noNumbers("char list", out)
	commandstest.WantIn(t, "char list", out, "Goblin** (gm): Wounded", "Lister** (ann): HP 8/8")
	out = tb.OK(tb.Do("bob", "/table show"))
	noNumbers("table show", out)
	commandstest.WantIn(t, "table show", out, "Goblin** (gm): Wounded")
	out = tb.OK(tb.Do("bob", "/history"))
	noNumbers("history", out)
	commandstest.WantIn(t, "history", out, "/damage", "Goblin: Wounded", "/char create", "Created Lister for ann: HP 8/8") // Lister's events stay whole

	// GMs see everything.
	commandstest.WantIn(t, "GM char show", tb.OK(tb.Do("!gm", "/char show name:Goblin")), "HP 4/8")
	commandstest.WantIn(t, "GM history", tb.OK(tb.Do("!gm", "/history target:Goblin")), "1d6 [3] = 3")

	// A hidden character's owner who is not a GM sees the word in replies.
	commandstest.Text(tb.Do("!gm", `/char create name:Spy owner:bob stats:"class=fighter hit-die=d6 hp=6 hidden=true"`))
	resp = tb.Do("bob", "/damage target:Spy amount:6")
	out = tb.OK(resp)
	if resp.Ephemeral || strings.Contains(out, "6 →") || strings.Contains(out, "HP") {
		t.Errorf("player's reply about a hidden character shows numbers: %q", out)
	}
	commandstest.WantIn(t, "player's damage", out, "Spy**: Down")

	// Revealing: the GM sets hidden=false; players see the numbers again.
	tb.OK(tb.Do("!gm", `/char set name:Goblin stats:"hidden=false"`))
	commandstest.WantIn(t, "revealed", tb.OK(tb.Do("bob", "/char show name:Goblin")), "HP 4/8")
	// Hiding is recorded, so /undo hides it again.
	if resp := tb.Do("!gm", "/undo"); !resp.Ephemeral {
		t.Errorf("undo about a hidden character is public: %+v", resp)
	}
	noNumbers("undone reveal", tb.OK(tb.Do("bob", "/char show name:Goblin")))
}

// fakePoster records tracker posts.
type fakePoster struct{ posts []*commands.Response }

func (p *fakePoster) PostTracker(ctx context.Context, channelID string, resp *commands.Response) (string, error) {
	p.posts = append(p.posts, resp)
	return "msg-1", nil
}

func TestTableTracker(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tb.Refused(tb.Do("ann", "/table tracker"), "DISCORD_TOKEN")
	p := &fakePoster{}
	tb.Svc.SetTrackerPoster(p, "")
	var changed []string
	tb.Svc.OnChange(func(ch string) { changed = append(changed, ch) })
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 con=12"`))
	commandstest.WantIn(t, "hidden create", commandstest.Text(tb.Do("!gm", `/char create name:Orc stats:"hp-max=10 con=10 hidden=true"`)), "Created")
	if id, resp, err := tb.Svc.Tracker(tb.Channel); err != nil || id != "" || resp != nil {
		t.Fatalf("tracker before /table tracker = %q, %v, %v", id, resp, err)
	}
	resp := tb.Do("ann", "/table tracker")
	if !resp.Ephemeral || len(p.posts) != 1 {
		t.Fatalf("tracker reply %+v, posts %d", resp, len(p.posts))
	}
	tb.OK(tb.Do("ann", "/damage target:Vala amount:5"))
	// Posting the tracker is an event: an older table change can still be undone.
	commandstest.WantIn(t, "history", tb.OK(tb.Do("!gm", "/history")), "/table tracker", "Posted the tracker.")
	id, tr, err := tb.Svc.Tracker(tb.Channel)
	if err != nil || id != "msg-1" {
		t.Fatalf("Tracker = %q, %v", id, err)
	}
	out := commandstest.Text(tr)
	commandstest.WantIn(t, "tracker", out, "Vala** `HP ████████░░ 15/20` `MP ██████████ 4/4` `WP ██████████ 12/12`", "Orc**: Unhurt", "Clock: day 1, 00:00")
	if strings.Contains(out, "10/10") {
		t.Errorf("tracker shows the hidden Orc's numbers: %q", out)
	}
	if len(changed) < 4 || changed[len(changed)-1] != tb.Channel {
		t.Errorf("change notifications = %q", changed)
	}
}

func TestHelpSystemCommands(t *testing.T) {
	tb := newTable(t)
	out := commandstest.Text(tb.Do("ann", "/help topic:harm"))
	commandstest.WantIn(t, "harm help", out, "Commands:", "`/damage target:… amount:… [lethal:…] [kind:…] [pool:…]`", "`/heal")
	for _, not := range []string{"/strain", "soak", "crit"} {
		if strings.Contains(out, not) {
			t.Errorf("harm help mentions %s: %q", not, out)
		}
	}
	out = commandstest.Text(tb.Do("ann", "/help topic:hp-mp-wp"))
	commandstest.WantIn(t, "hp-mp-wp help", out, "`/strain", "`/activity", "[crit:…]", "[nonlethal:…]")
}

// TestTrackerKeepsUndo: posting the tracker after a table change leaves that
// change undoable (the tracker's id is stored by an event of its own).
func TestTrackerKeepsUndo(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.Svc.SetTrackerPoster(&fakePoster{}, "")
	tb.OK(tb.Do("!gm", "/table option name:catch-breath value:on"))
	commandstest.Text(tb.Do("!gm", "/table tracker"))
	commandstest.WantIn(t, "undo tracker", tb.OK(tb.Do("!gm", "/undo")), "/table tracker")
	commandstest.WantIn(t, "undo option", tb.OK(tb.Do("!gm", "/undo")), "/table option")
	if id, _, _ := tb.Svc.Tracker(tb.Channel); id != "" {
		t.Errorf("tracker id after undoing its post = %q", id)
	}
}
