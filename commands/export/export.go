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
// work allowance, in units: each can read, encode or decode up to
// commands.MaxFileSize (8 MiB, a few hundred milliseconds of CPU), so one user
// gets five a minute.
const Cost = 200

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
// it) with the table as a JSON file, shown only to the GM.
func tableExport(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	var ex *File
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		if err := commands.RequireGM(r, t, "export the table"); err != nil {
			return err
		}
		var err error
		ex, err = exportTable(tx, t, r.Now)
		return err
	})
	if err != nil {
		return nil, err
	}
	// Without HTML escaping, sheets keep the bytes storage holds.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ex); err != nil {
		return nil, fmt.Errorf("encode export: %w", err)
	}
	data := buf.Bytes()
	if len(data) > commands.MaxFileSize {
		return nil, tooBigToExport(len(data))
	}
	return &commands.Response{
		Content: fmt.Sprintf("Table export: %s, %s, %s, format %s version %d. `/table import` in a new channel restores it.",
			ex.Table.System, commands.Count(len(ex.Characters), "character"), commands.Count(len(ex.Events), "event"), Format, ex.Version),
		Files:     []commands.File{{Name: "hpkeeper-table.json", ContentType: "application/json", Data: data}},
		Ephemeral: true,
	}, nil
}

// tooBigToExport is the refusal of an export of more than commands.MaxFileSize
// bytes (at least size).
func tooBigToExport(size int) error {
	return commands.Errorf(commands.CodeInvalid, "This table's export would pass %d bytes (%d and counting); a file may hold at most %d (Discord's upload limit), so it cannot be exported in one piece.", commands.MaxFileSize, size, commands.MaxFileSize)
}

// exportTable reads everything of table t, and refuses (tooBigToExport) a
// history too large to export.
func exportTable(tx *storage.Tx, t *storage.Table, now time.Time) (*File, error) {
	chars, err := tx.Characters(t.ChannelID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(chars, func(a, b *storage.Character) int { return compareID(a.ID, b.ID) })
	// The GM inbox is no part of the table's state (storage.Table.GMInbox).
	ex := &File{Format: Format, Version: Version, ExportedAt: now.UTC(), Table: t.Undoable(),
		Characters: chars, Events: []*storage.Event{}}
	for _, c := range chars {
		ex.LastCharacterID = max(ex.LastCharacterID, c.ID)
	}
	// Reading stops, and the export is refused, once the events' JSON alone
	// passes commands.MaxFileSize: a long history is not read whole to be refused.
	size := 0
	err = tx.EachEventBackward(t.ChannelID, func(e *storage.Event) (bool, error) {
		ex.Events = append(ex.Events, e)
		for _, ch := range e.Changes {
			ex.LastCharacterID = max(ex.LastCharacterID, ch.CharacterID)
		}
		b, err := json.Marshal(e)
		if err != nil {
			return false, fmt.Errorf("encode event %d: %w", e.Seq, err)
		}
		if size += len(b); size > commands.MaxFileSize {
			return false, tooBigToExport(size)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(ex.Events)
	ex.Version = exportVersion(ex)
	return ex, nil
}

// exportVersion is the oldest version that holds everything in ex: 2 when
// a turn order is in it (the table's, or one in an event's table states)
// or an event has parts, else 1, so that a file with neither stays
// readable by a reader of version 1 (which refuses unknown fields).
func exportVersion(ex *File) int {
	if ex.Table.Initiative != nil {
		return 2
	}
	for _, e := range ex.Events {
		if len(e.Parts) > 0 || e.TableBefore != nil && e.TableBefore.Initiative != nil || e.TableAfter != nil && e.TableAfter.Initiative != nil {
			return 2
		}
	}
	return 1
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
// channel, which must have no table and no history, in one write
// transaction. The caller must be a GM by permission (Manage Channels), as
// the channel has no table yet; the imported GMs are kept.
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
	data := a.Data
	if data == nil {
		var err error
		if data, err = a.Fetch(ctx); err != nil {
			return nil, commands.Errorf(commands.CodeInvalid, "Could not download the file from Discord (%s); try again.", commands.Clip(err.Error(), 120))
		}
	}
	ex, err := Parse(data)
	if err != nil {
		return nil, err
	}
	sys, err := s.System(ex.Table.System)
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "The file's table plays %q, which this bot does not know.", commands.Clip(ex.Table.System, 40))
	}
	// The history is encoded here, outside the write transaction: it is
	// most of an import's work (the writer stores it only).
	events, err := moveEvents(ex.Events, r)
	if err != nil {
		return nil, err
	}
	err = s.Update(r, func(tx *storage.Tx) error {
		if _, err := tx.Table(r.ChannelID); err == nil {
			return commands.Errorf(commands.CodeConflict, "This channel already has a table. Import into a new channel or thread, which has none.")
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if last, err := tx.LastEventSeq(r.ChannelID); err != nil {
			return err
		} else if last != 0 {
			return commands.Errorf(commands.CodeConflict, "This channel has a history (%s) from an earlier table; import into a new channel or thread.", commands.Count(int(last), "event"))
		}
		return restore(tx, sys, ex, events, r)
	})
	if err != nil {
		return nil, err
	}
	return &commands.Response{Content: fmt.Sprintf("Imported %s table: %s, %s, clock %s. /table show lists it.",
		commands.Indefinite("**"+ex.Table.System+"**"), commands.Count(len(ex.Characters), "character"), commands.Count(len(ex.Events), "event"), clock.Time(ex.Table.Clock).String())}, nil
}

// Parse decodes and checks an export file (format, version, and that
// its records hang together); a bad file is a CodeInvalid error.
func Parse(data []byte) (*File, error) {
	if len(data) > commands.MaxFileSize {
		return nil, commands.Errorf(commands.CodeInvalid, "The file is %d bytes; an export holds at most %d.", len(data), commands.MaxFileSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var ex File
	if err := dec.Decode(&ex); err != nil {
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
	return &ex, nil
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
// for storage.
func moveEvents(evs []*storage.Event, r *commands.Request) ([]storage.EncodedEvent, error) {
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
