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
	"github.com/hpkeeper/hpkeeper/commands/view"
)

var updateEmbeds = flag.Bool("update-embeds", false, "rewrite testdata/embeds/*.json")

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
		if r["Fine"].Embeds[0].Color != view.ColorFine || r["Hurt"].Embeds[0].Color != view.ColorWounded || r["Zero"].Embeds[0].Color != view.ColorZero {
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

// TestActionRepliesCarryNoCard (issue 24, "Simple actions are walls of
// text"): a change says what changed in a line, and the character's card
// (its embed, its bars) is /char show's, not every reply's.
func TestActionRepliesCarryNoCard(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d8 hp=8"`))
	resp := tb.Do("ann", "/damage target:Lister amount:3")
	if out := tb.OK(resp); len(resp.Embeds) != 0 || out != "**Lister** takes 3 damage: HP 8 → 5/8." {
		t.Errorf("damage reply = %q with %d embeds; want one line and no card", out, len(resp.Embeds))
	}
	show := tb.Do("ann", "/char show name:Lister")
	if len(show.Embeds) != 1 || show.Embeds[0].Color != view.ColorWounded || !strings.Contains(show.Embeds[0].Description, "HP ██████░░░░ 5/8") {
		t.Errorf("card = %+v; want the bars in the colour of a wounded character", show.Embeds)
	}
}

func TestHiddenCharacters(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d8 hp=8"`))
	tb.Refused(tb.Do("ann", `/char create name:Goblin stats:"hp=7 hidden=true"`), "Only a GM can hide or reveal a character")
	tb.Refused(tb.Do("ann", `/char set name:Lister stats:"hidden=true"`), "Only a GM can hide")
	tb.Refused(tb.Do("!gm", `/char create name:Goblin stats:"hidden=maybe"`), "true or false")

	noNumbers := func(what string, s string) {
		t.Helper()
		for _, secret := range []string{"7/8", "4/8", "7 → 4", "[3]", "amount"} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows a hidden character's numbers (%q): %q", what, secret, s)
			}
		}
	}
	// A hidden NPC comes in unannounced: its creation is the GM's alone.
	// The GM's reply about it is public with its word; the numbers and
	// dice follow for the GM alone.
	resp := tb.Do("!gm", `/char create name:Goblin stats:"class=fighter hit-die=d8 hp=7 hidden=true"`)
	commandstest.WantIn(t, "GM's create", tb.Private(resp), "Created **Goblin** for gm.", "HP █████████░ 7/8")
	tb.Dice.Push(3)
	resp = tb.Do("!gm", "/damage target:Goblin amount:1d6")
	noNumbers("GM's damage, public", tb.OK(resp))
	commandstest.WantIn(t, "GM's damage, public", tb.OK(resp), "**Goblin**: Wounded")
	commandstest.WantIn(t, "GM's damage, follow-up", commandstest.FollowUp(resp), "HP 7 → 4", "1d6 [3] = 3")

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

	// One event about both: the public reply and a player's history show
	// Lister's numbers and the Goblin's word.
	resp = tb.Do("!gm", "/damage target:Lister,Goblin amount:2")
	noNumbers("mixed damage", tb.OK(resp))
	commandstest.WantIn(t, "mixed damage", tb.OK(resp), "**Lister** takes 2 damage: HP 8 → 6", "**Goblin**: Wounded")
	commandstest.WantIn(t, "mixed damage, follow-up", commandstest.FollowUp(resp), "**Goblin** takes 2 damage: HP 4 → 2")
	out = tb.OK(tb.Do("bob", "/history"))
	commandstest.WantIn(t, "mixed history", out, "Lister takes 2 damage: HP 8 → 6", "Goblin: Wounded")
	if strings.Contains(out, "4 → 2") {
		t.Errorf("player's history shows the Goblin's numbers: %q", out)
	}

	// GMs see everything, privately: a view they ask for in the channel is
	// written for players.
	resp = tb.Do("!gm", "/char show name:Goblin")
	noNumbers("GM char show, public", tb.OK(resp))
	commandstest.WantIn(t, "GM char show", commandstest.FollowUp(resp), "HP ███░░░░░░░ 2/8")
	resp = tb.Do("!gm", "/history target:Goblin") // about a hidden character: the GM's alone
	commandstest.WantIn(t, "GM history", tb.Private(resp), "1d6 [3] = 3", "HP 4 → 2")
	for _, line := range []string{"/char list", "/table show"} {
		resp = tb.Do("!gm", line)
		noNumbers("GM "+line+", public", tb.OK(resp))
		commandstest.WantIn(t, "GM "+line, commandstest.FollowUp(resp), "**Goblin** (gm): HP 2/8")
	}

	// A hidden character's owner who is not a GM reads its numbers (the
	// brief's rule: the owner and every GM, nobody else), privately: the
	// channel reads its word.
	tb.Do("!gm", `/char create name:Spy owner:bob stats:"class=fighter hit-die=d6 hp=6 hidden=true"`)
	resp = tb.Do("bob", "/damage target:Spy amount:6")
	out = tb.OK(resp)
	if strings.Contains(out, "6 →") || strings.Contains(out, "HP") {
		t.Errorf("player's reply about a hidden character shows numbers: %q", out)
	}
	commandstest.WantIn(t, "player's damage", out, "Spy**: Badly wounded") // at 0 HP, its choice to make: it still acts
	commandstest.WantIn(t, "owner's follow-up", commandstest.FollowUp(resp), "HP 6 → 0")

	// Revealing: the GM sets hidden=false; players see the numbers again.
	tb.OK(tb.Do("!gm", `/char set name:Goblin stats:"hidden=false"`))
	commandstest.WantIn(t, "revealed", tb.OK(tb.Do("bob", "/char show name:Goblin")), "HP ███░░░░░░░ 2/8")
	// Hiding is recorded, so /undo hides it again; the undo's command line
	// is the GM's alone.
	resp = tb.Do("!gm", "/undo")
	noNumbers("undo", tb.OK(resp))
	commandstest.WantIn(t, "undo", tb.OK(resp), "Undid `#", "(/char set)", "**Goblin**: Wounded")
	commandstest.WantIn(t, "undo, follow-up", commandstest.FollowUp(resp), "/char set name:Goblin stats:hidden=false")
	noNumbers("undone reveal", tb.OK(tb.Do("bob", "/char show name:Goblin")))
}

// fakePoster records tracker posts.
type fakePoster struct{ posts []*commands.Response }

func (p *fakePoster) PostTracker(ctx context.Context, channelID string, resp *commands.Response) (string, error) {
	p.posts = append(p.posts, resp)
	return "msg-1", nil
}
