package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hpkeeper/hpkeeper/commands/spelling"
	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/storage"
)

// System is the adapter of one rule system (RULES.md §1, §2, §3): its
// character sheet, the actions it implements and what its timers do when the
// clock moves. Sheets are stored as JSON in storage.Character.Sheet; only the
// system reads them. Each system is a package of its own (commands/hitprot,
// commands/hpmpwp, commands/harm) that main passes to New: the kernel knows a
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
	// each takes in it: the kernel accepts no other BySystem option at the
	// system's tables, autocompletes their values, refuses other values
	// with these, and /help lists them per system. An option the kernel
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
	// (m.For(c).Say); the kernel notes what was said for /history.
	AdvanceClock(m *Mutation, from, to int64) error
}

// TableOption is a table setting (/table option) that the kernel, a
// feature (TableOptioner) or a system (System.TableOptions) offers.
type TableOption struct {
	Name    string
	Help    string
	Default string
	// Values are the accepted values, the first being the default.
	Values []string
	// Parse, when set, checks a value given to /table option at m's table
	// (lower-cased) and returns it as the table stores it: the option then
	// takes any value Parse accepts, not only Values (init-dice takes a
	// dice expression). A value it refuses is a CodeInvalid *Error.
	Parse func(m *Mutation, value string) (string, error)
	// Sparse options are stored only while they differ from their default
	// (Values[0]): the turn order's.
	Sparse bool
	// Said, when set, is the reply to /table option changing the option
	// from old to value; nil: "Table option NAME: old → value."
	Said func(old, value string) string
}

// SystemOption is what an option of a shared command means in one system.
type SystemOption struct {
	// Command and Name say which option: "heal" and "pool", or, for an
	// option of a subcommand, its path: "init join" and "roll".
	Command, Name string
	// Help says what the option does in the system, for /help topic:heal
	// (and, for an option the kernel does not define, Discord's description).
	Help string
	// Values are the values the option takes in the system, in the order
	// suggested; nil: any value of the option's type.
	Values []string
	// Type is the type of an option the kernel does not define (zero: text).
	Type OptionType
}

// RollSuggester is implemented by a system (or a feature: the turn order
// suggests its init-dice) that suggests rolls for the `expr` of /roll and
// /odds while it is typed: each a Choice whose Value is a dice expression
// and whose Name starts with it and says what it is for, e.g. "3d6dh1 —
// the injury table when attended (advantage)" or "1d8 — Lister's hit
// die". They come from the rules, the table t's options and the characters
// the caller may see (visible: every character for a GM, those not hidden
// for a player), so that no hidden character's numbers reach a player. A
// suggestion that names a character comes after those that do not.
type RollSuggester interface {
	RollSuggestions(t *storage.Table, visible []*storage.Character) []Choice
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

// Statuser is implemented by a system that renders a character's one-line
// status alone, the very words of Describe's status, without the card's
// fields: the rosters (/table show, /char list) and the lines that say a
// change read it (StatusOf).
type Statuser interface {
	Status(c *storage.Character) (string, error)
}

// StatusOf returns c's one-line status under sys: its Statuser's, else
// Describe's.
func StatusOf(sys System, c *storage.Character) (string, error) {
	if st, ok := sys.(Statuser); ok {
		return st.Status(c)
	}
	status, _, err := sys.Describe(c)
	return status, err
}

// Viewer is implemented by a system that can show its characters in the
// uniform view. now is the table clock in rounds.
type Viewer interface {
	View(c *storage.Character, now int64) (view.Character, error)
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

// ButtonChoice is one choice of a character's choice buttons
// (ChoiceID.Choice):
// the label of its button, by which the history names the press
// (Request.Pressed), and whether it arrives as a modal's submit rather
// than a press (a choice that asks for text first, as Heroic Death asks
// for the heroic action).
type ButtonChoice struct {
	Label string
	Modal bool
}

// ChoiceHandler returns the component handler of choice buttons whose
// custom_ids ChoiceID made (System.Components): it refuses a custom_id
// that does not parse or names none of choices (or comes by the wrong
// kind of interaction) as not one of ours, names the press in the
// history by its label (`pressed [Stay Up] for Lister`), and runs fn in
// one write transaction with the character the button names, loaded by
// its id and one the caller may change (owner or GM). fn checks that the
// character still has the choice of event id.Event (Mutation.RefuseStale).
func ChoiceHandler(choices map[string]ButtonChoice, fn func(m *Mutation, c *storage.Character, id ChoiceID) (*Response, error)) HandlerFunc {
	return func(ctx context.Context, s *Service, r *Request) (*Response, error) {
		id, err := ParseChoiceID(r.CustomID)
		if err != nil {
			return nil, err
		}
		choice, ok := choices[id.Choice]
		if !ok || choice.Modal != (r.Kind == KindModal) {
			return nil, Errorf(CodeInvalid, "This button is not one of ours.")
		}
		r.Command, r.Subcommand, r.Pressed, r.Options = "choose", "", choice.Label, map[string]string{}
		return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
			c, err := m.CharacterByID(id.Character)
			if err != nil {
				return nil, err
			}
			r.Options["target"] = c.Name
			if err := m.CanChange(c); err != nil {
				return nil, err
			}
			return fn(m, c, id)
		})
	}
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
// not know: "did you mean …?" for a typo of a valid key, and the list of
// the valid keys.
func UnknownStat(sys System, key string) error {
	keys := append([]string(nil), sys.StatKeys()...)
	sort.Strings(keys)
	return Errorf(CodeInvalid, "Unknown stat %q for %s%s. Valid keys: %s.", Clip(key, 40), sys.Name(), DidYouMean(key, keys), strings.Join(keys, ", "))
}

// DidYouMean returns ": did you mean KEY?" when word reads as a typo of
// one of known (spelling.Closest), else "".
func DidYouMean(word string, known []string) string {
	if near := spelling.Closest(word, known); near != "" {
		return ": did you mean " + near + "?"
	}
	return ""
}

// BadStat returns the CodeInvalid error for a stats value out of range.
func BadStat(key, value, want string) error {
	return Errorf(CodeInvalid, "Stat %s=%s is not valid: %s.", key, Clip(value, 40), want)
}

// CheckName enforces RULES.md §0.1: 1-32 printable characters, no line
// breaks. Commas are refused too, because `target` lists names separated by
// commas and such a name could never be targeted.
func CheckName(name string) error {
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

// StatInt reads a whole-number stats value in lo..hi, or returns the
// CodeInvalid error naming the key and the range.
func StatInt(st Stat, lo, hi int) (int, error) {
	n, err := strconv.Atoi(st.Value)
	if err != nil || n < lo || n > hi {
		return 0, BadStat(st.Key, st.Value, fmt.Sprintf("a whole number from %d to %d", lo, hi))
	}
	return n, nil
}
