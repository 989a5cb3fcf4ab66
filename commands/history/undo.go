package history

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// undo answers /undo (RULES.md §0.5): it reverts the most recent event at the
// table that the caller may change (a GM: any; a player: one the player made
// that touched only their own characters and not the table: a player cannot
// undo the GM's damage to their character), restoring the exact prior
// state of every character it touched, and records the undo as an event. It
// never rerolls dice. An event whose characters a later event changed (one
// the caller cannot undo) is not reverted over it: the refusal names that
// event and who can undo it, so /undo never reaches past it, least of all
// to delete a character. An event that created a character is reverted
// only once the caller confirms with a button (confirmUndo). A change of
// the table's system is a barrier: nothing before it can be undone (its
// characters belonged to another system). The walk looks at the latest
// undoWindow events only, and in a read transaction: decoding them (up to
// about a second at a table of long clock advances) holds no writer. The
// write transaction then looks only at the events written since
// (findUndo, applyUndo).
func undo(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	return undoConfirmed(s, r, 0)
}

// undoConfirmed is /undo with confirmed the event whose creation of a
// character the caller confirmed (0: none).
func undoConfirmed(s *commands.Service, r *commands.Request, confirmed uint64) (*commands.Response, error) {
	for try := 1; ; try++ {
		found, err := findUndo(s, r)
		if err != nil {
			return nil, err
		}
		if undoLooked != nil {
			undoLooked()
		}
		resp, err := applyUndo(s, r, found, confirmed)
		if errors.Is(err, errUndoMoved) {
			if try < undoTries {
				continue
			}
			return nil, commands.Errorf(commands.CodeConflict, "The table kept changing while /undo looked for the event to revert; nothing was changed. Try /undo again.")
		}
		return resp, err
	}
}

// undoPrefix starts the custom_id of the buttons that confirm the undo of
// an event that created a character: "undo:<event seq>:yes|no".
const undoPrefix = "undo"

// confirmUndo answers a press of Undo or Cancel under /undo's question
// (undoPrompt): Undo reverts the event the button names, when it is still
// the one /undo finds for the presser; Cancel leaves everything as it is.
func confirmUndo(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	parts := strings.Split(r.CustomID, ":")
	if len(parts) != 3 || parts[2] != "yes" && parts[2] != "no" {
		return nil, commands.Errorf(commands.CodeInvalid, "This button is not one of ours.")
	}
	seq, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil || seq == 0 {
		return nil, commands.Errorf(commands.CodeInvalid, "This button is not one of ours.")
	}
	if parts[2] == "no" {
		return &commands.Response{Content: fmt.Sprintf("Kept `#%d`: nothing was undone.", seq), UpdateMessage: true, Components: undoButtons(seq, true)}, nil
	}
	r.Command, r.Subcommand, r.Options = "undo", "", map[string]string{}
	return undoConfirmed(s, r, seq)
}

// undoButtons are the Undo and Cancel buttons of the question about event
// seq.
func undoButtons(seq uint64, disabled bool) [][]commands.Button {
	id := fmt.Sprintf("%s:%d:", undoPrefix, seq)
	return [][]commands.Button{{
		{Label: "Undo", CustomID: id + "yes", Style: commands.StyleDanger, Disabled: disabled},
		{Label: "Cancel", CustomID: id + "no", Style: commands.StyleSecondary, Disabled: disabled},
	}}
}

// Wrap tells the presser of a stale choice button (*StaleChoice, from
// Mutation.RefuseStale) when /undo undid the event that offered the
// choice, reading the latest events once the write transaction has ended.
func (Feature) Wrap(next commands.HandlerFunc) commands.HandlerFunc {
	return func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
		resp, err := next(ctx, s, r)
		var stale *commands.StaleChoice
		if errors.As(err, &stale) {
			return nil, refuseStale(s, r, stale)
		}
		return resp, err
	}
}

// refuseStale returns the refusal sc stands for: that the message is out
// of date, when an /undo among the latest undoWindow events of r's table
// undid event sc.Seq; otherwise sc.Otherwise.
func refuseStale(s *commands.Service, r *commands.Request, sc *commands.StaleChoice) error {
	undone, seen := false, 0
	err := s.DB().View(func(tx *storage.Tx) error {
		return tx.EachEventBackward(r.ChannelID, func(e *storage.Event) (bool, error) {
			seen++
			undone = e.UndoOf == sc.Seq
			return !undone && e.Seq > sc.Seq && seen < undoWindow, nil
		})
	})
	if err != nil {
		return err
	}
	if !undone {
		return sc.Otherwise
	}
	return commands.Errorf(commands.CodeConflict, "This message is out of date: the damage it answers (#%d) was undone, so **%s** has no %s to make here. Nothing was changed.", sc.Seq, commands.Escape(sc.Name), sc.Choice)
}

// undoTries is how many times /undo looks again when the event it found
// was undone, or the caller's GM status changed, before it could revert it.
const undoTries = 3

// errUndoMoved: what findUndo found no longer holds in the write
// transaction; look again.
var errUndoMoved = errors.New("undo: the table moved on")

// undoLooked, when set (tests), runs between findUndo and applyUndo.
var undoLooked func()

// undoWalk walks a table's events newest first to find the one /undo
// reverts: the newest the caller may change that is not undone (target),
// or the change of system that stops the walk (barrier); neither after
// undoWindow events. blocker is the newest later event that touched a
// character of target and that the walk passed over (the caller may not
// undo it): target cannot be reverted before it.
type undoWalk struct {
	gm      bool
	user    string
	undone  map[uint64]bool
	seen    int
	target  *storage.Event
	barrier *storage.Event
	blocker *storage.Event
	// later maps a character id to the newest event passed over that
	// changed it; inOrder to the newest that had it in the turn order.
	later, inOrder map[uint64]*storage.Event
	// last is the newest event's Seq when the walk began.
	last uint64
}

func newUndoWalk(gm bool, user string) *undoWalk {
	return &undoWalk{gm: gm, user: user, undone: map[uint64]bool{}, later: map[uint64]*storage.Event{}, inOrder: map[uint64]*storage.Event{}}
}

// step looks at e, older than every event seen so far; false once the
// walk is over.
func (w *undoWalk) step(e *storage.Event) (bool, error) {
	w.seen++
	switch {
	case e.UndoOf != 0:
		w.undone[e.UndoOf] = true
	case changesSystem(e) && !w.undone[e.Seq]:
		w.barrier = e
		return false, nil
	case w.undone[e.Seq]:
	case undoable(e) && (w.gm || e.UserID == w.user && ownsAll(e, w.user)):
		w.target, w.blocker = e, w.blocking(e)
		return false, nil
	default:
		w.pass(e)
	}
	return w.seen < undoWindow, nil
}

// pass remembers e, an event the walk passes over, as later than every
// event still to come: what it changed, and who was in its turn order.
func (w *undoWalk) pass(e *storage.Event) {
	for _, c := range e.Changes {
		if w.later[c.CharacterID] == nil {
			w.later[c.CharacterID] = e
		}
	}
	for _, t := range []*storage.Table{e.TableBefore, e.TableAfter} {
		if t == nil || t.Initiative == nil {
			continue
		}
		for _, cb := range t.Initiative.Combatants {
			if w.inOrder[cb.CharacterID] == nil {
				w.inOrder[cb.CharacterID] = e
			}
		}
	}
}

// blocking returns the newest event w passed over that keeps e from being
// reverted: one that changed a character e changed, or, when e created
// the character, one that had it in the turn order; nil when none.
func (w *undoWalk) blocking(e *storage.Event) *storage.Event {
	var b *storage.Event
	newer := func(x *storage.Event) {
		if x != nil && (b == nil || x.Seq > b.Seq) {
			b = x
		}
	}
	for _, c := range e.Changes {
		newer(w.later[c.CharacterID])
		if c.Before == nil {
			newer(w.inOrder[c.CharacterID])
		}
	}
	return b
}

// findUndo walks the latest undoWindow events of r's table in a read
// transaction.
func findUndo(s *commands.Service, r *commands.Request) (*undoWalk, error) {
	var w *undoWalk
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		w = newUndoWalk(commands.IsGM(r, t), r.UserID)
		var err error
		if w.last, err = tx.LastEventSeq(r.ChannelID); err != nil {
			return err
		}
		return tx.EachEventBackward(r.ChannelID, w.step)
	})
	return w, err
}

// since returns what one walk over every event of the table would find,
// given found, the walk of the events up to found.last, and newer, the walk
// of the events written since: newer's decision when it made one or used
// up the window; else found's, when still in the window (blocked by an
// event written since, if one changed its characters); errUndoMoved when
// an event written since undid found's target.
func since(found, newer *undoWalk) (*undoWalk, error) {
	switch {
	case newer.target != nil || newer.barrier != nil || newer.seen >= undoWindow:
		return newer, nil
	case found.target != nil && newer.undone[found.target.Seq]:
		return nil, errUndoMoved
	case newer.seen+found.seen > undoWindow:
		return newer, nil // found's decision lies past the window now
	}
	if found.target != nil {
		if b := newer.blocking(found.target); b != nil {
			w := *found
			w.blocker = b // newer than any found saw
			return &w, nil
		}
	}
	return found, nil
}

// applyUndo reverts what found found, in a write transaction that walks
// only the events written since found began (see since). An event that
// created a character is reverted only when confirmed names it; otherwise
// the caller is asked first (undoPrompt).
func applyUndo(s *commands.Service, r *commands.Request, found *undoWalk, confirmed uint64) (*commands.Response, error) {
	var resp *commands.Response
	err := s.Update(r, func(tx *storage.Tx) error {
		t, err := commands.LoadTable(tx, r.ChannelID)
		if err != nil {
			return err
		}
		gm := commands.IsGM(r, t)
		if gm != found.gm {
			return errUndoMoved
		}
		newer := newUndoWalk(gm, r.UserID)
		err = tx.EachEventBackward(r.ChannelID, func(e *storage.Event) (bool, error) {
			if e.Seq <= found.last {
				return false, nil
			}
			return newer.step(e)
		})
		if err != nil {
			return err
		}
		w, err := since(found, newer)
		if err != nil {
			return err
		}
		target, barrier := w.target, w.barrier
		hid, err := hiddenIDs(tx, r.ChannelID)
		if err != nil {
			return err
		}
		switch {
		case confirmed != 0 && (target == nil || target.Seq != confirmed):
			return commands.Errorf(commands.CodeConflict, "This question is out of date: the table changed since, so /undo no longer reverts `#%d`. Nothing was changed; run /undo again to see what it reverts now.", confirmed)
		case target == nil && barrier != nil:
			return commands.Errorf(commands.CodeConflict, "There is nothing you can undo since the table changed its system (#%d: %s).", barrier.Seq, commands.Escape(barrier.Command))
		case target == nil:
			return commands.Errorf(commands.CodeNotFound, "There is nothing here that you can undo (among the latest %d events).", undoWindow)
		case w.blocker != nil:
			return blocked(s.Registry(), r, t, hid, target, w.blocker)
		case confirmed == 0 && len(created(target)) > 0:
			resp = undoPrompt(s.Registry(), r, t, hid, target)
			return nil
		}
		if err := tx.RevertEvent(target); err != nil {
			var ce *storage.ConflictError
			if errors.As(err, &ce) && ce.CharacterID != 0 {
				return commands.Errorf(commands.CodeConflict, "Cannot undo #%d (%s): %s has changed since. Undo the later event first.", target.Seq, commands.Escape(target.Command), commands.Escape(ce.Name))
			}
			if errors.Is(err, storage.ErrConflict) {
				return commands.Errorf(commands.CodeConflict, "Cannot undo #%d (%s): the table has changed since. Undo the later event first.", target.Seq, commands.Escape(target.Command))
			}
			if errors.Is(err, storage.ErrNameTaken) {
				return commands.Errorf(commands.CodeConflict, "Cannot undo #%d (%s): its character's name is taken by another character now.", target.Seq, commands.Escape(target.Command))
			}
			return err
		}
		ev := &storage.Event{
			ChannelID: r.ChannelID, At: r.Now.UTC(), UserID: r.UserID, UserName: r.UserName,
			Command: r.Line(), UndoOf: target.Seq,
			Summary:     fmt.Sprintf("Undid #%d by %s: %s", target.Seq, target.UserName, target.Command),
			TableBefore: target.TableAfter, TableAfter: target.TableBefore,
		}
		var ids []uint64
		for _, c := range target.Changes {
			ev.Changes = append(ev.Changes, storage.Change{CharacterID: c.CharacterID, Name: c.Name, Before: c.After, After: c.Before})
			ids = append(ids, c.CharacterID)
		}
		full := fmt.Sprintf("Undid `#%d` by %s: %s\nEverything it changed is back as it was; no dice were rerolled.", target.Seq, commands.Escape(target.UserName), commands.Escape(target.Command))
		resp = &commands.Response{Content: full}
		if eventHidden(s.Registry(), target, hid) {
			// The command may show a hidden character's numbers: players read
			// its name and each hidden character's word; a GM gets it all.
			ev.Parts = []storage.EventPart{{Characters: ids, Hidden: true, Summary: ev.Summary}}
			sys, err := s.System(t.System)
			if err != nil {
				return err
			}
			resp.Content = fmt.Sprintf("Undid `#%d` by %s (%s): everything it changed is back as it was; no dice were rerolled.", target.Seq, commands.Escape(target.UserName), commands.Escape(commandName(target.Command)))
			for _, c := range ev.Changes {
				// A word reads only where the undone event named the
				// character or the undo changes its word (hidden.go).
				if changeHidden(c, hid) && worded(target, c, sys, t.Clock) {
					resp.Content += "\n" + undoneWord(sys, t.Clock, c)
				}
			}
			resp = commands.ForGM(r, t, resp, &commands.Response{Content: full})
		}
		return tx.AppendEvent(ev)
	})
	return resp, err
}

// created returns the names of the characters e created.
func created(e *storage.Event) []string {
	var names []string
	for _, c := range e.Changes {
		if c.Before == nil && c.After != nil {
			names = append(names, "**"+commands.Escape(c.Name)+"**")
		}
	}
	return names
}

// shownCommand is e's command as the caller of r may read it: without its
// options when they may show a hidden character's numbers and the caller
// is no GM (hid: the characters hidden now).
func shownCommand(g *commands.Registry, r *commands.Request, t *storage.Table, hid map[uint64]bool, e *storage.Event) string {
	if eventHidden(g, e, hid) && !commands.IsGM(r, t) {
		return commands.Escape(commandName(e.Command))
	}
	return commands.Escape(e.Command)
}

// undoPrompt asks the caller, privately, to confirm the undo of target,
// which created a character: undoing it deletes the character.
func undoPrompt(g *commands.Registry, r *commands.Request, t *storage.Table, hid map[uint64]bool, target *storage.Event) *commands.Response {
	return &commands.Response{
		Content: fmt.Sprintf("Undo `#%d` by %s (%s)? That deletes %s from the table.",
			target.Seq, commands.Escape(target.UserName), shownCommand(g, r, t, hid, target), strings.Join(created(target), ", ")),
		Components: undoButtons(target.Seq, false),
		Ephemeral:  true,
	}
}

// blocked is the refusal of an undo of target that blocker, a later event
// the caller may not undo, stands in the way of: it names blocker, what it
// changed, and who can undo it.
func blocked(g *commands.Registry, r *commands.Request, t *storage.Table, hid map[uint64]bool, target, blocker *storage.Event) error {
	var names []string
	for _, c := range target.Changes {
		for _, b := range blocker.Changes {
			if b.CharacterID == c.CharacterID {
				names = append(names, "**"+commands.Escape(c.Name)+"**")
			}
		}
	}
	what := "changed " + strings.Join(names, ", ")
	if len(names) == 0 {
		what = "put " + strings.Join(created(target), ", ") + " in the turn order"
	}
	who := "A GM" // blocker is no event the caller may undo, nor its author
	if slices.Contains(t.GMs, blocker.UserID) {
		who = commands.Escape(blocker.UserName) + ", a GM,"
	}
	return commands.Errorf(commands.CodeConflict, "Cannot undo `#%d` (%s) yet: the later `#%d` by %s (%s) %s, and /undo never reverts past it. %s can undo `#%d` with /undo; after that /undo reverts `#%d`. Nothing was changed.",
		target.Seq, shownCommand(g, r, t, hid, target), blocker.Seq, commands.Escape(blocker.UserName), shownCommand(g, r, t, hid, blocker), what, who, blocker.Seq, target.Seq)
}

// undoneWord is what players read of a hidden character an undo changed:
// "**Goblin**: Wounded", or "gone" when the undo removed it.
func undoneWord(sys commands.System, now int64, c storage.Change) string {
	if c.After == nil {
		return "**" + commands.Escape(c.Name) + "**: gone"
	}
	v, err := commands.ViewOf(sys, c.After, now)
	if err != nil {
		return "**" + commands.Escape(c.Name) + "**"
	}
	return "**" + commands.Escape(c.Name) + "**: " + v.Public().Text
}

// undoWindow is how many of the latest events /undo looks through.
const undoWindow = 500

// changesSystem reports whether e changed the table's rule system.
func changesSystem(e *storage.Event) bool {
	return e.TableBefore != nil && e.TableAfter != nil && e.TableBefore.System != e.TableAfter.System
}

// undoable reports whether e changed something that an undo can put back: a
// character, or the table's settings (not its creation).
func undoable(e *storage.Event) bool {
	if e.TableAfter != nil && e.TableBefore == nil || changesSystem(e) {
		return false
	}
	return len(e.Changes) > 0 || e.TableBefore != nil
}

// ownsAll reports whether every character e touched belonged to user, before
// and after, and e left the table itself alone.
func ownsAll(e *storage.Event, user string) bool {
	if e.TableAfter != nil {
		return false
	}
	for _, c := range e.Changes {
		for _, st := range []*storage.Character{c.Before, c.After} {
			if st != nil && st.OwnerID != user {
				return false
			}
		}
	}
	return true
}
