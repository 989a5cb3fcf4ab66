// Package export is the export feature of the commands kernel: /table
// export writes a whole table (settings, characters, clock and history) as
// one JSON file in the format of docs/export-format.md, and /table import
// restores such a file into a channel that has no table.
package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The export format (docs/export-format.md).
const (
	// Format names the format in every export file.
	Format = "hpkeeper-table"
	// Version is the newest version /table export writes and /table
	// import reads (it reads every version from 1 up). Version 2 adds two
	// optional fields: the turn order (the table's "initiative", also in
	// events' table states) and the events' parts (storage.EventPart). A
	// file with neither is written as version 1, which a reader of version
	// 1 (refusing unknown fields) still reads (exportVersion).
	Version = 2
)

// Feature is /table export and /table import.
type Feature struct{}

var _ commands.Feature = Feature{}

// Cost is what a /table export or /table import costs from the caller's
// work allowance besides the history it reads or writes, in units. That
// is paid as it goes, one unit for each 32 KiB read and each 32 KiB
// written (storage.ReadSize.Units): up to about 500 units for the largest
// file, commands.MaxFileSize (8 MiB), two a minute.
const Cost = 10

// Register adds /table export and /table import, after /table gm.
func (Feature) Register(g *commands.Registry) {
	g.AddSubcommand("table", "gm",
		&commands.Subcommand{Name: "export", Description: "Download the table as a JSON file (GM only)", Handler: tableExport, Cost: commands.FixedCost(Cost)},
		&commands.Subcommand{Name: "import", Description: "Restore an exported table into this channel, which has none (GM)", Handler: tableImport, Cost: commands.FixedCost(Cost),
			Options: []commands.Option{{Name: "file", Description: "The JSON file /table export gave", Type: commands.OptionAttachment, Required: true}}},
	)
}

// File is a whole table as /table export writes it: settings, characters,
// clock and history (docs/export-format.md). Records are storage's own
// JSON, so an export holds exactly what the database holds.
type File struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
	// Table holds the system, GMs, options and clock.
	Table *storage.Table `json:"table"`
	// LastCharacterID is the highest character id ever used at the table
	// (ids are never reused, so deleted characters count too).
	LastCharacterID uint64 `json:"last_character_id"`
	// Characters are the table's characters in id order.
	Characters []*storage.Character `json:"characters"`
	// Events is the whole history, oldest first, seq 1, 2, 3 …
	Events []*storage.Event `json:"events"`
}

// tableExport answers /table export (GM only: hidden characters are in
// it) with the table as a JSON file, shown only to the GM. It reads the
// table as it stands when it begins, and its history up to there in runs
// of storage.CheckpointEvery events, each in a read transaction of its
// own and paid for before it is read (exportEvents): no transaction lasts
// the whole export, and the work stops, refused, once the file would pass
// commands.MaxFileSize.
func tableExport(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	var ex *File
	var newest uint64
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		if err := commands.RequireGM(r, t, "export the table"); err != nil {
			return err
		}
		chars, err := tx.Characters(t.ChannelID)
		if err != nil {
			return err
		}
		slices.SortFunc(chars, func(a, b *storage.Character) int { return compareID(a.ID, b.ID) })
		// The GM inbox is no part of the table's state (storage.Table.GMInbox).
		ex = &File{Format: Format, Version: Version, ExportedAt: r.Now.UTC(), Table: t.Undoable(), Characters: chars, Events: []*storage.Event{}}
		for _, c := range chars {
			ex.LastCharacterID = max(ex.LastCharacterID, c.ID)
		}
		newest, err = tx.LastEventSeq(t.ChannelID)
		return err
	})
	if err != nil {
		return nil, err
	}
	events, n, err := exportEvents(ctx, s, r, ex, newest)
	if err != nil {
		return nil, err
	}
	data, err := encodeFile(ex, events)
	if err != nil {
		return nil, err
	}
	if len(data) > commands.MaxFileSize {
		return nil, tooBigToExport(len(data))
	}
	return &commands.Response{
		Content: fmt.Sprintf("Table export: %s, %s, %s, format %s version %d. `/table import` in a new channel restores it.",
			ex.Table.System, commands.Count(len(ex.Characters), "character"), commands.Count(n, "event"), Format, ex.Version),
		Files:     []commands.File{{Name: "hpkeeper-table.json", ContentType: "application/json", Data: data}},
		Ephemeral: true,
	}, nil
}

// tooBigToExport is the refusal of an export of more than commands.MaxFileSize
// bytes (at least size).
func tooBigToExport(size int) error {
	return commands.Errorf(commands.CodeInvalid, "This table's export would pass %d bytes (%d and counting); a file may hold at most %d (Discord's upload limit), so it cannot be exported in one piece.", commands.MaxFileSize, size, commands.MaxFileSize)
}

// exportEvents returns the JSON of the events 1 … newest of r's table, as
// the elements of the events array of an export (indented as encodeFile
// places them), and how many there are; it sets ex's LastCharacterID and
// Version from them. It reads them oldest first, a run of
// storage.CheckpointEvery events (from one checkpoint down) in a read
// transaction of its own, paying before each for reading it and for
// encoding it (twice what it parses). Between runs and while it encodes it
// rests as long as it worked (pacer), so that an export takes at most
// half of a CPU from the other tables. It refuses (tooBigToExport) a history whose events alone
// pass commands.MaxFileSize.
func exportEvents(ctx context.Context, s *commands.Service, r *commands.Request, ex *File, newest uint64) ([]byte, int, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // sheets keep the bytes storage holds
	enc.SetIndent("    ", "  ")
	v2, n := false, 0
	p := newPacer(ctx)
	for lo := uint64(1); lo <= newest; lo += storage.CheckpointEvery {
		hi := min(lo+storage.CheckpointEvery-1, newest)
		seqs := make([]uint64, 0, hi-lo+1)
		for seq := lo; seq <= hi; seq++ {
			seqs = append(seqs, seq)
		}
		var run []*storage.Event
		err := s.DB().View(func(tx *storage.Tx) error {
			plan, err := tx.PlanEvents(r.ChannelID, seqs)
			if err != nil {
				return err
			}
			if lo == 1 {
				buf.Grow(int(min(plan.Size().Bytes*(int64(newest)+1)/int64(len(seqs)), commands.MaxFileSize)))
			}
			if err := pay(ctx, s, r, fmt.Sprintf("exporting events %d to %d of this table's history", lo, hi), plan.Size()); err != nil {
				return err
			}
			return tx.ReadEvents(plan, func(e *storage.Event) error {
				run = append(run, e)
				return p.pace()
			})
		})
		if err != nil {
			return nil, 0, err
		}
		if len(run) != len(seqs) {
			return nil, 0, fmt.Errorf("export: %d of the events %d … %d of table %s were read", len(run), lo, hi, r.ChannelID)
		}
		slices.Reverse(run)
		for _, e := range run {
			for _, ch := range e.Changes {
				ex.LastCharacterID = max(ex.LastCharacterID, ch.CharacterID)
			}
			v2 = v2 || eventNeedsVersion2(e)
			if n > 0 {
				buf.WriteString(",\n    ")
			}
			if err := enc.Encode(e); err != nil {
				return nil, 0, fmt.Errorf("encode event %d: %w", e.Seq, err)
			}
			buf.Truncate(buf.Len() - 1) // the Encoder's newline
			n++
			if buf.Len() > commands.MaxFileSize {
				return nil, 0, tooBigToExport(buf.Len())
			}
			if err := p.pace(); err != nil {
				return nil, 0, err
			}
		}
		if exportRunRead != nil {
			exportRunRead(hi)
		}
		if err := p.pace(); err != nil {
			return nil, 0, err
		}
	}
	ex.Version = 1
	if v2 || ex.Table.Initiative != nil {
		ex.Version = 2
	}
	return buf.Bytes(), n, nil
}

// pacer makes a long piece of work rest as long as it worked, every
// paceEvery of work: it takes at most half of a CPU, in bursts that short,
// and leaves the other half to the commands of other tables.
type pacer struct {
	ctx   context.Context
	since time.Time
}

// paceEvery is how long a paced piece of work goes on before it rests.
const paceEvery = 5 * time.Millisecond

func newPacer(ctx context.Context) *pacer { return &pacer{ctx: ctx, since: time.Now()} }

// pace rests when the work has gone on for paceEvery since it last
// rested; it returns ctx's error when ctx ends meanwhile.
func (p *pacer) pace() error {
	worked := time.Since(p.since)
	if worked < paceEvery {
		return nil
	}
	t := time.NewTimer(worked)
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
	p.since = time.Now()
	return nil
}

// pay spends what parsing and encoding size costs (twice its units,
// storage.ReadSize.Units) from the work allowance of r's user, or returns
// the CodeRateLimited refusal saying what (a run of an export, a file to
// import) and how long to wait.
func pay(ctx context.Context, s *commands.Service, r *commands.Request, what string, size storage.ReadSize) error {
	units := 2 * size.Units()
	if ok, wait := s.TakeWork(ctx, r, units); !ok {
		return commands.Errorf(commands.CodeRateLimited, "Slow down: %s takes %d units of work (%d KiB), more than is left of your allowance this minute (you may spend %d a minute). Try again in %d s.",
			what, units, (size.Bytes+1023)/1024, commands.WorkPerMinute, int(math.Ceil(wait.Seconds())))
	}
	return nil
}

// encodeFile returns the JSON of ex, indented, whose events array holds
// events (exportEvents), as one encoding of the whole File writes it.
func encodeFile(ex *File, events []byte) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ex); err != nil { // its Events empty: "events": []
		return nil, fmt.Errorf("encode export: %w", err)
	}
	head, ok := bytes.CutSuffix(buf.Bytes(), []byte("[]\n}\n"))
	if !ok {
		return nil, fmt.Errorf("encode export: the file does not end with its events")
	}
	out := make([]byte, 0, len(head)+len(events)+16)
	out = append(out, head...)
	if len(events) == 0 {
		return append(out, "[]\n}\n"...), nil
	}
	out = append(out, "[\n    "...)
	out = append(out, events...)
	return append(out, "\n  ]\n}\n"...), nil
}

// eventNeedsVersion2 reports whether e holds what only version 2 of the
// format has: a turn order in its table states, or parts. A file with
// neither in its events nor in its table is version 1, readable by a
// reader of version 1 (which refuses unknown fields).
func eventNeedsVersion2(e *storage.Event) bool {
	return len(e.Parts) > 0 || e.TableBefore != nil && e.TableBefore.Initiative != nil || e.TableAfter != nil && e.TableAfter.Initiative != nil
}

func compareID(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tableImport answers /table import: it restores an export into this
// channel, which must have no table and no history. The caller must be a
// GM by permission (Manage Channels), as the channel has no table yet; the
// imported GMs are kept. The caller pays first for parsing and writing
// the file (twice its units, storage.ReadSize.Units). The history is
// encoded outside any transaction and written in runs of at most
// importRun bytes, each its own write transaction, so that the writer
// stores a run between other tables' writes instead of the whole history
// at once; the last run commits with the table and its characters, so
// the table appears whole or not at all. A run finds the channel as the
// run before left it, or the import stops, saying so.
func tableImport(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	if !r.HasManageChannels() {
		return nil, commands.Errorf(commands.CodeForbidden, "Only a GM (Manage Channels in this channel) can import a table.")
	}
	a := r.Attachments["file"]
	if a == nil || a.Data == nil && a.Fetch == nil {
		return nil, commands.Errorf(commands.CodeInvalid, "Attach the JSON file that /table export gave.")
	}
	if a.Size > commands.MaxFileSize {
		return nil, commands.Errorf(commands.CodeInvalid, "The file is %d bytes; an export holds at most %d.", a.Size, commands.MaxFileSize)
	}
	size := max(a.Size, len(a.Data))
	if err := pay(ctx, s, r, "importing this file", storage.ReadSize{Events: 1, Bytes: int64(size)}); err != nil {
		return nil, err
	}
	data := a.Data
	if data == nil {
		var err error
		if data, err = a.Fetch(ctx); err != nil {
			return nil, commands.Errorf(commands.CodeInvalid, "Could not download the file from Discord (%s); try again.", commands.Clip(err.Error(), 120))
		}
	}
	p := newPacer(ctx)
	ex, err := parse(data, p.pace)
	if err != nil {
		return nil, err
	}
	sys, err := s.System(ex.Table.System)
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "The file's table plays %q, which this bot does not know.", commands.Clip(ex.Table.System, 40))
	}
	// The history is encoded here, outside the write transactions: it is
	// most of an import's work (the writer stores it only).
	events, err := moveEvents(p, ex.Events, r)
	if err != nil {
		return nil, err
	}
	runs := importRuns(events)
	for i, run := range runs[:len(runs)-1] {
		if err := p.pace(); err != nil {
			return nil, err
		}
		err := s.DB().Update(func(tx *storage.Tx) error {
			if err := importable(tx, r, runs, i); err != nil {
				return err
			}
			return tx.AppendEncodedEvents(r.ChannelID, run)
		})
		if err != nil {
			return nil, err
		}
		if importRunWritten != nil {
			importRunWritten(i)
		}
	}
	err = s.Update(r, func(tx *storage.Tx) error {
		if err := importable(tx, r, runs, len(runs)-1); err != nil {
			return err
		}
		return restore(tx, sys, ex, runs[len(runs)-1], r)
	})
	if err != nil {
		return nil, err
	}
	return &commands.Response{Content: fmt.Sprintf("Imported %s table: %s, %s, clock %s. /table show lists it.",
		commands.Indefinite("**"+ex.Table.System+"**"), commands.Count(len(ex.Characters), "character"), commands.Count(len(ex.Events), "event"), clock.Time(ex.Table.Clock).String())}, nil
}

// importRun bounds the stored bytes of the events one write transaction
// of an import appends (the whole history of an 8 MiB file is about 3 MiB
// stored): what the writer stores between other tables' writes
// (BENCHMARKS.md).
const importRun = 256 << 10

// exportRunRead, when set (tests), runs after each run of an export has
// been read, with the seq of its newest event.
var exportRunRead func(hi uint64)

// importRunWritten, when set (tests), runs after each run of an import but
// the last has been written.
var importRunWritten func(run int)

// importRuns splits the encoded history evs into runs of at most
// importRun bytes (one event at least); there is always one run, perhaps
// empty.
func importRuns(evs []storage.EncodedEvent) [][]storage.EncodedEvent {
	runs := [][]storage.EncodedEvent{nil}
	size := 0
	for _, e := range evs {
		last := len(runs) - 1
		if len(runs[last]) > 0 && size+e.Size() > importRun {
			runs, last, size = append(runs, nil), last+1, 0
		}
		runs[last] = append(runs[last], e)
		size += e.Size()
	}
	return runs
}

// importable returns nil when the channel of r is as run i of an import
// (runs) finds it: no table, and a history of the runs before it only;
// else the error saying why the import does not (or no longer does) go on.
func importable(tx *storage.Tx, r *commands.Request, runs [][]storage.EncodedEvent, i int) error {
	written := 0
	for _, run := range runs[:i] {
		written += len(run)
	}
	_, err := tx.Table(r.ChannelID)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	last, lerr := tx.LastEventSeq(r.ChannelID)
	if lerr != nil {
		return lerr
	}
	switch {
	case written == 0 && err == nil:
		return commands.Errorf(commands.CodeConflict, "This channel already has a table. Import into a new channel or thread, which has none.")
	case written == 0 && last != 0:
		return commands.Errorf(commands.CodeConflict, "This channel has a history (%s) from an earlier table; import into a new channel or thread.", commands.Count(int(last), "event"))
	case err == nil || last != uint64(written):
		return commands.Errorf(commands.CodeConflict, "This channel changed while the import wrote its history (a table was set up here); the import stopped, and the %s it had written stay in this channel's history. Import into a new channel or thread.", commands.Count(written, "event"))
	}
	return nil
}

// Parse decodes and checks an export file (format, version, and that
// its records hang together); a bad file is a CodeInvalid error.
func Parse(data []byte) (*File, error) { return parse(data, nil) }

// parse is Parse, calling pace (when not nil) after each event decoded,
// so that a long history is decoded in short bursts (pacer).
func parse(data []byte, pace func() error) (*File, error) {
	if len(data) > commands.MaxFileSize {
		return nil, commands.Errorf(commands.CodeInvalid, "The file is %d bytes; an export holds at most %d.", len(data), commands.MaxFileSize)
	}
	ex, err := decodeFile(data, pace)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, commands.Errorf(commands.CodeInvalid, "The file is not an hpkeeper export: %s.", commands.Clip(err.Error(), 200))
	}
	if ex.Format != Format {
		return nil, commands.Errorf(commands.CodeInvalid, "The file is not an hpkeeper table export (format %q).", commands.Clip(ex.Format, 40))
	}
	if ex.Version < 1 || ex.Version > Version {
		return nil, commands.Errorf(commands.CodeInvalid, "The file is export version %d; this bot reads versions 1 to %d.", ex.Version, Version)
	}
	if ex.Table == nil {
		return nil, commands.Errorf(commands.CodeInvalid, "The file has no table.")
	}
	if ex.Table.Clock < 0 {
		return nil, commands.Errorf(commands.CodeInvalid, "The file's clock is negative.")
	}
	if n := len(ex.Characters); n > commands.MaxCharacters {
		return nil, commands.Errorf(commands.CodeInvalid, "The file holds %d characters; a table holds at most %d.", n, commands.MaxCharacters)
	}
	ids := make(map[uint64]bool, len(ex.Characters))
	for _, c := range ex.Characters {
		if c != nil {
			ids[c.ID] = true
		}
	}
	names := map[string]bool{}
	var lastID uint64
	for i, c := range ex.Characters {
		if c == nil || c.ID == 0 || c.ID <= lastID || c.ID > ex.LastCharacterID {
			return nil, commands.Errorf(commands.CodeInvalid, "Character %d of the file has a bad id (ids rise from 1 up to last_character_id).", i+1)
		}
		lastID = c.ID
		if err := commands.CheckName(c.Name); err != nil {
			return nil, err
		}
		key := foldName(c.Name)
		if names[key] {
			return nil, commands.Errorf(commands.CodeInvalid, "The file has two characters named %s.", commands.Escape(c.Name))
		}
		names[key] = true
	}
	if o := ex.Table.Initiative; o != nil {
		for _, cb := range o.Combatants {
			if !ids[cb.CharacterID] {
				return nil, commands.Errorf(commands.CodeInvalid, "The file's turn order names character %d, which is not in the file.", cb.CharacterID)
			}
		}
		if o.Turn < 0 || o.Turn > len(o.Combatants) || len(o.Combatants) > commands.MaxCombatants || o.Start < 0 || o.Start > ex.Table.Clock {
			return nil, commands.Errorf(commands.CodeInvalid, "The file's turn order does not hang together (turn %d of %d combatants, start %d).", o.Turn, len(o.Combatants), o.Start)
		}
	}
	if ex.LastCharacterID > 1_000_000 {
		return nil, commands.Errorf(commands.CodeInvalid, "The file's last_character_id %d is too large.", ex.LastCharacterID)
	}
	for i, e := range ex.Events {
		if e == nil || e.Seq != uint64(i+1) {
			return nil, commands.Errorf(commands.CodeInvalid, "Event %d of the file is out of sequence (events are numbered 1, 2, 3 …).", i+1)
		}
		for _, ch := range e.Changes {
			if ch.CharacterID == 0 || ch.CharacterID > ex.LastCharacterID ||
				(ch.Before != nil && ch.Before.ID != ch.CharacterID) || (ch.After != nil && ch.After.ID != ch.CharacterID) {
				return nil, commands.Errorf(commands.CodeInvalid, "Event %d of the file changes a character with a bad id.", e.Seq)
			}
		}
	}
	return ex, nil
}

// decodeFile decodes an export file as json.Decoder decodes a File with
// unknown fields refused, one event at a time, calling pace (when not nil)
// after each.
func decodeFile(data []byte, pace func() error) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var ex File
	if err := wantDelim(dec, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v any
		switch key {
		case "format":
			v = &ex.Format
		case "version":
			v = &ex.Version
		case "exported_at":
			v = &ex.ExportedAt
		case "table":
			v = &ex.Table
		case "last_character_id":
			v = &ex.LastCharacterID
		case "characters":
			v = &ex.Characters
		case "events":
			if err := decodeEvents(dec, &ex, pace); err != nil {
				return nil, err
			}
			continue
		default:
			return nil, fmt.Errorf("json: unknown field %q", key)
		}
		if err := dec.Decode(v); err != nil {
			return nil, err
		}
	}
	if err := wantDelim(dec, '}'); err != nil {
		return nil, err
	}
	return &ex, nil
}

// decodeEvents decodes the events array of an export into ex (null: none),
// calling pace after each event.
func decodeEvents(dec *json.Decoder, ex *File, pace func() error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		ex.Events = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("json: cannot unmarshal %v into the events of a File", tok)
	}
	ex.Events = []*storage.Event{}
	for dec.More() {
		var e *storage.Event
		if err := dec.Decode(&e); err != nil {
			return err
		}
		ex.Events = append(ex.Events, e)
		if pace != nil {
			if err := pace(); err != nil {
				return err
			}
		}
	}
	return wantDelim(dec, ']')
}

// wantDelim reads the next token of dec, which must be the delimiter d.
func wantDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("json: want %v, got %v", d, tok)
	}
	return nil
}

// foldName is the case-insensitive key of a character name.
func foldName(s string) string { return strings.ToLower(s) }

// restore writes ex into the empty channel of r: the table, the characters
// with their ids (the ids of deleted characters are skipped, so that ids are
// never reused, in time linear in the characters) and the history, events
// (moveEvents), with its sequence numbers.
// Every record moves to the request's channel and guild; the tracker message
// stays behind.
func restore(tx *storage.Tx, sys commands.System, ex *File, events []storage.EncodedEvent, r *commands.Request) error {
	t := moveTable(ex.Table, r)
	if t.Options == nil {
		t.Options = commands.DefaultOptions(sys)
	}
	if err := tx.PutTable(t); err != nil {
		return err
	}
	for _, c := range ex.Characters { // in rising id order (Parse)
		if err := tx.SkipCharacterIDs(r.ChannelID, c.ID-1); err != nil {
			return err
		}
		n := moveCharacter(c, r)
		if err := tx.CreateCharacter(n); err != nil {
			return err
		}
		if n.ID != c.ID {
			return fmt.Errorf("import: character %q got id %d, want %d", c.Name, n.ID, c.ID)
		}
		if _, _, err := sys.Describe(n); err != nil {
			return commands.Errorf(commands.CodeInvalid, "Character %s of the file has a sheet the %s system cannot read.", commands.Escape(c.Name), t.System)
		}
	}
	if err := tx.SkipCharacterIDs(r.ChannelID, ex.LastCharacterID); err != nil {
		return err
	}
	return tx.AppendEncodedEvents(r.ChannelID, events)
}

// moveEvents returns the events of an export moved to the request's channel
// and guild (as moveTable and moveCharacter move their records), encoded
// for storage, paced by p.
func moveEvents(p *pacer, evs []*storage.Event, r *commands.Request) ([]storage.EncodedEvent, error) {
	out := make([]storage.EncodedEvent, 0, len(evs))
	for _, e := range evs {
		n := *e
		n.ChannelID = r.ChannelID
		if n.TableBefore != nil {
			n.TableBefore = moveTable(n.TableBefore, r)
		}
		if n.TableAfter != nil {
			n.TableAfter = moveTable(n.TableAfter, r)
		}
		n.Changes = nil
		if e.Changes != nil {
			n.Changes = make([]storage.Change, len(e.Changes))
		}
		for i, ch := range e.Changes {
			ch.Before, ch.After = moveCharacter(ch.Before, r), moveCharacter(ch.After, r)
			n.Changes[i] = ch
		}
		enc, err := storage.EncodeEvent(&n)
		if err != nil {
			return nil, err
		}
		out = append(out, enc)
		if err := p.pace(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// moveTable returns a copy of t at the request's channel and guild, with
// no tracker and an empty GM inbox.
func moveTable(t *storage.Table, r *commands.Request) *storage.Table {
	n := *t.Undoable()
	n.ChannelID, n.GuildID, n.TrackerMessageID = r.ChannelID, r.GuildID, ""
	return &n
}

// moveCharacter returns a copy of c at the request's channel (nil for nil).
func moveCharacter(c *storage.Character, r *commands.Request) *storage.Character {
	if c == nil {
		return nil
	}
	n := *c
	n.ChannelID = r.ChannelID
	return &n
}
