package commands

import (
	"context"
	"errors"
	"fmt"

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
// be undone (its characters belonged to another system). The walk looks at
// the latest undoWindow events only, so a long log never stalls writers.
func undo(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var resp *Response
	err := s.db.Update(func(tx *storage.Tx) error {
		t, err := loadTable(tx, r.ChannelID)
		if err != nil {
			return err
		}
		gm := isGM(r, t)
		undone := map[uint64]bool{}
		var target, barrier *storage.Event
		seen := 0
		err = tx.EachEventBackward(r.ChannelID, func(e *storage.Event) (bool, error) {
			seen++
			if e.UndoOf != 0 {
				undone[e.UndoOf] = true
				return seen < undoWindow, nil
			}
			if changesSystem(e) && !undone[e.Seq] {
				barrier = e
				return false, nil
			}
			if undone[e.Seq] || !undoable(e) {
				return seen < undoWindow, nil
			}
			if gm || (e.UserID == r.UserID && ownsAll(e, r.UserID)) {
				target = e
				return false, nil
			}
			return seen < undoWindow, nil
		})
		if err != nil {
			return err
		}
		if target == nil && barrier != nil {
			return Errorf(CodeConflict, "There is nothing you can undo since the table changed its system (#%d: %s).", barrier.Seq, Escape(barrier.Command))
		}
		if target == nil {
			return Errorf(CodeNotFound, "There is nothing here that you can undo (among the latest %d events).", undoWindow)
		}
		if err := tx.RevertEvent(target); err != nil {
			var ce *storage.ConflictError
			if errors.As(err, &ce) && ce.CharacterID != 0 {
				return Errorf(CodeConflict, "Cannot undo #%d (%s): %s has changed since. Undo the later event first.", target.Seq, Escape(target.Command), Escape(ce.Name))
			}
			if errors.Is(err, storage.ErrConflict) {
				return Errorf(CodeConflict, "Cannot undo #%d (%s): the table has changed since. Undo the later event first.", target.Seq, Escape(target.Command))
			}
			if errors.Is(err, storage.ErrNameTaken) {
				return Errorf(CodeConflict, "Cannot undo #%d (%s): its character's name is taken by another character now.", target.Seq, Escape(target.Command))
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
		full := fmt.Sprintf("Undid `#%d` by %s: %s\nEverything it changed is back as it was; no dice were rerolled.", target.Seq, Escape(target.UserName), Escape(target.Command))
		resp = &Response{Content: full}
		if eventHidden(target) {
			// The command may show a hidden character's numbers: players read
			// its name and each hidden character's word; a GM gets it all.
			ev.Parts = []storage.EventPart{{Characters: ids, Hidden: true, Summary: ev.Summary}}
			sys, err := s.system(t.System)
			if err != nil {
				return err
			}
			resp.Content = fmt.Sprintf("Undid `#%d` by %s (%s): everything it changed is back as it was; no dice were rerolled.", target.Seq, Escape(target.UserName), Escape(commandName(target.Command)))
			for _, c := range ev.Changes {
				if hid := c.After != nil && c.After.Hidden || c.Before != nil && c.Before.Hidden; hid {
					resp.Content += "\n" + undoneWord(sys, t.Clock, c)
				}
			}
			resp = forGM(r, t, resp, &Response{Content: full})
		}
		return tx.AppendEvent(ev)
	})
	return resp, err
}

// undoneWord is what players read of a hidden character an undo changed:
// "**Goblin**: Wounded", or "gone" when the undo removed it.
func undoneWord(sys System, now int64, c storage.Change) string {
	if c.After == nil {
		return "**" + Escape(c.Name) + "**: gone"
	}
	v, err := viewOf(sys, c.After, now)
	if err != nil {
		return "**" + Escape(c.Name) + "**"
	}
	return "**" + Escape(c.Name) + "**: " + v.Word()
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
