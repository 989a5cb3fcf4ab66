package harm

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// CheckOddsFile is the chart of the harm system's check dice.
const CheckOddsFile = "check-odds.png"

// CheckOdds is the data of the harm check chart (RULES.md §3.1): for n
// Fudge dice (3, or 4 with the table option fudge-dice 4), the chance of
// each dice total, plain, with a bonus die and with a penalty die, in
// percent. SL is the total plus the rank, at least 0.
func CheckOdds(n int) (totals []string, series []commands.ChartSeries, err error) {
	for _, v := range []struct{ name, expr string }{
		{"plain", fmt.Sprintf("%ddF", n)},
		{"bonus die", fmt.Sprintf("%ddFkh%d", n+1, n)},
		{"penalty die", fmt.Sprintf("%ddFkl%d", n+1, n)},
	} {
		d, err := dice.MustParse(v.expr).Distribution()
		if err != nil {
			return nil, nil, err
		}
		s := commands.ChartSeries{Name: v.name + " (" + v.expr + ")"}
		totals = totals[:0]
		for t := d.Min(); t <= d.Max(); t++ {
			totals = append(totals, fmt.Sprint(t))
			s.Values = append(s.Values, commands.Percent(d.P(t)))
		}
		series = append(series, s)
	}
	return totals, series, nil
}

// ChartHelp says what Chart charts (the Charter interface).
func (System) ChartHelp() string {
	return "the check dice (3dF, or 4dF with fudge-dice 4) plain, with a bonus die and with a penalty die"
}

// Chart charts the check dice of the table's checks (RULES.md §3.1; the
// Charter interface): 3dF, or 4dF with the table option fudge-dice 4, plain,
// with a bonus die and with a penalty die.
func (System) Chart(t *storage.Table) (*commands.Response, error) {
	n := 3
	if t.Options["fudge-dice"] == "4" {
		n = 4
	}
	totals, series, err := CheckOdds(n)
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
	return &commands.Response{
		Content: strings.Join(lines, "\n"),
		Files:   []commands.File{commands.ChartFile(CheckOddsFile, commands.Chart{Title: fmt.Sprintf("Check dice (%ddF): SL = total + rank, at least 0", n), Categories: totals, Series: series})},
	}, nil
}

// signed renders a dice total with its sign ("+2", "0", "-1").
func signed(t string) string {
	if t != "0" && !strings.HasPrefix(t, "-") {
		return "+" + t
	}
	return t
}
