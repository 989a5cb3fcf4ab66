package hitprot

import (
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// InjuryOddsFile is the chart of the 0-HP choice's injury bands.
const InjuryOddsFile = "injury-odds.png"

// InjuryOdds is the data of the injury-odds chart: the injury bands and, for
// Stay Up and Go Down, the exact chance of each band in percent (RULES.md
// §1.3, §1.4).
func InjuryOdds() (bands []string, series []commands.ChartSeries, err error) {
	for _, choice := range []struct{ name, expr string }{
		{"Stay Up (2d6)", rules.StayUpRoll},
		{"Go Down (3d6dh1)", rules.GoDownRoll},
	} {
		odds, err := rules.Odds(choice.expr)
		if err != nil {
			return nil, nil, err
		}
		s := commands.ChartSeries{Name: choice.name}
		for _, o := range odds {
			if len(series) == 0 {
				bands = append(bands, o.Band.String())
			}
			s.Values = append(s.Values, commands.Percent(o.P))
		}
		series = append(series, s)
	}
	return bands, series, nil
}

// injuryChart caches the data of the injury-odds chart, which never
// changes.
var injuryChart struct {
	once  sync.Once
	chart commands.Chart
	err   error
}

// injuryOddsFile is the injury-odds chart, drawn once the handler has
// answered (commands.ChartFile).
func injuryOddsFile() (commands.File, error) {
	injuryChart.once.Do(func() {
		bands, series, err := InjuryOdds()
		injuryChart.chart, injuryChart.err = commands.Chart{Title: "Injury table odds at 0 HP", Categories: bands, Series: series}, err
	})
	return commands.ChartFile(InjuryOddsFile, injuryChart.chart), injuryChart.err
}

// ChartHelp says what Chart charts (the Charter interface).
func (System) ChartHelp() string {
	return "the injury-band chances of the 0-HP choice's Stay Up (2d6) and Go Down (3d6dh1)"
}

// Chart charts the injury bands of the 0-HP choice's two rolls (RULES.md
// §1.3, §1.4; the Charter interface): Stay Up (2d6) and Go Down (3d6dh1).
func (System) Chart(*storage.Table) (*commands.Response, error) {
	f, err := injuryOddsFile()
	if err != nil {
		return nil, err
	}
	return &commands.Response{
		Content: "**Injury table odds at 0 HP** (exact)\n" +
			"Stay Up, 2d6: " + oddsLine(rules.StayUpRoll) + "\n" +
			"Go Down, 3d6 keep the two lowest (3d6dh1): " + oddsLine(rules.GoDownRoll),
		Files: []commands.File{f},
	}, nil
}

// percent renders an exact probability as a percentage with one decimal,
// rounded to nearest (halves away from zero).
func percent(p *big.Rat) string {
	return new(big.Rat).Mul(p, big.NewRat(100, 1)).FloatString(1) + "%"
}

// oddsLine lists the chance of each injury band for a table roll.
func oddsLine(expr string) string {
	odds, err := rules.Odds(expr)
	if err != nil {
		return err.Error()
	}
	parts := make([]string, len(odds))
	for i, o := range odds {
		parts[i] = fmt.Sprintf("%s %s", o.Band, percent(o.P))
	}
	return strings.Join(parts, " · ")
}
