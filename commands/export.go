package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The export format (docs/export-format.md).
const (
	// ExportFormat names the format in every export file.
	ExportFormat = "hpkeeper-table"
	// ExportVersion is the version /table export writes and /table import reads.
	ExportVersion = 1
	// MaxImportSize bounds an import file, in bytes.
	MaxImportSize = 8 << 20
)

// Export is a whole table as /table export writes it: settings, characters,
// clock and history (docs/export-format.md). Records are storage's own
// JSON, so an export holds exactly what the database holds.
type Export struct {
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
func tableExport(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var ex *Export
	err := s.view(r, func(tx *storage.Tx, t *storage.Table) error {
		if err := requireGM(r, t, "export the table"); err != nil {
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
	if len(data) > MaxImportSize {
		return nil, Errorf(CodeInvalid, "This table's export would be %d bytes; a file may hold at most %d (Discord's upload limit), so it cannot be exported in one piece.", len(data), MaxImportSize)
	}
	return &Response{
		Content: fmt.Sprintf("Table export: %s, %s, %s, format %s version %d. `/table import` in a new channel restores it.",
			ex.Table.System, count(len(ex.Characters), "character"), count(len(ex.Events), "event"), ExportFormat, ExportVersion),
		Files:     []File{{Name: "hpkeeper-table.json", ContentType: "application/json", Data: data}},
		Ephemeral: true,
	}, nil
}

// exportTable reads everything of table t.
func exportTable(tx *storage.Tx, t *storage.Table, now time.Time) (*Export, error) {
	chars, err := tx.Characters(t.ChannelID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(chars, func(a, b *storage.Character) int { return compareID(a.ID, b.ID) })
	ex := &Export{Format: ExportFormat, Version: ExportVersion, ExportedAt: now.UTC(), Table: t,
		Characters: chars, Events: []*storage.Event{}}
	for _, c := range chars {
		ex.LastCharacterID = max(ex.LastCharacterID, c.ID)
	}
	err = tx.EachEventBackward(t.ChannelID, func(e *storage.Event) (bool, error) {
		ex.Events = append(ex.Events, e)
		for _, ch := range e.Changes {
			ex.LastCharacterID = max(ex.LastCharacterID, ch.CharacterID)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(ex.Events)
	return ex, nil
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
func tableImport(ctx context.Context, s *Service, r *Request) (*Response, error) {
	if !r.hasManageChannels() {
		return nil, Errorf(CodeForbidden, "Only a GM (Manage Channels in this channel) can import a table.")
	}
	a := r.Attachments["file"]
	if a == nil || a.Data == nil && a.Fetch == nil {
		return nil, Errorf(CodeInvalid, "Attach the JSON file that /table export gave.")
	}
	if a.Size > MaxImportSize {
		return nil, Errorf(CodeInvalid, "The file is %d bytes; an export holds at most %d.", a.Size, MaxImportSize)
	}
	data := a.Data
	if data == nil {
		var err error
		if data, err = a.Fetch(ctx); err != nil {
			return nil, Errorf(CodeInvalid, "Could not download the file from Discord (%s); try again.", Clip(err.Error(), 120))
		}
	}
	ex, err := ParseExport(data)
	if err != nil {
		return nil, err
	}
	sys, err := s.system(ex.Table.System)
	if err != nil {
		return nil, Errorf(CodeInvalid, "The file's table plays %q, which this bot does not know.", Clip(ex.Table.System, 40))
	}
	err = s.db.Update(func(tx *storage.Tx) error {
		if _, err := tx.Table(r.ChannelID); err == nil {
			return Errorf(CodeConflict, "This channel already has a table. Import into a new channel or thread, which has none.")
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if last, err := tx.LastEventSeq(r.ChannelID); err != nil {
			return err
		} else if last != 0 {
			return Errorf(CodeConflict, "This channel has a history (%d events) from an earlier table; import into a new channel or thread.", last)
		}
		return restore(tx, sys, ex, r)
	})
	if err != nil {
		return nil, err
	}
	return &Response{Content: fmt.Sprintf("Imported a **%s** table: %s, %s, clock %s. /table show lists it.",
		ex.Table.System, count(len(ex.Characters), "character"), count(len(ex.Events), "event"), clock.Time(ex.Table.Clock).String())}, nil
}

// ParseExport decodes and checks an export file (format, version, and that
// its records hang together); a bad file is a CodeInvalid error.
func ParseExport(data []byte) (*Export, error) {
	if len(data) > MaxImportSize {
		return nil, Errorf(CodeInvalid, "The file is %d bytes; an export holds at most %d.", len(data), MaxImportSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var ex Export
	if err := dec.Decode(&ex); err != nil {
		return nil, Errorf(CodeInvalid, "The file is not an hpkeeper export: %s.", Clip(err.Error(), 200))
	}
	if ex.Format != ExportFormat {
		return nil, Errorf(CodeInvalid, "The file is not an hpkeeper table export (format %q).", Clip(ex.Format, 40))
	}
	if ex.Version != ExportVersion {
		return nil, Errorf(CodeInvalid, "The file is export version %d; this bot reads version %d.", ex.Version, ExportVersion)
	}
	if ex.Table == nil {
		return nil, Errorf(CodeInvalid, "The file has no table.")
	}
	if ex.Table.Clock < 0 {
		return nil, Errorf(CodeInvalid, "The file's clock is negative.")
	}
	names := map[string]bool{}
	var lastID uint64
	for i, c := range ex.Characters {
		if c == nil || c.ID == 0 || c.ID <= lastID || c.ID > ex.LastCharacterID {
			return nil, Errorf(CodeInvalid, "Character %d of the file has a bad id (ids rise from 1 up to last_character_id).", i+1)
		}
		lastID = c.ID
		if err := checkName(c.Name); err != nil {
			return nil, err
		}
		key := foldName(c.Name)
		if names[key] {
			return nil, Errorf(CodeInvalid, "The file has two characters named %s.", Escape(c.Name))
		}
		names[key] = true
	}
	if ex.LastCharacterID > 1_000_000 {
		return nil, Errorf(CodeInvalid, "The file's last_character_id %d is too large.", ex.LastCharacterID)
	}
	for i, e := range ex.Events {
		if e == nil || e.Seq != uint64(i+1) {
			return nil, Errorf(CodeInvalid, "Event %d of the file is out of sequence (events are numbered 1, 2, 3 …).", i+1)
		}
		for _, ch := range e.Changes {
			if ch.CharacterID == 0 || ch.CharacterID > ex.LastCharacterID ||
				(ch.Before != nil && ch.Before.ID != ch.CharacterID) || (ch.After != nil && ch.After.ID != ch.CharacterID) {
				return nil, Errorf(CodeInvalid, "Event %d of the file changes a character with a bad id.", e.Seq)
			}
		}
	}
	return &ex, nil
}

// foldName is the case-insensitive key of a character name.
func foldName(s string) string { return strings.ToLower(s) }

// restore writes ex into the empty channel of r: the history with its
// sequence numbers, the table, and the characters with their ids
// (placeholders fill the ids of deleted characters, then go, so that ids are
// never reused).
// Every record moves to the request's channel and guild; the tracker message
// stays behind.
func restore(tx *storage.Tx, sys System, ex *Export, r *Request) error {
	// The history first: storage keeps an event whole unless its after
	// states are the records the file holds, so events written before the
	// records they lead to never depend on the file's history agreeing with
	// itself (storage.Tx.AppendEvent).
	for _, e := range ex.Events {
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
		if err := tx.AppendEvent(&n); err != nil {
			return err
		}
		if n.Seq != e.Seq {
			return fmt.Errorf("import: event got seq %d, want %d", n.Seq, e.Seq)
		}
	}
	t := moveTable(ex.Table, r)
	if t.Options == nil {
		t.Options = defaultOptions(sys)
	}
	if err := tx.PutTable(t); err != nil {
		return err
	}
	byID := map[uint64]*storage.Character{}
	for _, c := range ex.Characters {
		byID[c.ID] = c
	}
	for id := uint64(1); id <= ex.LastCharacterID; id++ {
		c := byID[id]
		placeholder := c == nil
		if placeholder {
			c = &storage.Character{Name: fmt.Sprintf("\u2060import %d", id)}
		}
		n := moveCharacter(c, r)
		if err := tx.CreateCharacter(n); err != nil {
			return err
		}
		if n.ID != id {
			return fmt.Errorf("import: character %q got id %d, want %d", c.Name, n.ID, id)
		}
		if placeholder {
			if err := tx.DeleteCharacter(r.ChannelID, id); err != nil {
				return err
			}
			continue
		}
		if _, _, err := sys.Describe(n); err != nil {
			return Errorf(CodeInvalid, "Character %s of the file has a sheet the %s system cannot read.", Escape(c.Name), t.System)
		}
	}
	return nil
}

// moveTable returns a copy of t at the request's channel and guild.
func moveTable(t *storage.Table, r *Request) *storage.Table {
	n := *t
	n.ChannelID, n.GuildID, n.TrackerMessageID = r.ChannelID, r.GuildID, ""
	return &n
}

// moveCharacter returns a copy of c at the request's channel (nil for nil).
func moveCharacter(c *storage.Character, r *Request) *storage.Character {
	if c == nil {
		return nil
	}
	n := *c
	n.ChannelID = r.ChannelID
	return &n
}
