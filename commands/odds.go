package commands

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// DiceOddsFile is the file name of the chart of a dice expression's totals.
const DiceOddsFile = "dice-odds.png"

// maxChartTotals bounds how many different totals /odds expr: charts.
const maxChartTotals = 60

// OddsCost is what drawing an /odds chart costs from the caller's work
// allowance (ratelimit.go), in units: like a /history page.
const OddsCost = HistoryCost

// odds answers /odds: with `expr`, the exact distribution of any dice
// expression's total; without it, the odds the table's system decides on,
// when it is a Charter (hit-protection's injury bands, harm's check dice).
// The chart is a PNG attachment; the numbers are in the text as well.
func odds(ctx context.Context, s *Service, r *Request) (*Response, error) {
	if ok, wait := s.limiter.take(r.UserID, OddsCost, r.Now); !ok {
		return nil, Errorf(CodeRateLimited, "Slow down: charts take work (%d units each; you may spend %d a minute). Try again in %d s.", OddsCost, WorkPerMinute, int(math.Ceil(wait.Seconds())))
	}
	if expr := r.Options["expr"]; expr != "" {
		return diceOdds(expr)
	}
	var table *storage.Table
	var sys System
	if err := s.view(r, func(_ *storage.Tx, t *storage.Table) error {
		var err error
		table = t
		sys, err = s.system(t.System)
		return err
	}); err != nil {
		return nil, err
	}
	if c, ok := sys.(Charter); ok {
		return c.Chart(table)
	}
	return nil, Errorf(CodeInvalid, "The %s system has no injury table to chart. `/odds expr:…` charts any roll, e.g. `/odds expr:2d10` or `/odds expr:1d20`.", table.System)
}

// Percent converts an exact chance (0 to 1) to a percentage (0 to 100),
// the unit of chart values.
func Percent(p *big.Rat) float64 {
	f, _ := new(big.Rat).Mul(p, big.NewRat(100, 1)).Float64()
	return f
}

// DrawLater returns a file whose Data draw makes once the mutation that
// replies with it is over (Service.Mutate): a chart in a reply made inside
// the write transaction is drawn after the transaction, so that no write
// waits for the drawing. A file draw cannot make is left out of the reply,
// whose text holds its numbers too.
func DrawLater(name, contentType string, draw func() ([]byte, error)) File {
	return File{Name: name, ContentType: contentType, draw: draw}
}

// drawFiles makes the Data of resp's DrawLater files, leaving out those that
// cannot be drawn.
func drawFiles(resp *Response) {
	if resp == nil {
		return
	}
	files := resp.Files[:0]
	for _, f := range resp.Files {
		if f.draw != nil {
			data, err := f.draw()
			if err != nil {
				continue
			}
			f.Data, f.draw = data, nil
		}
		files = append(files, f)
	}
	resp.Files = files
}

// DiceOdds is the data of a dice expression's chart: each possible total
// and its exact chance in percent.
func DiceOdds(e dice.Expr) (totals []string, values []float64, err error) {
	// Refused before any counting: 100d1000 has 99,901 totals, whose
	// distribution took 0.3–0.45 s to work out and then to refuse.
	d, err := e.DistributionLimit(maxChartTotals)
	switch {
	case errors.Is(err, dice.ErrNoExactOdds):
		return nil, nil, Errorf(CodeInvalid, "No exact odds for %s: exploding dice can keep adding dice, so its total has no highest value to chart.", e.String())
	case errors.Is(err, dice.ErrTooManyTotals) && len(e.Terms) == 0:
		return nil, nil, Errorf(CodeInvalid, "%s can have up to %d different totals; a chart shows at most %d.", e.String(), e.Totals(), maxChartTotals)
	case errors.Is(err, dice.ErrTooManyTotals):
		return nil, nil, Errorf(CodeInvalid, "%s has %d possible totals; a chart shows at most %d.", e.String(), e.Totals(), maxChartTotals)
	case errors.Is(err, dice.ErrTooComplex):
		return nil, nil, Errorf(CodeInvalid, "No exact odds for %s: it has too many outcomes to count within the work limit.", e.String())
	case err != nil:
		return nil, nil, Errorf(CodeInvalid, "Bad dice expression: %v.", err)
	}
	for t := d.Min(); t <= d.Max(); t++ {
		if d.Count(t).Sign() == 0 {
			continue // a total the operators never give (1d6*10 skips 11 to 19)
		}
		totals = append(totals, fmt.Sprint(t))
		values = append(values, Percent(d.P(t)))
	}
	return totals, values, nil
}

func diceOdds(expr string) (*Response, error) {
	e, err := dice.Parse(expr)
	if err != nil {
		return nil, Errorf(CodeInvalid, "Bad dice expression: %v.", err)
	}
	totals, values, err := DiceOdds(e)
	if err != nil {
		return nil, err
	}
	png, err := BarChartPNG("Odds of "+e.String(), totals, []ChartSeries{{Name: e.String(), Values: values}})
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(totals))
	for i := range totals {
		parts[i] = fmt.Sprintf("%s: %.1f%%", totals[i], values[i])
	}
	return &Response{
		Content: Clip(fmt.Sprintf("**Odds of %s** (exact)\n%s", e.String(), strings.Join(parts, " · ")), 1900),
		Files:   []File{{Name: DiceOddsFile, ContentType: "image/png", Data: png}},
	}, nil
}
