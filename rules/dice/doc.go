// Package dice parses, rolls and analyses dice expressions in the notation of
// RULES.md §0.3: terms NdS (1 ≤ N ≤ 100, 2 ≤ S ≤ 1000) and NdF (Fudge dice,
// faces −1, 0, +1), integer constants, joined by + and -, where a dice term may
// carry one keep/drop suffix (khK, klK, dhK, dlK).
//
// The package is pure: every roll takes its faces from a [Source] passed in by
// the caller. Production code uses [Random] (or [NewRandom] for a repeatable
// seed); tests and the console use [Scripted], which hands out given faces in
// order and fails with [ErrScriptExhausted] when they run out.
//
// Probabilities are exact: [Expr.Distribution] counts every equally likely
// outcome by dynamic programming (no sampling) and answers with math/big
// integers and rationals.
//
// A typical use:
//
//	e, err := dice.Parse("3d6dh1") // advantage on the injury table (§1.3)
//	if err != nil {
//		return err // a *ParseError naming the bad part, fit to show a player
//	}
//	res, err := e.Roll(src)
//	if err != nil {
//		return err // only the Source can fail
//	}
//	fmt.Println(res) // 3d6dh1 [~~5~~, 2, 1] = 3
package dice
