package hpmpwp

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

var seed = flag.Int64("seed", 0, "seed of the randomised tests (0: from the time)")

// testSeed returns the seed of a randomised test, -seed or the time, and
// logs it so that a failure can be replayed.
func testSeed(t *testing.T) int64 {
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -seed %d)", s, s)
	return s
}

// TestFiftyTwoHourWalk walks the clock 52 hours (RULES.md §2.5, §2.6): a
// level-2 fighter (HP 10/20, WP 8/10, Fort +2, Will +0) works 12 hours, stays
// up past 16 hours awake until the penalty puts it to sleep, fails to wake
// early, wakes early later and stays up again, regenerating all along.
func TestFiftyTwoHourWalk(t *testing.T) {
	c := fighter(20, 10)
	c.Level, c.HP, c.WP, c.Fort, c.Activity = 2, 10, 8, 2, Work
	src := dice.NewScripted()
	hour := func(h int64) int64 { return h * clock.RoundsPerHour }
	walk := func(from, to int64, faces ...int) {
		t.Helper()
		src.Push(faces...)
		var err error
		var out Outcome
		if c, out, err = c.Advance(src, hour(from), hour(to)); err != nil {
			t.Fatalf("Advance(%d h → %d h): %v", from, to, err)
		}
		if src.Remaining() != 0 {
			t.Fatalf("Advance(%d h → %d h) left %d faces; lines %q", from, to, src.Remaining(), out.Lines)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("after %d h: %v", to, err)
		}
	}
	check := func(at string, hp, mp, wp, worked, awake, fails int, act Activity) {
		t.Helper()
		if c.HP != hp || c.MP != mp || c.WP != wp || c.HoursWorked != worked || c.HoursAwake != awake || c.ExertionFailures != fails || c.Activity != act {
			t.Errorf("%s: HP %d MP %d WP %d worked %d awake %d failures %d %s; want HP %d MP %d WP %d worked %d awake %d failures %d %s",
				at, c.HP, c.MP, c.WP, c.HoursWorked, c.HoursAwake, c.ExertionFailures, c.Activity, hp, mp, wp, worked, awake, fails, act)
		}
	}
	// Hours 1–8: no saves. Fatigued by WP 8 < 10: Con 8, HP max 18; Wis 8,
	// MP max 4 − 2 = 2, raised to the floor ⌊4/2⌋ + 1 = 3 (RULES.md §2.3
	// Reading), caps MP.
	walk(0, 8)
	check("8 h", 18, 3, 8, 8, 8, 0, Work)
	// Hours 9–12: saves DC 10, 12, 14, 16 at Fort +2 −1 fatigue = +1
	// (fatigue's −2 takes Con 10 to 8, its modifier from +0 to −1; RULES.md
	// §2.3 Reading): 15 + 1 = 16 and 16 pass, 5 + 1 = 6 and 6 fail → −4:
	// Con 6 (−2): HP max 16, Wis 6: MP max 4 − 4 = 0, at the floor 3.
	walk(8, 12, 15, 15, 5, 5)
	check("12 h", 16, 3, 8, 12, 12, 2, Work)
	if c.ExertionSaves != 4 {
		t.Errorf("12 h: %d saves; want 4", c.ExertionSaves)
	}
	// Stay up: an awake hour after the workday costs no save (RULES.md
	// §2.6) until hours awake pass 16: hours 13–16 roll nothing.
	c, _, _ = c.SetActivity(src, Awake, 0)
	walk(12, 16)
	check("16 h", 16, 3, 8, 12, 16, 2, Awake)
	// Hours awake 17–20 save (Fort +2 −2 exertion = +0, the −4 taking Con
	// 10 to 6): DC 18 natural 20 passes, DC 20, 22, 24 fail on 1s → 5 failures, −10: Con 0 → asleep; HP max 20 − 10 = 10, at the
	// floor 11.
	walk(16, 20, 20, 1, 1, 1)
	check("20 h", 11, 3, 8, 12, 20, 5, Sleep)
	// Hours 21–24 sleep off 4 hours worked; day 2 begins at 24 h: WP +2 →
	// 10. A wake attempt at DC 10 + 8 + 10 = 28 fails on 19: Will +0 −5
	// exertion (−10 takes Wis 10 to 0, modifier −5), 19 − 5 = 14.
	walk(20, 24)
	check("24 h", 11, 3, 10, 8, 0, 5, Sleep)
	src.Push(19)
	c, out, _ := c.SetActivity(src, Awake, 0)
	if out.Saves[0].DC != 28 || c.Activity != Sleep {
		t.Errorf("wake at 24 h: %s, %s; want DC 28 and asleep", out.Saves[0], c.Activity)
	}
	// Hours 25–32 sleep off the other 8 hours worked. Hour 33 removes a
	// failure (4 left, −8: Con 2, HP max 12), and HP regenerate to it.
	walk(24, 33)
	check("33 h", 12, 3, 10, 0, 0, 4, Sleep)
	// Waking at DC 10 + 2 × 4 = 18: Will +0 −4 exertion (−8 takes Wis 10 to
	// 2, modifier −4), so 18 gives 14 and sleeps on; a natural 20 wakes.
	src.Push(18)
	c, out, _ = c.SetActivity(src, Awake, 0)
	if s := out.Saves[0]; s.DC != 18 || s.Bonus != -4 || s.Fatigue != -4 || s.Total != 14 || c.Activity != Sleep {
		t.Errorf("wake at 33 h with 18: %s, %s; want DC 18, 18 − 4 = 14, asleep", s, c.Activity)
	}
	src.Push(20)
	c, out, _ = c.SetActivity(src, Awake, 0)
	if out.Saves[0].DC != 18 || c.Activity != Awake {
		t.Errorf("wake at 33 h with a natural 20: %s, %s; want DC 18 and awake", out.Saves[0], c.Activity)
	}
	// Awake hours 34–52: the 17th, 18th and 19th hours awake (50–52) save
	// at DC 10 + 2 × 8 = 26, 28, 30; natural 20s pass. HP stay at the
	// lowered max 12, MP at the floor 3.
	walk(33, 52, 20, 20, 20)
	check("52 h", 12, 3, 10, 0, 19, 4, Awake)
	if c.ExertionSaves != 11 || c.Penalty() != 8 || c.Condition() != "exhausted" {
		t.Errorf("52 h: saves %d, penalty %d, %s; want 11, 8, exhausted", c.ExertionSaves, c.Penalty(), c.Condition())
	}
}

// TestNoExertionSaveAwakeAfterWork is RULES.md §2.6's corrected trigger: a
// barbarian (Fort +2) works 9 hours, the 9th with a save at DC 10, and then
// stays awake. Hours 10–16 are awake hours with 9 hours worked and at most
// 16 awake: no save (before, each made one, DC 12, 14, … 24, and the
// failures put it to sleep from −10 to all abilities by the 16th hour). The
// 17th hour awake makes the second save, at DC 12.
func TestNoExertionSaveAwakeAfterWork(t *testing.T) {
	c := New("barbarian", 1, 12)
	c.Fort, c.Activity = 2, Work
	hour := func(h int64) int64 { return h * clock.RoundsPerHour }
	c, out, err := c.Advance(dice.NewScripted(11), 0, hour(9))
	if err != nil || len(out.Saves) != 1 || out.Saves[0].DC != 10 || out.Saves[0].For != "exertion, hours worked" || !out.Saves[0].Success {
		t.Fatalf("9 hours of work: saves %v, %v; want one passed DC 10 save for hours worked", out.Saves, err)
	}
	c, _, _ = c.SetActivity(dice.NewScripted(), Awake, 0)
	// An empty script: any die rolled in hours 10–16 is an error.
	c, out, err = c.Advance(dice.NewScripted(), hour(9), hour(16))
	if err != nil || len(out.Saves) != 0 || c.ExertionFailures != 0 || c.Activity != Awake || c.HoursAwake != 16 {
		t.Fatalf("hours 10–16 awake: saves %v, %v, failures %d, %s, %d h awake; want no save, awake, 16 h", out.Saves, err, c.ExertionFailures, c.Activity, c.HoursAwake)
	}
	src := dice.NewScripted(9)
	c, out, err = c.Advance(src, hour(16), hour(17))
	if err != nil || len(out.Saves) != 1 || out.Saves[0].DC != 12 || out.Saves[0].For != "exertion, hours awake" {
		t.Fatalf("17th hour awake: saves %v, %v; want one DC 12 save for hours awake", out.Saves, err)
	}
	if c.ExertionFailures != 1 || c.Penalty() != 2 || src.Remaining() != 0 {
		t.Errorf("after 9 + 2 = 11 < 12: failures %d, penalty %d; want 1, −2", c.ExertionFailures, c.Penalty())
	}
}

// TestSleepWakesWhenPaidOff: sleep pays off hours worked one an hour and
// wakes when nothing is left, resetting the save count (RULES.md §2.6).
func TestSleepWakesWhenPaidOff(t *testing.T) {
	c := fighter(10, 10)
	c.Activity, c.HoursAwake, c.ExertionSaves, c.HoursWorked = Sleep, 14, 2, 2
	c, _, _ = c.PassHour(dice.NewScripted(), 0)
	if c.Activity != Sleep || c.HoursWorked != 1 || c.HoursAwake != 0 {
		t.Fatalf("first hour: %+v", c)
	}
	c, _, _ = c.PassHour(dice.NewScripted(), 0)
	if c.Activity != Awake || c.ExertionSaves != 0 {
		t.Errorf("second hour: %s, %d saves; want awake, 0", c.Activity, c.ExertionSaves)
	}
}

// TestAdvanceDyingRounds: a long advance keeps making per-round saves until
// the character is stable, then jumps by hours; the dying regain nothing.
func TestAdvanceDyingRounds(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State, c.DyingSince = 0, -3, Dying, 0
	// Fort +0 −1 fatigue (exhausted at WP −3: Con 10 → 8, modifier −1):
	// DC 10, 11, 12: 5 − 1 = 4 and 4 fail, 13 − 1 = 12 stabilizes.
	src := dice.NewScripted(5, 5, 13)
	c, out, err := c.Advance(src, 0, 2*clock.RoundsPerDay)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Saves) != 3 || out.Saves[2].DC != 12 || c.State != Stable {
		t.Fatalf("Advance: %d saves, %s; want 3, stable", len(out.Saves), c.State)
	}
	// HP +1 an hour up to the max lowered by exhaustion (WP ≤ 0: Con 8,
	// 10 − 1 = 9); WP +1 on each of 2 days: −1, still stable.
	if c.WP != -1 || c.HP != 9 || c.State != Stable {
		t.Errorf("after 2 days: WP %d, HP %d, %s; want -1, 9, stable", c.WP, c.HP, c.State)
	}
}

// TestRandomSequences runs long random command sequences and checks the
// invariants: HP and MP within 0 and their maxima, temporary WP never
// negative, the dead never change, and the state consistent with WP. Replay a
// failure with -seed.
func TestRandomSequences(t *testing.T) {
	s := testSeed(t)
	rng := rand.New(rand.NewPCG(uint64(s), 0))
	src := dice.NewRandom(uint64(s))
	for run := range 200 {
		c := New([]string{"fighter", "wizard", "bard"}[rng.IntN(3)], 1+rng.IntN(20), 1+rng.IntN(120))
		c.Con, c.Wis = 3+rng.IntN(16), 3+rng.IntN(16)
		c.WP, c.TempWP = c.Con, rng.IntN(4)
		c.MPMax = rng.IntN(40)
		c.MP = c.MPMax
		c.Fort, c.Will = rng.IntN(10)-2, rng.IntN(10)-2
		c.Endurance, c.DieHard = rng.IntN(2) == 0, rng.IntN(3) == 0
		now := int64(0)
		for step := range 300 {
			before := c
			var next Character
			var err error
			switch rng.IntN(11) {
			case 0, 1, 2:
				hit := Hit{Amount: 1 + rng.IntN(15), Nonlethal: rng.IntN(4) == 0}
				if rng.IntN(4) == 0 {
					hit.Crit = 2 + rng.IntN(3)
				}
				next, _, err = c.TakeDamage(src, hit, now)
			case 3:
				next, _, err = c.Heal(Pool(rng.IntN(2)), 1+rng.IntN(10))
			case 4:
				next, _, err = c.Strain(src, now)
			case 5:
				next, _, err = c.Attend(src, rng.IntN(10))
			case 6:
				next, _, err = c.SpendMP(1 + rng.IntN(6))
			case 7:
				next, _, err = c.SetActivity(src, Activity(rng.IntN(3)), now)
			case 8:
				next, _, err = c.Choose(rng.IntN(2) == 0)
			case 9:
				next, _, err = c.NightRest(now + 8*clock.RoundsPerHour)
			default:
				d := int64(1 + rng.IntN(3*clock.RoundsPerHour))
				next, _, err = c.Advance(src, now, now+d)
				now += d
			}
			if err != nil {
				next = c
			}
			c = next
			if before.State == Dead && c != before {
				t.Fatalf("seed %d run %d step %d: the dead changed: %+v → %+v", s, run, step, before, c)
			}
			if c.HP < 0 || c.HP > c.EffectiveHPMax() || c.MP < 0 || c.MP > c.EffectiveMPMax() || c.TempWP < 0 {
				t.Fatalf("seed %d run %d step %d: out of range: %+v", s, run, step, c)
			}
			if c.State != Dead && (c.WP < 0) == (c.State == Fine) {
				t.Fatalf("seed %d run %d step %d: state %s with WP %d", s, run, step, c.State, c.WP)
			}
			if c.ChoicePending && (!c.DieHard || c.State != Stable) {
				t.Fatalf("seed %d run %d step %d: choice pending in %+v", s, run, step, c)
			}
			if c.State == Dying && c.DieHard && before.State != Dying {
				t.Fatalf("seed %d run %d step %d: a Die Hard character became dying", s, run, step)
			}
			if c.Activity != Sleep && c.SleepUntil != 0 {
				t.Fatalf("seed %d run %d step %d: awake with a sleep-until time: %+v", s, run, step, c)
			}
			if before.Activity == Sleep && c.Activity == Sleep && c.HoursAwake > before.HoursAwake {
				t.Fatalf("seed %d run %d step %d: a sleeper gained hours awake: %+v", s, run, step, c)
			}
			if err := c.Validate(); err != nil {
				t.Fatalf("seed %d run %d step %d: %v: %+v", s, run, step, err, c)
			}
		}
	}
}
