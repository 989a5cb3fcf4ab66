package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/klauspost/compress/s2"
)

// Records are stored as JSON (events compressed, see eventS2). Encoding is exact for everything a caller can
// observe, so a decoded record is reflect.DeepEqual to the one stored, with
// three normalisations: times are stored in UTC (monotonic clock readings are
// dropped), Character.Sheet is stored compacted (insignificant whitespace
// removed), and an empty non-nil Sheet comes back nil. Nil and empty slices and
// maps are kept apart (null versus [] or {}).

// Table is one Discord channel's game table: its rule system, its GMs, its
// game clock and its open turn order. The channel id is the key.
type Table struct {
	// ChannelID is the Discord channel id (a thread is a channel); the key.
	ChannelID string `json:"channel_id"`
	// GuildID is the Discord guild id; "" in DMs.
	GuildID string `json:"guild_id,omitempty"`
	// System is the rule system: "hit-protection", "hp-mp-wp" or "harm".
	System string `json:"system"`
	// SetupBy is the user id of who ran /table setup.
	SetupBy string `json:"setup_by,omitempty"`
	// GMs are the user ids with GM rights added at this table (SetupBy is
	// included when the table is set up).
	GMs []string `json:"gms"`
	// Options are the table options by name, e.g. "catch-breath": "on".
	Options map[string]string `json:"options"`
	// Clock is the game clock in rounds since the table started; never negative.
	Clock int64 `json:"clock"`
	// CreatedAt is when the table was set up; stored in UTC.
	CreatedAt time.Time `json:"created_at"`
	// TrackerMessageID is the id of the tracker message the bot posted with
	// /table tracker and edits after every change; "" when there is none.
	TrackerMessageID string `json:"tracker_message_id,omitempty"`
	// Initiative is the table's open turn order (/init, RULES.md §0.6); nil
	// when none is open. Absent from the JSON when nil, so a table record
	// written before turn orders existed reads unchanged.
	Initiative *Initiative `json:"initiative,omitempty"`
	// GMInbox holds the results only GMs may read that some GM of the
	// table has not been given yet: without a GM channel, each GM gets them
	// on their next interaction at the table (commands/gmscreen). Absent
	// from the JSON when empty. It is no part of the state that events
	// record and /undo puts back: an event's table states hold none
	// (AppendEvent drops it), and RevertEvent leaves the inbox as it is.
	GMInbox []GMNote `json:"gm_inbox,omitempty"`
}

// GMNote is one result of a Table's GMInbox.
type GMNote struct {
	// Text is the result as a GM who made the change would read it, after
	// a line saying who made it (Discord markdown).
	Text string `json:"text"`
	// Given are the user ids of the GMs who have had it.
	Given []string `json:"given,omitempty"`
}

// Undoable returns t without what events do not record (GMInbox): the
// table state an event keeps and /undo compares and puts back. It shares
// the rest with t.
func (t *Table) Undoable() *Table {
	if t == nil || t.GMInbox == nil {
		return t
	}
	n := *t
	n.GMInbox = nil
	return &n
}

// Clone returns a deep copy of t: its GMs, Options, turn order and GM inbox are the
// copy's own, and nil ones stay nil (empty ones empty), so that a table
// compares equal (reflect.DeepEqual) to its clone until one of them changes.
func (t *Table) Clone() *Table {
	n := *t
	n.GMs = slices.Clone(t.GMs)
	if t.Options != nil {
		n.Options = make(map[string]string, len(t.Options))
		for k, v := range t.Options {
			n.Options[k] = v
		}
	}
	n.Initiative = cloneInitiative(t.Initiative)
	if t.GMInbox != nil {
		n.GMInbox = make([]GMNote, len(t.GMInbox))
		for i, note := range t.GMInbox {
			note.Given = slices.Clone(note.Given)
			n.GMInbox[i] = note
		}
	}
	return &n
}

// cloneInitiative returns a deep copy of a turn order, nil for nil.
func cloneInitiative(o *Initiative) *Initiative {
	if o == nil {
		return nil
	}
	n := *o
	n.Combatants = slices.Clone(o.Combatants)
	return &n
}

// Initiative is a table's turn order (RULES.md §0.6): the combatants in
// the order they act, whose turn it is, and the clock round at which the
// order's first round began (round n of the order is Table.Clock =
// Start + n − 1). Events hold it in their table states, so /undo of any
// /init change restores it exactly.
type Initiative struct {
	// Combatants are in turn order: higher initiative first, ties to the
	// higher bonus, then to the one that joined first. Never nil in a
	// stored record (an open order with nobody in it is empty).
	Combatants []Combatant `json:"combatants"`
	// Turn is the index in Combatants of the combatant whose turn it is;
	// len(Combatants) when nobody left in this round can act.
	Turn int `json:"turn"`
	// Start is the clock (rounds since the table started) of the order's
	// first round.
	Start int64 `json:"start"`
	// Underway is set once a GM began round 1 (/init next) or a round has
	// passed; before that (the opening) characters join and nobody has the
	// turn.
	Underway bool `json:"underway,omitempty"`
	// Joins counts the joins so far; each combatant's Join is its number.
	Joins int `json:"joins"`
}

// Combatant is one character in a turn order.
type Combatant struct {
	// CharacterID is the character's id at the table; each at most once.
	CharacterID uint64 `json:"character_id"`
	// Initiative is the total rolled (or given) for the character.
	Initiative int `json:"initiative"`
	// Bonus is the character's initiative bonus, which breaks ties.
	Bonus int `json:"bonus"`
	// Join is the character's join number, 1, 2, 3 … (who joined first wins
	// the last tie).
	Join int `json:"join"`
	// Roll is how the initiative was made, e.g. "1d6+1 [4] + 1 = 5" or
	// "given: 14".
	Roll string `json:"roll,omitempty"`
	// Hidden is set when the roll was made for a hidden character: the
	// numbers are the GM's only, in replies and in the history.
	Hidden bool `json:"hidden,omitempty"`
	// Fallen is set when the combatant could not act as a round began:
	// the order passes over it without a word until it has a turn again
	// (its fall was said in the round it fell).
	Fallen bool `json:"fallen,omitempty"`
}

// Character is one character at a table. Its rule-system state is the opaque
// JSON Sheet; storage only indexes its id and name.
type Character struct {
	// ChannelID is the table's Discord channel id.
	ChannelID string `json:"channel_id"`
	// ID is assigned by Tx.CreateCharacter: 1, 2, 3 … per table, never reused,
	// even after the character is deleted.
	ID uint64 `json:"id"`
	// Name is the name as typed; unique per table case-insensitively.
	Name string `json:"name"`
	// OwnerID is the user id of the character's owner.
	OwnerID string `json:"owner_id,omitempty"`
	// OwnerName is the owner's display name at creation, for display.
	OwnerName string `json:"owner_name,omitempty"`
	// CreatedAt is when the character was created; stored in UTC.
	CreatedAt time.Time `json:"created_at"`
	// Sheet is the system-specific state as JSON, opaque to storage. It is
	// stored compacted; nil and empty are both stored as absent.
	Sheet json.RawMessage `json:"sheet,omitempty"`
	// Hidden is set by a GM (stats hidden=true): players see only a word
	// (Unhurt, Wounded, Down, Dead) of the character, never its numbers.
	Hidden bool `json:"hidden,omitempty"`
}

// Event is one recorded change at a table: who did what, every die rolled and
// the state before and after of everything it touched, so it can be shown in
// the history and undone (RULES.md §0.5). Events are append-only.
type Event struct {
	// ChannelID is the table's Discord channel id.
	ChannelID string `json:"channel_id"`
	// Seq is assigned by Tx.AppendEvent: 1, 2, 3 … per table.
	Seq uint64 `json:"seq"`
	// At is when the event happened; stored in UTC.
	At time.Time `json:"at"`
	// UserID is the id of the user who issued the command.
	UserID string `json:"user_id,omitempty"`
	// UserName is that user's display name at the time.
	UserName string `json:"user_name,omitempty"`
	// Command is the command as typed, e.g. "/damage target:Lister amount:4".
	Command string `json:"command,omitempty"`
	// Summary is what happened, one or more lines of text.
	Summary string `json:"summary,omitempty"`
	// Dice lists every roll, rendered, e.g. "3d6dl1 [5, 2, ~~1~~] = 7".
	Dice []string `json:"dice"`
	// Changes holds the before and after state of each touched character, in
	// the order the changes were made.
	Changes []Change `json:"changes"`
	// TableBefore is the table before the event; set (with TableAfter) when the
	// event changed the table itself (clock, options, GMs, system). Nil with a
	// non-nil TableAfter means the event created the table.
	TableBefore *Table `json:"table_before,omitempty"`
	// TableAfter is the table after the event. Nil with a non-nil TableBefore
	// means the event removed the table.
	TableAfter *Table `json:"table_after,omitempty"`
	// UndoOf, when non-zero, is the Seq of the event this event undid.
	UndoOf uint64 `json:"undo_of,omitempty"`
	// Parts, when set, split Summary and Dice by the characters each line
	// and die is about, so that /history can show players everything about
	// the characters they may see and only a word for hidden ones. Events
	// that touched no hidden character, and events written before parts
	// existed, have none.
	Parts []EventPart `json:"parts,omitempty"`
}

// EventPart is the share of an Event's summary and dice that is about some
// characters, or about the table.
type EventPart struct {
	// Characters are the ids of the characters the part is about; none: the
	// table.
	Characters []uint64 `json:"characters,omitempty"`
	// Hidden is set when players could not see the part (every character it
	// is about was hidden): they read each hidden character's word instead.
	Hidden bool `json:"hidden,omitempty"`
	// Summary is the part's lines of the summary.
	Summary string `json:"summary,omitempty"`
	// Dice are the part's rolls, rendered as in Event.Dice.
	Dice []string `json:"dice,omitempty"`
}

// Change is the before and after state of one character touched by an Event.
type Change struct {
	// CharacterID is the id of the character; Before.ID and After.ID, when
	// set, must equal it.
	CharacterID uint64 `json:"character_id"`
	// Name is the character's name at the time, for history display.
	Name string `json:"name"`
	// Before is the character before the event; nil when the event created it.
	Before *Character `json:"before,omitempty"`
	// After is the character after the event; nil when the event deleted it.
	After *Character `json:"after,omitempty"`
}

// encode marshals v as compact JSON without HTML escaping, so that strings such
// as "Bob & Alice" and sheets built with json.Marshal round-trip byte for byte.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// normTable returns a shallow copy of t with its time in UTC.
func normTable(t *Table) *Table {
	c := *t
	c.CreatedAt = c.CreatedAt.UTC()
	return &c
}

// normCharacter returns a shallow copy of c with its time in UTC and an empty
// sheet made nil.
func normCharacter(c *Character) *Character {
	n := *c
	n.CreatedAt = n.CreatedAt.UTC()
	if len(n.Sheet) == 0 {
		n.Sheet = nil
	}
	return &n
}

// normEvent returns a copy of e with every time in UTC; the records inside it
// are copied only as far as needed to leave e untouched.
func normEvent(e *Event) *Event {
	n := *e
	n.At = n.At.UTC()
	if e.Changes != nil {
		n.Changes = make([]Change, len(e.Changes))
		for i, ch := range e.Changes {
			if ch.Before != nil {
				ch.Before = normCharacter(ch.Before)
			}
			if ch.After != nil {
				ch.After = normCharacter(ch.After)
			}
			n.Changes[i] = ch
		}
	}
	if n.TableBefore != nil {
		n.TableBefore = normTable(n.TableBefore.Undoable())
	}
	if n.TableAfter != nil {
		n.TableAfter = normTable(n.TableAfter.Undoable())
	}
	return &n
}

func encodeTable(t *Table) ([]byte, error) {
	b, err := encode(normTable(t))
	if err != nil {
		return nil, fmt.Errorf("encode table %s: %w", t.ChannelID, err)
	}
	return b, nil
}

// encodeCharacter encodes c as records hold it: compact JSON, its time in
// UTC, an empty sheet absent. appendCharacter writes it without
// encoding/json when it can (appendjson.go), with the same bytes.
func encodeCharacter(c *Character) ([]byte, error) {
	if b, ok := appendCharacter(make([]byte, 0, 128+len(c.ChannelID)+len(c.Name)+len(c.OwnerID)+len(c.OwnerName)+len(c.Sheet)), c); ok {
		return b, nil
	}
	return encodeCharacterJSON(c)
}

// encodeCharacterJSON is encodeCharacter by encoding/json.
func encodeCharacterJSON(c *Character) ([]byte, error) {
	b, err := encode(normCharacter(c))
	if err != nil {
		return nil, fmt.Errorf("encode character %d at table %s: %w", c.ID, c.ChannelID, err)
	}
	return b, nil
}

// eventS2 is the first byte of a stored event since schema version 2: the
// rest is the S2 block encoding (github.com/klauspost/compress/s2) of the
// event's JSON. An event is mostly the before and after states of what it
// touched, which are alike, so it compresses about 2× for ~5 µs. Events
// written under schema version 1 are plain JSON (their first byte is '{')
// and still decode.
const eventS2 byte = 0x01

func encodeEvent(e *Event) ([]byte, error) {
	b, err := encode(normEvent(e))
	if err != nil {
		return nil, fmt.Errorf("encode event at table %s: %w", e.ChannelID, err)
	}
	out := make([]byte, 1+s2.MaxEncodedLen(len(b)))
	out[0] = eventS2
	return out[:1+len(s2.Encode(out[1:], b))], nil
}

// decodeTable decodes a stored table. data may be bbolt memory: the result
// shares nothing with it.
func decodeTable(data []byte) (*Table, error) {
	var t Table
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("decode table: %w", err)
	}
	return &t, nil
}

// decodeCharacter decodes a stored character; the result shares nothing with data.
func decodeCharacter(data []byte) (*Character, error) {
	var c Character
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("decode character: %w", err)
	}
	return &c, nil
}

// decodeEvent decodes a stored event, S2-compressed JSON or (schema version
// 1) plain JSON; the result shares nothing with data.
func decodeEvent(data []byte) (*Event, error) {
	if len(data) > 0 && data[0] == eventS2 {
		js, err := s2.Decode(nil, data[1:])
		if err != nil {
			return nil, fmt.Errorf("decode event: %w", err)
		}
		data = js
	}
	var e Event
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("decode event: %w", err)
	}
	return &e, nil
}
