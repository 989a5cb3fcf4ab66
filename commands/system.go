package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hpkeeper/hpkeeper/storage"
)

// System is the adapter of one rule system (RULES.md §1, §2, §3): its
// character sheet, the actions it implements and what its timers do when the
// clock moves. Sheets are stored as JSON in storage.Character.Sheet; only the
// system reads them. Each system is a package of its own (commands/hitprot,
// commands/hpmpwp, commands/harm) that main passes to New: the core knows a
// system only through this interface and the optional ones beside it
// (Viewer, Chooser, Charter), never by name.
type System interface {
	// Name is the system's name as /table setup takes it, e.g. "hit-protection".
	Name() string
	// Help explains the system in a few lines for /help topic:<name>.
	Help() string
	// TableOptions lists the table options the system offers (/table option).
	TableOptions() []TableOption
	// StatKeys lists the keys /char create and /char set accept, for help and
	// error messages.
	StatKeys() []string
	// Options lists the options of the shared commands (/damage, /heal,
	// /roll as:…, /init join roll:…, …) that the system gives a meaning to, with the values
	// each takes in it: the core accepts no other BySystem option at the
	// system's tables, autocompletes their values, refuses other values
	// with these, and /help lists them per system. An option the core
	// does not define is registered for the system.
	Options() []SystemOption
	// NewSheet returns the encoded sheet of a new character built from stats,
	// rolling what the system rolls at creation with m.Roll. Bad stats are a
	// CodeInvalid *Error.
	NewSheet(m *Mutation, stats []Stat) (json.RawMessage, error)
	// SetSheet returns sheet with stats applied (/char set). Bad stats are a
	// CodeInvalid *Error.
	SetSheet(m *Mutation, sheet json.RawMessage, stats []Stat) (json.RawMessage, error)
	// Describe renders a character for /char show: a one-line status (e.g.
	// "HP 3/6 · HD 1/1") and the sheet as embed fields.
	Describe(c *storage.Character) (status string, fields []Field, err error)
	// Action returns the handler of a system command ("damage", "heal",
	// "rest", "save", "attend", "treat", "strain", "spend", "activity",
	// "wake"), or
	// nil when the system does not implement it.
	Action(name string) ActionFunc
	// Roll handles /roll with `as` (hit dice on rolls, checks); nil when the
	// system adds nothing to a plain roll.
	Roll() ActionFunc
	// Components returns the system's button and modal handlers by custom_id
	// prefix.
	Components() map[string]HandlerFunc
	// AdvanceClock resolves every timed effect of the table's characters as
	// the clock moves from the round `from` to the round `to` (RULES.md §0.2),
	// saving changed characters through m, and reports each effect that
	// ended or fired, per character, by saying it about that character
	// (m.For(c).Say); the core notes what was said for /history.
	AdvanceClock(m *Mutation, from, to int64) error
}

// SystemOption is what an option of a shared command means in one system.
type SystemOption struct {
	// Command and Name say which option: "heal" and "pool", or, for an
	// option of a subcommand, its path: "init join" and "roll".
	Command, Name string
	// Help says what the option does in the system, for /help topic:heal
	// (and, for an option the core does not define, Discord's description).
	Help string
	// Values are the values the option takes in the system, in the order
	// suggested; nil: any value of the option's type.
	Values []string
	// Type is the type of an option the core does not define (zero: text).
	Type OptionType
}

// Chooser is implemented by a system whose characters can await a choice
// made with buttons (the 0-HP choice of §1.3, the Die Hard choice of §2.4).
// PendingChoice returns the text and the buttons of c's pending choice, with
// the custom_ids the system's component handler accepts now, or nil buttons
// when no choice is pending. /char show offers them again to the owner or a
// GM, so a choice brought back by /undo (whose old message has its buttons
// disabled) can still be made.
type Chooser interface {
	PendingChoice(c *storage.Character) (text string, buttons [][]Button, err error)
}

// Viewer is implemented by a system that can show its characters in the
// uniform view. now is the table clock in rounds.
type Viewer interface {
	View(c *storage.Character, now int64) (CharacterView, error)
}

// Charter is implemented by a system that has odds of its own to chart:
// /odds without expr answers with Chart for the table t (whose options may
// change the dice, e.g. harm's fudge-dice). The reply gives the numbers in
// its text and the chart as a PNG File of BarChartPNG.
type Charter interface {
	Chart(t *storage.Table) (*Response, error)
	// ChartHelp says in a few words what Chart charts, for /help
	// topic:odds, e.g. "the injury-band chances of Stay Up and Go Down".
	ChartHelp() string
}

// ChoiceID is the custom_id of a button or modal that answers a choice a
// character was offered by one event: "<prefix>:<character id>:<event
// seq>:<choice>", e.g. "hp0:7:42:up". It carries everything needed to
// handle the press after a restart (COMMANDS.md "Buttons and modals"):
// Prefix routes it to its system's handler (System.Components), Event is
// the seq of the event whose message offered the choice
// (Mutation.NextEventSeq), so a handler refuses a press that no longer
// matches the character's state.
type ChoiceID struct {
	Prefix    string
	Character uint64
	Event     uint64
	Choice    string
}

// String renders the custom_id.
func (id ChoiceID) String() string {
	return fmt.Sprintf("%s:%d:%d:%s", id.Prefix, id.Character, id.Event, id.Choice)
}

// With renders the custom_id of id with the given choice.
func (id ChoiceID) With(choice string) string {
	id.Choice = choice
	return id.String()
}

// ParseChoiceID reads a custom_id that ChoiceID.String made. Anything else
// (four colon-separated parts, the middle two whole numbers) is a
// CodeInvalid error; which choices are valid is for the handler to check.
func ParseChoiceID(customID string) (ChoiceID, error) {
	bad := Errorf(CodeInvalid, "This button is not one of ours.")
	parts := strings.Split(customID, ":")
	if len(parts) != 4 {
		return ChoiceID{}, bad
	}
	char, err1 := strconv.ParseUint(parts[1], 10, 64)
	event, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return ChoiceID{}, bad
	}
	return ChoiceID{Prefix: parts[0], Character: char, Event: event, Choice: parts[3]}, nil
}

// ActionFunc carries out a system command inside one write transaction.
type ActionFunc func(m *Mutation) (*Response, error)

// Stat is one key=value pair of a `stats` option, key lower-cased.
type Stat struct {
	Key, Value string
}

// ParseStats splits a `stats` option ("class=fighter level=2") into pairs.
// Keys are lower-cased; values keep their case. It returns a CodeInvalid
// *Error for a pair without '=', an empty key or value, or a key given twice.
func ParseStats(s string) ([]Stat, error) {
	var out []Stat
	seen := map[string]bool{}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" || v == "" {
			return nil, Errorf(CodeInvalid, "Stats are key=value pairs separated by spaces; %q is not one.", Clip(f, 40))
		}
		if seen[k] {
			return nil, Errorf(CodeInvalid, "Stat %q is given twice.", Clip(k, 40))
		}
		seen[k] = true
		out = append(out, Stat{Key: k, Value: v})
	}
	return out, nil
}

// UnknownStat returns the CodeInvalid error for a stats key the system does
// not know, listing the valid keys.
func UnknownStat(sys System, key string) error {
	keys := append([]string(nil), sys.StatKeys()...)
	sort.Strings(keys)
	return Errorf(CodeInvalid, "Unknown stat %q for %s. Valid keys: %s.", Clip(key, 40), sys.Name(), strings.Join(keys, ", "))
}

// BadStat returns the CodeInvalid error for a stats value out of range.
func BadStat(key, value, want string) error {
	return Errorf(CodeInvalid, "Stat %s=%s is not valid: %s.", key, Clip(value, 40), want)
}

// checkName enforces RULES.md §0.1: 1-32 printable characters, no line
// breaks. Commas are refused too, because `target` lists names separated by
// commas and such a name could never be targeted.
func checkName(name string) error {
	n := len([]rune(name))
	if n < 1 || n > 32 {
		return Errorf(CodeInvalid, "A character name has 1 to 32 characters (got %d).", n)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return Errorf(CodeInvalid, "A character name cannot contain line breaks or control characters.")
		}
		if r == ',' {
			return Errorf(CodeInvalid, "A character name cannot contain a comma: commas separate names in `target`.")
		}
	}
	return nil
}

// DecodeSheet decodes a stored sheet (storage.Character.Sheet) into v, a
// pointer to the system's sheet struct (a zero one: v is overwritten). A
// sheet decodes once: the decoded value is kept by its bytes and type
// (sheetmemo.go), and every later call for the same bytes gets a deep copy
// of it, which the caller owns.
func DecodeSheet(raw json.RawMessage, v any) error {
	if err := sheets.decode(raw, v); err != nil {
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

// StatInt reads a whole-number stats value in lo..hi, or returns the
// CodeInvalid error naming the key and the range.
func StatInt(st Stat, lo, hi int) (int, error) {
	n, err := strconv.Atoi(st.Value)
	if err != nil || n < lo || n > hi {
		return 0, BadStat(st.Key, st.Value, fmt.Sprintf("a whole number from %d to %d", lo, hi))
	}
	return n, nil
}

// systemAction returns the handler of a command whose meaning belongs to the
// table's rule system (/damage, /heal, /rest, …): it runs the system's action
// in one write transaction, or answers that the command is not part of that
// system (/strain, say, belongs to hp-mp-wp only).
func systemAction(name string) HandlerFunc {
	return func(ctx context.Context, s *Service, r *Request) (*Response, error) {
		return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
			act := m.System.Action(name)
			if act == nil {
				return nil, Errorf(CodeUnavailable, "/%s is not part of the %s system (/help topic:%s lists its commands).", name, m.Table.System, m.Table.System)
			}
			if err := checkSystemOptions(r, m.System, s.registry.Lookup(name).Options); err != nil {
				return nil, err
			}
			return act(m)
		})
	}
}
