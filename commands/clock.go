package commands

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// clockCommand answers /clock (RULES.md §0.2): anyone may show the clock; a
// GM moves it a round (next-round) or by an amount of a unit (advance), and
// the table's system resolves every timed effect on the way.
func clockCommand(ctx context.Context, s *Service, r *Request) (*Response, error) {
	action := r.Options["action"]
	if action == "show" || action == "" {
		var resp *Response
		err := s.view(r, func(tx *storage.Tx, t *storage.Table) error {
			resp = &Response{Content: "The clock reads " + clock.Time(t.Clock).String() + "."}
			return nil
		})
		return resp, err
	}
	n, unit := int64(1), clock.Round
	if action == "advance" {
		a, ok := r.Options["amount"]
		if !ok {
			return nil, Errorf(CodeInvalid, "/clock action:advance needs amount (and unit, default rounds).")
		}
		n, _ = strconv.ParseInt(a, 10, 64)
		if u, ok := r.Options["unit"]; ok {
			var err error
			if unit, err = clock.ParseUnit(u); err != nil {
				return nil, Errorf(CodeInvalid, "%v.", err)
			}
		}
	} else if _, ok := r.Options["amount"]; ok {
		return nil, Errorf(CodeInvalid, "next-round moves exactly one round; use action:advance with amount.")
	}
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		if err := m.RequireGM("move the clock"); err != nil {
			return nil, err
		}
		mv, err := m.moveClock(n, unit)
		if err != nil {
			return nil, err
		}
		m.turns.public = append([]string{mv.head}, mv.order...)
		return &Response{Content: mv.text() + m.RollsLine()}, nil
	})

}

// AdvanceClock moves the table's clock n units forward, lets the table's
// system resolve every timed effect on the way (System.AdvanceClock), and
// carries the open turn order along (RULES.md §0.6: by rounds its next
// round starts, by a turn or more it closes). It returns the report: a
// first line saying how the clock moved, then one line per effect that
// ended or fired, then what the turn order did. Each line is also noted
// for /history. Systems call it for rests that pass time (a night's
// sleep).
func (m *Mutation) AdvanceClock(n int64, unit clock.Unit) ([]string, error) {
	mv, err := m.moveClock(n, unit)
	if err != nil {
		return nil, err
	}
	return append(append([]string{mv.head}, mv.fired...), mv.order...), nil
}

// ClockUnit is the unit of the clock move in progress, for a system's
// AdvanceClock (harm: a move by rounds is time within the conflict,
// RULES.md §3.2.4); 0 outside one.
func (m *Mutation) ClockUnit() clock.Unit { return m.moving }

// clockMove is what one move of the clock reports.
type clockMove struct {
	// head says how the clock moved.
	head string
	// fired has one line per effect that ended or fired.
	fired []string
	// order says what the open turn order did; nil without one.
	order []string
}

// text renders the move for a reply: the head, what fired (or that
// nothing did), then the turn order.
func (mv clockMove) text() string {
	lines := append([]string{mv.head}, mv.fired...)
	if len(mv.fired) == 0 {
		lines = append(lines, "Nothing ended or fired.")
	}
	return strings.Join(append(lines, mv.order...), "\n")
}

// moveClock is the one way the clock moves (RULES.md §0.2, §0.6):
// /clock, the round end of /init next and the rests that pass time all
// come here. The system resolves its timers between the two clock
// values, then the open turn order follows (orderFollowsClock).
func (m *Mutation) moveClock(n int64, unit clock.Unit) (clockMove, error) {
	from := clock.Time(m.Table.Clock)
	to := from.Add(n, unit)
	m.moving = unit
	report, err := m.System.AdvanceClock(m, int64(from), int64(to))
	m.moving = 0
	if err != nil {
		return clockMove{}, err
	}
	m.Table.Clock = int64(to)
	head := fmt.Sprintf("The clock moves %d %s: %s → %s.", n, strings.TrimSuffix(unit.String(), plural(n)), from, to)
	m.Note("%s", head)
	for _, line := range report {
		m.Note("%s", line)
	}
	order, err := m.orderFollowsClock(unit)
	if err != nil {
		return clockMove{}, err
	}
	m.noteLines(order)
	return clockMove{head: head, fired: report, order: order}, nil
}

// plural returns the suffix to trim for n == 1 ("s"), else "".
func plural(n int64) string {
	if n == 1 {
		return "s"
	}
	return ""
}
