package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/export"
	"github.com/hpkeeper/hpkeeper/storage"
)

// noisyEvents appends n events by the GM to tb's table, each holding a
// summary of size bytes of text that compresses little (as real events'
// states do not), changing character id.
func noisyEvents(t *testing.T, tb *commandstest.Table, id uint64, n, size int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(26, uint64(n)))
	words := []string{"Goblin", "axe", "wound", "parry", "fire", "ooze", "drake", "arrow", "stagger", "bleed"}
	err := tb.DB.Update(func(tx *storage.Tx) error {
		c, err := tx.Character(tb.Channel, id)
		if err != nil {
			return err
		}
		for i := range n {
			var b strings.Builder
			for b.Len() < size {
				fmt.Fprintf(&b, "%s %d ", words[rng.IntN(len(words))], rng.IntN(1000))
			}
			e := &storage.Event{ChannelID: tb.Channel, At: time.Date(2026, 12, 1, 0, 0, i, 0, time.UTC), UserID: "gm", UserName: "gm",
				Command: "/char set", Summary: b.String(), Changes: []storage.Change{{CharacterID: id, Name: c.Name, Before: c, After: c}}}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// reencode returns data decoded as an export File and encoded again in
// one piece, as /table export wrote files before it read in runs.
func reencode(t *testing.T, data []byte) []byte {
	t.Helper()
	var ex export.File
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&ex); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestExportReadsInRuns is the export half of issue 26's "stalls beside
// the writer": a large export held one read transaction over the whole
// history. It now reads the history in runs of storage.CheckpointEvery
// events, each a transaction of its own, and what it writes is the table
// as it stood when the export began: the commands made between its runs
// are not in it. The file is byte for byte the one encoding of the whole
// file would write.
func TestExportReadsInRuns(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:"Bob & <Temp>" stats:"class=fighter level=3 hp=6"`)) // #2
	noisyEvents(t, tb, 1, 2*storage.CheckpointEvery+40, 100)                                   // #3 … #554
	var runs []uint64
	t.Cleanup(export.SetExportRunRead(func(hi uint64) {
		runs = append(runs, hi)
		// Meanwhile: a new character and an event at the table.
		tb.OK(tb.Do("ann", fmt.Sprintf(`/char create name:Late%d stats:"class=fighter level=1 hp=4"`, len(runs))))
	}))
	data := tb.ExportFile("!gm")
	if want := []uint64{256, 512, 554}; fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("the export read runs ending at %v; want %v", runs, want)
	}
	var ex export.File
	if err := json.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Events) != 554 || len(ex.Characters) != 1 || ex.Events[553].Seq != 554 {
		t.Errorf("export: %d events, %d characters; want the 554 events and 1 character of when it began", len(ex.Events), len(ex.Characters))
	}
	if again := reencode(t, data); !bytes.Equal(again, data) {
		t.Errorf("the export is not what one encoding of the file writes:\n%.600s\nwant\n%.600s", data, again)
	}
	if !strings.Contains(string(data), `"name": "Bob & <Temp>"`) {
		t.Errorf("export escapes HTML characters")
	}
}

// TestImportWritesInRuns is the import half of issue 26's "stalls beside
// the writer": an 8 MiB import was one write transaction, which every
// other table's writes waited behind. It now writes its history in runs
// of at most 256 KiB stored, each a write transaction of its own, and
// the table and its characters with the last one: the imported table is
// the exported one.
func TestImportWritesInRuns(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`))
	noisyEvents(t, tb, 1, 300, 4<<10) // 1.2 MB of history, about 600 KiB stored
	data := tb.ExportFile("!gm")
	tb.Channel = "chan-2"
	before := tb.DB.WriterStats().Updates
	tb.OK(tb.ImportFile("!gm", data))
	if n := tb.DB.WriterStats().Updates - before; n < 3 {
		t.Errorf("the import was %d write transactions; want its history in runs of at most 256 KiB stored", n)
	}
	again := tb.ExportFile("!gm")
	if strings.ReplaceAll(string(data), `"chan-1"`, `"chan-2"`) != strings.ReplaceAll(string(again), `"exported_at": "`+exportedAt(t, again), `"exported_at": "`+exportedAt(t, data)) {
		t.Errorf("the imported table exports differently from the file it came from")
	}
	commandstest.WantIn(t, "history of the import", tb.OK(tb.Do("ann", "/history")), "#302")
}

// exportedAt returns the exported_at of an export file.
func exportedAt(t *testing.T, data []byte) string {
	t.Helper()
	m := regexp.MustCompile(`"exported_at": "([^"]*)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no exported_at")
	}
	return string(m[1])
}

// TestImportStopsWhenTheChannelChanges: a table set up in the channel
// while an import writes its history in runs stops the import, which says
// so; the table set up stays as it was made.
func TestImportStopsWhenTheChannelChanges(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`))
	noisyEvents(t, tb, 1, 300, 4<<10)
	data := tb.ExportFile("!gm")
	tb.Channel = "chan-2"
	t.Cleanup(export.SetImportRunWritten(func(run int) {
		if run == 0 {
			tb.OK(tb.Do("!carol", "/table setup system:harm"))
		}
	}))
	tb.Refused(tb.ImportFile("!gm", data), "changed while the import wrote its history")
	commandstest.WantIn(t, "the table set up meanwhile", tb.OK(tb.Do("ann", "/table show")), "harm")
}

// TestExportAndImportArePaidFor: an export pays for what it reads and
// writes (two units for each 32 KiB of history), an import for the file
// it parses and writes, before the work: with 300 units left, a GM is
// refused the export of 6.5 MiB of history and the import of its file,
// told to slow down, and a minute later both pass.
func TestExportAndImportArePaidFor(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`))
	noisyEvents(t, tb, 1, 240, 28<<10)
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	at := func(line string, at time.Time, attach []byte) *commands.Response {
		r := tb.Request("!gm", line)
		r.Now = at
		if attach != nil {
			r.Attachments = map[string]*commands.Attachment{"file": {Filename: "t.json", Data: attach}}
		}
		return tb.Svc.Handle(context.Background(), r)
	}
	spend := func(at time.Time) {
		for range 7 { // 700 units
			tb.Dice.Push(repeatFace(3, 100)...)
			r := tb.Request("!gm", "/roll expr:100d6")
			r.Now = at
			if out := tb.Svc.Handle(context.Background(), r); out.Ephemeral {
				t.Fatalf("a roll of 100 dice: %q", out.Content)
			}
		}
	}
	spend(now)
	out := at("/table export", now, nil)
	if !out.Ephemeral || len(out.Files) != 0 || !strings.Contains(out.Content, "Slow down: exporting events 1 to 242 of this table's history takes 4") {
		t.Errorf("export with 300 units left: %q; want a slow-down", out.Content)
	}
	out = at("/table export", now.Add(time.Minute), nil)
	if len(out.Files) != 1 {
		t.Fatalf("export a minute later: %q", out.Content)
	}
	data := out.Files[0].Data
	tb.Channel = "chan-2"
	later := now.Add(2 * time.Minute)
	spend(later)
	if out := at("/table import file:t.json", later, data); !strings.Contains(out.Content, "Slow down: importing this file takes 4") {
		t.Errorf("import with 300 units left: %q; want a slow-down", out.Content)
	}
	if out := at("/table import file:t.json", later.Add(time.Minute), data); out.Ephemeral {
		t.Errorf("import a minute later: %q", out.Content)
	}
}

// repeatFace returns n dice showing face.
func repeatFace(face, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = face
	}
	return out
}
