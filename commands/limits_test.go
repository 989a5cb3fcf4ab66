package commands_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// checkDiscordLimits fails when resp breaks a limit Discord enforces on a
// message (it would refuse the whole reply).
func checkDiscordLimits(t *testing.T, resp *commands.Response) {
	t.Helper()
	if n := utf8.RuneCountInString(resp.Content); n > 2000 {
		t.Errorf("content is %d characters; Discord allows 2000", n)
	}
	total := 0
	for _, e := range resp.Embeds {
		total += utf8.RuneCountInString(e.Title + e.Description + e.Footer)
		if len(e.Fields) > 25 {
			t.Errorf("embed has %d fields; Discord allows 25", len(e.Fields))
		}
		for _, f := range e.Fields {
			if n := utf8.RuneCountInString(f.Value); n > 1024 {
				t.Errorf("field %q is %d characters; Discord allows 1024", f.Name, n)
			}
			total += utf8.RuneCountInString(f.Name + f.Value)
		}
	}
	if total > 6000 {
		t.Errorf("embeds total %d characters; Discord allows 6000", total)
	}
}

func TestLongListsFitDiscord(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	for i := 0; i < 60; i++ {
		tb.OK(tb.Do("ann", fmt.Sprintf("/char create name:Character-with-a-long-name-%02d stats:hp=1", i)))
	}
	for _, line := range []string{"/table show", "/char list", "/history"} {
		resp := tb.Do("bob", line)
		checkDiscordLimits(t, resp)
		if out := commandstest.Text(resp); !strings.Contains(out, "more") && !strings.Contains(out, "Older events: /history before:#") {
			t.Errorf("%s = %q; want it to say that more are not shown", line, out)
		}
	}
	// A very long heroic text or description is clipped, not refused.
	resp := &commands.Response{Embeds: []commands.Embed{{Description: strings.Repeat("x", 5000), Fields: make([]commands.Field, 30)}}}
	for i := range resp.Embeds[0].Fields {
		resp.Embeds[0].Fields[i] = commands.Field{Name: "f", Value: strings.Repeat("y", 2000)}
	}
	commands.FitLimits(resp)
	checkDiscordLimits(t, resp)
}
