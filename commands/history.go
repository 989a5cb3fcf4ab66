package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// historyLimit is how many events /history shows; historyWindow is how many
// of the latest events it looks through for a target's, so one read
// transaction never walks a whole long log.
const (
	historyLimit  = 10
	historyWindow = 1000
)

// history answers /history (RULES.md §0.5): the latest events at the table,
// newest first, with who, what and every die; with `target`, only the events
// that touched that character.
func history(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var resp *Response
	err := s.view(r, func(tx *storage.Tx, t *storage.Table) error {
		sys, err := s.system(t.System)
		if err != nil {
			return err
		}
		var only uint64
		if name, ok := r.Options["target"]; ok {
			c, err := characterByName(tx, r.ChannelID, name)
			if err != nil {
				return err
			}
			only = c.ID
		}
		// Players read hidden characters' words; a GM gets those events
		// in full privately.
		var lines, hidden []string
		seen := 0
		err = tx.EachEventBackward(r.ChannelID, func(e *storage.Event) (bool, error) {
			seen++
			if only != 0 && !touches(e, only) {
				return seen < historyWindow, nil
			}
			lines = append(lines, renderEventFor(e, sys, t.Clock))
			if eventHidden(e) && len(lines) <= historyLimit {
				hidden = append(hidden, renderEvent(e))
			}
			return len(lines) <= historyLimit, nil
		})
		if err != nil {
			return err
		}
		if len(lines) == 0 {
			resp = &Response{Content: "No events yet."}
			return nil
		}
		if len(lines) > historyLimit {
			lines = append(lines[:historyLimit], "… and more, older events not shown")
		}
		resp = &Response{Content: joinWithin(append([]string{"**History** (newest first)"}, lines...), maxContent, "")}
		if len(hidden) > 0 {
			resp = forGM(r, t, resp, &Response{Content: joinWithin(hidden, maxContent-len(hiddenFollowUp)-1, "")})
		}
		return nil
	})
	return resp, err
}

func touches(e *storage.Event, id uint64) bool {
	for _, c := range e.Changes {
		if c.CharacterID == id {
			return true
		}
	}
	return false
}

// renderEvent renders one event for /history: number, time, who, the
// command, the dice and the summary.
func renderEvent(e *storage.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`#%d` %s · %s · %s", e.Seq, e.At.UTC().Format("Jan 2 15:04"), Escape(e.UserName), Escape(e.Command))
	if len(e.Dice) > 0 {
		b.WriteString("\n   dice: " + strings.Join(e.Dice, "; "))
	}
	if e.Summary != "" {
		for _, line := range strings.Split(e.Summary, "\n") {
			b.WriteString("\n   " + Escape(line))
		}
	}
	return b.String()
}
