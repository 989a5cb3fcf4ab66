package tracker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
)

func newTable(t *testing.T) *commandstest.Table {
	return commandstest.New(t, commandstest.Systems()...)
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
	tb.Refused(tb.Do("!gm", "/table tracker"), "DISCORD_TOKEN")
	p := &fakePoster{}
	tracker.Of(tb.Svc.Registry()).SetPoster(p, "")
	var changed []string
	tb.Svc.OnChange(func(ch string) { changed = append(changed, ch) })
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 con=12"`))
	commandstest.WantIn(t, "hidden create", tb.Private(tb.Do("!gm", `/char create name:Orc stats:"hp-max=10 con=10 hidden=true"`)), "Created")
	if id, resp, err := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel); err != nil || id != "" || resp != nil {
		t.Fatalf("tracker before /table tracker = %q, %v, %v", id, resp, err)
	}
	resp := tb.Do("!gm", "/table tracker")
	if !resp.Ephemeral || len(p.posts) != 1 {
		t.Fatalf("tracker reply %+v, posts %d", resp, len(p.posts))
	}
	tb.OK(tb.Do("ann", "/damage target:Vala amount:5"))
	// Posting the tracker is an event: an older table change can still be undone.
	commandstest.WantIn(t, "history", tb.OK(tb.Do("!gm", "/history")), "/table tracker", "Posted the tracker.")
	id, tr, err := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel)
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

// TestTrackerKeepsUndo: posting the tracker after a table change leaves that
// change undoable (the tracker's id is stored by an event of its own).
func TestTrackerKeepsUndo(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tracker.Of(tb.Svc.Registry()).SetPoster(&fakePoster{}, "")
	tb.OK(tb.Do("!gm", "/table option name:catch-breath value:on"))
	commandstest.Text(tb.Do("!gm", "/table tracker"))
	commandstest.WantIn(t, "undo tracker", tb.OK(tb.Do("!gm", "/undo")), "/table tracker")
	commandstest.WantIn(t, "undo option", tb.OK(tb.Do("!gm", "/undo")), "/table option")
	if id, _, _ := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel); id != "" {
		t.Errorf("tracker id after undoing its post = %q", id)
	}
}

// TestOnlyAGMMovesTheTracker: a player's /table tracker shows the tracker
// to them alone, as players see it, and leaves the GM's where it is; it
// replaced the GM's tracker before.
func TestOnlyAGMMovesTheTracker(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	p := &fakePoster{}
	tracker.Of(tb.Svc.Registry()).SetPoster(p, "")
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hp=6"`))
	commandstest.FollowUp(tb.Do("!gm", `/char create name:Orc stats:"hp=5 hidden=true"`))
	tb.Do("!gm", "/table tracker")
	before := tb.State()
	resp := tb.Do("ann", "/table tracker")
	if !resp.Ephemeral || len(resp.Embeds) != 1 || len(p.posts) != 1 {
		t.Fatalf("a player's /table tracker = %+v, %d posts; want the tracker, ephemeral, and no post", resp, len(p.posts))
	}
	out := commandstest.Text(resp)
	commandstest.WantIn(t, "a player's tracker", out, "Only a GM", "Lister** `HP", "Orc**: Wounded")
	if strings.Contains(out, "5/") {
		t.Errorf("a player's tracker shows the hidden Orc's numbers: %q", out)
	}
	if after := tb.State(); after != before {
		t.Errorf("a player's /table tracker changed the table:\n%s\nwant\n%s", after, before)
	}
}

// TestTrackerSaysWhenItChanged: the tracker gives the time of the table's
// latest change as a Discord timestamp (each reader's own time zone).
func TestTrackerSaysWhenItChanged(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	tracker.Of(tb.Svc.Registry()).SetPoster(&fakePoster{}, "")
	tb.Do("!gm", "/table tracker")
	tb.OK(tb.Do("ann", "/char create name:Esme")) // the third request: 19:03 UTC
	_, tr, err := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel)
	if err != nil {
		t.Fatal(err)
	}
	commandstest.WantIn(t, "tracker", commandstest.Text(tr), "Last change <t:1795978980:f>")
}

// TestTrackerPages: at a table of 50 hp-mp-wp characters with long names
// in a turn order (issue 24: the tracker's turn order listed 35), the
// tracker is laid out over pages within Discord's limits; its message
// shows the first with a button for each other page, whose press shows
// that page to the caller alone (and, on a page so shown, in its place);
// every character is on a page, in the list and in the turn order.
func TestTrackerPages(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tracker.Of(tb.Svc.Registry()).SetPoster(&fakePoster{}, "")
	var names []string
	for i := range commands.MaxCharacters {
		names = append(names, fmt.Sprintf("A-character-with-a-long-name-%02d", i))
		tb.OK(tb.Do("!gm", fmt.Sprintf(`/char create name:%s stats:"hp-max=20 con=12"`, names[i])))
	}
	tb.OK(tb.Do("!gm", "/init start"))
	for _, n := range names {
		tb.Dice.Push(10)
		tb.OK(tb.Do("!gm", "/init join target:"+n))
	}
	tb.Do("!gm", "/table tracker")
	_, first, err := tracker.Of(tb.Svc.Registry()).Tracker(tb.Channel)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Components) != 1 || len(first.Components[0]) < 1 {
		t.Fatalf("tracker message has rows %v; want one row of page buttons", first.Components)
	}
	pages := []*commands.Response{first}
	for _, b := range first.Components[0] {
		resp := tb.Svc.Handle(context.Background(), pressOf(tb, b.CustomID))
		if !resp.Ephemeral || resp.UpdateMessage {
			t.Errorf("%s: ephemeral %v, update %v; want a new message to the caller alone", b.Label, resp.Ephemeral, resp.UpdateMessage)
		}
		pages = append(pages, resp)
		// Its own buttons show the other pages in its place.
		again := tb.Svc.Handle(context.Background(), pressOf(tb, resp.Components[0][0].CustomID))
		if !again.Ephemeral || !again.UpdateMessage {
			t.Errorf("a page's button: ephemeral %v, update %v; want the page shown in its place", again.Ephemeral, again.UpdateMessage)
		}
	}
	var all strings.Builder
	for i, p := range pages {
		for _, m := range commandstest.Messages(p) {
			if n := len(m.Embeds); n > 10 {
				t.Errorf("page %d has %d embeds", i+1, n)
			}
			total := 0
			for _, e := range m.Embeds {
				total += len([]rune(e.Title + e.Description + e.Footer))
				for _, f := range e.Fields {
					total += len([]rune(f.Name + f.Value))
					if len([]rune(f.Value)) > 1024 {
						t.Errorf("page %d: field %q of %d characters", i+1, f.Name, len([]rune(f.Value)))
					}
				}
				if len([]rune(e.Description)) > 4096 {
					t.Errorf("page %d: a description of %d characters", i+1, len([]rune(e.Description)))
				}
			}
			if total > 6000 {
				t.Errorf("page %d: embeds of %d characters", i+1, total)
			}
		}
		all.WriteString(commandstest.Text(p))
	}
	for _, n := range names {
		if c := strings.Count(all.String(), n); c < 2 {
			t.Errorf("%s is on the pages %d times; want twice (its line and the turn order)", n, c)
		}
	}
}

// pressOf is a press of the button customID by the GM.
func pressOf(tb *commandstest.Table, customID string) *commands.Request {
	r := tb.Request("!gm", "/table show")
	r.Kind, r.CustomID, r.Command, r.Subcommand = commands.KindComponent, customID, "", ""
	return r
}
