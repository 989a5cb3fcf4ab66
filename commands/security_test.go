package commands_test

// Tests of SECURITY.md's promises at the service: input limits (promise 8)
// and the per-user limit on expensive work (promise 11).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/history"
)

// TestInputLimits sends names, stats, dice, numbers and texts outside their
// ranges to each system: every one is refused with an ephemeral message
// saying what is wrong, and nothing at all is stored (promise 8).
func TestInputLimits(t *testing.T) {
	long := strings.Repeat("x", 10<<10)
	big := "9223372036854775808" // 2^63
	common := []struct {
		line, want string
	}{
		{"/char create name:" + strings.Repeat("n", 33), "1 to 32 characters"},
		{"/char create name:" + long, "characters long"},
		{"/char create name:\"   \"", "1 to 32"},
		{"/char create name:\"a\nb\"", "line breaks"},
		{"/char create name:\"a\x00b\"", "control characters"},
		{"/char create name:\"Ann,Bob\"", "comma"},
		{"/char create name:lister stats:\"{S}\"", "already"},
		{"/char create name:Kryten stats:" + long, "characters long"},
		{"/char create name:Kryten stats:\"{S} level=" + big + "\"", "level"},
		{"/char create name:Kryten stats:nonsense", "key=value"},
		{"/char create name:Kryten stats:\"level=1 level=2\"", "twice"},
		{"/char create name:Kryten stats:\"{S} frob=1=2\"", ""},
		{"/char set name:Lister stats:level=-1", "level"},
		{"/char set name:Lister stats:" + long, "characters long"},
		{"/damage target:Lister amount:-1", "must be"},
		{"/damage target:Lister amount:" + big, "Bad dice"},
		{"/damage target:Lister amount:1001", "must be"},
		{"/damage target:Lister amount:1000d1000", "at most 100 dice"},
		{"/damage target:Lister amount:100d1000", "100d1000 can reach 100000, above the limit of 1000"},
		{"/damage target:Lister amount:2d6+999", "2d6+999 can reach 1011, above the limit of 1000"},
		{"/damage target:Lister amount:" + long, "characters long"},
		{"/damage target:Lister amount:1d0", "Bad dice"},
		{"/damage target:" + long + " amount:1", "characters long"},
		{"/damage target:\"Lister,Nobody\" amount:1", "No character named"},
		{"/roll expr:1000d1000", "at most 100 dice"},
		{"/roll expr:101d6", "at most 100 dice"},
		{"/roll expr:1d1001", "Bad dice"},
		{"/roll expr:" + big, "Bad dice"},
		{"/roll expr:" + strings.Repeat("1+", 40) + "1", "at most 64"},
		{"/roll expr:60d6+41d6", "at most 100 dice"},
		{"/roll expr:" + long, "characters long"},
		{"/roll as:Lister hd:" + big, "whole number"},
		{"/roll as:Lister hd:101", "from 0 to 100"},
		{"/roll as:Lister hd:-1", "from 0 to 100"},
		{"/save target:Lister type:death bonus:" + big, "whole number"},
		{"/save target:Lister type:death bonus:-101", "from -100 to 100"},
		{"/spend target:Lister resource:hd amount:0", "from 1 to 10000"},
		{"/spend target:Lister resource:hd amount:" + big, "whole number"},
		{"/clock action:advance amount:10001", "from 1 to 10000"},
		{"/clock action:advance amount:-5", "from 1 to 10000"},
		{"/table option name:" + long + " value:x", "characters long"},
		{"/help topic:" + long, "characters long"},
		{"/history target:" + long, "characters long"},
	}
	for _, sys := range []string{"hit-protection", "hp-mp-wp", "harm"} {
		t.Run(sys, func(t *testing.T) {
			tb := newTable(t)
			tb.OK(tb.Do("gm", "/table setup system:"+sys))
			stats := map[string]string{"hit-protection": "hit-die=d6 hp=4", "hp-mp-wp": "hp-max=12 mp-max=0", "harm": "endure=2"}[sys]
			tb.OK(tb.Do("ann", "/char create name:Lister stats:\""+stats+"\""))
			for _, tc := range common {
				before := tb.State()
				resp := tb.Do("gm", strings.ReplaceAll(tc.line, "{S}", stats))
				if !resp.Ephemeral || !strings.Contains(resp.Content, tc.want) || resp.Content == commands.Apology {
					t.Errorf("%.80s: got %q (ephemeral %v); want a refusal containing %q", tc.line, clipTo(resp.Content, 300), resp.Ephemeral, tc.want)
				}
				if len(resp.Content) > 2000 {
					t.Errorf("%.80s: refusal of %d bytes", tc.line, len(resp.Content))
				}
				if after := tb.State(); after != before {
					t.Errorf("%.80s was refused but changed the state:\n%s\nbecame\n%s", tc.line, before, after)
				}
			}
		})
	}
}

// TestModalTextLimits submits Heroic Death actions that are empty or 10 KB
// long: both are refused and the choice stays pending; a proper one works.
func TestModalTextLimits(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"hit-die=d6 hp=2"`))
	resp := tb.Do("gm", "/damage target:Lister amount:2")
	modal := tb.Press("ann", resp, "Heroic Death")
	if modal.Modal == nil || len(modal.Modal.Inputs) != 1 {
		t.Fatalf("Heroic Death gave %+v; want a modal with one input", modal)
	}
	in := modal.Modal.Inputs[0]
	if in.MaxLength <= 0 || in.MaxLength > 4000 {
		t.Errorf("the heroic action input allows %d characters; want a bound of at most 4,000", in.MaxLength)
	}
	submit := func(text string) *commands.Response {
		return tb.Svc.Handle(context.Background(), &commands.Request{
			Kind: commands.KindModal, ChannelID: tb.Channel, GuildID: "g1", UserID: "ann", UserName: "ann",
			CustomID: modal.Modal.CustomID, Values: map[string]string{in.CustomID: text},
		})
	}
	for _, text := range []string{"", "   ", strings.Repeat("y", 10<<10), strings.Repeat("z", commands.MaxModalText+1)} {
		before := tb.State()
		r := submit(text)
		if !r.Ephemeral || r.Content == commands.Apology {
			t.Errorf("heroic action of %d bytes: %q (ephemeral %v); want a clear refusal", len(text), clipTo(r.Content, 200), r.Ephemeral)
		}
		if after := tb.State(); after != before {
			t.Errorf("heroic action of %d bytes was refused but changed the state", len(text))
		}
	}
	if r := submit("I hold the door"); r.Ephemeral || !strings.Contains(commandstest.Text(r), "I hold the door") {
		t.Errorf("a proper heroic action: %q; want it posted", r.Content)
	}
}

func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// at returns a request from user at the given time, for the rate limit.
func (tb *table) at(user, line string, now time.Time) *commands.Response {
	tb.T.Helper()
	req := tb.Request(user, line)
	req.Now = now
	return tb.Svc.Handle(context.Background(), req)
}

// TestWorkLimit checks the per-user limit on expensive work: ten 100-dice
// rolls in one instant pass, the eleventh is refused with a "slow down"
// that says when to retry; another user is not affected; small rolls are
// never limited; the allowance refills with time; /history pages count too
// (promise 11).
func TestWorkLimit(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for i := 0; i < commands.WorkBurst/100; i++ {
		tb.Dice.Push(repeat(3, 100)...)
		if r := tb.at("ann", "/roll expr:100d6", now); r.Ephemeral {
			t.Fatalf("roll %d of 100d6: %q; want it to pass", i+1, r.Content)
		}
	}
	r := tb.at("ann", "/roll expr:100d6", now)
	if !r.Ephemeral || !strings.Contains(r.Content, "Slow down") || !strings.Contains(r.Content, "Try again in 6 s") {
		t.Fatalf("the 11th 100d6 at once: %q (ephemeral %v); want a slow-down naming 6 s", r.Content, r.Ephemeral)
	}
	if n := tb.Dice.Remaining(); n != 0 {
		t.Errorf("%d dice left in the script; the refused roll must roll nothing", n)
	}
	tb.Dice.Push(1, 2)
	if r := tb.at("ann", "/roll expr:2d6", now); r.Ephemeral {
		t.Errorf("a small roll while limited: %q; want it to pass", r.Content)
	}
	tb.Dice.Push(repeat(3, 100)...)
	if r := tb.at("bob", "/roll expr:100d6", now); r.Ephemeral {
		t.Errorf("another user's roll: %q; want it to pass", r.Content)
	}
	tb.Dice.Push(repeat(3, 100)...)
	if r := tb.at("ann", "/roll expr:100d6", now.Add(6*time.Second)); r.Ephemeral {
		t.Errorf("100d6 after 6 s: %q; want it to pass", r.Content)
	}
	if r := tb.at("ann", "/damage target:Nobody amount:100d6", now.Add(6*time.Second)); !strings.Contains(r.Content, "Slow down") {
		t.Errorf("dice in amount: %q; want them counted", r.Content)
	}
	// A page costs history.Cost and what it reads: here one small event,
	// one unit (history's TestReadsArePaidFor measures more).
	page := history.Cost + 1
	for i := 0; i < commands.WorkBurst/page; i++ {
		if r := tb.at("cat", "/history", now); r.Ephemeral {
			t.Fatalf("history page %d: %q; want it to pass", i+1, r.Content)
		}
	}
	if r := tb.at("cat", "/history", now); !r.Ephemeral || !strings.Contains(r.Content, "Slow down") {
		t.Errorf("history page %d at once: %q; want a slow-down", commands.WorkBurst/page+1, r.Content)
	}
	// Days on the clock count: one longest advance at once, not two; a
	// week passes 3 s later.
	big := fmt.Sprintf("/clock action:advance amount:%d unit:days", commands.MaxAdvanceDays)
	tb2 := newTable(t)
	tb2.Channel = "chan-clock"
	tb2.OK(tb2.Do("dan", "/table setup system:harm"))
	if r := tb2.at("dan", big, now); r.Ephemeral {
		t.Fatalf("the longest advance: %q; want it to pass", r.Content)
	}
	if r := tb2.at("dan", big, now); !r.Ephemeral || !strings.Contains(r.Content, "Slow down") || !strings.Contains(r.Content, "clock time") {
		t.Errorf("a second longest advance at once: %q (ephemeral %v); want a slow-down", r.Content, r.Ephemeral)
	}
	if r := tb2.at("dan", "/clock action:advance amount:7 unit:days", now.Add(3*time.Second)); r.Ephemeral {
		t.Errorf("a week (70 units) after 3 s (150 units): %q; want it to pass", r.Content)
	}
	if c := commands.ErrorCode(commands.Errorf(commands.CodeRateLimited, "x")); c != commands.CodeRateLimited {
		t.Errorf("ErrorCode = %d; want CodeRateLimited", c)
	}
}

func repeat(face, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = face
	}
	return out
}

// TestRefusalsFitDiscord: a refusal that quotes a long input (an unknown
// command name of 3,000 characters) still fits Discord's 2,000-character
// message limit. Found by FuzzRoute.
func TestRefusalsFitDiscord(t *testing.T) {
	tb := newTable(t)
	for _, req := range []*commands.Request{
		{Kind: commands.KindCommand, ChannelID: tb.Channel, UserID: "ann", UserName: "ann", Command: strings.Repeat("x", 3000)},
		{Kind: commands.KindCommand, ChannelID: tb.Channel, UserID: "ann", UserName: "ann", Command: "char", Subcommand: strings.Repeat("<@1>", 1000)},
		{Kind: commands.KindCommand, ChannelID: tb.Channel, UserID: "ann", UserName: "ann", Command: "roll", Options: map[string]string{strings.Repeat("y", 3000): "1"}},
	} {
		resp := tb.Svc.Handle(context.Background(), req)
		if n := len([]rune(resp.Content)); !resp.Ephemeral || n > 2000 || n == 0 {
			t.Errorf("/%.20s…: a refusal of %d characters (ephemeral %v); want one of at most 2,000", req.Command, n, resp.Ephemeral)
		}
	}
}
