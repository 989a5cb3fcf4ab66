package dice_test

import (
	"errors"
	"fmt"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

func ExampleParse() {
	e, err := dice.Parse("3D6 dl1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e, e.DiceCount(), e.Min(), e.Max())

	res, err := e.Roll(dice.NewScripted(5, 2, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res)
	fmt.Println(res.Total, res.Kept(0))
	// Output:
	// 3d6dl1 3 2 12
	// 3d6dl1 [5, 2, ~~1~~] = 7
	// 7 [5 2]
}

func ExampleParse_error() {
	_, err := dice.Parse("1d20 + 3d6kh4")
	fmt.Println(err)
	var pe *dice.ParseError
	if errors.As(err, &pe) {
		fmt.Printf("part %q: %s\n", pe.Part, pe.Reason)
	}
	// Output:
	// "3d6kh4": cannot keep 4 of 3 dice
	// part "3d6kh4": cannot keep 4 of 3 dice
}

func ExampleExpr_Roll() {
	// A harm check with a penalty die (RULES.md §3.1): 4dF keeping the
	// lowest 3, plus rank 2.
	src := dice.NewScripted(1, 0, -1, 1)
	res, err := dice.MustParse("4dFkl3+2").Roll(src)
	fmt.Println(res, err)

	_, err = dice.MustParse("1d20").Roll(src)
	fmt.Println(err, errors.Is(err, dice.ErrScriptExhausted))
	// Output:
	// 4dFkl3+2 [~~+~~, 0, −, +] + 2 = 2 <nil>
	// rolling 1d20: scripted dice ran out true
}

func ExampleExpr_Distribution() {
	d, err := dice.MustParse("2d6").Distribution()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("outcomes:", d.Outcomes())
	fmt.Println("P(7) =", d.P(7), d.PFloat(7))
	fmt.Println("P(total ≤ 4) =", d.PAtMost(4))
	fmt.Println("P(8 ≤ total ≤ 9) =", d.PRange(8, 9))
	// Output:
	// outcomes: 36
	// P(7) = 1/6 0.16666666666666666
	// P(total ≤ 4) = 1/6
	// P(8 ≤ total ≤ 9) = 1/4
}

func ExampleExpr_Distribution_advantage() {
	// Going down and being attended rolls the injury table with advantage,
	// 3d6 keeping the two lowest (RULES.md §1.3); staying up rolls 2d6.
	for _, s := range []string{"2d6", "3d6dh1"} {
		d, _ := dice.MustParse(s).Distribution()
		fmt.Printf("%s: P(Unhurt or Flesh Wound, total ≤ 4) = %v, P(Fatal, total ≥ 10) = %v\n",
			s, d.PAtMost(4), d.PAtLeast(10))
	}
	// Output:
	// 2d6: P(Unhurt or Flesh Wound, total ≤ 4) = 1/6, P(Fatal, total ≥ 10) = 1/6
	// 3d6dh1: P(Unhurt or Flesh Wound, total ≤ 4) = 77/216, P(Fatal, total ≥ 10) = 11/216
}

func ExampleNewQueue() {
	// The console's source: queued faces first, then random ones.
	q := dice.NewQueue(dice.NewRandom(1))
	q.Push(6, 6)
	res, _ := dice.MustParse("2d6").Roll(q)
	fmt.Println(res, q.Remaining())
	// Output:
	// 2d6 [6, 6] = 12 0
}
