package commands

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"

	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// File names of the charts.
const (
	// InjuryOddsFile is the chart of the 0-HP choice's injury bands.
	InjuryOddsFile = "injury-odds.png"
	// DiceOddsFile is the chart of a dice expression's totals.
	DiceOddsFile = "dice-odds.png"
	// CheckOddsFile is the chart of the harm system's check dice.
	CheckOddsFile = "check-odds.png"
)

// maxChartTotals bounds how many different totals /odds expr: charts.
const maxChartTotals = 60

// OddsCost is what drawing an /odds chart costs from the caller's work
// allowance (ratelimit.go), in units: like a /history page.
const OddsCost = HistoryCost

// odds answers /odds: with `expr`, the exact distribution of any dice
// expression's total; without it, the odds the table's system decides on —
// for hit-protection the injury bands (RULES.md §1.4) of the 0-HP choice's
// two rolls, Stay Up (2d6) and Go Down (3d6dh1) (RULES.md §1.3); for harm
// the check dice plain, with a bonus die and with a penalty die (RULES.md
// §3.1); hp-mp-wp has no such table. The chart
// is a PNG attachment; the numbers are in the text as well.
func odds(ctx context.Context, s *Service, r *Request) (*Response, error) {
	if ok, wait := s.limiter.take(r.UserID, OddsCost, r.Now); !ok {
		return nil, Errorf(CodeRateLimited, "Slow down: charts take work (%d units each; you may spend %d a minute). Try again in %d s.", OddsCost, WorkPerMinute, int(math.Ceil(wait.Seconds())))
	}
	if expr := r.Options["expr"]; expr != "" {
		return diceOdds(expr)
	}
	var system, fudge string
	if err := s.view(r, func(_ *storage.Tx, t *storage.Table) error {
		system, fudge = t.System, t.Options["fudge-dice"]
		return nil
	}); err != nil {
		return nil, err
	}
	switch system {
	case "hit-protection":
		return injuryOdds()
	case "harm":
		return checkOdds(fudge)
	}
	return nil, Errorf(CodeInvalid, "The %s system has no injury table to chart. `/odds expr:…` charts any roll, e.g. `/odds expr:2d10` or `/odds expr:1d20`.", system)
}

// CheckOdds is the data of the harm check chart (RULES.md §3.1): for n
// Fudge dice (3, or 4 with the table option fudge-dice 4), the chance of
// each dice total, plain, with a bonus die and with a penalty die, in
// percent. SL is the total plus the rank, at least 0.
func CheckOdds(n int) (totals []string, series []ChartSeries, err error) {
	for _, v := range []struct{ name, expr string }{
		{"plain", fmt.Sprintf("%ddF", n)},
		{"bonus die", fmt.Sprintf("%ddFkh%d", n+1, n)},
		{"penalty die", fmt.Sprintf("%ddFkl%d", n+1, n)},
	} {
		ts, values, err := DiceOdds(dice.MustParse(v.expr))
		if err != nil {
			return nil, nil, err
		}
		totals = ts
		series = append(series, ChartSeries{Name: v.name + " (" + v.expr + ")", Values: values})
	}
	return totals, series, nil
}

func checkOdds(fudge string) (*Response, error) {
	n := 3
	if fudge == "4" {
		n = 4
	}
	totals, series, err := CheckOdds(n)
	if err != nil {
		return nil, err
	}
	png, err := barChartPNG(fmt.Sprintf("Check dice (%ddF): SL = total + rank, at least 0", n), totals, series)
	if err != nil {
		return nil, err
	}
	lines := []string{"**Check odds** (exact): SL = the dice total + the rank, at least 0."}
	for _, s := range series {
		parts := make([]string, len(totals))
		for i := range totals {
			parts[i] = fmt.Sprintf("%s: %.1f%%", signed(totals[i]), s.Values[i])
		}
		lines = append(lines, s.Name+": "+strings.Join(parts, " · "))
	}
	return &Response{
		Content: strings.Join(lines, "\n"),
		Files:   []File{{Name: CheckOddsFile, ContentType: "image/png", Data: png}},
	}, nil
}

// signed renders a dice total with its sign ("+2", "0", "-1").
func signed(t string) string {
	if t != "0" && !strings.HasPrefix(t, "-") {
		return "+" + t
	}
	return t
}

// InjuryOdds is the data of the injury-odds chart: the injury bands and, for
// Stay Up and Go Down, the exact chance of each band in percent (RULES.md
// §1.3, §1.4).
func InjuryOdds() (bands []string, series []ChartSeries, err error) {
	for _, choice := range []struct{ name, expr string }{
		{"Stay Up (2d6)", hitprot.StayUpRoll},
		{"Go Down (3d6dh1)", hitprot.GoDownRoll},
	} {
		odds, err := hitprot.Odds(choice.expr)
		if err != nil {
			return nil, nil, err
		}
		s := ChartSeries{Name: choice.name}
		for _, o := range odds {
			if len(series) == 0 {
				bands = append(bands, o.Band.String())
			}
			s.Values = append(s.Values, pct(o.P))
		}
		series = append(series, s)
	}
	return bands, series, nil
}

// pct converts an exact chance to a percentage.
func pct(p *big.Rat) float64 {
	f, _ := new(big.Rat).Mul(p, big.NewRat(100, 1)).Float64()
	return f
}

// injuryChart caches the injury-odds chart, which never changes.
var injuryChart struct {
	once sync.Once
	file File
	err  error
}

// injuryOddsPlaceholder stands for the injury-odds chart in a response
// made inside a write transaction; drawCharts draws it once the
// transaction is over, so that no write waits for the drawing.
func injuryOddsPlaceholder() File {
	return File{Name: InjuryOddsFile, ContentType: "image/png"}
}

// drawCharts fills in the chart placeholders of resp; a chart that cannot be
// drawn is left out (its numbers are in the text too).
func drawCharts(resp *Response) {
	if resp == nil {
		return
	}
	files := resp.Files[:0]
	for _, f := range resp.Files {
		if f.Data == nil && f.Name == InjuryOddsFile {
			var err error
			if f, err = injuryOddsFile(); err != nil {
				continue
			}
		}
		files = append(files, f)
	}
	resp.Files = files
}

// injuryOddsFile returns the injury-odds chart.
func injuryOddsFile() (File, error) {
	injuryChart.once.Do(func() { injuryChart.file, injuryChart.err = drawInjuryOdds() })
	return injuryChart.file, injuryChart.err
}

// drawInjuryOdds draws the injury-odds chart.
func drawInjuryOdds() (File, error) {
	bands, series, err := InjuryOdds()
	if err != nil {
		return File{}, err
	}
	png, err := barChartPNG("Injury table odds at 0 HP", bands, series)
	if err != nil {
		return File{}, err
	}
	return File{Name: InjuryOddsFile, ContentType: "image/png", Data: png}, nil
}

func injuryOdds() (*Response, error) {
	f, err := injuryOddsFile()
	if err != nil {
		return nil, err
	}
	return &Response{
		Content: "**Injury table odds at 0 HP** (exact)\n" +
			"Stay Up, 2d6: " + oddsLine(hitprot.StayUpRoll) + "\n" +
			"Go Down, 3d6 keep the two lowest (3d6dh1): " + oddsLine(hitprot.GoDownRoll),
		Files: []File{f},
	}, nil
}

// DiceOdds is the data of a dice expression's chart: each possible total
// and its exact chance in percent.
func DiceOdds(e dice.Expr) (totals []string, values []float64, err error) {
	d, err := e.Distribution()
	if errors.Is(err, dice.ErrTooComplex) {
		return nil, nil, Errorf(CodeInvalid, "%s is too big to work out exactly.", e.String())
	}
	if err != nil {
		return nil, nil, Errorf(CodeInvalid, "Bad dice expression: %v.", err)
	}
	if n := d.Max() - d.Min() + 1; n > maxChartTotals {
		return nil, nil, Errorf(CodeInvalid, "%s has %d possible totals; a chart shows at most %d.", e.String(), n, maxChartTotals)
	}
	for t := d.Min(); t <= d.Max(); t++ {
		totals = append(totals, fmt.Sprint(t))
		values = append(values, pct(d.P(t)))
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
	png, err := barChartPNG("Odds of "+e.String(), totals, []ChartSeries{{Name: e.String(), Values: values}})
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(totals))
	for i := range totals {
		parts[i] = fmt.Sprintf("%s: %.1f%%", totals[i], values[i])
	}
	return &Response{
		Content: clip(fmt.Sprintf("**Odds of %s** (exact)\n%s", e.String(), strings.Join(parts, " · ")), 1900),
		Files:   []File{{Name: DiceOddsFile, ContentType: "image/png", Data: png}},
	}, nil
}
