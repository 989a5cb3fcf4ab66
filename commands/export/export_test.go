package export_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/export"
	"github.com/hpkeeper/hpkeeper/storage"
)

func newTable(t *testing.T) *commandstest.Table {
	return commandstest.New(t, commandstest.Systems()...)
}

func TestExportImportRoundTrip(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!carol", "/table setup system:hit-protection"))
	tb.OK(tb.Do("!carol", "/table option name:catch-breath value:off"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=1 hp=8"`))
	tb.OK(tb.Do("bob", `/char create name:"Bob & <Temp>" stats:"class=fighter level=1 hp=6"`))
	tb.OK(tb.Do("ann", `/char create name:Rimmer stats:"class=fighter level=1 hp=6"`))
	del := tb.Do("bob", `/char delete name:"Bob & <Temp>"`)
	tb.OK(tb.Press("bob", del, "Delete"))
	tb.Dice.Push(2)
	tb.OK(tb.Do("ann", "/damage target:Lister amount:1d6"))
	tb.OK(tb.Do("!carol", "/clock action:advance amount:3 unit:turns"))

	tb.Refused(tb.Do("ann", "/table export"), "Only a GM")
	data := tb.ExportFile("!carol")
	var ex export.File
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"name": "Bob & <Temp>"`) {
		t.Errorf("export escapes HTML characters")
	}
	if ex.Format != "hpkeeper-table" || ex.Version != 1 || len(ex.Characters) != 2 || ex.LastCharacterID != 3 || ex.Table.Clock != 30 {
		t.Fatalf("export: format %q v%d, %d characters, last id %d, clock %d", ex.Format, ex.Version, len(ex.Characters), ex.LastCharacterID, ex.Table.Clock)
	}

	// Into a new channel.
	tb.Channel = "chan-2"
	tb.Refused(tb.ImportFile("ann", data), "Only a GM")
	out := tb.OK(tb.ImportFile("!carol", data))
	if !strings.Contains(out, "2 characters") {
		t.Errorf("import reply %q", out)
	}
	tb.Refused(tb.ImportFile("!carol", data), "already has a table")

	// Identical state: exporting the copy gives the same file, channel aside.
	again := tb.ExportFile("!carol")
	var ex2 export.File
	if err := json.Unmarshal(again, &ex2); err != nil {
		t.Fatal(err)
	}
	ex.ExportedAt = ex2.ExportedAt
	a, _ := json.Marshal(ex)
	b, _ := json.Marshal(ex2)
	if want := strings.ReplaceAll(string(a), `"chan-1"`, `"chan-2"`); want != string(b) {
		t.Fatalf("round trip differs:\nwant %s\n got %s", want, b)
	}

	// The copy plays on: history, undo, and ids are never reused.
	if h := tb.OK(tb.Do("ann", "/history")); !strings.Contains(h, "Lister") {
		t.Errorf("history: %s", h)
	}
	tb.OK(tb.Do("ann", `/char create name:Kryten stats:"class=fighter level=1 hp=6"`))
	tb.OK(tb.Press("ann", tb.Do("ann", "/undo"), "Undo"))
	tb.OK(tb.Do("ann", `/char create name:Kryten stats:"class=fighter level=1 hp=6"`))
	var ex3 export.File
	if err := json.Unmarshal(tb.ExportFile("!carol"), &ex3); err != nil {
		t.Fatal(err)
	}
	if n := len(ex3.Characters); n != 3 || ex3.Characters[2].ID != 5 {
		t.Errorf("after import, Kryten has id %d; want 5 (ids 3 and 4 are used)", ex3.Characters[n-1].ID)
	}
}

func TestImportRefusesBadFiles(t *testing.T) {
	tb := newTable(t)
	for _, c := range []struct{ file, want string }{
		{`not json`, "not an hpkeeper export"},
		{`{"format":"other","version":1}`, "not an hpkeeper table export"},
		{`{"format":"hpkeeper-table","version":3}`, "version 3; this bot reads versions 1 to 2"},
		{`{"format":"hpkeeper-table","version":0}`, "version 0"},
		{`{"format":"hpkeeper-table","version":2,"table":{"system":"harm","initiative":{"combatants":[{"character_id":4}],"turn":0,"start":0,"joins":1}}}`, "names character 4"},
		{`{"format":"hpkeeper-table","version":2,"table":{"system":"harm","clock":3,"initiative":{"combatants":[],"turn":1,"start":0,"joins":1}}}`, "does not hang together"},
		{`{"format":"hpkeeper-table","version":1}`, "no table"},
		{`{"format":"hpkeeper-table","version":1,"table":{"system":"chess"}}`, "does not know"},
		{`{"format":"hpkeeper-table","version":1,"table":{"system":"harm"},"last_character_id":1,"characters":[{"id":1,"name":"A,B"}]}`, "comma"},
		{`{"format":"hpkeeper-table","version":1,"table":{"system":"harm"},"events":[{"seq":2}]}`, "out of sequence"},
		{`{"format":"hpkeeper-table","version":1,"table":{"system":"harm"},"surprise":1}`, "unknown field"},
	} {
		tb.Refused(tb.ImportFile("!carol", []byte(c.file)), c.want)
	}
	tb.Refused(tb.Do("!carol", "/table import file:x.json"), "Attach the JSON file")

	// The file is downloaded only for a GM, and a failed download says so.
	fetched := 0
	req := tb.Request("ann", "/table import file:x.json")
	req.Attachments = map[string]*commands.Attachment{"file": {Filename: "x.json", Fetch: func(context.Context) ([]byte, error) {
		fetched++
		return nil, errors.New("HTTP 404")
	}}}
	tb.Refused(tb.Svc.Handle(context.Background(), req), "Only a GM")
	if fetched != 0 {
		t.Errorf("fetched the file %d times for a player", fetched)
	}
	req = tb.Request("!carol", "/table import file:x.json")
	req.Attachments = map[string]*commands.Attachment{"file": {Filename: "x.json", Size: 9 << 20, Fetch: func(context.Context) ([]byte, error) {
		fetched++
		return nil, nil
	}}}
	tb.Refused(tb.Svc.Handle(context.Background(), req), "at most")
	if fetched != 0 {
		t.Errorf("fetched a file too big to import")
	}
	req = tb.Request("!carol", "/table import file:x.json")
	req.Attachments = map[string]*commands.Attachment{"file": {Filename: "x.json", Fetch: func(context.Context) ([]byte, error) {
		fetched++
		return nil, errors.New("HTTP 404")
	}}}
	tb.Refused(tb.Svc.Handle(context.Background(), req), "Could not download the file from Discord (HTTP 404)")
}

// TestExportVersionOfParts: events about a hidden character carry parts
// (storage.EventPart), which a reader of version 1 would refuse as an
// unknown field, so such a file is version 2; imported, the history still
// shows players only the hidden character's word.
func TestExportVersionOfParts(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`))
	if v1 := tb.ExportFile("!gm"); !strings.Contains(string(v1), `"version": 1`) || strings.Contains(string(v1), `"parts"`) {
		t.Errorf("export without hidden characters: %.200s; want version 1 without parts", v1)
	}
	commandstest.Text(tb.Do("!gm", `/char create name:Goblin stats:"class=cleric level=9 hit-die=d12 hp=11 hidden=true"`))
	tb.Dice.Push(5)
	commandstest.Text(tb.Do("!gm", "/damage target:Goblin amount:1d6"))
	data := tb.ExportFile("!gm")
	var ex export.File
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Version != 2 || ex.Table.Initiative != nil || !strings.Contains(string(data), `"parts"`) {
		t.Fatalf("export with a hidden character's events: version %d, %.300s; want version 2 with parts", ex.Version, data)
	}
	tb.Channel = "chan-2"
	tb.OK(tb.ImportFile("!gm", data))
	hist := tb.OK(tb.Do("ann", "/history"))
	if strings.Contains(hist, "[5]") || strings.Contains(hist, "HP 11") || strings.Contains(hist, "→ 6") {
		t.Errorf("player /history after import shows the hidden Goblin's numbers: %q", hist)
	}
	commandstest.WantIn(t, "player /history after import", hist, "Goblin: Wounded")
}

// TestExportHoldsWholeStates: storage keeps only what each event changed,
// but an export writes every event whole, as the formats of versions 1 and
// 2 have it (older bots read those): each change's before state is the
// character as it was read just before the command (nil for a creation),
// its after state the character just after (nil for a deletion), and the
// same for the table's states.
func TestExportHoldsWholeStates(t *testing.T) {
	tb := newTable(t)
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// states reads the table and each character, encoded, after event seq.
	type states struct {
		table string
		chars map[uint64]string
	}
	var after []states // after[seq]
	read := func() {
		st := states{table: "null", chars: map[uint64]string{}}
		if err := tb.DB.View(func(tx *storage.Tx) error {
			seq, err := tx.LastEventSeq(tb.Channel)
			if err != nil {
				return err
			}
			if uint64(len(after)) != seq {
				t.Fatalf("event %d after %d states: a command made no event or two", seq, len(after))
			}
			if tbl, err := tx.Table(tb.Channel); err == nil {
				st.table = enc(tbl)
			}
			cs, err := tx.Characters(tb.Channel)
			for _, c := range cs {
				st.chars[c.ID] = enc(c)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		after = append(after, st)
	}
	read() // before event 1
	do := func(user, line string) *commands.Response {
		resp := tb.Do(user, line)
		if !resp.Ephemeral {
			read()
		}
		return resp
	}
	do("!gm", "/table setup system:hit-protection")
	do("ann", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`)
	do("bob", `/char create name:Rimmer stats:"class=fighter level=1 hp=6"`)
	do("ann", `/char create name:Kryten stats:"class=fighter level=1 hp=6"`)
	tb.Dice.Push(2)
	do("!gm", "/damage target:Lister,Rimmer amount:1d6")
	do("!gm", "/clock action:advance amount:3 unit:turns")
	do("ann", `/char set name:Kryten stats:hp=2`)
	tb.OK(tb.Press("ann", tb.Do("ann", "/char delete name:Kryten"), "Delete"))
	read()
	do("!gm", "/table option name:catch-breath value:on")
	do("!gm", "/undo")
	do("bob", `/char set name:Rimmer stats:hp=5`)

	var ex export.File
	if err := json.Unmarshal(tb.ExportFile("!gm"), &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Events) != len(after)-1 {
		t.Fatalf("export holds %d events; %d were made", len(ex.Events), len(after)-1)
	}
	orNull := func(s string) string {
		if s == "" {
			return "null"
		}
		return s
	}
	for _, e := range ex.Events {
		was, now := after[e.Seq-1], after[e.Seq]
		for _, c := range e.Changes {
			if got, want := enc(c.Before), orNull(was.chars[c.CharacterID]); got != want {
				t.Errorf("event %d (%s): %s before %s; want %s", e.Seq, e.Command, c.Name, got, want)
			}
			if got, want := enc(c.After), orNull(now.chars[c.CharacterID]); got != want {
				t.Errorf("event %d (%s): %s after %s; want %s", e.Seq, e.Command, c.Name, got, want)
			}
		}
		if e.TableBefore != nil || e.TableAfter != nil {
			if got := enc(e.TableBefore); got != was.table {
				t.Errorf("event %d (%s): table before %s; want %s", e.Seq, e.Command, got, was.table)
			}
			if got := enc(e.TableAfter); got != now.table {
				t.Errorf("event %d (%s): table after %s; want %s", e.Seq, e.Command, got, now.table)
			}
		}
	}
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
	var ex export.File
	if err := json.Unmarshal(tb.ExportFile("!gm"), &ex); err != nil {
		t.Fatal(err)
	}
	ex.Characters[0].ID, ex.LastCharacterID, ex.Events = 999_999, 1_000_000, []*storage.Event{}
	data, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	tb.Channel = "chan-2"
	tb.OK(tb.ImportFile("!gm", data))
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

// TestExportTooLarge: a table whose history passes MaxFileSize is refused
// export, saying why, and nothing is attached.
func TestExportTooLarge(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:harm"))
	long := strings.Repeat("a long summary ", 10_000) // 150 KB an event
	err := tb.DB.Update(func(tx *storage.Tx) error {
		for range commands.MaxFileSize/len(long) + 2 {
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

// TestExportLeavesTheGMInboxOut: the results waiting for a GM are no part
// of the table an export carries (storage.Table.GMInbox).
func TestExportLeavesTheGMInboxOut(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("carol", "/table setup system:hit-protection"))
	tb.OK(tb.Do("carol", "/table gm action:add user:dan"))
	tb.Private(tb.Do("carol", `/char create name:Goblin stats:"class=fighter hp=7 hidden=true"`)) // waits for dan
	if strings.Contains(tb.State(), "GMInbox:[]") || !strings.Contains(tb.State(), "Created **Goblin**") {
		t.Fatalf("state %s; want the creation waiting for dan", tb.State())
	}
	if data := string(tb.ExportFile("carol")); strings.Contains(data, "gm_inbox") || strings.Contains(data, "**Goblin**") {
		t.Errorf("the export carries the GM inbox: %s", data)
	}
}
