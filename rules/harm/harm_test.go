package harm

import (
	"errors"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestGarrettExample is RULES.md §3.2's example with scripted Fudge faces:
// Endure 2, React 1, Healthy, counter 0; 3 physical harm → counter 3, Endure
// 3dF = +1 → 3 ≥ 3, Healthy, counter 3; 1 social harm → counter 4, React 3dF
// = 0 → 1 < 4, Bloody, counter 0.
//
// Reading (RULES.md §3.2.3): the post compares with 5, but the counter is 4;
// the outcome is the same.
func TestGarrettExample(t *testing.T) {
	src := dice.NewScripted(1, 0, 0, 0, 0, 0)
	r := src
	g := New()
	g.Abilities[Endure] = Ability{2, Vigor}
	g.Abilities[React] = Ability{1, Instinct}

	g, out, err := g.TakeHarm(r, Harm{SL: 3, Kind: Physical})
	if err != nil {
		t.Fatal(err)
	}
	if out.Check.Check.Ability != Endure || out.Check.Roll.String() != "3dF+2 [+, 0, 0] + 2 = 3" {
		t.Errorf("sword: check %s %s; want Endure 3dF+2 [+, 0, 0] + 2 = 3", out.Check.Check.Ability, out.Check.Roll)
	}
	if out.CounterBefore != 0 || out.Counter != 3 || out.CounterAfter != 3 || out.Worsened() || g.Condition != Healthy || g.HarmCounter != 3 {
		t.Errorf("sword: counter %d → %d → %d, %v → %v; want 0 → 3 → 3, Healthy", out.CounterBefore, out.Counter, out.CounterAfter, out.Before, out.After)
	}

	g, out, err = g.TakeHarm(r, Harm{SL: 1, Kind: Social})
	if err != nil {
		t.Fatal(err)
	}
	if out.Check.Check.Ability != React || out.Check.Roll.String() != "3dF+1 [0, 0, 0] + 1 = 1" {
		t.Errorf("insult: check %s %s; want React 3dF+1 [0, 0, 0] + 1 = 1", out.Check.Check.Ability, out.Check.Roll)
	}
	if out.Counter != 4 || out.CounterAfter != 0 || !out.Worsened() || g.Condition != Bloody || g.HarmCounter != 0 {
		t.Errorf("insult: counter %d → %d, %v → %v; want 4 → 0, Healthy → Bloody", out.Counter, out.CounterAfter, out.Before, out.After)
	}
	if src.Remaining() != 0 {
		t.Errorf("%d faces left; want all 6 used", src.Remaining())
	}
}

// TestHarmTransitions covers each step of RULES.md §3.2: a check met keeps
// condition and counter, a check missed worsens one step and resets the
// counter, harm on a Broken character takes it out with no roll.
func TestHarmTransitions(t *testing.T) {
	tests := []struct {
		name         string
		cond         Condition
		counter      int
		harm         Harm
		faces        []int
		wantCond     Condition
		wantCounter  int
		wantTakenOut bool
		wantExpr     string
	}{
		{"Healthy meets", Healthy, 1, Harm{SL: 2, Kind: Physical}, []int{1, 0, 0}, Healthy, 3, false, "3dF+2"},
		{"Healthy misses", Healthy, 1, Harm{SL: 3, Kind: Physical}, []int{1, 0, 0}, Bloody, 0, false, "3dF+2"},
		{"Bloody meets, no penalty on innate", Bloody, 0, Harm{SL: 1, Kind: Social}, []int{0, 0, 0}, Bloody, 1, false, "3dF+1"},
		{"Bloody misses", Bloody, 2, Harm{SL: 2, Kind: Mental}, []int{1, 1, 1}, Broken, 0, false, "3dF"},
		{"Broken is taken out", Broken, 2, Harm{SL: 5, Kind: Physical}, nil, Broken, 2, true, ""},
		{"4dF table", Healthy, 0, Harm{SL: 4, Kind: Physical, FudgeDice: 4}, []int{1, 1, 0, -1}, Bloody, 0, false, "4dF+2"},
		{"negative total", Healthy, 0, Harm{SL: 1, Kind: Social}, []int{-1, -1, -1}, Bloody, 0, false, "3dF+1"},
	}
	for _, tt := range tests {
		c := garrett()
		c.Condition, c.HarmCounter = tt.cond, tt.counter
		src := dice.NewScripted(tt.faces...)
		n, out, err := c.TakeHarm(src, tt.harm)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if n.Condition != tt.wantCond || n.HarmCounter != tt.wantCounter || n.TakenOut != tt.wantTakenOut || out.TakenOut != tt.wantTakenOut {
			t.Errorf("%s: TakeHarm = %v, counter %d, taken out %v; want %v, %d, %v", tt.name, n.Condition, n.HarmCounter, n.TakenOut, tt.wantCond, tt.wantCounter, tt.wantTakenOut)
		}
		if got := out.Check.Roll.Expr.String(); got != tt.wantExpr && !(tt.wantExpr == "" && len(out.Check.Roll.Terms) == 0) {
			t.Errorf("%s: check rolled %q; want %q", tt.name, got, tt.wantExpr)
		}
		if src.Remaining() != 0 {
			t.Errorf("%s: %d faces unused", tt.name, src.Remaining())
		}
		if c.Condition != tt.cond || c.HarmCounter != tt.counter || c.TakenOut {
			t.Errorf("%s: TakeHarm changed the original character", tt.name)
		}
	}
}

// TestHarmSLBelowOneRefused: harm of SL 0 is no harm (RULES.md §3.2).
func TestHarmSLBelowOneRefused(t *testing.T) {
	if _, _, err := garrett().TakeHarm(scripted(), Harm{SL: 0}); !errors.Is(err, ErrNoHarm) {
		t.Errorf("TakeHarm(SL 0) err = %v; want ErrNoHarm", err)
	}
}

// TestHarmRestartsTheDayOfRest: harm checked against sets RestFrom; harm
// that takes a Broken character out changes nothing else (RULES.md §3.2).
func TestHarmRestartsTheDayOfRest(t *testing.T) {
	at := clock.Time(0).Add(3, clock.Day)
	n, _, err := garrett().TakeHarm(scripted(0, 0, 0), Harm{SL: 1, At: at})
	if err != nil || n.RestFrom != at {
		t.Errorf("TakeHarm at %v: RestFrom %v, err %v; want %v", at, n.RestFrom, err, at)
	}
	b := garrett()
	b.Condition = Broken
	n, _, _ = b.TakeHarm(scripted(), Harm{SL: 1, At: at})
	if n.RestFrom != 0 {
		t.Errorf("taken out at %v: RestFrom %v; want 0 (nothing else changes)", at, n.RestFrom)
	}
}

// TestEndConflictClearsTakenOut (RULES.md §3.2.4).
func TestEndConflictClearsTakenOut(t *testing.T) {
	c := garrett()
	c.Condition, c.TakenOut = Broken, true
	n, ok := c.EndConflict()
	if !ok || n.TakenOut || n.Condition != Broken || !c.TakenOut {
		t.Errorf("EndConflict = %+v, %v; want taken out cleared, still Broken, original untouched", n, ok)
	}
	if _, ok := n.EndConflict(); ok {
		t.Errorf("EndConflict on a character not taken out reported a change")
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range []Kind{Physical, Social, Mental} {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k, got, err)
		}
	}
	if k, _ := ParseKind("Mental"); k.Ability() != Willpower {
		t.Errorf("Mental.Ability() = %s; want willpower", k.Ability())
	}
	if _, err := ParseKind("fire"); err == nil {
		t.Errorf("ParseKind(fire) succeeded")
	}
}

// TestReadingTakenOutMakesNoChecks is RULES.md §3.2's Reading: a character
// taken out makes no checks until the conflict ends. Garrett (Endure 2,
// Vigor 3/3, First Aid 1), Broken and taken out: acting and giving first
// aid are refused, rolling nothing (the script is empty) and spending
// nothing, where an action would cost the Broken character Vigor 3 → 2.
// The checks the rules call for still roll (hpkeeper's reading): the
// initiative, and a healing check. Once the conflict ends the action rolls
// and costs.
func TestReadingTakenOutMakesNoChecks(t *testing.T) {
	g := garrett()
	g.Condition, g.HarmCounter = Broken, 2
	g, out, err := g.TakeHarm(scripted(), Harm{SL: 1, Kind: Physical})
	if err != nil || !out.TakenOut || !g.TakenOut {
		t.Fatalf("harm on Broken: %+v, %v; want taken out", out, err)
	}
	if n, _, err := g.Act(scripted(), Action{Ability: Endure}); !errors.Is(err, ErrTakenOut) || n.Vigor.Current != 3 {
		t.Errorf("Act while taken out: %v, Vigor %d; want ErrTakenOut, Vigor 3", err, n.Vigor.Current)
	}
	if _, _, err := g.Help(scripted(), FirstAidHelp, 3, ""); !errors.Is(err, ErrTakenOut) {
		t.Errorf("Help while taken out: %v; want ErrTakenOut", err)
	}
	// The initiative check is not refused: a turn order rerolling every
	// round must not stop on a taken-out combatant, whose turns are skipped.
	if _, err := g.Initiative(scripted(0, 0, 0, 0), 3); err != nil {
		t.Errorf("Initiative while taken out: %v; want a roll", err)
	}
	// Nor is a healing check: 5 pool points, Endure with Broken's penalty
	// die, 4dFkl3+2 [+, +, +, 0] keeps +, +, 0: 4 → SL 4, Broken → Bloody.
	if n, h, err := g.Heal(scripted(1, 1, 1, 0), Healing{Trigger: PoolPoints}); err != nil || h.Check.SL != 4 || n.Condition != Bloody || !n.TakenOut {
		t.Errorf("Heal while taken out: SL %d, %s, taken out %v, %v; want SL 4, Bloody, still taken out", h.Check.SL, n.Condition, n.TakenOut, err)
	}
	back, _ := g.EndConflict()
	// Broken: 4dFkl3+2 [0, 0, 0, +] keeps 0, 0, 0: 2 → SL 2; Vigor 3 → 2.
	n, act, err := back.Act(scripted(0, 0, 0, 1), Action{Ability: Endure})
	if err != nil || act.Check.SL != 2 || n.Vigor.Current != 2 {
		t.Errorf("Act after the conflict: SL %d, Vigor %d, %v; want SL 2, Vigor 2", act.Check.SL, n.Vigor.Current, err)
	}
}

// TestReadingPostComparesWithFive is RULES.md §3.2's Reading on Garrett's
// example: the post compares the React total with 5, but the counter is 4
// (3 + 1), and the check is against the counter. The post's own outcome
// holds (1 < 4: Bloody); a total of 4, which is below 5, meets 4 and keeps
// him Healthy. Garrett: React 1, counter 3, 1 social harm.
func TestReadingPostComparesWithFive(t *testing.T) {
	g := garrett()
	g.HarmCounter = 3
	// 3dF [0, 0, 0] + 1 = 1 < 4: Bloody, counter 0.
	n, out, err := g.TakeHarm(scripted(0, 0, 0), Harm{SL: 1, Kind: Social})
	if err != nil || out.Counter != 4 || n.Condition != Bloody || n.HarmCounter != 0 {
		t.Errorf("React 1: counter %d, %s, %d, %v; want checked against 4, Bloody, 0", out.Counter, n.Condition, n.HarmCounter, err)
	}
	// 3dF [+, +, +] + 1 = 4 ≥ 4: stays Healthy, counter 4.
	n, out, err = g.TakeHarm(scripted(1, 1, 1), Harm{SL: 1, Kind: Social})
	if err != nil || out.Check.Total != 4 || n.Condition != Healthy || n.HarmCounter != 4 {
		t.Errorf("React 4: %s, counter %d, %v; want Healthy, 4 (4 meets the counter 4, not 5)", n.Condition, n.HarmCounter, err)
	}
}
