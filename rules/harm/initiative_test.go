package harm

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestInitiative: a React check with the condition's penalty dice (React
// is innate: none while Bloody, one while Broken), its SL the initiative;
// not an action, so a Broken character spends nothing (RULES.md §0.6,
// §3.2).
func TestInitiative(t *testing.T) {
	c := New()
	c.Abilities[React] = Ability{Rank: 1, Pool: Instinct}
	c.PoolNamed(Instinct).Max, c.PoolNamed(Instinct).Current = 2, 2
	for _, tt := range []struct {
		cond  Condition
		faces []int
		expr  string
		sl    int
	}{
		{Healthy, []int{1, 0, -1}, "3dF+1", 1},
		{Bloody, []int{1, 1, 0}, "3dF+1", 3},
		{Broken, []int{1, 1, 0, -1}, "4dFkl3+1", 1},
	} {
		c.Condition = tt.cond
		before := c.Clone()
		res, err := c.Initiative(dice.NewScripted(tt.faces...), 0)
		if err != nil || res.Roll.Expr.String() != tt.expr || res.SL != tt.sl {
			t.Errorf("%s: Initiative = %s (SL %d), %v; want %s, SL %d", tt.cond, res.Roll, res.SL, err, tt.expr, tt.sl)
		}
		if c.PoolNamed(Instinct).Current != before.PoolNamed(Instinct).Current {
			t.Errorf("%s: the initiative spent a pool point", tt.cond)
		}
	}
	if _, err := (Character{}).Initiative(dice.NewScripted(), 0); err == nil {
		t.Error("Initiative without React succeeded")
	}
}
