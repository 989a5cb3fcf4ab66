package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// Cast is the characters one mutation loads and changes. Each is loaded
// once, with its state before the change remembered, so that the event
// records the before and after of every character the mutation touched
// (RULES.md §0.5), and hidden.go knows whom each part of the reply is
// about. Handlers reach it through the Mutation, which embeds it.
type Cast struct {
	tx        *storage.Tx
	channelID string
	seen      map[uint64]bool
	cache     map[uint64]*storage.Character
	before    map[uint64]*storage.Character
	// touched are the ids of the characters loaded or created, in that
	// order; named those the caller named (by name or by a button), whose
	// word players read even when it stays the same (Mutation.worded).
	touched []uint64
	named   map[uint64]bool
}

// newCast returns the empty cast of a mutation of the channel's table in
// transaction tx.
func newCast(tx *storage.Tx, channelID string) *Cast {
	return &Cast{tx: tx, channelID: channelID, seen: map[uint64]bool{},
		cache: map[uint64]*storage.Character{}, before: map[uint64]*storage.Character{}, named: map[uint64]bool{}}
}

// Tx returns the write transaction, for reads the helpers do not cover. Load
// characters you will change through Character, CharacterByID or Characters,
// so that their state before the change is recorded.
func (cs *Cast) Tx() *storage.Tx { return cs.tx }

// Character returns the named character (case-insensitive), remembering its
// state before the change. Several calls for one character return the same
// value. A missing name is a CodeNotFound error.
func (cs *Cast) Character(name string) (*storage.Character, error) {
	c, err := CharacterByName(cs.tx, cs.channelID, name)
	if err != nil {
		return nil, err
	}
	cs.named[c.ID] = true
	return cs.track(c)
}

// Characters returns every character at the table in creation order,
// remembering their state before the change.
func (cs *Cast) Characters() ([]*storage.Character, error) {
	all, err := cs.tx.Characters(cs.channelID)
	if err != nil {
		return nil, err
	}
	for i, c := range all {
		if all[i], err = cs.track(c); err != nil {
			return nil, err
		}
	}
	return all, nil
}

// Targets resolves a `target` option: one or more names separated by commas,
// each once, in the order given. Any unknown name is a CodeNotFound error.
func (cs *Cast) Targets(list string) ([]*storage.Character, error) {
	var out []*storage.Character
	got := map[uint64]bool{}
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == "" {
			continue
		}
		c, err := cs.Character(name)
		if err != nil {
			return nil, err
		}
		if !got[c.ID] {
			got[c.ID] = true
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, Errorf(CodeInvalid, "Name at least one character in target.")
	}
	return out, nil
}

// track remembers c as touched by this mutation, with its state before the
// mutation read afresh from the transaction (so a value the caller already
// changed cannot pass for the "before"). It returns the one value the
// mutation uses for that character.
func (cs *Cast) track(c *storage.Character) (*storage.Character, error) {
	if cached := cs.cache[c.ID]; cached != nil {
		return cached, nil
	}
	cs.cache[c.ID] = c
	if !cs.seen[c.ID] {
		before, err := cs.tx.Character(cs.channelID, c.ID)
		if err != nil {
			return nil, err
		}
		cs.seen[c.ID] = true
		cs.touched = append(cs.touched, c.ID)
		cs.before[c.ID] = before
	}
	return c, nil
}

// CharacterByID returns the character with the id (a button's custom_id
// names it), remembering its state before the change. A missing one is a
// CodeConflict error: the button outlived the character.
func (cs *Cast) CharacterByID(id uint64) (*storage.Character, error) {
	cs.named[id] = true
	if c := cs.cache[id]; c != nil {
		return c, nil
	}
	c, err := cs.tx.Character(cs.channelID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, Errorf(CodeConflict, "That character is already gone; nothing was changed.")
	}
	if err != nil {
		return nil, err
	}
	return cs.track(c)
}

// CharacterIfAny returns the character with the id as CharacterByID does,
// or nil when it no longer exists (a combatant deleted since it joined).
func (cs *Cast) CharacterIfAny(id uint64) (*storage.Character, error) {
	if c := cs.cache[id]; c != nil {
		return c, nil
	}
	c, err := cs.tx.Character(cs.channelID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return cs.track(c)
}

// Save stores c's new state.
func (cs *Cast) Save(c *storage.Character) error {
	if _, err := cs.track(c); err != nil {
		return err
	}
	if err := cs.tx.PutCharacter(c); err != nil {
		if errors.Is(err, storage.ErrNameTaken) {
			return Errorf(CodeConflict, "There is already a character named %s at this table.", Escape(c.Name))
		}
		return err
	}
	return nil
}

// SaveSheet encodes sheet, the system's stored form of c's sheet (see
// EncodeSheet), into c.Sheet and stores c as Save does.
func (cs *Cast) SaveSheet(c *storage.Character, sheet any) error {
	raw, err := EncodeSheet(sheet)
	if err != nil {
		return err
	}
	c.Sheet = raw
	return cs.Save(c)
}

// Create stores a new character, assigning its ID.
func (cs *Cast) Create(c *storage.Character) error {
	if err := cs.tx.CreateCharacter(c); err != nil {
		if errors.Is(err, storage.ErrNameTaken) {
			return Errorf(CodeConflict, "There is already a character named %s at this table.", Escape(c.Name))
		}
		return err
	}
	cs.seen[c.ID] = true
	cs.touched = append(cs.touched, c.ID)
	cs.cache[c.ID] = c
	return nil
}

// Delete removes c.
func (cs *Cast) Delete(c *storage.Character) error {
	if _, err := cs.track(c); err != nil {
		return err
	}
	delete(cs.cache, c.ID)
	return cs.tx.DeleteCharacter(c.ChannelID, c.ID)
}

// character returns the mutation's character id in its state now, or in
// its state before for a deleted one (nil when never loaded).
func (cs *Cast) character(id uint64) *storage.Character {
	if c := cs.cache[id]; c != nil {
		return c
	}
	return cs.before[id]
}

// hidden reports whether the character id is hidden from players now (a
// deleted one: when it was).
func (cs *Cast) hidden(id uint64) bool {
	c := cs.character(id)
	return c != nil && c.Hidden
}

// changed reports whether the mutation changed the character id.
func (cs *Cast) changed(id uint64) bool {
	after := cs.cache[id]
	return !sameState(cs.before[id], after)
}

// sameState reports whether a and b hold the same state (nil: absent).
func sameState(a, b *storage.Character) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Name == b.Name && a.OwnerID == b.OwnerID && a.OwnerName == b.OwnerName &&
		a.CreatedAt.Equal(b.CreatedAt) && string(a.Sheet) == string(b.Sheet) && a.Hidden == b.Hidden
}

// CharacterByName finds a character at the channel's table by name
// (case-insensitive; spaces, one pair of quotes around it and the
// zero-width spaces a reply puts after '@' ignored), or returns the
// CodeNotFound error players see.
func CharacterByName(tx *storage.Tx, channelID, name string) (*storage.Character, error) {
	name = Unquote(strings.TrimSpace(strings.ReplaceAll(name, "\u200b", "")))
	c, err := tx.CharacterByName(channelID, name)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, Errorf(CodeNotFound, "No character named %q at this table. /char list shows them.", Clip(name, 40))
	}
	return c, err
}

// DecodeSheet decodes a stored sheet (storage.Character.Sheet) into v, a
// pointer to the system's sheet struct (a zero one: v is overwritten). A
// sheet decodes once (storage.DecodeSheet keeps the decoded value by its
// bytes and type), and every later call for the same bytes gets a deep
// copy of it, which the caller owns.
func DecodeSheet(raw json.RawMessage, v any) error {
	if err := storage.DecodeSheet(raw, v); err != nil {
		return fmt.Errorf("decode sheet: %w", err)
	}
	return nil
}

// EncodeSheet encodes a system's sheet struct as JSON for
// storage.Character.Sheet.
func EncodeSheet(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode sheet: %w", err)
	}
	return b, nil
}
