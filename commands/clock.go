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
	if err := checkAdvance(n, unit); err != nil {
		return nil, err
	}
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		if err := m.RequireGM("move the clock"); err != nil {
			return nil, err
		}
		report, err := m.AdvanceClock(n, unit)
		if err != nil {
			return nil, err
		}
		if len(report) == 1 {
			report = append(report, "Nothing ended or fired.")
		}
		return &Response{Content: strings.Join(report, "\n") + m.RollsLine()}, nil
	})

}

// AdvanceClock moves the table's clock n units forward, lets the table's
// system resolve every timed effect on the way (System.AdvanceClock), and
// returns the report: a first line saying how the clock moved, then one line
// per effect that ended or fired. Each line is also noted for /history.
// Systems call it for rests that pass time (a night's sleep).
func (m *Mutation) AdvanceClock(n int64, unit clock.Unit) ([]string, error) {
	from := clock.Time(m.Table.Clock)
	to := from.Add(n, unit)
	report, err := m.System.AdvanceClock(m, int64(from), int64(to))
	if err != nil {
		return nil, err
	}
	m.Table.Clock = int64(to)
	head := fmt.Sprintf("The clock moves %d %s: %s → %s.", n, strings.TrimSuffix(unit.String(), plural(n)), from, to)
	m.Note("%s", head)
	for _, line := range report {
		m.Note("%s", line)
	}
	return append([]string{head}, report...), nil
}

// plural returns the suffix to trim for n == 1 ("s"), else "".
func plural(n int64) string {
	if n == 1 {
		return "s"
	}
	return ""
}
