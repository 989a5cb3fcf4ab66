package hpmpwp

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// fighter returns a level-1 fighter with HP max hp and Con con, full.
func fighter(hp, con int) Character {
	c := New(DefaultClass, 1, hp)
	c.Con, c.WP = con, con
	c.MPMax, c.MP = 4, 4
	return c
}

// TestExampleCritX3 is RULES.md §2.2's example: 8 damage, ×3 crit, HP 20 →
// HP 12 and WP 15 → 15 − 16 = −1; the save at DC 10 follows.
func TestExampleCritX3(t *testing.T) {
	c := fighter(20, 15)
	src := dice.NewScripted(12)
	got, out, err := c.TakeDamage(src, Hit{Amount: 8, Crit: 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.HP != 12 || got.WP != -1 {
		t.Errorf("TakeDamage(8, ×3) = HP %d, WP %d; want HP 12, WP -1", got.HP, got.WP)
	}
	if len(out.Saves) != 1 || out.Saves[0].DC != 10 || got.State != Disabled {
		t.Errorf("TakeDamage(8, ×3) saves %+v, state %s; want one DC 10 save and disabled", out.Saves, got.State)
	}
	if !out.CappedMP || out.CappedHP {
		t.Errorf("TakeDamage(8, ×3) capped HP %v, MP %v; want MP 4 → 3 capped at the fatigued maximum, HP not", out.CappedHP, out.CappedMP)
	}
	if src.Remaining() != 0 {
		t.Errorf("%d dice unused", src.Remaining())
	}
}

// TestExampleExertion is RULES.md §2.6's example: Fort +2, a 10th hour of
// work after the 9th made a save at DC 10 and passed: DC 12; 9 + 2 = 11 →
// one exertion failure → fatigued, −2.
func TestExampleExertion(t *testing.T) {
	c := fighter(10, 10)
	c.Fort, c.Activity = 2, Work
	src := dice.NewScripted(12, 9)
	for range 8 {
		var err error
		if c, _, err = c.PassHour(src, 0); err != nil {
			t.Fatal(err)
		}
	}
	c, out, err := c.PassHour(src, 0) // 9th hour: DC 10, 12 + 2 passes
	if err != nil || len(out.Saves) != 1 || out.Saves[0].DC != 10 || !out.Saves[0].Success {
		t.Fatalf("9th hour: %+v, %v; want a passed DC 10 save", out.Saves, err)
	}
	c, out, err = c.PassHour(src, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := out.Saves[0]
	if s.DC != 12 || s.Total != 11 || s.Success {
		t.Errorf("10th hour save = %s; want DC 12, 11, failed", s)
	}
	if c.ExertionFailures != 1 || !c.Fatigued() || c.Exhausted() || c.Penalty() != 2 || c.Abilities()[0] != 8 {
		t.Errorf("after the failure: failures %d, %s, penalty %d; want 1, fatigued, 2", c.ExertionFailures, c.Condition(), c.Penalty())
	}
	if got := c.FatigueSummary(); !strings.Contains(got, "fatigued (1 exertion failure): −2 to all abilities: Str 8") {
		t.Errorf("FatigueSummary() = %q", got)
	}
}

// TestNegativeWPDC is the DC table of RULES.md §2.4.
func TestNegativeWPDC(t *testing.T) {
	for wp, want := range map[int]int{-1: 10, -4: 10, -5: 11, -9: 11, -10: 12, -14: 12, -15: 13, -100: 30} {
		if got := NegativeWPDC(wp); got != want {
			t.Errorf("NegativeWPDC(%d) = %d; want %d", wp, got, want)
		}
	}
}

// TestSaveNaturals checks RULES.md §0.4: natural 1 fails, natural 20
// succeeds, and "by 10" uses the number.
func TestSaveNaturals(t *testing.T) {
	s, _ := roll(dice.NewScripted(1), "Fort", "x", 20, 0, 10)
	if s.Success || s.FailedBy10() {
		t.Errorf("natural 1 +20 vs 10 = %s; want a failure, not by 10", s)
	}
	s, _ = roll(dice.NewScripted(20), "Fort", "x", -20, 0, 10)
	if !s.Success || s.FailedBy10() {
		t.Errorf("natural 20 −20 vs 10 = %s; want a success", s)
	}
	s, _ = roll(dice.NewScripted(1), "Heal", "x", 20, 0, 15)
	if !s.Success {
		t.Errorf("Heal check 1 + 20 vs 15 = %s; want a success (no natural rule)", s)
	}
}

// transition is one row of the §2.4 transition table.
type transition struct {
	name      string
	state     State
	wp        int // WP before the hit (fine: 0 or more)
	dieHard   bool
	endurance bool
	hit       Hit
	face      int
	want      State
	pending   bool
}

// TestTransitions covers every transition of RULES.md §2.4 passed, failed
// and failed by 10, with and without Endurance and Die Hard, lethal and
// non-lethal. The character has HP 0, Fort −5; a 3-point hit takes WP from
// wp to wp − 3. At every save it is exhausted (HP 0, WP below 0), and
// fatigue's −2 takes Con 10 to 8, Fort −5 to −6 (RULES.md §2.3 Reading):
// each save is d20 − 6, or d20 − 2 with Endurance.
func TestTransitions(t *testing.T) {
	nl := Hit{Amount: 3, Nonlethal: true}
	nlCrit := Hit{Amount: 3, Nonlethal: true, Crit: 2} // WP −3 −3: DC 11 from 2
	l := Hit{Amount: 3}
	tests := []transition{
		// Reaching negative WP: 2 → −1, DC 10 (d20 − 6: success is d20 ≥ 16,
		// failing by 10 d20 ≤ 6; with Endurance success is d20 ≥ 12).
		{"reach passed", Fine, 2, false, false, l, 16, Disabled, false},
		{"reach failed", Fine, 2, false, false, l, 14, Dying, false},
		{"reach failed by 10", Fine, 2, false, false, l, 5, Dead, false},
		{"reach Endurance passes", Fine, 2, false, true, l, 12, Disabled, false},
		{"reach Endurance keeps failure by 10 off", Fine, 2, false, true, l, 5, Dying, false},
		{"reach non-lethal passed", Fine, 2, false, false, nl, 16, Disabled, false},
		{"reach non-lethal failed", Fine, 2, false, false, nl, 14, Stable, false},
		{"reach non-lethal failed by 10", Fine, 2, false, false, nl, 1, Stable, false},
		{"reach non-lethal crit is lethal", Fine, 2, false, false, nlCrit, 5, Dead, false},
		{"reach Die Hard passed", Fine, 2, true, false, l, 16, Disabled, false},
		{"reach Die Hard failed: choice", Fine, 2, true, false, l, 14, Stable, true},
		{"reach Die Hard failed by 10 dies", Fine, 2, true, false, l, 5, Dead, false},
		// hpkeeper's reading: the non-lethal clause wins over Die Hard, so
		// a non-lethal failure offers no choice.
		{"reach Die Hard non-lethal failed: stable, no choice", Fine, 2, true, false, nl, 14, Stable, false},
		{"reach Die Hard non-lethal failed by 10: stable, no choice", Fine, 2, true, false, nl, 1, Stable, false},
		{"reach Die Hard non-lethal crit failed: choice", Fine, 2, true, false, nlCrit, 14, Stable, true},
		// Disabled and hit: −2 → −5, DC 11 (success: d20 ≥ 17; by 10: d20 ≤ 7).
		{"disabled hit passed", Disabled, -2, false, false, l, 17, Dying, false},
		{"disabled hit failed", Disabled, -2, false, false, l, 10, Dying, false},
		{"disabled hit failed by 10", Disabled, -2, false, false, l, 6, Dead, false},
		// RULES.md §2.4 Reading: a non-lethal hit at negative WP makes no
		// one dying or dead; a non-lethal critical hit is lethal.
		{"disabled hit non-lethal failed by 10: stable", Disabled, -2, false, false, nl, 6, Stable, false},
		{"disabled hit non-lethal passed: stays disabled", Disabled, -2, false, false, nl, 17, Disabled, false},
		// (1 damage ×2: −2 → −4, DC 10; 6 − 6 = 0 fails by 10.)
		{"disabled hit non-lethal crit failed by 10: dead", Disabled, -2, false, false, Hit{Amount: 1, Nonlethal: true, Crit: 2}, 6, Dead, false},
		{"disabled hit Endurance saves from death", Disabled, -2, false, true, l, 6, Dying, false},
		{"disabled Die Hard passed stays disabled", Disabled, -2, true, false, l, 17, Disabled, false},
		{"disabled Die Hard failed: stable", Disabled, -2, true, false, l, 10, Stable, false},
		{"disabled Die Hard failed by 10 dies", Disabled, -2, true, false, l, 6, Dead, false},
		{"disabled Die Hard Endurance failed: stable", Disabled, -2, true, true, l, 6, Stable, false},
		// Dying and hit: −8 → −11, DC 12 (success: d20 ≥ 18; by 10: d20 ≤ 8).
		{"dying hit passed", Dying, -8, false, false, l, 18, Dying, false},
		{"dying hit failed", Dying, -8, false, false, l, 10, Dying, false},
		{"dying hit failed by 10", Dying, -8, false, false, l, 7, Dead, false},
		{"dying hit Endurance", Dying, -8, false, true, l, 7, Dying, false},
		{"dying hit natural 20", Dying, -8, false, false, l, 20, Dying, false},
		// Stable and hit (Reading: as dying): −1 → −4, DC 10 (by 10: d20 ≤ 6).
		{"stable hit passed: dying again", Stable, -1, false, false, l, 20, Dying, false},
		{"stable hit failed by 10", Stable, -1, false, false, l, 5, Dead, false},
		{"stable Die Hard hit failed stays stable", Stable, -1, true, false, l, 10, Stable, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fighter(10, 10)
			c.HP, c.WP, c.State, c.DieHard, c.Endurance, c.Fort = 0, tt.wp, tt.state, tt.dieHard, tt.endurance, -5
			got, out, err := c.TakeDamage(dice.NewScripted(tt.face), tt.hit, 7)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tt.want || got.ChoicePending != tt.pending {
				t.Errorf("TakeDamage(%+v) with d20 %d = %s (pending %v); want %s (pending %v)\n%s",
					tt.hit, tt.face, got.State, got.ChoicePending, tt.want, tt.pending, strings.Join(out.Lines, "\n"))
			}
			if err := got.Validate(); err != nil {
				t.Errorf("result does not validate: %v", err)
			}
		})
	}
}

// TestReadingUnansweredDieHardChoiceBlocksDamage is RULES.md §2.4's
// Reading: a Die Hard choice left unanswered blocks further damage to that
// character, as the 0-HP choice of §1.3 does; each button's result. 4
// damage take HP 1 → 0 and WP 1 → −2: DC 10 at Fort +0 −1 fatigue, 5 − 1 =
// 4 fails, not by 10.
func TestReadingUnansweredDieHardChoiceBlocksDamage(t *testing.T) {
	c := fighter(1, 10)
	c.DieHard, c.WP = true, 1
	c, _, err := c.TakeDamage(dice.NewScripted(5), Hit{Amount: 4}, 0)
	if err != nil || !c.ChoicePending {
		t.Fatalf("Die Hard failed save: pending %v, %v", c.ChoicePending, err)
	}
	if _, _, err := c.TakeDamage(dice.NewScripted(5), Hit{Amount: 1}, 0); !errors.Is(err, ErrChoicePending) {
		t.Errorf("damage while choosing: %v; want ErrChoicePending", err)
	}
	d, _, _ := c.Choose(true)
	u, _, _ := c.Choose(false)
	if d.State != Disabled || u.State != Stable || d.ChoicePending || u.ChoicePending {
		t.Errorf("Choose = %s, %s; want disabled, stable", d.State, u.State)
	}
	if _, _, err := d.Choose(true); !errors.Is(err, ErrNoChoice) {
		t.Errorf("second choice: %v; want ErrNoChoice", err)
	}
}

// TestStrain: a strenuous action costs 1 WP and a save (RULES.md §2.4).
func TestStrain(t *testing.T) {
	for _, tt := range []struct {
		name    string
		dieHard bool
		face    int
		want    State
	}{
		{"passed: dying", false, 15, Dying},
		{"failed: dying", false, 5, Dying},
		{"failed by 10: dead", false, 1, Dead},
		{"Die Hard passed: disabled", true, 15, Disabled},
		{"Die Hard failed: stable", true, 5, Stable},
	} {
		c := fighter(10, 10)
		c.HP, c.WP, c.State, c.DieHard = 0, -4, Disabled, tt.dieHard
		got, out, err := c.Strain(dice.NewScripted(tt.face), 3)
		if err != nil {
			t.Fatal(err)
		}
		if got.WP != -5 || got.State != tt.want || out.Saves[0].DC != 11 {
			t.Errorf("%s: Strain = WP %d, %s, DC %d; want WP -5, %s, DC 11", tt.name, got.WP, got.State, out.Saves[0].DC, tt.want)
		}
	}
	if _, _, err := fighter(5, 10).Strain(dice.NewScripted(), 0); !errors.Is(err, ErrNotDisabled) {
		t.Errorf("Strain while fine: %v; want ErrNotDisabled", err)
	}
}

// TestDyingRounds: the per-round save's DC grows by 1 per round after the
// first; success by 5 wakes disabled (RULES.md §2.4). Dying at WP −3 the
// character is exhausted: Fort +0 −1 fatigue (Con 10 → 8; RULES.md §2.3
// Reading), so each save is d20 − 1.
func TestDyingRounds(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State, c.DyingSince = 0, -3, Dying, 100
	for _, tt := range []struct {
		now  int64
		face int
		dc   int
		want State
	}{
		{101, 9, 10, Dying}, {102, 10, 11, Dying}, {103, 2, 12, Dead},
	} {
		got, out, err := c.NextRound(dice.NewScripted(tt.face), tt.now)
		if err != nil {
			t.Fatal(err)
		}
		if out.Saves[0].DC != tt.dc || got.State != tt.want {
			t.Errorf("NextRound(%d) d20 %d = DC %d, %s; want DC %d, %s", tt.now, tt.face, out.Saves[0].DC, got.State, tt.dc, tt.want)
		}
	}
	// DC 10: 11 − 1 = 10 and 15 − 1 = 14 stabilize, 16 − 1 = 15 by 5 wakes,
	// 10 − 1 = 9 and 2 − 1 = 1 fail (1 − 1 = 0 would fail by 10).
	for face, want := range map[int]State{11: Stable, 15: Stable, 16: Disabled, 10: Dying, 2: Dying, 1: Dead} {
		if got, _, _ := c.NextRound(dice.NewScripted(face), 101); got.State != want {
			t.Errorf("NextRound DC 10 with %d − 1 = %s; want %s", face, got.State, want)
		}
	}
	c.Endurance = true
	if got, _, _ := c.NextRound(dice.NewScripted(12), 101); got.State != Disabled {
		t.Errorf("NextRound with Endurance, 12 + 4 − 1 = %s; want disabled (by 5)", got.State)
	}
}

// TestAttendAndWPHealing: a DC 15 Heal check or any WP healing stabilizes;
// WP back at 0 end the state (RULES.md §2.4).
func TestAttendAndWPHealing(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State = 0, -6, Dying
	if got, _, _ := c.Attend(dice.NewScripted(12), 3); got.State != Stable {
		t.Errorf("Attend 12 + 3 = %s; want stable", got.State)
	}
	if got, _, _ := c.Attend(dice.NewScripted(11), 3); got.State != Dying {
		t.Errorf("Attend 11 + 3 = %s; want dying", got.State)
	}
	if got, _, _ := c.Heal(PoolWP, 1); got.State != Stable || got.WP != -5 {
		t.Errorf("Heal WP 1 = %s WP %d; want stable, -5", got.State, got.WP)
	}
	if got, _, _ := c.Heal(PoolHP, 5); got.State != Dying || got.HP != 5 {
		t.Errorf("Heal HP 5 = %s HP %d; want still dying, HP 5", got.State, got.HP)
	}
	if got, _, _ := c.Heal(PoolWP, 20); got.State != Fine || got.WP != 10 {
		t.Errorf("Heal WP 20 = %s WP %d; want fine, 10", got.State, got.WP)
	}
	if _, _, err := fighter(5, 5).Attend(dice.NewScripted(20), 0); !errors.Is(err, ErrNotDying) {
		t.Errorf("Attend on a fine character: %v; want ErrNotDying", err)
	}
}

// TestTempWP: temporary WP are lost first (RULES.md §2.2).
func TestTempWP(t *testing.T) {
	c := fighter(5, 10)
	c.TempWP = 3
	got, _, err := c.TakeDamage(dice.NewScripted(), Hit{Amount: 9}, 0)
	if err != nil || got.HP != 0 || got.TempWP != 0 || got.WP != 9 {
		t.Errorf("9 damage on HP 5, temp 3, WP 10 = HP %d temp %d WP %d, %v; want 0, 0, 9", got.HP, got.TempWP, got.WP, err)
	}
}

// TestDeadNeverChange: the dead refuse damage, healing, strain and activity.
func TestDeadNeverChange(t *testing.T) {
	c := fighter(5, 10)
	c.HP, c.WP, c.State = 0, -20, Dead
	src := dice.NewScripted()
	if _, _, err := c.TakeDamage(src, Hit{Amount: 1}, 0); !errors.Is(err, ErrDead) {
		t.Errorf("TakeDamage on the dead: %v", err)
	}
	if _, _, err := c.Heal(PoolWP, 1); !errors.Is(err, ErrDead) {
		t.Errorf("Heal on the dead: %v", err)
	}
	if got, _, _ := c.Advance(src, 0, 30*1440); got != c {
		t.Errorf("Advance changed the dead: %+v", got)
	}
}

// TestReadingFortWillUnderFatigue is RULES.md §2.3's Reading: the penalties
// to Con and Wis lower Fort and Will by the change in those modifiers; the
// sheet holds the rested values, and every save of §2.4 and §2.6 uses them
// lowered by the penalties of that moment, its line showing the adjustment.
func TestReadingFortWillUnderFatigue(t *testing.T) {
	// FatigueAdjust: rested 0; fatigue's −2 takes Con 10 to 8 (+0 → −1) and
	// Con 11 to 9 (+0 → −1), Con 15 to 13 (+2 → +1): −1 each; three
	// exertion failures, −6, take Con 10 to 4 (+0 → −3): −3.
	rested := fighter(10, 10)
	if f, w := rested.FatigueAdjust(); f != 0 || w != 0 {
		t.Errorf("rested: FatigueAdjust() = %d, %d; want 0, 0", f, w)
	}
	for _, tt := range []struct {
		con, wis, failures, fort, will int
	}{
		{10, 10, 0, -1, -1}, {11, 14, 0, -1, -1}, {15, 9, 1, -1, -1}, {10, 10, 3, -3, -3}, {10, 13, 2, -2, -2},
	} {
		c := fighter(10, tt.con)
		c.Wis, c.HP, c.ExertionFailures, c.ExertionSaves = tt.wis, 5, tt.failures, tt.failures // HP 5 ≤ 50% of 10: fatigued
		if f, w := c.FatigueAdjust(); f != tt.fort || w != tt.will {
			t.Errorf("Con %d, Wis %d, %d failures: FatigueAdjust() = %d, %d; want %d, %d", tt.con, tt.wis, tt.failures, f, w, tt.fort, tt.will)
		}
	}

	// §2.4: Vala (HP 20, Con 15, Fort +2) takes 8 damage ×3: WP 15 → −1,
	// exhausted, Con 15 → 13 (+2 → +1): DC 10 at Fort +2 −1 = +1. A d20 of
	// 12 gives 13 (disabled); a d20 of 8 gives 9, which fails: dying, where
	// the sheet's +2 would have made 10 and disabled.
	vala := fighter(20, 15)
	vala.Fort = 2
	got, out, err := vala.TakeDamage(dice.NewScripted(12), Hit{Amount: 8, Crit: 3}, 0)
	if err != nil || got.State != Disabled {
		t.Fatalf("d20 12: %s, %v; want disabled", got.State, err)
	}
	hasLine(t, "d20 12", out, "Fort DC 10 (reaching negative WP): 1d20 [12] = 12, Fort +2 −1 fatigue = 13, succeeded")
	if got.Fort != 2 {
		t.Errorf("sheet Fort after the save = %+d; want the rested +2 kept", got.Fort)
	}
	got, out, _ = vala.TakeDamage(dice.NewScripted(8), Hit{Amount: 8, Crit: 3}, 0)
	if s := out.Saves[0]; got.State != Dying || s.Bonus != 1 || s.Fatigue != -1 || s.Total != 9 {
		t.Errorf("d20 8: %s, %s; want 8 + 2 − 1 = 9 < 10, dying", got.State, s)
	}

	// §2.6, an exertion save: fatigued by HP 5 ≤ 50% of 10, Fort +2 works a
	// 9th hour: DC 10 at +2 −1 = +1; a d20 of 9 gives 10 and passes, 8
	// gives 9 and fails.
	worker := fighter(10, 10)
	worker.HP, worker.Fort, worker.Activity, worker.HoursWorked, worker.HoursAwake = 5, 2, Work, 8, 8
	for face, pass := range map[int]bool{9: true, 8: false} {
		_, out, err := worker.PassHour(dice.NewScripted(face), hour)
		if err != nil || len(out.Saves) != 1 || out.Saves[0].Success != pass || out.Saves[0].Total != face+1 {
			t.Errorf("9th hour with %d: %v, %v; want %d + 2 − 1 = %d, success %v", face, out.Saves, err, face, face+1, pass)
		}
	}

	// §2.6, waking early: asleep with 1 exertion failure (−2: Wis 10 → 8,
	// +0 → −1), Will +3: DC 10 + 2 × 1 = 12 at +3 −1 = +2. A d20 of 10
	// gives 12 and wakes; 9 gives 11 and sleeps on.
	sleeper := fighter(10, 10)
	sleeper.Will, sleeper.Activity, sleeper.ExertionSaves, sleeper.ExertionFailures = 3, Sleep, 1, 1
	woke, out, _ := sleeper.SetActivity(dice.NewScripted(10), Awake, 0)
	if woke.Activity != Awake {
		t.Errorf("wake with 10 + 3 − 1 = 12 vs DC 12: %s; want awake", woke.Activity)
	}
	hasLine(t, "wake", out, "Will DC 12 (wake early): 1d20 [10] = 10, Will +3 −1 fatigue = 12, succeeded")
	if slept, _, _ := sleeper.SetActivity(dice.NewScripted(9), Awake, 0); slept.Activity != Sleep {
		t.Errorf("wake with 9 + 3 − 1 = 11 vs DC 12: %s; want asleep", slept.Activity)
	}

	// Exertion penalties past fatigue's: 3 failures, −6, take Con 12 to 6
	// (+1 → −2): the line names them, "Fort +0 −3 exertion".
	spent := fighter(10, 12)
	spent.HP, spent.WP, spent.State, spent.ExertionSaves, spent.ExertionFailures = 0, -1, Disabled, 3, 3
	_, out, _ = spent.Strain(dice.NewScripted(15), 0)
	hasLine(t, "strain", out, "Fort DC 10 (strenuous action): 1d20 [15] = 15, Fort +0 −3 exertion = 12, succeeded")
}

// TestReadingNonlethalAtNegativeWP is RULES.md §2.4's Reading: the
// non-lethal exception holds for every non-lethal hit at negative WP, not
// only the one that crosses 0: a failed save (by any margin) leaves the
// character unconscious and stable, never dying or dead; a character
// already dying stays dying. hpkeeper reads the success the Reading leaves
// open as keeping a disabled character disabled (as Die Hard's successful
// save does), and rolls no save where none could change the outcome.
func TestReadingNonlethalAtNegativeWP(t *testing.T) {
	// Disabled at WP −2, HP 0, Fort +0; a non-lethal 3 takes WP to −5: DC
	// 11, at Fort +0 −1 fatigue (exhausted: Con 10 → 8).
	c := fighter(10, 10)
	c.HP, c.WP, c.State = 0, -2, Disabled
	for _, tt := range []struct {
		face int
		want State
		line string
	}{
		{5, Stable, "non-lethal damage: unconscious and stable, no further saves"}, // 5 − 1 = 4 fails by 7 (was dying)
		{1, Stable, "non-lethal damage: unconscious and stable, no further saves"}, // 1 − 1 = 0 fails by 11 (was dead)
		{12, Disabled, "non-lethal damage: stays disabled"},                        // 12 − 1 = 11 ≥ 11 (was dying)
	} {
		src := dice.NewScripted(tt.face)
		got, out, err := c.TakeDamage(src, Hit{Amount: 3, Nonlethal: true}, 0)
		if err != nil || got.State != tt.want || got.WP != -5 || len(out.Saves) != 1 || out.Saves[0].DC != 11 || out.Saves[0].Total != tt.face-1 {
			t.Errorf("disabled, non-lethal 3, d20 %d: WP %d, %s, saves %v, %v; want WP −5, %s after DC 11, %d − 1", tt.face, got.WP, got.State, out.Saves, err, tt.want, tt.face)
		}
		hasLine(t, "disabled", out, tt.line)
	}
	// A non-lethal critical hit is lethal: 2 ×2 takes WP −2 → −6, DC 11;
	// 12 − 1 = 11 succeeds, and a hit while disabled makes it dying.
	if got, _, _ := c.TakeDamage(dice.NewScripted(12), Hit{Amount: 2, Crit: 2, Nonlethal: true}, 0); got.State != Dying || got.WP != -6 {
		t.Errorf("disabled, non-lethal ×2 crit: WP %d, %s; want −6, dying", got.WP, got.State)
	}
	// Dying at WP −6 and stable at −3: a non-lethal hit rolls nothing
	// (an empty script fails any roll) and leaves the state as it is.
	for _, st := range []State{Dying, Stable} {
		d := fighter(10, 10)
		d.HP, d.WP, d.State, d.DyingSince = 0, -6, st, 5
		got, out, err := d.TakeDamage(dice.NewScripted(), Hit{Amount: 2, Nonlethal: true}, 9)
		if err != nil || got.State != st || got.WP != -8 || got.DyingSince != d.DyingSince || len(out.Saves) != 0 {
			t.Errorf("%s, non-lethal 2: WP %d, %s, %d saves, %v; want WP −8, still %s, no save", st, got.WP, got.State, len(out.Saves), err, st)
		}
		hasLine(t, st.String(), out, "non-lethal damage: stays "+st.String())
	}
}

// TestReadingSleepWithNothingToSleepOff is RULES.md §2.6's Reading: the
// seed's "rest" tallies are the hours awake and worked, so a character sent
// to sleep with nothing to sleep off (no hour worked, no exertion failure)
// sleeps one hour and wakes, and the reply says so; sleep is never refused.
func TestReadingSleepWithNothingToSleepOff(t *testing.T) {
	// Mira, 5 hours awake and none worked, goes to sleep at 00:16: the
	// first whole hour of sleep ends at 01:00, which resets her hours awake
	// and wakes her.
	mira := fighter(10, 10)
	mira.HoursAwake = 5
	asleep, out, err := mira.SetActivity(dice.NewScripted(), Sleep, 16)
	if err != nil || asleep.Activity != Sleep || len(out.Saves) != 0 {
		t.Fatalf("SetActivity(sleep): %s, %d saves, %v; want asleep, no save", asleep.Activity, len(out.Saves), err)
	}
	hasLine(t, "sleep", out, "goes to sleep with nothing to sleep off (no hour worked, no exertion failure): sleeps one hour and wakes at day 1, 01:00")
	woke, out, err := asleep.Advance(dice.NewScripted(), 16, 2*hour)
	if err != nil || woke.Activity != Awake || woke.HoursAwake != 1 {
		t.Errorf("Advance(00:16 → 02:00): %s, %d h awake, %v; want awake at 01:00, then 1 h awake by 02:00", woke.Activity, woke.HoursAwake, err)
	}
	hasLine(t, "advance", out, "day 1, 01:00: wakes after an hour's sleep (nothing to sleep off)")
	// With 2 hours worked there is something to sleep off: no such line,
	// and she wakes when both hours are slept off, at 02:00.
	mira.HoursWorked = 2
	asleep, out, _ = mira.SetActivity(dice.NewScripted(), Sleep, 16)
	if len(out.Lines) != 1 || out.Lines[0] != "goes to sleep" {
		t.Errorf("SetActivity(sleep) with 2 h worked: %q; want just \"goes to sleep\"", out.Lines)
	}
	woke, out, _ = asleep.Advance(dice.NewScripted(), 16, 2*hour)
	if woke.Activity != Awake || woke.HoursWorked != 0 {
		t.Errorf("after sleeping off 2 h: %s, %d worked; want awake, 0", woke.Activity, woke.HoursWorked)
	}
	hasLine(t, "paid off", out, "day 1, 02:00: has slept it all off and wakes")
}

// TestWokenByANoise is RULES.md §2.6's noise: a sleeper whose player
// succeeds at a Listen check wakes unless it succeeds at a Will save
// against that DC; the owner may fail the save on purpose. Ann sleeps with
// 3 hours worked and 2 exertion failures, Will +2: the −4 takes Wis 10 to
// 6, Will +2 −2 = +0 (RULES.md §2.3 Reading). Listen DC 15.
func TestWokenByANoise(t *testing.T) {
	ann := fighter(10, 10)
	ann.Will, ann.Activity, ann.HoursWorked, ann.ExertionSaves, ann.ExertionFailures, ann.SleepUntil = 2, Sleep, 3, 2, 2, 8*hour
	// d20 15 + 0 = 15 ≥ 15: she sleeps on, unchanged.
	got, out, err := ann.WakeByNoise(dice.NewScripted(15), 15, true)
	if err != nil || got != ann || len(out.Saves) != 1 || !out.Saves[0].Success {
		t.Errorf("d20 15: %+v, %v, %v; want a successful save and no change", got, out.Saves, err)
	}
	hasLine(t, "15", out, "Will DC 15 (woken by a noise, the Listen DC): 1d20 [15] = 15, Will +2 −2 exertion = 15, succeeded")
	hasLine(t, "15", out, "sleeps on through the noise")
	// d20 14 + 0 = 14 < 15: she wakes, her night over, her tallies kept.
	got, out, _ = ann.WakeByNoise(dice.NewScripted(14), 15, true)
	if got.Activity != Awake || got.SleepUntil != 0 || got.HoursWorked != 3 || got.ExertionFailures != 2 {
		t.Errorf("d20 14: %s until %d, %d worked, %d failures; want awake, 0, 3, 2", got.Activity, got.SleepUntil, got.HoursWorked, got.ExertionFailures)
	}
	hasLine(t, "14", out, "wakes to the noise")
	// stay-asleep false: the save failed on purpose; nothing is rolled.
	got, out, err = ann.WakeByNoise(dice.NewScripted(), 15, false)
	if err != nil || got.Activity != Awake || len(out.Saves) != 0 {
		t.Errorf("failing on purpose: %s, %d saves, %v; want awake, no roll", got.Activity, len(out.Saves), err)
	}
	hasLine(t, "on purpose", out, "a noise (Listen DC 15): fails the Will save on purpose and wakes")
	// A save's naturals: 1 fails against DC −10, 20 succeeds against DC 30.
	if got, _, _ := ann.WakeByNoise(dice.NewScripted(1), -10, true); got.Activity != Awake {
		t.Errorf("natural 1 vs DC −10: %s; want awake", got.Activity)
	}
	if got, _, _ := ann.WakeByNoise(dice.NewScripted(20), 30, true); got.Activity != Sleep {
		t.Errorf("natural 20 vs DC 30: %s; want asleep", got.Activity)
	}
	// Only a conscious sleeper hears it.
	if _, _, err := fighter(10, 10).WakeByNoise(dice.NewScripted(), 15, true); !errors.Is(err, ErrNotAsleep) {
		t.Errorf("awake: %v; want ErrNotAsleep", err)
	}
	stable := ann
	stable.WP, stable.State = -2, Stable
	if _, _, err := stable.WakeByNoise(dice.NewScripted(), 15, true); !errors.Is(err, ErrUnconscious) {
		t.Errorf("stable: %v; want ErrUnconscious", err)
	}
	stable.State = Dead
	if _, _, err := stable.WakeByNoise(dice.NewScripted(), 15, false); !errors.Is(err, ErrDead) {
		t.Errorf("dead: %v; want ErrDead", err)
	}
}

// TestReadingDieHardDoesNotSaveFromFailureBy10 is RULES.md §2.4's Reading:
// Die Hard replaces only the outcomes "dying": a save failed by 10 or more
// is death with or without it; and the 1 WP a strenuous action costs is
// damage taken while disabled, so with Die Hard a successful strain save
// keeps the character disabled and a failed one makes it unconscious and
// stable. Every save here is at Fort +0 −1 fatigue (exhausted: Con 10 → 8).
func TestReadingDieHardDoesNotSaveFromFailureBy10(t *testing.T) {
	c := fighter(1, 10)
	c.DieHard, c.WP = true, 1
	// 4 damage: HP 1 → 0, WP 1 → −2, DC 10: 1 − 1 = 0 fails by 10: dead.
	if got, out, _ := c.TakeDamage(dice.NewScripted(1), Hit{Amount: 4}, 0); got.State != Dead || !out.Saves[0].FailedBy10() || got.ChoicePending {
		t.Errorf("Die Hard, failed by 10 on reaching negative WP: %s (pending %v); want dead", got.State, got.ChoicePending)
	}
	// Disabled at WP −4: a strain takes 1 WP (−5), DC 11. 12 − 1 = 11
	// keeps it disabled; 8 − 1 = 7 (by 4) stable; 2 − 1 = 1 (by 10) dead.
	d := fighter(10, 10)
	d.DieHard, d.HP, d.WP, d.State = true, 0, -4, Disabled
	for face, want := range map[int]State{12: Disabled, 8: Stable, 2: Dead} {
		got, out, err := d.Strain(dice.NewScripted(face), 0)
		if err != nil || got.State != want || got.WP != -5 || out.Saves[0].Total != face-1 {
			t.Errorf("Die Hard strain with %d − 1 vs DC 11: %s, WP %d, %v; want %s, WP −5", face, got.State, got.WP, err, want)
		}
	}
}

// TestReadingHitOnStableIsHitWhileDying is RULES.md §2.4's Reading: a hit on
// a stable character is handled as a hit while dying: save; failure by 10
// or more → dead; anything else → dying again, at DC 10 for its first
// round. Stable at WP −1, Fort +0 −1 fatigue; a 3-point hit at round 20
// takes WP to −4: DC 10.
func TestReadingHitOnStableIsHitWhileDying(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State, c.DyingSince = 0, -1, Stable, 3
	// 15 − 1 = 14 succeeds, and still the character is dying again, since
	// round 20; at round 21 its save is at DC 10 + 0 = 10.
	got, _, err := c.TakeDamage(dice.NewScripted(15), Hit{Amount: 3}, 20)
	if err != nil || got.State != Dying || got.DyingSince != 20 {
		t.Fatalf("stable, hit, 15 − 1 = 14: %s since %d, %v; want dying since 20", got.State, got.DyingSince, err)
	}
	if dc := got.StabilizeDC(21); dc != 10 {
		t.Errorf("DC at round 21 = %d; want 10 (first round of this spell of dying)", dc)
	}
	// 5 − 1 = 4 fails by 6: dying; 1 − 1 = 0 fails by 10: dead.
	if got, _, _ := c.TakeDamage(dice.NewScripted(5), Hit{Amount: 3}, 20); got.State != Dying {
		t.Errorf("stable, hit, 5 − 1 = 4: %s; want dying", got.State)
	}
	if got, _, _ := c.TakeDamage(dice.NewScripted(1), Hit{Amount: 3}, 20); got.State != Dead {
		t.Errorf("stable, hit, 1 − 1 = 0: %s; want dead", got.State)
	}
}

// TestReadingAdvanceMakesEveryPerRoundSave is RULES.md §0.2's Reading: an
// advance makes every per-round save of every round it passes, in order,
// the DC rising with each round of this spell of dying; a character still
// dying when the advance ends goes on at the next advance. Dying at WP −3
// since round 0, Fort +4 −1 fatigue = +3.
func TestReadingAdvanceMakesEveryPerRoundSave(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State, c.Fort = 0, -3, Dying, 4
	// One turn, rounds 1–10: DC 10, 11, 12, 13. 5 + 3 = 8 fails three
	// times, 10 + 3 = 13 meets DC 13 at round 4: stable, no saves after.
	got, out, err := c.Advance(dice.NewScripted(5, 5, 5, 10), 0, clock.RoundsPerTurn)
	if err != nil || got.State != Stable || len(out.Saves) != 4 {
		t.Fatalf("Advance(1 turn): %s, %d saves, %v; want stable after 4", got.State, len(out.Saves), err)
	}
	for i, s := range out.Saves {
		if s.DC != 10+i {
			t.Errorf("save %d at DC %d; want %d", i+1, s.DC, 10+i)
		}
	}
	hasLine(t, "round 1", out, "day 1, 00:01: Fort DC 10 (stabilize)")
	hasLine(t, "round 4", out, "day 1, 00:04: is stable")
	// Saves that fail, never by 10, all the way: at Fort +3 a face of DC − 4
	// totals DC − 1, so rounds 1–10 at DC 10–19 with faces 6–15 leave it
	// dying after the turn; the next advance's round 11 saves at DC 20,
	// where 20 + 3 = 23 stabilizes.
	faces := []int{6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	got, out, err = c.Advance(dice.NewScripted(faces...), 0, clock.RoundsPerTurn)
	if err != nil || got.State != Dying || len(out.Saves) != 10 || out.Saves[9].DC != 19 || out.Saves[9].Total != 18 {
		t.Fatalf("Advance(1 turn), all failed: %s, %d saves, %v; want still dying after 10, the last DC 19, 15 + 3 = 18", got.State, len(out.Saves), err)
	}
	got, out, _ = got.Advance(dice.NewScripted(20), clock.RoundsPerTurn, clock.RoundsPerTurn+1)
	if got.State != Stable || out.Saves[0].DC != 20 {
		t.Errorf("next advance, round 11: %s at DC %d; want stable at DC 20", got.State, out.Saves[0].DC)
	}
}

// TestReadingDyingDCRestartsForNewSpell is RULES.md §0.2's Reading on the
// dying DC: it rises with each round of this spell of dying, and starts
// again at DC 10 after the character was stable or disabled in between.
// Dying since round 0 at WP −3 (Fort +0 −1 fatigue): round 3 is at DC 12,
// where 17 − 1 = 16 succeeds by 4: stable. Hit at round 30 (3 damage: WP
// −6, DC 11; 12 − 1 = 11 succeeds, dying again): round 31 is at DC 10, not
// 10 + 30.
func TestReadingDyingDCRestartsForNewSpell(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State = 0, -3, Dying
	c, out, err := c.NextRound(dice.NewScripted(17), 3)
	if err != nil || c.State != Stable || out.Saves[0].DC != 12 {
		t.Fatalf("round 3: %s at DC %d, %v; want stable at DC 12", c.State, out.Saves[0].DC, err)
	}
	c, _, err = c.TakeDamage(dice.NewScripted(12), Hit{Amount: 3}, 30)
	if err != nil || c.State != Dying || c.DyingSince != 30 {
		t.Fatalf("hit at round 30: %s since %d, %v; want dying since 30", c.State, c.DyingSince, err)
	}
	if _, out, _ := c.NextRound(dice.NewScripted(10), 31); out.Saves[0].DC != 10 {
		t.Errorf("round 31: DC %d; want 10", out.Saves[0].DC)
	}
	// Disabled in between too: dying since 40, a hit on the disabled
	// character at round 50 makes a new spell of dying from 50.
	d := fighter(10, 10)
	d.HP, d.WP, d.State, d.DyingSince = 0, -3, Disabled, 40
	d, _, _ = d.TakeDamage(dice.NewScripted(12), Hit{Amount: 1}, 50)
	if d.State != Dying || d.StabilizeDC(51) != 10 {
		t.Errorf("disabled, hit at round 50: %s, DC at 51 %d; want dying, DC 10", d.State, d.StabilizeDC(51))
	}
}

// TestReadingAwakePast16Tires is RULES.md §2.6's Reading: staying awake past
// 16 hours tires as work past 8 does. Awake (no work), Fort +0: hours 1–16
// roll nothing (an empty script); the 17th hour awake makes an exertion
// save at DC 10: 9 + 0 = 9 fails, one exertion failure, fatigued; the 18th
// is at DC 12.
func TestReadingAwakePast16Tires(t *testing.T) {
	c := fighter(10, 10)
	c, out, err := c.Advance(dice.NewScripted(), 0, 16*hour)
	if err != nil || len(out.Saves) != 0 || c.HoursAwake != 16 {
		t.Fatalf("16 hours awake: %d saves, %d h, %v; want none, 16 h", len(out.Saves), c.HoursAwake, err)
	}
	c, out, err = c.Advance(dice.NewScripted(9), 16*hour, 17*hour)
	if err != nil || len(out.Saves) != 1 || out.Saves[0].DC != 10 || out.Saves[0].For != "exertion, hours awake" || c.ExertionFailures != 1 || !c.Fatigued() {
		t.Fatalf("17th hour awake: %v, %d failures, %v; want a failed DC 10 save, fatigued", out.Saves, c.ExertionFailures, err)
	}
	if _, out, _ := c.Advance(dice.NewScripted(20), 17*hour, 18*hour); len(out.Saves) != 1 || out.Saves[0].DC != 12 {
		t.Errorf("18th hour awake: %v; want a DC 12 save", out.Saves)
	}
}

// TestReadingOrderInsideAnHour is RULES.md §2.6's Reading: inside each hour
// the activity's tallies and any exertion save come first, then the fatigue
// state that results, then regeneration up to the maxima that then hold.
func TestReadingOrderInsideAnHour(t *testing.T) {
	// A fighter 5 (HP max 20, Con 10) asleep with 1 exertion failure: −2
	// makes Con 8, HP max 20 − 5 = 15; HP 14. The hour sleeps the failure
	// off, so it is no longer fatigued, and then regenerates 5 against the
	// restored 20: HP 19, not 15.
	c := New(DefaultClass, 5, 20)
	c.HP, c.Activity, c.ExertionSaves, c.ExertionFailures = 14, Sleep, 1, 1
	got, _, err := c.PassHour(dice.NewScripted(), hour)
	if err != nil || got.HP != 19 || got.Fatigued() || got.Activity != Awake {
		t.Errorf("sleeping off the last failure: HP %d, %s, %s, %v; want HP 19, rested, awake", got.HP, got.Condition(), got.Activity, err)
	}
	// Working its 9th hour at full HP 20: the save at DC 10 fails (2 + 0),
	// so it is fatigued, its HP max 15, and HP are capped there: no
	// regeneration above the maximum that now holds.
	w := New(DefaultClass, 5, 20)
	w.Activity, w.HoursWorked, w.HoursAwake = Work, 8, 8
	got, out, err := w.PassHour(dice.NewScripted(2), 9*hour)
	if err != nil || got.ExertionFailures != 1 || got.HP != 15 || !out.CappedHP {
		t.Errorf("a failed 9th hour: %d failures, HP %d (capped %v), %v; want 1, HP 15 capped", got.ExertionFailures, got.HP, out.CappedHP, err)
	}
}
