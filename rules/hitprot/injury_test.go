package hitprot

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

func TestLookup(t *testing.T) {
	want := map[int]Band{-3: Unhurt, 0: Unhurt, 1: Unhurt, 2: Unhurt, 3: FleshWound, 4: FleshWound,
		5: NastyWound, 6: NastyWound, 7: SevereWound, 8: CriticalWound, 9: CriticalWound,
		10: FatalWoundI, 11: FatalWoundI, 12: FatalWoundII, 13: FatalWoundII, 30: FatalWoundII}
	for total, b := range want {
		if got := Lookup(total); got != b {
			t.Errorf("Lookup(%d) = %v; want %v", total, got, b)
		}
	}
}

// TestInjuryRows rolls every row of RULES.md §1.4 for a level-1 fighter
// (death 12, paralysis 14, breath 15) at clock round 100: the 1d6 face and
// the damage make the total, then the scripted dice resolve the row.
func TestInjuryRows(t *testing.T) {
	const now = clock.Time(100)
	day, week := clock.Time(clock.RoundsPerDay), clock.Time(7*clock.RoundsPerDay)
	tests := []struct {
		name      string
		face, dmg int
		typ       string
		script    []int
		band      Band
		untreated int
		mobility  bool
		stun      clock.Time
		noRestore clock.Time
		bleed     *Bleed
		limb      *Limb
		scars     int
		dead      bool
		saves     string // "", "P" passed or "F" failed, per save
	}{
		{name: "total 1 counts as 2", face: 1, band: Unhurt},
		{name: "2 unhurt", face: 1, dmg: 1, band: Unhurt},
		{name: "3 flesh", face: 2, dmg: 1, band: FleshWound, untreated: 1},
		{name: "4 flesh", face: 3, dmg: 1, band: FleshWound, untreated: 1},
		{name: "5 nasty save passed", face: 4, dmg: 1, script: []int{14, 3}, band: NastyWound, untreated: 1, mobility: true, noRestore: now + 3*day, saves: "P"},
		{name: "6 nasty save failed", face: 5, dmg: 1, script: []int{13, 2}, band: NastyWound, untreated: 1, mobility: true, stun: now + 1, noRestore: now + 2*day, saves: "F"},
		{name: "7 severe save passed", face: 6, dmg: 1, script: []int{20, 1, 2}, band: SevereWound, untreated: 1, mobility: true, noRestore: now + 3*day, scars: 1, saves: "P"},
		{name: "7 severe save failed", face: 6, dmg: 1, script: []int{1, 3, 4, 4}, band: SevereWound, untreated: 1, mobility: true, stun: now + 4, noRestore: now + 8*day, scars: 1, saves: "F"},
		{name: "8 critical vs death failed", face: 6, dmg: 2, script: []int{11, 2, 3, 4}, band: CriticalWound, untreated: 1,
			bleed: &Bleed{Wound: CriticalWound, DiesAt: now + 7}, limb: &Limb{Name: "right arm", Lost: true}, saves: "F"},
		{name: "9 critical vs death passed", face: 6, dmg: 3, script: []int{12, 4, 5, 6, 6}, band: CriticalWound, untreated: 1,
			stun: now + 5, noRestore: now + 12*week, limb: &Limb{Name: "right leg", Until: now + 12*week}, saves: "P"},
		{name: "8 critical fire vs breath failed", face: 6, dmg: 2, typ: Fire, script: []int{14, 1, 1, 1}, band: CriticalWound, untreated: 1,
			bleed: &Bleed{Wound: CriticalWound, DiesAt: now + 2}, limb: &Limb{Name: "left arm", Lost: true}, saves: "F"},
		{name: "9 critical acid vs breath passed", face: 6, dmg: 3, typ: Acid, script: []int{15, 3, 1, 1, 1}, band: CriticalWound, untreated: 1,
			stun: now + 1, noRestore: now + 2*week, limb: &Limb{Name: "left leg", Until: now + 2*week}, saves: "P"},
		{name: "9 critical lightning vs breath passed", face: 6, dmg: 3, typ: Lightning, script: []int{15, 3, 1, 1, 1}, band: CriticalWound, untreated: 1,
			stun: now + 1, noRestore: now + 2*week, limb: &Limb{Name: "left leg", Until: now + 2*week}, saves: "P"},
		{name: "10 fatal I failed", face: 6, dmg: 4, script: []int{11}, band: FatalWoundI, untreated: 1, dead: true, saves: "F"},
		{name: "11 fatal I passed", face: 6, dmg: 5, script: []int{12, 8}, band: FatalWoundI, untreated: 1, bleed: &Bleed{Wound: FatalWoundI, DiesAt: now + 8}, saves: "P"},
		{name: "12 fatal II failed", face: 6, dmg: 6, script: []int{2}, band: FatalWoundII, untreated: 1, dead: true, saves: "F"},
		{name: "12 fatal II passed", face: 6, dmg: 6, script: []int{19, 4}, band: FatalWoundII, untreated: 1, bleed: &Bleed{Wound: FatalWoundII, DiesAt: now + 4}, saves: "P"},
		{name: "20 counts as 12", face: 6, dmg: 14, script: []int{12, 1}, band: FatalWoundII, untreated: 1, bleed: &Bleed{Wound: FatalWoundII, DiesAt: now + 1}, saves: "P"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := lister()
			c.HP, c.Status = 0, StayingUp
			src := dice.NewScripted(append([]int{tt.face}, tt.script...)...)
			var o Outcome
			if err := c.injure(src, "1d6", tt.dmg, tt.typ, now, &o); err != nil {
				t.Fatal(err)
			}
			if o.Injury.Band != tt.band || o.Injury.Total != tt.face+tt.dmg {
				t.Errorf("band %v total %d; want %v, %d", o.Injury.Band, o.Injury.Total, tt.band, tt.face+tt.dmg)
			}
			if src.Remaining() != 0 {
				t.Errorf("%d scripted dice unused", src.Remaining())
			}
			saves := ""
			for _, s := range o.Saves {
				saves += map[bool]string{true: "P", false: "F"}[s.Passed]
				wantCat := SaveParalysis
				if tt.band >= CriticalWound {
					wantCat = SaveDeath
				}
				if tt.band == CriticalWound && tt.typ != "" {
					wantCat = SaveBreath
				}
				if s.Category != wantCat {
					t.Errorf("save vs %s; want vs %s", s.Category, wantCat)
				}
			}
			if saves != tt.saves {
				t.Errorf("saves %q; want %q", saves, tt.saves)
			}
			if c.Untreated != tt.untreated || c.Mobility != tt.mobility || c.StunnedUntil != tt.stun ||
				c.NoRestoreUntil != tt.noRestore || c.Scars != tt.scars || (c.Status == Dead) != tt.dead {
				t.Errorf("got untreated %d mobility %v stun %d noRestore %d scars %d status %v",
					c.Untreated, c.Mobility, c.StunnedUntil, c.NoRestoreUntil, c.Scars, c.Status)
			}
			if got := fmt.Sprint(c.Bleeds); (tt.bleed == nil && len(c.Bleeds) != 0) || (tt.bleed != nil && got != fmt.Sprint([]Bleed{*tt.bleed})) {
				t.Errorf("bleeds %v; want %v", c.Bleeds, tt.bleed)
			}
			if got := fmt.Sprint(c.Limbs); (tt.limb == nil && len(c.Limbs) != 0) || (tt.limb != nil && got != fmt.Sprint([]Limb{*tt.limb})) {
				t.Errorf("limbs %v; want %v", c.Limbs, tt.limb)
			}
		})
	}
}

// TestInjuryEffectTexts: the effects of the injury table say their dice as
// they add up (RULES.md §1.4): a Severe Wound's stun is 1 round + 1d4; a
// Fatal Wound I's bleed-out reads as one sentence with its condition. A
// round timer reads in rounds alone, as the turn order counts them, not
// as a time of the clock (issue 24: "until day 1, 00:04").
func TestInjuryEffectTexts(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script []int
		dmg    int
		want   string
	}{
		{"severe stun", []int{6, 1, 3, 4, 4}, 1, "stunned 4 rounds (1 round + 1d4 [3] = 3)\n"},
		{"fatal I", []int{6, 12, 8}, 5, "dies in 8 rounds (1d8 [8] = 8) unless a skilled healer or healing magic attends"},
		{"fatal II", []int{6, 19, 4}, 6, "dies in 4 rounds (1d4 [4] = 4); nothing can prevent it"},
	} {
		c := lister()
		c.HP, c.Status = 0, StayingUp
		var o Outcome
		if err := c.injure(dice.NewScripted(tt.script...), "1d6", tt.dmg, "", 0, &o); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(o.Injury.Effects, "\n")
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: effects %q; want %q", tt.name, got, tt.want)
		}
		if strings.Contains(got, "day 1, 00:") { // the clock at the round timers' end
			t.Errorf("%s: effects %q; want round timers in rounds, without a time of the clock", tt.name, got)
		}
	}
}

// TestTimers expires every timer through Advance (RULES.md §0.2, §1.4).
func TestTimers(t *testing.T) {
	c := lister()
	c.HP, c.Status = 0, StayingUp
	c.StunnedUntil = 5
	c.NoRestoreUntil = 3 * clock.RoundsPerDay
	c.Limbs = []Limb{{Name: "left arm", Until: 3 * clock.RoundsPerDay}, {Name: "right leg", Lost: true}}

	// A round passes: nothing ends.
	c1, notes := c.Advance(0, 1)
	if len(notes) != 0 {
		t.Errorf("Advance(0, 1) = %q", notes)
	}
	// To round 5: the stun ends.
	c1, notes = c1.Advance(1, 5)
	if len(notes) != 1 || c1.StunnedUntil != 0 {
		t.Errorf("Advance(1, 5) = %q, stun %d", notes, c1.StunnedUntil)
	}
	// 3 days: the limb comes back and the period ends.
	c1, notes = c1.Advance(5, 3*clock.RoundsPerDay)
	if len(notes) != 2 || c1.NoRestoreUntil != 0 || len(c1.Limbs) != 1 || !c1.Limbs[0].Lost {
		t.Errorf("Advance to day 4 = %q, %+v", notes, c1.Limbs)
	}
	if why := c1.RestoreBlock(3 * clock.RoundsPerDay); why != "" {
		t.Errorf("RestoreBlock after the period = %q", why)
	}

	// Each bleed-out kills at its round; a stun ending first is reported first.
	for _, w := range []Band{CriticalWound, FatalWoundI, FatalWoundII} {
		b := lister()
		b.HP, b.Status = 0, StayingUp
		b.StunnedUntil = 2
		b.NoRestoreUntil = 100
		b.Bleeds = []Bleed{{Wound: w, DiesAt: 4}}
		same, notes := b.Advance(0, 3)
		if same.Status == Dead || len(notes) != 1 {
			t.Errorf("%v at round 3: %v %q", w, same.Status, notes)
		}
		dead, notes := same.Advance(3, 10)
		if dead.Status != Dead || len(notes) != 1 || len(dead.Bleeds) != 0 {
			t.Errorf("%v at round 10: %v %q", w, dead.Status, notes)
		}
		if again, notes := dead.Advance(10, 1000); len(notes) != 0 || again.Status != Dead {
			t.Errorf("dead character's timers fired: %q", notes)
		}
	}
}

// TestOdds compares Odds with exact fractions worked out by hand: 2d6 over
// 36 outcomes, and 3d6 keeping the two lowest over 216 (counted by brute
// force here, independently of rules/dice).
func TestOdds(t *testing.T) {
	count3 := map[Band]int64{}
	for a := 1; a <= 6; a++ {
		for b := 1; b <= 6; b++ {
			for c := 1; c <= 6; c++ {
				sum := a + b + c - max(a, b, c)
				count3[Lookup(sum)]++
			}
		}
	}
	tests := []struct {
		expr string
		want map[Band]*big.Rat
	}{
		{StayUpRoll, map[Band]*big.Rat{
			Unhurt: big.NewRat(1, 36), FleshWound: big.NewRat(5, 36), NastyWound: big.NewRat(9, 36),
			SevereWound: big.NewRat(6, 36), CriticalWound: big.NewRat(9, 36), FatalWoundI: big.NewRat(5, 36),
			FatalWoundII: big.NewRat(1, 36)}},
		{GoDownRoll, map[Band]*big.Rat{}},
	}
	for b, n := range count3 {
		tests[1].want[b] = big.NewRat(n, 216)
	}
	// Spot checks of the brute force: 2 needs [1, 1, x] in any order = 16/216.
	if tests[1].want[Unhurt].Cmp(big.NewRat(16, 216)) != 0 {
		t.Fatalf("brute force P(2) = %v", tests[1].want[Unhurt])
	}
	for _, tt := range tests {
		got, err := Odds(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		total := new(big.Rat)
		for _, bo := range got {
			want := tt.want[bo.Band]
			if want == nil {
				want = new(big.Rat)
			}
			if bo.P.Cmp(want) != 0 {
				t.Errorf("Odds(%s)[%v] = %v; want %v", tt.expr, bo.Band, bo.P, want)
			}
			total.Add(total, bo.P)
		}
		if total.Cmp(big.NewRat(1, 1)) != 0 {
			t.Errorf("Odds(%s) sum to %v", tt.expr, total)
		}
	}
}

// TestReadingLostLimbStaysLost is RULES.md §1.4's Reading: a limb that is
// lost stays lost. Lister (fighter 1, save vs death 12) stays up at 0 HP.
// A first Critical Wound's save passes: the use of the right arm is lost
// for 2d6 weeks; a second one's save fails on the same arm: the arm is
// lost, the loss of its use ends silently, and the day that loss would
// have ended reports nothing. A third Critical Wound naming that arm again
// is reported as such and chooses no other limb.
func TestReadingLostLimbStaysLost(t *testing.T) {
	c := lister()
	c.HP, c.Status = 0, StayingUp
	// 7 damage + 1d6 [2] = 9: Critical Wound; save vs death 15 ≥ 12
	// passes; 1d4 [2]: right arm; stunned 1d6 [1] round; 2d6 [3, 4] = 7
	// weeks of no HP restoring from day 1, 00:00: until day 50, 00:00.
	c, o, _, err := c.TakeDamage(dice.NewScripted(2, 15, 2, 1, 3, 4), Hit{Amount: 7})
	if err != nil || len(c.Limbs) != 1 || c.Limbs[0].Lost || c.Limbs[0].Until != 49*clock.RoundsPerDay {
		t.Fatalf("first Critical Wound: limbs %+v, %v; want the right arm out of use until day 50", c.Limbs, err)
	}
	wantEffect(t, o, "loses the use of the right arm (1d4 [2] = 2) until day 50, 00:00")
	// At round 10: 7 + 1d6 [2] = 9 again; save vs death 3 < 12 fails; 1d4
	// [2]: the right arm, lost; bleeds out in 2d4 [1, 1] = 2 rounds.
	c, o, _, err = c.TakeDamage(dice.NewScripted(2, 3, 2, 1, 1), Hit{Amount: 7, Now: 10})
	if err != nil || len(c.Limbs) != 1 || !c.Limbs[0].Lost || c.Limbs[0].Name != "right arm" {
		t.Fatalf("second Critical Wound: limbs %+v, %v; want only the right arm, lost", c.Limbs, err)
	}
	wantEffect(t, o, "loses the right arm (1d4 [2] = 2)")
	// The card lists the arm once, as lost, before and after day 50.
	for _, at := range []clock.Time{11, 60 * clock.RoundsPerDay} {
		conds := strings.Join(c.Conditions(at), "; ")
		if !strings.Contains(conds, "lost the right arm") || strings.Contains(conds, "no use of") {
			t.Errorf("Conditions(%s) = %q; want the arm lost, and no loss of its use", at, conds)
		}
	}
	// Attended (2d6 [1, 1] = 2 weeks more of no restoring, which the 7
	// weeks outlast); then the clock passes day 50: the period ends, the
	// arm does not come back.
	c, _, err = c.Attend(dice.NewScripted(1, 1), false, 11)
	if err != nil {
		t.Fatal(err)
	}
	c2, notes := c.Advance(11, 51*clock.RoundsPerDay)
	if got := strings.Join(notes, "; "); strings.Contains(got, "regains") || !strings.Contains(got, "may restore HP again (day 50, 00:00)") {
		t.Errorf("Advance past day 50 = %q; want the no-restoring period over and no limb back", got)
	}
	if len(c2.Limbs) != 1 || !c2.Limbs[0].Lost {
		t.Errorf("limbs after day 50 = %+v; want the right arm, lost", c2.Limbs)
	}
	// A third Critical Wound naming the lost arm: failed (3 < 12), the
	// bleed-out runs but no limb is lost again; passed (15), stunned 1d6
	// [2] rounds and 2d6 [1, 1] weeks of no restoring, no loss of use.
	failed, o, _, _ := c2.TakeDamage(dice.NewScripted(2, 3, 2, 2, 2), Hit{Amount: 7, Now: 51 * clock.RoundsPerDay})
	wantEffect(t, o, "the right arm (1d4 [2] = 2) is already lost")
	if len(failed.Limbs) != 1 || len(failed.Bleeds) != 1 {
		t.Errorf("failed on the lost arm: limbs %+v, bleeds %+v; want the one lost arm and a bleed-out", failed.Limbs, failed.Bleeds)
	}
	passed, o, _, _ := c2.TakeDamage(dice.NewScripted(2, 15, 2, 2, 1, 1), Hit{Amount: 7, Now: 51 * clock.RoundsPerDay})
	wantEffect(t, o, "the right arm (1d4 [2] = 2) is already lost")
	if len(passed.Limbs) != 1 || !passed.Limbs[0].Lost || passed.StunnedUntil != 51*clock.RoundsPerDay+2 {
		t.Errorf("passed on the lost arm: limbs %+v, stunned until %s; want the one lost arm, stunned 2 rounds", passed.Limbs, passed.StunnedUntil)
	}
}

// TestLostLimbOnAnOldSheet: a sheet kept from before the Reading may hold
// both the loss of a limb's use and the limb lost; the card shows the loss
// only and the clock never reports the limb back (RULES.md §1.4 Reading).
func TestLostLimbOnAnOldSheet(t *testing.T) {
	c := lister()
	c.Limbs = []Limb{{Name: "right arm", Until: 49 * clock.RoundsPerDay}, {Name: "right arm", Lost: true}}
	if got := strings.Join(c.Conditions(0), "; "); strings.Contains(got, "no use of") {
		t.Errorf("Conditions = %q; want no loss of use beside the lost arm", got)
	}
	c, notes := c.Advance(0, 50*clock.RoundsPerDay)
	if len(notes) != 0 || len(c.Limbs) != 1 || !c.Limbs[0].Lost {
		t.Errorf("Advance past day 50 = %q, limbs %+v; want nothing said and the arm lost", notes, c.Limbs)
	}
}

// wantEffect fails unless one of the injury's effects contains want.
func wantEffect(t *testing.T, o Outcome, want string) {
	t.Helper()
	if o.Injury == nil || !strings.Contains(strings.Join(o.Injury.Effects, "\n"), want) {
		t.Errorf("injury effects = %+v; want one containing %q", o.Injury, want)
	}
}
