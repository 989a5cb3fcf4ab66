package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// undo answers /undo (RULES.md §0.5): it reverts the most recent event at the
// table that the caller may change (a GM: any; a player: one the player made
// that touched only their own characters and not the table: a player cannot
// undo the GM's damage to their character), restoring the exact prior
// state of every character it touched, and records the undo as an event. It
// never rerolls dice. An event whose characters have changed since is not
// reverted over those changes: the caller is told to undo the later event
// first. A change of the table's system is a barrier: nothing before it can
// be undone (its characters belonged to another system). It looks at the
// latest undoWindow events only.
//
// The event is found by the history's index (storage.Tx.EventEntries: a
// player's own events, a GM's every event), not by decoding the history,
// and read (storage.Tx.ReadEvents) in a read transaction, once the caller
// has paid for what reading it parses (pay); the write transaction looks
// in the index again and reverts it if it is still the one to revert.
func undo(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	for try := 1; ; try++ {
		found, err := findUndo(ctx, s, r)
		if err != nil {
			return nil, err
		}
		if undoLooked != nil {
			undoLooked()
		}
		resp, err := applyUndo(s, r, found)
		if errors.Is(err, errUndoMoved) {
			if try < undoTries {
				continue
			}
			return nil, commands.Errorf(commands.CodeConflict, "The table kept changing while /undo looked for the event to revert; nothing was changed. Try /undo again.")
		}
		return resp, err
	}
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
// is no longer the one to revert (another was made, or it was undone), or
// the caller's GM status changed, before it could revert it.
const undoTries = 3

// errUndoMoved: what findUndo found no longer holds in the write
// transaction; look again.
var errUndoMoved = errors.New("undo: the table moved on")

// undoLooked, when set (tests), runs between findUndo and applyUndo.
var undoLooked func()

// undoChoice is what /undo would do at a table, as the index says: revert
// target, or refuse for the change of system barrier, or (neither) for
// want of an event to revert in the window.
type undoChoice struct {
	gm      bool
	target  *storage.EventEntry
	barrier *storage.EventEntry
	// event is target, read (findUndo).
	event *storage.Event
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
// those that touched only their own characters.
func chooseUndo(tx *storage.Tx, channelID string, gm bool, user string) (*undoChoice, error) {
	c := &undoChoice{gm: gm}
	last, err := tx.LastEventSeq(channelID)
	if err != nil {
		return nil, err
	}
	floor := windowFloor(last)
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

// findUndo finds what /undo does at r's table (chooseUndo) in a read
// transaction and reads the event to revert (or the change of system that
// stops it, to name it), once the caller has paid for what reading it
// parses (pay). With nothing to revert it returns the refusal.
func findUndo(ctx context.Context, s *commands.Service, r *commands.Request) (*undoChoice, error) {
	var c *undoChoice
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		var err error
		if c, err = chooseUndo(tx, r.ChannelID, commands.IsGM(r, t), r.UserID); err != nil {
			return err
		}
		read := c.target
		if read == nil {
			read = c.barrier
		}
		if read == nil {
			return commands.Errorf(commands.CodeNotFound, "There is nothing here that you can undo (among the latest %d events).", undoWindow)
		}
		plan, err := tx.PlanEvents(r.ChannelID, []uint64{read.Seq})
		if err != nil {
			return err
		}
		if err := pay(ctx, s, r, "this /undo", plan.Size()); err != nil {
			return err
		}
		return tx.ReadEvents(plan, func(e *storage.Event) error { c.event = e; return nil })
	})
	switch {
	case err != nil:
		return nil, err
	case c.event == nil:
		return nil, fmt.Errorf("undo: an event the index names was not read")
	case c.target == nil:
		return nil, commands.Errorf(commands.CodeConflict, "There is nothing you can undo since the table changed its system (#%d: %s).", c.event.Seq, commands.Escape(c.event.Command))
	}
	return c, nil
}

// applyUndo reverts the event found found, in a write transaction that
// asks the index again: errUndoMoved when the event to revert is another
// now (or none), or the caller's GM status changed.
func applyUndo(s *commands.Service, r *commands.Request, found *undoChoice) (*commands.Response, error) {
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
			return errUndoMoved
		}
		target := found.event
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
		hid, err := hiddenIDs(tx, r.ChannelID)
		if err != nil {
			return err
		}
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
