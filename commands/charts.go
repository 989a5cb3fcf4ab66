package commands

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Charts are data in the kernel: a system says what its odds are (Charter,
// or a chart in a reply such as hit-protection's injury odds at 0 HP) as a
// Chart, and the odds feature (commands/odds), which alone imports a
// plotting library, draws it as a PNG once the handler has answered.

// ChartFile returns the PNG file named name (e.g. "injury-odds.png") that
// is drawn from c once the handler has answered, so that no write waits for
// the drawing. A file nobody draws (no feature draws charts, or the drawing
// failed) is left out of the reply, whose text holds the numbers too.
func ChartFile(name string, c Chart) File {
	return File{Name: name, ContentType: "image/png", Chart: &c}
}

// leaveOutUndrawn drops from resp's files the charts that were not drawn
// (ChartFile).
func leaveOutUndrawn(resp *Response) {
	files := resp.Files[:0]
	for _, f := range resp.Files {
		if f.Chart == nil || f.Data != nil {
			files = append(files, f)
		}
	}
	resp.Files = files
}

// Percent converts an exact chance (0 to 1) to a percentage (0 to 100),
// the unit of chart values.
func Percent(p *big.Rat) float64 {
	f, _ := new(big.Rat).Mul(p, big.NewRat(100, 1)).Float64()
	return f
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
