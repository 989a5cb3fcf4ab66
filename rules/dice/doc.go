// Package dice parses, rolls and analyses dice expressions. The notation of
// RULES.md §0.3 (terms NdS and NdF, constants, + and -, one keep/drop
// suffix kh, kl, dh or dl) parses to Terms exactly as it always has; the
// full notation of docs/dice.md adds what players type at other tables:
// Avrae's d20 grammar (keep and drop by selector, rr, ro, ra, e, mi, ma,
// sets, * / // %, parentheses, comparisons, [annotations], a trailing
// comment) with Dice Maiden's success counting (t, tl, f, ds) and
// spellings (d1, r2, ir2, ie6, d%, "! comment"). Where the two bots read an
// expression differently, Expr.Notes says which reading was used and how
// to write the other.
//
// The package is pure: every roll takes its faces from a [Source] passed in by
// the caller. Production code uses [Random] (or [NewRandom] for a repeatable
// seed); tests and the console use [Scripted], which hands out given faces in
// order and fails with [ErrScriptExhausted] when they run out.
//
// Work is bounded before it starts: Parse refuses an expression longer than
// MaxLength, naming more than MaxDice dice, or likely to roll more than
// MaxRolled (rerolls and explosions counted), and a roll stops at MaxRolled
// dice whatever happens.
//
// Probabilities are exact: [Expr.Distribution] counts every equally likely
// outcome by dynamic programming and convolution (no sampling) and answers
// with math/big integers and rationals, or refuses with ErrNoExactOdds
// (exploding dice) or ErrTooComplex.
//
// A typical use:
//
//	e, err := dice.Parse("3d6dh1") // advantage on the injury table (§1.3)
//	if err != nil {
//		return err // a *ParseError naming the bad part, fit to show a player
//	}
//	res, err := e.Roll(src)
//	if err != nil {
//		return err // the Source failed, or a reroll ran past MaxRolled
//	}
//	fmt.Println(res) // 3d6dh1 [~~5~~, 2, 1] = 3
package dice
