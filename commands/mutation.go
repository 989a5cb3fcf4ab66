package commands

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Mutation is one command's change to a table, made inside a single bbolt
// write transaction: either all of it is stored, with one event recording
// every die and the before and after state of every touched character, or
// none of it (RULES.md §0.5).
type Mutation struct {
	// Req is the request being answered.
	Req *Request
	// Table is the table being changed; changes to it are saved at commit.
	Table *storage.Table
	// System is the table's rule system.
	System System

	// Cast is the characters the mutation loads and changes (cast.go).
	*Cast
	// voice is what it says, rolls and notes, and whom that is about
	// (say.go).
	voice

	s           *Service
	ctx         context.Context
	tableBefore *storage.Table
}

// Mutate runs fn on the request's table inside one write transaction and
// records the event (see Mutation). When fn returns an error nothing is
// written. Every handler that changes a table goes through it: the kernel's
// commands, the features' and the button and modal handlers of the
// systems. fn runs inside the steps of the mutation chain: the kernel's
// veil (veil), then each feature's (MutationWrapper), the first feature's
// outermost.
func (s *Service) Mutate(ctx context.Context, r *Request, fn ActionFunc) (*Response, error) {
	fn = s.registry.mutationChain(fn)
	var resp *Response
	err := s.Update(r, func(tx *storage.Tx) error { // store.go
		t, err := LoadTable(tx, r.ChannelID)
		if err != nil {
			return err
		}
		before := t.Clone()
		sys, err := s.System(t.System)
		if err != nil {
			return err
		}
		m := &Mutation{Req: r, Table: t, System: sys, s: s, ctx: ctx, tableBefore: before,
			Cast: newCast(tx, r.ChannelID), voice: voice{log: &mutationLog{dice: s.dice}}}
		if resp, err = fn(m); err != nil {
			return err
		}
		var gm *Response
		resp, gm = present(m, resp)
		if err := s.registry.deliverToGMs(m, gm); err != nil {
			return err
		}
		if len(m.log.mentions) > 0 {
			resp.Mentions = m.log.mentions
		}
		return m.commit(resp)
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// Context returns the context of the request the mutation answers.
func (m *Mutation) Context() context.Context { return m.ctx }

// mutationChain wraps fn in the features' steps of the mutation chain
// (MutationWrapper), the first feature's outermost, and those in the
// kernel's (veilStep).
func (g *Registry) mutationChain(fn ActionFunc) ActionFunc {
	for i := len(g.features) - 1; i >= 0; i-- {
		if w, ok := g.features[i].(MutationWrapper); ok {
			fn = w.WrapMutation(fn)
		}
	}
	return veilStep(fn)
}

// deliverToGMs gives gm, what a change kept from players, to the
// features that bring it to every GM (GMDeliverer).
func (g *Registry) deliverToGMs(m *Mutation, gm *Response) error {
	for _, f := range g.features {
		if d, ok := f.(GMDeliverer); ok {
			if err := d.DeliverToGMs(m, gm); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckSystemOptions refuses the options of the request that mean what the
// table's system says (Option.BySystem) when the system does not use them,
// or does not take their value, listing the values it does; a value is
// normalised to the system's spelling (System.Options). A shared command
// that a system extends (/damage, /init join …) checks with it before it
// acts.
func (m *Mutation) CheckSystemOptions() error { return m.s.CheckSystemOptions(m.Req, m.System) }

// veilStep is the kernel's step of the mutation chain that keeps a
// refusal from telling a player a hidden character's state (veil).
func veilStep(next ActionFunc) ActionFunc {
	return func(m *Mutation) (*Response, error) {
		resp, err := next(m)
		if err != nil {
			return nil, m.veil(err)
		}
		return resp, nil
	}
}

// veil keeps a refusal from telling a player what a hidden character's
// state is (RULES.md §0.1 hidden=true): a user error that names a hidden
// character the mutation loaded ("Goblin is not dying", "Goblin's 0-HP
// choice is pending") is answered to a caller who does not see it (not a
// GM, not its owner) with the same code and a message that says only that
// nothing happened and that a GM sees why. Refusals of permission and of
// unknown names, and every error to a GM, pass unchanged.
func (m *Mutation) veil(err error) error {
	var e *Error
	a := m.Audience()
	if !errors.As(err, &e) || a.GM {
		return err
	}
	switch e.Code {
	case CodeInvalid, CodeConflict, CodeUnavailable:
	default:
		return err
	}
	ids := make([]uint64, 0, len(m.cache))
	for id := range m.cache {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := m.cache[id]
		if c == nil || a.Sees(c) || !strings.Contains(e.Message, c.Name) && !strings.Contains(e.Message, Escape(c.Name)) {
			continue
		}
		return Errorf(e.Code, "Nothing happens: **%s** is hidden, so the bot cannot tell you why that does not work now; a GM sees it. Nothing was changed.", Escape(c.Name))
	}
	return err
}

// Audience is the caller as a reader (Audience).
func (m *Mutation) Audience() view.Audience { return Audience(m.Req, m.Table) }

// IsGM reports whether the caller is a GM at the table (RULES.md §0.1).
func (m *Mutation) IsGM() bool { return IsGM(m.Req, m.Table) }

// RequireGM returns a CodeForbidden error unless the caller is a GM; what
// completes "Only a GM can …".
func (m *Mutation) RequireGM(what string) error { return RequireGM(m.Req, m.Table, what) }

// CanChange returns a CodeForbidden error unless the caller owns c or is a GM
// (RULES.md §0.1).
func (m *Mutation) CanChange(c *storage.Character) error { return CanChange(m.Req, m.Table, c) }

// TargetsToChange resolves a `target` list as Targets does and returns a
// CodeForbidden error unless the caller may change every one of them
// (owner or GM, RULES.md §0.1).
func (m *Mutation) TargetsToChange(list string) ([]*storage.Character, error) {
	chs, err := m.Targets(list)
	if err != nil {
		return nil, err
	}
	for _, c := range chs {
		if err := m.CanChange(c); err != nil {
			return nil, err
		}
	}
	return chs, nil
}

// Healer resolves the `healer` option, the character who gives the care
// (/attend, /heal): nil when it is not given. The caller must be able to
// act for it (owner or GM), and it cannot be one of patients: care comes
// from another character (RULES.md §0.1, §1.3, §2.4, §3.3).
func (m *Mutation) Healer(patients ...*storage.Character) (*storage.Character, error) {
	name, ok := m.Req.Options["healer"]
	if !ok {
		return nil, nil
	}
	h, err := m.Character(name)
	if err != nil {
		return nil, err
	}
	if err := m.CanChange(h); err != nil {
		return nil, err
	}
	for _, p := range patients {
		if p.ID == h.ID {
			return nil, Errorf(CodeInvalid, "%s cannot give itself the care; name another character in healer.", Escape(h.Name))
		}
	}
	return h, nil
}

// RefuseStale returns the refusal of a press on a button of event seq that
// no longer matches c's state: a *StaleChoice that reads as otherwise (the
// choice was made, or offered again), and that the history (a feature that
// can undo events) turns into the refusal saying the message is out of date
// because /undo undid that event, so c has no choice (e.g. "0-HP choice")
// to make there. Return it from the mutation: the history is read once the
// write transaction has ended, so that walking long events holds no writer.
func (m *Mutation) RefuseStale(seq uint64, c *storage.Character, choice string, otherwise error) error {
	return &StaleChoice{Seq: seq, Name: c.Name, Choice: choice, Otherwise: otherwise}
}

// StaleChoice is the refusal of a press on a choice button of event Seq
// that no longer matches the state of the character named Name, whose
// choice (e.g. "0-HP choice") it offered (Mutation.RefuseStale). It reads
// as Otherwise, unless a feature that can undo events finds Seq undone and
// says so instead (commands/history).
type StaleChoice struct {
	Seq          uint64
	Name, Choice string
	Otherwise    error
}

// Error reads as Otherwise.
func (e *StaleChoice) Error() string { return e.Otherwise.Error() }

// Unwrap returns Otherwise, so that errors.As finds its *Error.
func (e *StaleChoice) Unwrap() error { return e.Otherwise }

// NextEventSeq is the sequence number the event of this mutation will get
// (the write transaction holds the lock, so no other event can take it);
// once it is called the event is written even if nothing changed.
// Buttons put it in their custom_id to name the event they answer.
func (m *Mutation) NextEventSeq() (uint64, error) {
	last, err := m.tx.LastEventSeq(m.Req.ChannelID)
	m.log.seqTaken = true
	return last + 1, err
}

// commit saves the table and appends the event, when anything changed.
func (m *Mutation) commit(resp *Response) error {
	if !reflect.DeepEqual(m.Table, m.tableBefore) {
		if err := m.tx.PutTable(m.Table); err != nil {
			return err
		}
	}
	ev := &storage.Event{
		ChannelID: m.Req.ChannelID,
		At:        m.Req.Now.UTC(),
		UserID:    m.Req.UserID,
		UserName:  m.Req.UserName,
		Command:   m.Req.Line(),
		Dice:      m.recordedRolls(),
	}
	for _, id := range m.touched {
		after, err := m.tx.Character(m.Req.ChannelID, id)
		if errors.Is(err, storage.ErrNotFound) {
			after, err = nil, nil
		}
		if err != nil {
			return err
		}
		before := m.before[id]
		if sameState(before, after) {
			continue
		}
		name := ""
		if after != nil {
			name = after.Name
		} else if before != nil {
			name = before.Name
		}
		ev.Changes = append(ev.Changes, storage.Change{CharacterID: id, Name: name, Before: before, After: after})
	}
	if !reflect.DeepEqual(m.Table.Undoable(), m.tableBefore.Undoable()) {
		ev.TableBefore, ev.TableAfter = m.tableBefore, m.Table
	}
	if len(ev.Changes) == 0 && ev.TableAfter == nil && !m.log.seqTaken {
		return nil
	}
	ev.Summary = strings.Join(texts(m.log.notes), "\n")
	ev.Parts = eventParts(m)
	return m.tx.AppendEvent(ev)
}

// For returns the mutation scoped to the characters cs (at least one, each
// loaded through the mutation): the text it says (Say, Post), the dice it
// rolls (Roll, Record, RecordingDice, and the mutation passed as a roller)
// and the notes it makes (Note) are about them. Players see them when they
// may see at least one of cs; otherwise they read each hidden character's
// word, and a GM who asked gets the part in an ephemeral follow-up. Scope
// each character's part of a command this way:
//
//	for _, ch := range targets {
//		m := m.For(ch)
//		…
//		m.Say("**%s** takes %d damage: HP %d → %d", …)
//	}
//
// Everything else of the mutation is shared with m.
func (m *Mutation) For(cs ...*storage.Character) *Mutation {
	sc := &scope{}
	for _, c := range cs {
		if c != nil && !slices.Contains(sc.ids, c.ID) {
			sc.ids = append(sc.ids, c.ID)
		}
	}
	n := *m
	n.about = sc
	return &n
}

// ForTable returns the mutation scoped to the table: what it says, rolls and
// notes is about no character (the clock, a table option) and everyone sees
// it. Never say a character's numbers through it.
func (m *Mutation) ForTable() *Mutation {
	n := *m
	n.about = &scope{table: true}
	return &n
}

// eventParts splits the mutation's notes and dice by scope for the event,
// in the order each scope first appears; nil when players may see all of
// them (the event's Summary and Dice say everything then).
func eventParts(m *Mutation) []storage.EventPart {
	var out []storage.EventPart
	var scopes []*scope
	anyHidden := false
	index := func(sc *scope) int {
		for i, s := range scopes {
			if s.same(sc) {
				return i
			}
		}
		ids := m.touched
		if sc != nil {
			ids = sc.ids
		}
		p := storage.EventPart{Hidden: !m.sees(view.Channel, sc)}
		if sc == nil || !sc.table {
			p.Characters = append([]uint64(nil), ids...)
		}
		anyHidden = anyHidden || p.Hidden
		scopes = append(scopes, sc)
		out = append(out, p)
		return len(out) - 1
	}
	rolls, notes := m.log.rolls, m.log.notes
	for len(rolls) > 0 || len(notes) > 0 {
		if len(notes) == 0 || len(rolls) > 0 && rolls[0].seq < notes[0].seq {
			i := index(rolls[0].about)
			out[i].Dice = append(out[i].Dice, rolls[0].text)
			rolls = rolls[1:]
			continue
		}
		i := index(notes[0].about)
		if out[i].Summary != "" {
			out[i].Summary += "\n"
		}
		out[i].Summary += notes[0].text
		notes = notes[1:]
	}
	if !anyHidden && !slices.ContainsFunc(m.touched, m.hidden) {
		return nil
	}
	return out
}
