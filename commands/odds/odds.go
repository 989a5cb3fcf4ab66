// Package odds is the odds feature of the commands kernel: /odds, the exact
// odds of any dice expression's total or of what the table's system charts
// (commands.Charter), and the drawing of every chart a reply carries
// (commands.ChartFile) as a PNG. It is the one package that imports a
// plotting library (gonum.org/v1/plot): the kernel and the systems know
// charts only as data (commands.Chart).
package odds

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// DiceOddsFile is the file name of the chart of a dice expression's totals.
const DiceOddsFile = "dice-odds.png"

// Cost is what drawing an /odds chart costs from the caller's work
// allowance (commands.Service.TakeWork), in units: like a /history page.
const Cost = 50

// Feature is /odds and the drawing of charts. It keeps the charts it drew
// last (the systems' never change), so a Feature serves one Service.
type Feature struct {
	charts chartMemo
}

var (
	_ commands.Feature = (*Feature)(nil)
	_ commands.Wrapper = (*Feature)(nil)
)

// New returns the odds feature.
func New() *Feature { return &Feature{} }

// Register adds /odds; /help topic:odds says what each system charts
// (Charter).
func (f *Feature) Register(g *commands.Registry) {
	g.Add(&commands.Command{
		Name: "odds", Description: "Chart exact odds: your system's own, or any roll's", Handler: odds,
		Topic:   "`/odds` charts the odds the table's system has of its own (each is below); `/odds expr:2d10` charts any roll's totals. The chart comes as a PNG.",
		Options: []commands.Option{{Name: "expr", Description: "Dice expression to chart, e.g. 2d6 or 4dF (your system's rolls are suggested)", Type: commands.OptionString, Autocomplete: true, MaxLength: 64}},
		HelpFor: func(sys commands.System) string {
			if ch, ok := sys.(commands.Charter); ok {
				return ch.ChartHelp()
			}
			return ""
		},
	})
}

// Wrap draws the charts of every reply (ChartFile) once its handler has
// answered, outside any write transaction; a chart that cannot be drawn is
// left out (the reply's text holds its numbers).
func (f *Feature) Wrap(next commands.HandlerFunc) commands.HandlerFunc {
	return func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
		resp, err := next(ctx, s, r)
		if err != nil || resp == nil {
			return resp, err
		}
		for i := range resp.Files {
			if c := resp.Files[i].Chart; c != nil && resp.Files[i].Data == nil {
				if png, err := f.charts.draw(c); err == nil {
					resp.Files[i].Data = png
				}
			}
		}
		return resp, nil
	}
}

// odds answers /odds: with `expr`, the exact distribution of any dice
// expression's total; without it, the odds the table's system decides on,
// when it is a Charter (hit-protection's injury bands, harm's check dice).
// The chart is a PNG attachment; the numbers are in the text as well.
func odds(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	if ok, wait := s.TakeWork(ctx, r, Cost); !ok {
		return nil, commands.Errorf(commands.CodeRateLimited, "Slow down: charts take work (%d units each; you may spend %d a minute). Try again in %d s.", Cost, commands.WorkPerMinute, int(math.Ceil(wait.Seconds())))
	}
	if expr := r.Options["expr"]; expr != "" {
		return diceOdds(expr)
	}
	var table *storage.Table
	var sys commands.System
	if err := s.View(r, func(_ *storage.Tx, t *storage.Table) error {
		var err error
		table = t
		sys, err = s.System(t.System)
		return err
	}); err != nil {
		return nil, err
	}
	if c, ok := sys.(commands.Charter); ok {
		return c.Chart(table)
	}
	return nil, commands.Errorf(commands.CodeInvalid, "The %s system has no injury table to chart. `/odds expr:…` charts any roll, e.g. `/odds expr:2d10` or `/odds expr:1d20`.", table.System)
}

func diceOdds(expr string) (*commands.Response, error) {
	e, err := dice.Parse(expr)
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "Bad dice expression: %v.", err)
	}
	totals, values, err := DiceOdds(e)
	if err != nil {
		return nil, err
	}
	png, err := BarChartPNG(commands.Chart{Title: "Odds of " + e.String(), Categories: totals, Series: []commands.ChartSeries{{Name: e.String(), Values: values}}})
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(totals))
	for i := range totals {
		parts[i] = fmt.Sprintf("%s: %.1f%%", totals[i], values[i])
	}
	return &commands.Response{
		Content: commands.Clip(fmt.Sprintf("**Odds of %s** (exact)\n%s", e.String(), strings.Join(parts, " · ")), 1900),
		Files:   []commands.File{{Name: DiceOddsFile, ContentType: "image/png", Data: png}},
	}, nil
}

// chartMemo keeps the PNGs of the charts drawn last, by their content: a
// system's charts (the injury odds at 0 HP, the check dice) never change,
// and are drawn once. It is safe for concurrent use.
type chartMemo struct {
	mu   sync.Mutex
	pngs map[string][]byte
}

// maxMemoCharts bounds the charts kept; past it the memo starts afresh.
const maxMemoCharts = 16

// draw returns the PNG of c, drawn once.
func (m *chartMemo) draw(c *commands.Chart) ([]byte, error) {
	key := fmt.Sprintf("%#v", *c)
	m.mu.Lock()
	png, ok := m.pngs[key]
	m.mu.Unlock()
	if ok {
		return png, nil
	}
	png, err := BarChartPNG(*c)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pngs == nil || len(m.pngs) >= maxMemoCharts {
		m.pngs = map[string][]byte{}
	}
	m.pngs[key] = png
	return png, nil
}

// maxChartTotals bounds how many different totals a chart of a dice
// expression shows.
const maxChartTotals = 60

// DiceOdds is the data of a dice expression's chart: each possible total
// and its exact chance in percent. An expression with more than 60 totals,
// or too big to work out exactly, is a CodeInvalid error.
func DiceOdds(e dice.Expr) (totals []string, values []float64, err error) {
	// Refused before any counting: 100d1000 has 99,901 totals, whose
	// distribution took 0.3–0.45 s to work out and then to refuse.
	d, err := e.DistributionLimit(maxChartTotals)
	switch {
	case errors.Is(err, dice.ErrNoExactOdds):
		return nil, nil, commands.Errorf(commands.CodeInvalid, "No exact odds for %s: exploding dice can keep adding dice, so its total has no highest value to chart.", e.String())
	case errors.Is(err, dice.ErrTooManyTotals) && len(e.Terms) == 0:
		return nil, nil, commands.Errorf(commands.CodeInvalid, "%s can have up to %d different totals; a chart shows at most %d.", e.String(), e.Totals(), maxChartTotals)
	case errors.Is(err, dice.ErrTooManyTotals):
		return nil, nil, commands.Errorf(commands.CodeInvalid, "%s has %d possible totals; a chart shows at most %d.", e.String(), e.Totals(), maxChartTotals)
	case errors.Is(err, dice.ErrTooComplex):
		return nil, nil, commands.Errorf(commands.CodeInvalid, "No exact odds for %s: it has too many outcomes to count within the work limit.", e.String())
	case err != nil:
		return nil, nil, commands.Errorf(commands.CodeInvalid, "Bad dice expression: %v.", err)
	}
	for t := d.Min(); t <= d.Max(); t++ {
		if d.Count(t).Sign() == 0 {
			continue // a total the operators never give (1d6*10 skips 11 to 19)
		}
		totals = append(totals, fmt.Sprint(t))
		values = append(values, commands.Percent(d.P(t)))
	}
	return totals, values, nil
}
