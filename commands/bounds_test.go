package commands_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
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
		before := tb.state()
		resp := tb.Do("gm", tc.line)
		tb.Refused(resp, tc.want)
		if after := tb.state(); after != before {
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
	before := tb.state()
	tb.Refused(tb.Do("gm", "/char create name:Extra stats:endure=1"), "This table holds 50 characters, the most a table may hold. Delete one first (/char delete).")
	if tb.state() != before {
		t.Errorf("a refused creation changed the table")
	}
	// An export of 51 characters (made by hand) is refused.
	var ex commands.Export
	if err := json.Unmarshal(exportFile(t, tb, "!gm"), &ex); err != nil {
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
	tb.Refused(importFile(tb, "!gm", data), "The file holds 51 characters; a table holds at most 50.")
}

// TestImportSkipsIDsInLinearTime: an export whose last_character_id is
// 1,000,000 (every id but one deleted) imports with its ids kept: the one
// character keeps id 999,999, and the next one created gets 1,000,001. The
// ids between are skipped, not created and deleted one by one (which held
// the writer for seconds).
func TestImportSkipsIDsInLinearTime(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	tb.OK(tb.Do("!gm", "/char create name:Ada stats:endure=1"))
	var ex commands.Export
	if err := json.Unmarshal(exportFile(t, tb, "!gm"), &ex); err != nil {
		t.Fatal(err)
	}
	ex.Characters[0].ID, ex.LastCharacterID, ex.Events = 999_999, 1_000_000, []*storage.Event{}
	data, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	tb.Channel = "chan-2"
	tb.OK(importFile(tb, "!gm", data))
	tb.OK(tb.Do("!gm", "/char create name:Bea stats:endure=1"))
	err = tb.DB.View(func(tx *storage.Tx) error {
		for name, want := range map[string]uint64{"Ada": 999_999, "Bea": 1_000_001} {
			c, err := tx.CharacterByName("chan-2", name)
			if err != nil {
				return err
			}
			if c.ID != want {
				t.Errorf("%s has id %d; want %d", name, c.ID, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExportTooLarge: a table whose history passes MaxImportSize is refused
// export, saying why, and nothing is attached.
func TestExportTooLarge(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	long := strings.Repeat("a long summary ", 10_000) // 150 KB an event
	err := tb.DB.Update(func(tx *storage.Tx) error {
		for range commands.MaxImportSize/len(long) + 2 {
			if err := tx.AppendEvent(&storage.Event{ChannelID: tb.Channel, Command: "/history", Summary: long}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resp := tb.Do("!gm", "/table export")
	tb.Refused(resp, "cannot be exported in one piece")
	if len(resp.Files) != 0 {
		t.Errorf("a refused export attached %d files", len(resp.Files))
	}
}
