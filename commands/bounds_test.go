package commands_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/export"
)

// TestMaxAdvance: an advance past MaxAdvanceDays is refused before any work,
// saying the limit and what to type instead, and that command, typed as
// printed, moves the clock; every unit that can pass the limit is checked.
func TestMaxAdvance(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("gm", `/char create name:Lister stats:"hp=4"`))
	for _, tc := range []struct{ line, want string }{
		{"/clock action:advance amount:10000 unit:days", "The clock moves at most 90 days in one command, longer than any timer runs; 10000 days is more. Move it in steps: `/clock action:advance amount:90 unit:days`, then the rest."},
		{"/clock action:advance amount:91 unit:days", "`/clock action:advance amount:90 unit:days`"},
		{"/clock action:advance amount:2161 unit:hours", "at most 90 days (2160 hours) in one command"},
		{"/clock action:advance amount:10000 unit:hours", "`/clock action:advance amount:2160 unit:hours`"},
	} {
		before := tb.State()
		resp := tb.Do("gm", tc.line)
		tb.Refused(resp, tc.want)
		if after := tb.State(); after != before {
			t.Errorf("%s was refused but changed the table", tc.line)
		}
		_, rest, _ := strings.Cut(resp.Content, "`")
		suggested, _, _ := strings.Cut(rest, "`")
		clock := tb.OK(tb.Do("gm", suggested))
		if !strings.Contains(clock, "The clock moves 90 days") && !strings.Contains(clock, "The clock moves 2160 hours") {
			t.Errorf("the suggested %q = %q; want the clock moved", suggested, clock)
		}
	}
	// At the limits: 90 days, 2160 hours, and the largest amounts of the
	// smaller units (10,000 turns are 69 days).
	for _, line := range []string{"/clock action:advance amount:90 unit:days", "/clock action:advance amount:2160 unit:hours", "/clock action:advance amount:10000 unit:turns", "/clock action:advance amount:10000"} {
		tb.OK(tb.Do("gm", line))
	}
	// /help says the limit before anyone meets the refusal.
	if help := tb.Do("gm", "/help topic:clock"); !strings.Contains(help.Content, "at most 90 days (2160 hours) in one advance") {
		t.Errorf("/help topic:clock = %q; want the advance limit", help.Content)
	}
}

// TestMaxCharacters: a table holds MaxCharacters; /char create and /table
// import refuse more, saying so, and change nothing.
func TestMaxCharacters(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:harm"))
	for i := range commands.MaxCharacters {
		tb.OK(tb.Do("gm", fmt.Sprintf("/char create name:C%d stats:endure=1", i)))
	}
	before := tb.State()
	tb.Refused(tb.Do("gm", "/char create name:Extra stats:endure=1"), "This table holds 50 characters, the most a table may hold. Delete one first (/char delete).")
	if tb.State() != before {
		t.Errorf("a refused creation changed the table")
	}
	// An export of 51 characters (made by hand) is refused.
	var ex export.File
	if err := json.Unmarshal(tb.ExportFile("!gm"), &ex); err != nil {
		t.Fatal(err)
	}
	extra := *ex.Characters[0]
	extra.ID, extra.Name = ex.LastCharacterID+1, "Extra"
	ex.Characters = append(ex.Characters, &extra)
	ex.LastCharacterID++
	data, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	tb.Channel = "chan-2"
	tb.Refused(tb.ImportFile("!gm", data), "The file holds 51 characters; a table holds at most 50.")
}
