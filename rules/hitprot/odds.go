package hitprot

import (
	"math/big"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Table rolls of the 0-HP choice (RULES.md §1.3): Stay Up rolls 2d6, Go
// Down (when attended) 3d6 keeping the two lowest.
const (
	StayUpRoll = "2d6"
	GoDownRoll = "3d6dh1"
)

// BandOdds is the exact chance of one injury band.
type BandOdds struct {
	Band Band
	P    *big.Rat
}

// Odds returns the exact chance of each injury band (RULES.md §1.4) for a
// roll on the table, from the dice distribution of expr (totals below 2
// count as 2, above 12 as 12). It returns the parse or distribution error.
func Odds(expr string) ([]BandOdds, error) {
	e, err := dice.Parse(expr)
	if err != nil {
		return nil, err
	}
	d, err := e.Distribution()
	if err != nil {
		return nil, err
	}
	out := make([]BandOdds, 0, len(Bands))
	for _, b := range Bands {
		lo, hi := b.Range()
		if b == Unhurt {
			lo = d.Min()
		}
		if b == FatalWoundII {
			hi = d.Max()
		}
		out = append(out, BandOdds{Band: b, P: d.PRange(lo, hi)})
	}
	return out, nil
}
