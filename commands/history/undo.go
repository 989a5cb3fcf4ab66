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
// characters belonged to another system). It looks at the latest
// undoWindow events only.
//
// The event is found in the history's index (storage.Tx.EventEntries: a
// player's own events, a GM's every event), and so is the later event that
// stands in its way, without decoding the history; the events named are
// read (storage.Tx.ReadEvents) in a read transaction once the caller has
// paid for what reading them parses (pay). The write transaction asks the
// index again, and reverts the event if it is still the one to revert
// (findUndo, applyUndo).
func undo(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	return undoConfirmed(ctx, s, r, 0)
}

// undoConfirmed is /undo with confirmed the event whose creation of a
// character the caller confirmed (0: none).
func undoConfirmed(ctx context.Context, s *commands.Service, r *commands.Request, confirmed uint64) (*commands.Response, error) {
	for try := 1; ; try++ {
		found, err := findUndo(ctx, s, r, confirmed)
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
	return undoConfirmed(ctx, s, r, seq)
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
// choice, asking the index once the write transaction has ended.
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
	undone := false
	err := s.DB().View(func(tx *storage.Tx) error {
		by, err := tx.UndoneBy(r.ChannelID, sc.Seq)
		if err != nil || by == 0 {
			return err
		}
		last, err := tx.LastEventSeq(r.ChannelID)
		undone = by > windowFloor(last)
		return err
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
// is no longer the one to revert (another was made, or it was undone, or
// another stands in its way now), or the caller's GM status changed,
// before it could revert it.
const undoTries = 3

// errUndoMoved: what findUndo found no longer holds in the write
// transaction; look again.
var errUndoMoved = errors.New("undo: the table moved on")

// undoLooked, when set (tests), runs between findUndo and applyUndo.
var undoLooked func()

// undoChoice is what /undo would do at a table, as the index says: revert
// target, unless blocker stands in its way, or refuse for the change of
// system barrier, or (neither) for want of an event to revert in the
// window; with the events it names, read (findUndo).
type undoChoice struct {
	gm      bool
	target  *storage.EventEntry
	barrier *storage.EventEntry
	// blocker is the newest event later than target that the caller may
	// not undo and that keeps it from being reverted (blocking); nil:
	// none. ordered is the one that had a character target created in the
	// turn order, found by reading the events (0: none).
	blocker *storage.EventEntry
	ordered uint64
	// last is the newest event's seq when the choice was made.
	last uint64
	// event, blockerEvent and barrierEvent are those read.
	event, blockerEvent, barrierEvent *storage.Event
}

// windowFloor is the seq below which events are out of /undo's window at
// a table whose newest event is last: the window holds the events whose
// seq is above it.
func windowFloor(last uint64) uint64 {
	return last - min(last, undoWindow)
}

// chooseUndo finds in the index of the channel's table what /undo does for
// user (a GM when gm): a GM's newest event that an undo can put back and
// that is not undone, among the latest undoWindow, unless a change of
// system not undone is newer; a player's likewise among their own events,
// those that touched only their own characters. It does not look for a
// blocker (blocking).
func chooseUndo(tx *storage.Tx, channelID string, gm bool, user string) (*undoChoice, error) {
	c := &undoChoice{gm: gm}
	var err error
	if c.last, err = tx.LastEventSeq(channelID); err != nil {
		return nil, err
	}
	floor := windowFloor(c.last)
	if gm {
		err := tx.EventEntries(channelID, storage.EntryFilter{}, 0, func(en storage.EventEntry) (bool, error) {
			switch {
			case en.Seq <= floor:
				return false, nil
			case en.UndoOf != 0 || en.UndoneBy != 0:
			case en.Has(storage.EntrySystemChanged):
				c.barrier = &en
				return false, nil
			case undoable(en):
				c.target = &en
				return false, nil
			}
			return true, nil
		})
		return c, err
	}
	// A player: the newest change of system not undone bounds the search
	// of their own events.
	err = tx.EventEntries(channelID, storage.EntryFilter{SystemChanges: true}, 0, func(en storage.EventEntry) (bool, error) {
		if en.Seq <= floor {
			return false, nil
		}
		if en.UndoneBy == 0 {
			c.barrier = &en
			floor = en.Seq
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	err = tx.EventEntries(channelID, storage.EntryFilter{ByUser: true, UserID: user}, 0, func(en storage.EventEntry) (bool, error) {
		if en.Seq <= floor {
			return false, nil
		}
		if en.UndoOf == 0 && en.UndoneBy == 0 && undoable(en) && ownsAll(en) {
			c.target, c.barrier = &en, nil
			return false, nil
		}
		return true, nil
	})
	return c, err
}

// blocking returns the newest event later than the target of c (which
// changed the characters changed) that the index says keeps it from being
// reverted: one that changed one of those characters and that the caller
// may not undo (every event later than the target, but an undo or an
// event undone, is one the caller may not undo: it would be the target
// otherwise). Nil when none.
func blocking(tx *storage.Tx, channelID string, c *undoChoice, changed []uint64) (*storage.EventEntry, error) {
	var b *storage.EventEntry
	for _, id := range changed {
		err := tx.EventEntries(channelID, storage.EntryFilter{CharacterID: id}, 0, func(en storage.EventEntry) (bool, error) {
			if en.Seq <= c.target.Seq || b != nil && en.Seq <= b.Seq {
				return false, nil
			}
			if en.UndoOf == 0 && en.UndoneBy == 0 && slices.Contains(en.Changed, id) {
				b = &en
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// inTheOrder returns the seq of the newest event later than the target of
// c, above after, that had a character of created (which the target
// created) in the turn order, reading the events that changed the table
// (the index does not know the turn order), paid for first; 0 when none.
func inTheOrder(ctx context.Context, s *commands.Service, r *commands.Request, tx *storage.Tx, c *undoChoice, created []uint64, after uint64) (uint64, error) {
	var seqs []uint64
	err := tx.EventEntries(r.ChannelID, storage.EntryFilter{}, 0, func(en storage.EventEntry) (bool, error) {
		if en.Seq <= max(c.target.Seq, after) {
			return false, nil
		}
		if en.UndoOf == 0 && en.UndoneBy == 0 && en.Flags&(storage.EntryTableChanged|storage.EntryTableRemoved) != 0 {
			seqs = append(seqs, en.Seq)
		}
		return true, nil
	})
	if err != nil || len(seqs) == 0 {
		return 0, err
	}
	plan, err := tx.PlanEvents(r.ChannelID, seqs)
	if err != nil {
		return 0, err
	}
	if err := pay(ctx, s, r, "this /undo", plan.Size()); err != nil {
		return 0, err
	}
	var found uint64
	err = tx.ReadEvents(plan, func(e *storage.Event) error {
		if found == 0 && inOrder(e, created) {
			found = e.Seq
		}
		return nil
	})
	return found, err
}

// inOrder reports whether e's table states have a character of ids in the
// turn order.
func inOrder(e *storage.Event, ids []uint64) bool {
	for _, t := range []*storage.Table{e.TableBefore, e.TableAfter} {
		if t == nil || t.Initiative == nil {
			continue
		}
		for _, cb := range t.Initiative.Combatants {
			if slices.Contains(ids, cb.CharacterID) {
				return true
			}
		}
	}
	return false
}

// createdIDs returns the ids of the characters e created.
func createdIDs(e *storage.Event) []uint64 {
	var ids []uint64
	for _, c := range e.Changes {
		if c.Before == nil && c.After != nil {
			ids = append(ids, c.CharacterID)
		}
	}
	return ids
}

// findUndo finds what /undo does at r's table (chooseUndo, blocking,
// inTheOrder) in a read transaction, and reads the events it names, once
// the caller has paid for what reading them parses (pay). With nothing to
// revert it returns the refusal (an out-of-date one when the caller
// confirmed an event: confirmed).
func findUndo(ctx context.Context, s *commands.Service, r *commands.Request, confirmed uint64) (*undoChoice, error) {
	var c *undoChoice
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		var err error
		if c, err = chooseUndo(tx, r.ChannelID, commands.IsGM(r, t), r.UserID); err != nil {
			return err
		}
		switch {
		case c.target == nil && confirmed != 0:
			return outOfDate(confirmed)
		case c.target == nil && c.barrier == nil:
			return commands.Errorf(commands.CodeNotFound, "There is nothing here that you can undo (among the latest %d events).", undoWindow)
		case c.target == nil:
			return readPaid(ctx, s, r, tx, []uint64{c.barrier.Seq}, func(e *storage.Event) { c.barrierEvent = e })
		}
		if err := readPaid(ctx, s, r, tx, []uint64{c.target.Seq}, func(e *storage.Event) { c.event = e }); err != nil {
			return err
		}
		if c.event == nil {
			return fmt.Errorf("undo: event %d of the index was not read", c.target.Seq)
		}
		if c.blocker, err = blocking(tx, r.ChannelID, c, c.target.Changed); err != nil {
			return err
		}
		if ids := createdIDs(c.event); len(ids) > 0 {
			if c.ordered, err = inTheOrder(ctx, s, r, tx, c, ids, 0); err != nil {
				return err
			}
		}
		if b := newestBlocker(c); b != 0 {
			return readPaid(ctx, s, r, tx, []uint64{b}, func(e *storage.Event) { c.blockerEvent = e })
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.target == nil {
		if c.barrierEvent == nil {
			return nil, fmt.Errorf("undo: event %d of the index was not read", c.barrier.Seq)
		}
		return nil, commands.Errorf(commands.CodeConflict, "There is nothing you can undo since the table changed its system (#%d: %s).", c.barrierEvent.Seq, commands.Escape(c.barrierEvent.Command))
	}
	return c, nil
}

// newestBlocker is the seq of the newest event that keeps c's target from
// being reverted: the index's blocker, or the one found in the turn order;
// 0 when none.
func newestBlocker(c *undoChoice) uint64 {
	b := c.ordered
	if c.blocker != nil {
		b = max(b, c.blocker.Seq)
	}
	return b
}

// readPaid reads the events seqs of r's table, once r's user has paid for
// what reading them parses, calling fn with each.
func readPaid(ctx context.Context, s *commands.Service, r *commands.Request, tx *storage.Tx, seqs []uint64, fn func(*storage.Event)) error {
	plan, err := tx.PlanEvents(r.ChannelID, seqs)
	if err != nil {
		return err
	}
	if err := pay(ctx, s, r, "this /undo", plan.Size()); err != nil {
		return err
	}
	return tx.ReadEvents(plan, func(e *storage.Event) error { fn(e); return nil })
}

// outOfDate is the refusal of a confirmation of the undo of event seq that
// /undo no longer reverts.
func outOfDate(seq uint64) error {
	return commands.Errorf(commands.CodeConflict, "This question is out of date: the table changed since, so /undo no longer reverts `#%d`. Nothing was changed; run /undo again to see what it reverts now.", seq)
}

// applyUndo reverts the event found found, in a write transaction that
// asks the index again: errUndoMoved when the event to revert, or the one
// in its way, is another now (or none), or the caller's GM status changed.
// An event that created a character is reverted only when confirmed names
// it; otherwise the caller is asked first (undoPrompt).
func applyUndo(s *commands.Service, r *commands.Request, found *undoChoice, confirmed uint64) (*commands.Response, error) {
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
		now, err := chooseUndo(tx, r.ChannelID, gm, r.UserID)
		if err != nil {
			return err
		}
		if now.target == nil || now.target.Seq != found.target.Seq {
			if confirmed != 0 && (now.target == nil || now.target.Seq != confirmed) {
				return outOfDate(confirmed)
			}
			return errUndoMoved
		}
		now.ordered = found.ordered
		if now.blocker, err = blocking(tx, r.ChannelID, now, now.target.Changed); err != nil {
			return err
		}
		if len(createdIDs(found.event)) > 0 && now.last != found.last {
			// Events written since may have put a created character in the
			// turn order: read them in a read transaction, not here.
			return errUndoMoved
		}
		if newestBlocker(now) != newestBlocker(found) {
			return errUndoMoved
		}
		target := found.event
		hid, err := hiddenIDs(tx, r.ChannelID)
		if err != nil {
			return err
		}
		switch {
		case confirmed != 0 && target.Seq != confirmed:
			return outOfDate(confirmed)
		case found.blockerEvent != nil:
			return blocked(s.Registry(), r, t, hid, target, found.blockerEvent)
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

// undoable reports whether the event of en changed something that an undo
// can put back: a character, or the table's settings or its removal (not
// its creation, nor its system).
func undoable(en storage.EventEntry) bool {
	if en.Has(storage.EntryTableCreated) || en.Has(storage.EntrySystemChanged) {
		return false
	}
	return en.Has(storage.EntryCharacters) || en.Has(storage.EntryTableChanged) || en.Has(storage.EntryTableRemoved)
}

// ownsAll reports whether every character the event of en touched
// belonged to its user, before and after, and it left the table itself
// alone (or removed it: there is no table after it).
func ownsAll(en storage.EventEntry) bool {
	return en.Has(storage.EntryAuthorOwns) && !en.Has(storage.EntryTableCreated) && !en.Has(storage.EntryTableChanged)
}
