package harm

import "github.com/hpkeeper/hpkeeper/rules/dice"

// Initiative makes the character's initiative check (RULES.md §0.6): a
// React check, fudge Fudge dice (3, or 4 with the table option; 0 means
// 3) + React rank with the condition's penalty dice (React is innate, so
// only Broken adds one); its success level is the initiative. It is not
// an action, so a Broken character spends no pool point on it (§3.2).
// Errors: ErrNoAbility when the character has no React, ErrBadFudgeDice,
// or r's.
func (c Character) Initiative(src dice.Source, fudge int) (CheckResult, error) {
	_, _, res, err := c.rollCheck(src, React, "", fudge, false)
	return res, err
}
