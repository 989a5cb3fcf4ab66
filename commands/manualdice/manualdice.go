// Package manualdice is the physical dice feature of the commands kernel
// (the table option dice=manual): at such a table the bot does not roll; a
// command that needs dice asks the players for the faces of their physical
// dice and then runs with them.
package manualdice

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Physical dice (table option dice=manual). When a command at such a table
// needs dice, the bot does not roll: the run is abandoned (its transaction
// rolls back, nothing is applied), the dice it asked for are remembered with
// the request, and the character's owner is asked for the faces with an
// [Enter dice] button that opens a modal. A valid answer re-runs the request
// with the faces given so far; a run that needs more dice (a roll that
// depends on an earlier one) asks again for the next ones.
const (
	// Option is the table option of every table that says who rolls.
	Option = "dice"
	// Bot (the default) lets the bot roll.
	Bot = "bot"
	// Manual asks the players for their physical dice.
	Manual = "manual"

	facesPrefix = "faces"
	facesInput  = "faces"
	// maxAskDice bounds how many dice one prompt asks for.
	maxAskDice = 30
	// maxPendingRolls bounds the remembered prompts; the oldest go first.
	maxPendingRolls = 1000
	// pendingRollTTL is how long a prompt can be answered.
	pendingRollTTL = 24 * time.Hour
)

// Feature is physical dice (above): the table option dice, the step of
// the mutation chain that hands out the faces entered (WrapMutation), the
// step of the request chain that turns a run that needs dice into a prompt
// (Wrap), and the [Enter dice] button and modal. The prompts wait in memory
// (pendingRolls), so a Feature serves one Service.
type Feature struct {
	pending pendingRolls
}

var (
	_ commands.Feature         = (*Feature)(nil)
	_ commands.TableOptioner   = (*Feature)(nil)
	_ commands.Wrapper         = (*Feature)(nil)
	_ commands.MutationWrapper = (*Feature)(nil)
	_ commands.ScopedSource    = (*manualSource)(nil)
)

// New returns the physical dice feature, with no prompt pending.
func New() *Feature { return &Feature{} }

// Register adds the [Enter dice] button and its modal.
func (f *Feature) Register(g *commands.Registry) { g.Component(facesPrefix, f.button) }

// TableOptions offers the option dice at every table.
func (f *Feature) TableOptions(commands.System) (string, []commands.TableOption) {
	return "", []commands.TableOption{{Name: Option, Help: "who rolls: the bot, or the players with physical dice (manual)", Default: Bot, Values: []string{Bot, Manual}, Said: diceOptionText}}
}

// diceOptionText is the reply to /table option name:dice from old to value.
func diceOptionText(old, value string) string {
	what := "the bot rolls every die."
	if value == Manual {
		what = "when a character needs dice, its owner is asked for the faces of their physical dice."
	}
	return fmt.Sprintf("Table option dice: %s → %s: %s", old, value, what)
}

// needFaces is the error of a run at a dice=manual table that needs dice
// nobody has entered yet.
type needFaces struct {
	// given are the faces entered so far, all used by the run.
	given []int
	// want are the dice asked for now.
	want []dice.Die
	// who is the character the dice are for (nil when none was involved).
	who *storage.Character
	// hidden: the dice asked for, or some of those given, are a hidden
	// character's (hidden.go), so the prompt names neither.
	hidden bool
}

func (e *needFaces) Error() string { return fmt.Sprintf("physical dice needed: %s", diceList(e.want)) }

// manualSource hands out the faces entered so far; once they run out it
// notes each further die asked for (a run of one kind of die: the next roll)
// and, so that the rule can run on, rolls it with a throw-away generator.
// The run is then abandoned, so those rolls are never applied.
type manualSource struct {
	faces []int
	next  int
	want  []dice.Die
	probe dice.Source
	// who and hidden describe the dice wanted (needFaces).
	who    *storage.Character
	hidden bool
	// paused: the roll reached dice that depend on the faces of those
	// wanted (a reroll, an explosion), which are asked for first.
	paused bool
}

// Pause ends the batch of dice being gathered: what comes next depends on
// their faces (dice.Pacer).
func (s *manualSource) Pause() {
	if len(s.want) > 0 {
		s.paused = true
	}
}

var errStopProbe = errors.New("manual dice: stop probing")

// Roll hands out d's face with nothing known of who rolls it.
func (s *manualSource) Roll(d dice.Die) (int, error) { return s.RollFor(nil, d) }

// RollFor hands out d's face for the mutation m (nil: none), whose scope
// says whose die it is (Mutation.For, DiceHidden).
func (s *manualSource) RollFor(m *commands.Mutation, d dice.Die) (int, error) {
	secret := m != nil && m.DiceHidden()
	if len(s.want) == 0 && s.next < len(s.faces) {
		f := s.faces[s.next]
		s.next++
		s.hidden = s.hidden || secret
		if lo, hi := faceRange(d); f < lo || f > hi {
			return 0, commands.Errorf(commands.CodeConflict, "The table changed while the dice were entered: a %d does not fit a %s. Run the command again.", f, d)
		}
		return f, nil
	}
	if len(s.want) >= maxAskDice || len(s.want) > 0 && s.want[len(s.want)-1] != d || s.paused {
		return 0, errStopProbe
	}
	if len(s.want) == 0 && m != nil {
		s.who, s.hidden = m.Subject(), s.hidden || secret
	}
	s.want = append(s.want, d)
	return s.probe.Roll(d)
}

func faceRange(d dice.Die) (lo, hi int) {
	if d.Fudge {
		return -1, 1
	}
	return 1, d.Sides
}

// facesKey carries the faces entered for a re-run in its context.
type facesKey struct{}

// WrapMutation makes, at a dice=manual table, every die rolled during the
// change (through m.Roll or m.Dice) come from the faces entered, and a run
// that needs more fail with *needFaces.
func (f *Feature) WrapMutation(next commands.ActionFunc) commands.ActionFunc {
	return func(m *commands.Mutation) (*commands.Response, error) {
		if m.Table == nil || m.Table.Options[Option] != Manual {
			return next(m)
		}
		faces, _ := m.Context().Value(facesKey{}).([]int)
		src := &manualSource{faces: faces, probe: dice.NewRandom(uint64(len(faces)) + 1)}
		m.UseDice(src)
		resp, err := next(m)
		if len(src.want) > 0 {
			return nil, &needFaces{given: append([]int(nil), faces[:src.next]...), want: src.want, who: src.who, hidden: src.hidden}
		}
		return resp, err
	}
}

// Wrap turns a run at a dice=manual table that needs dice (*needFaces)
// into the prompt for them. A run again with faces entered (the modal's
// submit) keeps the error: the submit prompts for the next dice itself.
func (f *Feature) Wrap(next commands.HandlerFunc) commands.HandlerFunc {
	return func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
		resp, err := next(ctx, s, r)
		var nf *needFaces
		if _, rerun := ctx.Value(facesKey{}).([]int); !rerun && errors.As(err, &nf) {
			return f.prompt(r, nf, false), nil
		}
		return resp, err
	}
}

// pendingRoll is a request waiting for physical dice.
type pendingRoll struct {
	req      commands.Request
	given    []int
	want     []dice.Die
	ownerID  string
	charName string
	at       time.Time
}

// pendingRolls holds the requests waiting for dice, by id. The zero value
// is ready; it is safe for concurrent use. Prompts live in memory: after a
// restart their buttons answer "no longer pending" and the command is run
// again.
type pendingRolls struct {
	mu    sync.Mutex
	byID  map[string]*pendingRoll
	order []string
}

func (p *pendingRolls) put(pr *pendingRoll) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = map[string]*pendingRoll{}
	}
	for len(p.order) > 0 && (len(p.order) >= maxPendingRolls || p.byID[p.order[0]] == nil || pr.at.Sub(p.byID[p.order[0]].at) > pendingRollTTL) {
		delete(p.byID, p.order[0])
		p.order = p.order[1:]
	}
	p.byID[id] = pr
	p.order = append(p.order, id)
	return id
}

func (p *pendingRolls) get(id string, now time.Time) *pendingRoll {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.byID[id]
	if pr == nil || now.Sub(pr.at) > pendingRollTTL {
		return nil
	}
	return pr
}

// take removes and returns the pending roll id (nil when gone), so that
// one answer is used once.
func (p *pendingRolls) take(id string) *pendingRoll {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.byID[id]
	delete(p.byID, id)
	return pr
}

// prompt remembers r as waiting for nf's dice and asks for them.
func (f *Feature) prompt(r *commands.Request, nf *needFaces, update bool) *commands.Response {
	pr := &pendingRoll{req: *r, given: nf.given, want: nf.want, ownerID: r.UserID, at: r.Now}
	pr.req.Options = copyMap(r.Options)
	pr.req.Values = copyMap(r.Values)
	who := commands.Mention(r.UserID)
	switch name := strings.TrimSpace(r.Options["name"]); {
	case nf.who != nil:
		pr.ownerID, pr.charName = nf.who.OwnerID, nf.who.Name
		who = fmt.Sprintf("**%s**: %s", commands.Escape(nf.who.Name), commands.Mention(nf.who.OwnerID))
	case r.Command == "char" && r.Subcommand == "create" && name != "":
		// The dice of a new sheet: the character has no id yet, but a name.
		pr.charName = name
		who = fmt.Sprintf("**%s**: %s", commands.Escape(name), who)
	}
	id := f.pending.put(pr)
	what, given := diceList(nf.want), nf.given
	if nf.hidden {
		// The dice of a hidden character are its numbers: the one who
		// presses Enter dice reads them in the modal.
		what, given = "the dice Enter dice asks for", nil
	}
	text := fmt.Sprintf("🎲 %s, roll **%s** (physical dice, table option dice=manual) and press **Enter dice**; a GM may enter them too. Nothing has happened yet.", who, what)
	if len(given) > 0 {
		text += fmt.Sprintf("\nFaces entered so far: %s.", faceList(given))
	}
	return &commands.Response{
		Content:       text,
		Components:    [][]commands.Button{{{Label: "Enter dice", CustomID: facesPrefix + ":" + id, Style: commands.StylePrimary}}},
		UpdateMessage: update,
	}
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// diceList renders dice as "3d6 and 1d8".
func diceList(ds []dice.Die) string {
	var parts []string
	for i := 0; i < len(ds); {
		j := i
		for j < len(ds) && ds[j] == ds[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%d%s", j-i, ds[i]))
		i = j
	}
	return strings.Join(parts, " and ")
}

func faceList(fs []int) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = strconv.Itoa(f)
	}
	return strings.Join(s, " ")
}

// button answers the [Enter dice] button (a modal asking for the faces)
// and the modal's submit (check the faces, run the request again).
func (f *Feature) button(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	id := strings.TrimPrefix(r.CustomID, facesPrefix+":")
	pr := f.pending.get(id, r.Now)
	if pr == nil || pr.req.ChannelID != r.ChannelID {
		return nil, commands.Errorf(commands.CodeConflict, "These dice are no longer pending (already entered, or the bot restarted); run the command again.")
	}
	// gm: the presser, who is not the one who asked, is a GM.
	var gm bool
	if r.UserID != pr.req.UserID {
		err := s.View(r, func(_ *storage.Tx, t *storage.Table) error {
			gm = commands.IsGM(r, t)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if r.UserID != pr.ownerID && !gm {
			return nil, commands.Errorf(commands.CodeForbidden, "Only %s (or a GM) enters these dice.", commands.Mention(pr.ownerID))
		}
	}
	if r.Kind == commands.KindComponent {
		title := "Dice"
		if pr.charName != "" {
			title = commands.Clip("Dice for "+pr.charName, 45)
		}
		return &commands.Response{Modal: &commands.Modal{
			CustomID: r.CustomID, Title: title,
			Inputs: []commands.TextInput{{
				CustomID: facesInput, Label: commands.Clip("Faces of "+diceList(pr.want)+", separated by spaces", 45),
				Placeholder: examplePlaceholder(pr.want), Required: true, MaxLength: 200,
			}},
		}}, nil
	}
	faces, err := ParseFacesFor(r.Values[facesInput], pr.want)
	if err != nil {
		return nil, err
	}
	if f.pending.take(id) == nil {
		return nil, commands.Errorf(commands.CodeConflict, "These dice were just entered by someone else.")
	}
	all := append(append([]int(nil), pr.given...), faces...)
	req := pr.req
	req.Options, req.Values = copyMap(pr.req.Options), copyMap(pr.req.Values)
	req.Now = r.Now
	rctx := context.WithValue(ctx, facesKey{}, all)
	resp, err := s.Dispatch(rctx, &req)
	var nf *needFaces
	if errors.As(err, &nf) {
		return f.prompt(&req, nf, true), nil
	}
	if err != nil {
		return nil, err
	}
	if r.UserID != pr.req.UserID && !gm {
		resp = withheldFrom(resp)
	}
	if resp.Modal == nil && !resp.Ephemeral {
		resp.UpdateMessage = true
	}
	return resp, nil
}

// withheldFrom returns resp, the answer to another user's request whose
// dice a player entered, as that player may read it: the request was
// answered as its user sees it, so what was for that user alone (an
// ephemeral reply; the ephemeral follow-ups, a GM's hidden characters'
// numbers) is left out, and the reply says where it can be read.
func withheldFrom(resp *commands.Response) *commands.Response {
	if resp.Modal != nil {
		return resp
	}
	if resp.Ephemeral {
		return &commands.Response{Content: "The dice are entered and the command has run; its answer is for the one who asked it (/history shows what it did).", Ephemeral: true}
	}
	var kept []*commands.Response
	for _, f := range resp.FollowUps {
		if !f.Ephemeral {
			kept = append(kept, f)
		}
	}
	if len(kept) < len(resp.FollowUps) {
		resp.FollowUps = kept
		resp.Content = strings.TrimSpace(resp.Content + "\nA GM reads the hidden characters' numbers with /history.")
	}
	return resp
}

func examplePlaceholder(ds []dice.Die) string {
	ex := make([]string, 0, min(len(ds), 6))
	for i, d := range ds {
		if i == 6 {
			break
		}
		lo, hi := faceRange(d)
		ex = append(ex, strconv.Itoa(lo+(i*7)%(hi-lo+1)))
	}
	return "e.g. " + strings.Join(ex, " ")
}

// ParseFacesFor reads the faces of the dice want from text ("5 2 6",
// commas allowed; a Fudge die takes -1, 0, 1, - or +) and checks their
// count and range, or returns a CodeInvalid error saying what is wrong.
func ParseFacesFor(text string, want []dice.Die) ([]int, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	if len(fields) != len(want) {
		return nil, commands.Errorf(commands.CodeInvalid, "Enter %s for %s; you entered %d. Press Enter dice again.", commands.Count(len(want), "face"), diceList(want), len(fields))
	}
	out := make([]int, len(fields))
	for i, f := range fields {
		d := want[i]
		n, err := strconv.Atoi(f)
		if d.Fudge {
			switch f {
			case "+":
				n, err = 1, nil
			case "-", "−":
				n, err = -1, nil
			}
		}
		lo, hi := faceRange(d)
		if err != nil || n < lo || n > hi {
			return nil, commands.Errorf(commands.CodeInvalid, "Face %d (%q) cannot come up on a %s: %d to %d. Press Enter dice again.", i+1, commands.Clip(f, 12), d, lo, hi)
		}
		out[i] = n
	}
	return out, nil
}
