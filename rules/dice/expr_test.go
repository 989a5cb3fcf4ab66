package dice

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "3d6", "3d6"},
		{"bare d20", "d20", "1d20"},
		{"upper case", "D20", "1d20"},
		{"bare fudge", "dF", "1dF"},
		{"lower-case fudge", "4df", "4dF"},
		{"fudge keep", "4DF KH 3", "4dFkh3"},
		{"upper-case suffix", "3D6DL1", "3d6dl1"},
		{"keep highest", "3d6kh2", "3d6kh2"},
		{"keep lowest", "2d20kl1", "2d20kl1"},
		{"drop highest", "3d6dh1", "3d6dh1"},
		{"drop none", "3d6dh0", "3d6dh0"},
		{"keep all", "3d6kh3", "3d6kh3"},
		{"several terms", " 1d20 + 1d4 - 2 ", "1d20+1d4-2"},
		{"leading plus", "+3d6", "3d6"},
		{"leading minus", "-1d4+5", "-1d4+5"},
		{"constant only", "5", "5"},
		{"minus zero", "-0", "-0"},
		{"leading zeros", "03d06+007", "3d6+7"},
		{"largest die", "100d1000", "100d1000"},
		{"largest constant", "-1000000", "-1000000"},
		{"100 dice in all", "50d6+50d6", "50d6+50d6"},
		{"smallest die", "1d2", "1d2"},
		{"tabs and newlines", "1d6\t+\n2", "1d6+2"},
		{"space inside a number", "1 0 d 6", "10d6"},
		{"space between terms joins", "3d6 2", "3d62"},
		{"no-break space", "1d6\u00a0+\u00a02", "1d6+2"},
		{"64 characters", strings.Repeat("1+", 31) + "10", strings.Repeat("1+", 31) + "10"},
		{"64 runes, more bytes", "1d6" + strings.Repeat("\u00a0", 61), "1d6"},
		// The full notation (docs/dice.md), once refused.
		{"parentheses", "(1d6)", "(1d6)"},
		{"multiplication", "1d6 * 2", "1d6*2"},
		{"chained suffixes", "4d6kh3dl1", "4d6kh3dl1"},
		{"d20 selectors", "4D6 K>3 PL1", "4d6k>3pl1"},
		{"set", "( 1d4+1 , 3 , 2d6kl1 ) kh1", "(1d4+1, 3, 2d6kl1)kh1"},
		{"one-value set", "(3,)", "(3,)"},
		{"comparison", "1d20 + 5 >= 15", "1d20+5>=15"},
		{"annotation kept, comment not", "3d6 [fire] + 2 to hit", "3d6[fire]+2"},
		{"Dice Maiden spellings", "6d10 t7 f1 ds10", "6d10t7f1ds10"},
		{"percentile", "D%", "1d%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) error %v; want %q", tt.in, err, tt.want)
			}
			if got := e.String(); got != tt.want {
				t.Errorf("Parse(%q).String() = %q; want %q", tt.in, got, tt.want)
			}
			if err := e.Validate(); err != nil {
				t.Errorf("Parse(%q).Validate() = %v; want nil", tt.in, err)
			}
		})
	}
}

func TestParseTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []Term
	}{
		{"3d6dl1", []Term{{Sign: 1, Count: 3, Sides: 6, Keep: DropLowest, KeepN: 1}}},
		{"d20", []Term{{Sign: 1, Count: 1, Sides: 20}}},
		{"4dFkh3", []Term{{Sign: 1, Count: 4, Sides: 3, Fudge: true, Keep: KeepHighest, KeepN: 3}}},
		{"-2", []Term{{Sign: -1, Const: 2}}},
		{"1d20-1d4+2", []Term{
			{Sign: 1, Count: 1, Sides: 20},
			{Sign: -1, Count: 1, Sides: 4},
			{Sign: 1, Const: 2},
		}},
		{"2d20kl1", []Term{{Sign: 1, Count: 2, Sides: 20, Keep: KeepLowest, KeepN: 1}}},
		{"3d6dh1", []Term{{Sign: 1, Count: 3, Sides: 6, Keep: DropHighest, KeepN: 1}}},
	}
	for _, tt := range tests {
		e, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q) error %v", tt.in, err)
		}
		if !reflect.DeepEqual(e.Terms, tt.want) {
			t.Errorf("Parse(%q).Terms = %+v; want %+v", tt.in, e.Terms, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		part     string // ParseError.Part
		want     string // the whole message
	}{
		{"empty", "", "", "empty expression"},
		{"blank", " \t ", "", "empty expression"},
		{"too long", "1d6" + strings.Repeat(" ", 62), "", "expression is 65 characters; at most 64"},
		{"too long in runes", strings.Repeat("é", 65), "", "expression is 65 characters; at most 64"},
		{"too many sides", "3d1001", "3d1001", `"3d1001": a die has 2 to 1000 sides`},
		{"one side", "3d1", "3d1", `"3d1": a die has 2 to 1000 sides`},
		{"zero sides", "3d0", "3d0", `"3d0": a die has 2 to 1000 sides`},
		{"too many dice", "101d6", "101d6", `"101d6": at most 100 dice`},
		{"huge count", "99999999999d6", "99999999999d6", `"99999999999d6": at most 100 dice`},
		{"too many dice in all", "60d6 + 50d6", "60d6 + 50d6", `"60d6 + 50d6": at most 100 dice in all, not 110`},
		{"no dice", "0d6", "0d6", `"0d6": roll at least 1 die`},
		{"keep too many", "3d6kh4", "3d6kh4", `"3d6kh4": cannot keep 4 of 3 dice`},
		{"keep none", "3d6kl0", "3d6kl0", `"3d6kl0": keep at least 1 die`},
		{"drop all", "3d6dl3", "3d6dl3", `"3d6dl3": cannot drop 3 of 3 dice (at least 1 must count)`},
		{"drop the only die", "1d20dh1", "1d20dh1", `"1d20dh1": cannot drop 1 of 1 die (at least 1 must count)`},
		{"not dice", "2x6", "2x6", `"2x6": not a dice term`},
		{"decimal", "3.5", "3.5", `"3.5": not a dice term`},
		// "(1d6)", "1d6*2" and "3d6kh1dl1" were refused by RULES.md §0.3;
		// issue 28 adds parentheses, arithmetic and chained operators
		// (TestParse), so these are their errors now.
		{"unclosed parenthesis", "(1d6", "(1d6", `"(1d6": missing ")"`},
		{"double plus", "3d6++2", "3d6++2", `"3d6++2": missing term between "+" and "+"`},
		{"plus minus", "+-3", "+-3", `"+-3": missing term between "+" and "-"`},
		{"trailing plus", "3d6+ ", "3d6+", `"3d6+": missing term after "+"`},
		{"lone minus", "-", "-", `"-": missing term after "-"`},
		{"no sides", "3d", "3d", `"3d": missing the number of sides`},
		{"bare d", "d", "d", `"d": missing the number of sides`},
		{"letter for sides", "3dx", "3dx", `"3dx": missing the number of sides`},
		{"suffix without number", "3d6kh", "3d6kh", `"3d6kh": missing the number after "kh"`},
		{"chained suffixes drop the last die", "3d6kh1dl1", "3d6kh1dl1", `"3d6kh1dl1": cannot drop 1 of 1 die (at least 1 must count)`},
		{"unknown suffix", "3d6x2", "3d6x2", `"3d6x2": unknown suffix "x2" (use kh, kl, dh or dl)`},
		{"multiplication by nothing", "1d6*", "1d6*", `"1d6*": missing term after "*"`},
		{"fudge with sides", "4dF3", "4dF3", `"4dF3": unknown suffix "3" (use kh, kl, dh or dl)`},
		{"junk after suffix", "3d6kh1x", "3d6kh1x", `"3d6kh1x": unknown suffix "x"`},
		{"constant too big", "1d6+2000000", "2000000", `"2000000": a constant is at most 1000000`},
		{"bad term among good", "1d20+3d1001-2", "3d1001", `"3d1001": a die has 2 to 1000 sides`},
		{"quoted as written", "1d20 + 3D6 KH 4", "3D6 KH 4", `"3D6 KH 4": cannot keep 4 of 3 dice`},
		{"non-ASCII", "1d6＋2", "1d6＋2", `"1d6＋2": unknown suffix "＋2" (use kh, kl, dh or dl)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v; want error %q", tt.in, e, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error %q; want %q", tt.in, err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error %T; want *ParseError", tt.in, err)
			}
			if pe.Part != tt.part || pe.Expr != tt.in {
				t.Errorf("Parse(%q) Part %q, Expr %q; want %q, %q", tt.in, pe.Part, pe.Expr, tt.part, tt.in)
			}
			if !strings.Contains(tt.in, pe.Part) {
				t.Errorf("Parse(%q) Part %q is not part of the input", tt.in, pe.Part)
			}
		})
	}
}

// TestCanonicalLongerThanInput pins the documented exception to the round
// trip: "dS" becomes "1dS", so String can exceed MaxLength.
func TestCanonicalLongerThanInput(t *testing.T) {
	in := strings.Repeat("d2+", 20) + "d2" // 62 characters
	e, err := Parse(in)
	if err != nil {
		t.Fatalf("Parse(%q) error %v", in, err)
	}
	c := e.String()
	if want := strings.Repeat("1d2+", 20) + "1d2"; c != want {
		t.Fatalf("String() = %q; want %q", c, want)
	}
	_, err = Parse(c)
	if err == nil || err.Error() != "expression is 83 characters; at most 64" {
		t.Errorf("Parse(%q) error %v; want the length error", c, err)
	}
}

func TestValidate(t *testing.T) {
	d20 := Term{Sign: 1, Count: 1, Sides: 20}
	tests := []struct {
		name string
		e    Expr
		want string // "" for valid
	}{
		{"valid", Expr{Terms: []Term{d20, {Sign: -1, Const: 2}}}, ""},
		{"empty", Expr{}, "empty expression"},
		{"no sign", Expr{Terms: []Term{{Count: 1, Sides: 20}}}, `"1d20": sign must be +1 or -1, not 0`},
		{"fudge without sides", Expr{Terms: []Term{{Sign: 1, Count: 3, Fudge: true}}}, `"3dF": a Fudge die has Sides 3`},
		{"negative constant", Expr{Terms: []Term{{Sign: 1, Const: -3}}}, `"-3": a constant term holds its size; the sign goes in Sign`},
		{"constant with suffix", Expr{Terms: []Term{{Sign: 1, Const: 3, Keep: KeepHighest, KeepN: 1}}}, `"3": a constant cannot keep or drop dice`},
		{"dice with constant", Expr{Terms: []Term{{Sign: 1, Count: 1, Sides: 6, Const: 2}}}, `"1d6": a dice term has no constant`},
		{"KeepN without mode", Expr{Terms: []Term{{Sign: 1, Count: 3, Sides: 6, KeepN: 1}}}, `"3d6": a keep count needs a keep mode`},
		{"drop all", Expr{Terms: []Term{{Sign: 1, Count: 3, Sides: 6, Keep: DropHighest, KeepN: 3}}}, `"3d6dh3": cannot drop 3 of 3 dice (at least 1 must count)`},
		{"negative drop", Expr{Terms: []Term{{Sign: 1, Count: 3, Sides: 6, Keep: DropLowest, KeepN: -1}}}, `"3d6dl-1": cannot drop fewer than 0 dice`},
		{"unknown mode", Expr{Terms: []Term{{Sign: 1, Count: 3, Sides: 6, Keep: 9, KeepN: 1}}}, `"3d6KeepMode(9)1": unknown keep mode 9`},
		{"too many in all", Expr{Terms: []Term{{Sign: 1, Count: 60, Sides: 6}, {Sign: 1, Count: 60, Sides: 6}}}, `"60d6+60d6": at most 100 dice in all, not 120`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.e.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Fatalf("Validate() = %q; want %q", got, tt.want)
			}
			if tt.want == "" {
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("Validate() error %T; want *ParseError", err)
			}
			// Roll and Distribution refuse the same expressions.
			if _, err := tt.e.Roll(NewScripted(1, 1, 1)); err == nil || err.Error() != tt.want {
				t.Errorf("Roll error %v; want %q", err, tt.want)
			}
			if _, err := tt.e.Distribution(); err == nil || err.Error() != tt.want {
				t.Errorf("Distribution error %v; want %q", err, tt.want)
			}
		})
	}
}

func TestMustParse(t *testing.T) {
	if got := MustParse("3D6 DH1").String(); got != "3d6dh1" {
		t.Errorf("MustParse(%q).String() = %q; want %q", "3D6 DH1", got, "3d6dh1")
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), `"3d6kh4": cannot keep 4 of 3 dice`) {
			t.Errorf("MustParse(%q) panic %v; want the parse error", "3d6kh4", r)
		}
	}()
	MustParse("3d6kh4")
}

func TestMinMaxDiceCount(t *testing.T) {
	tests := []struct {
		in          string
		min, max, n int
	}{
		{"2d6", 2, 12, 2},
		{"3d6dh1", 2, 12, 3},
		{"4dFkh3", -3, 3, 4},
		{"1d20+1d4-2", 0, 22, 2},
		{"-1d4+5", 1, 4, 1},
		{"-3d6kl2", -12, -2, 3},
		{"7", 7, 7, 0},
		{"-3dF-2", -5, 1, 3},
	}
	for _, tt := range tests {
		e := MustParse(tt.in)
		if e.Min() != tt.min || e.Max() != tt.max || e.DiceCount() != tt.n {
			t.Errorf("%s: Min, Max, DiceCount = %d, %d, %d; want %d, %d, %d",
				tt.in, e.Min(), e.Max(), e.DiceCount(), tt.min, tt.max, tt.n)
		}
	}
}

func TestKeepModeString(t *testing.T) {
	want := map[KeepMode]string{KeepAll: "", KeepHighest: "kh", KeepLowest: "kl", DropHighest: "dh", DropLowest: "dl", 7: "KeepMode(7)"}
	for m, s := range want {
		if m.String() != s {
			t.Errorf("KeepMode(%d).String() = %q; want %q", int(m), m.String(), s)
		}
	}
}
