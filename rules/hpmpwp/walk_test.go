package hpmpwp

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

var seed = flag.Int64("seed", 0, "seed of TestRandomSequences (0: from the time)")

// TestFortyEightHourWalk walks the clock 48 hours (RULES.md §2.5, §2.6): a
// level-2 fighter (HP 10/20, WP 8/10, Fort +2, Will +0) works 12 hours, stays
// up until the penalty puts it to sleep, fails to wake early, wakes early
// later and stays up again, regenerating all along.
func TestFortyEightHourWalk(t *testing.T) {
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
	// Hours 9–12: saves DC 10, 12, 14, 16 (Fort +2): 15 and 15 pass, 5 and
	// 5 fail → −4: Con 6 (−2): HP max 16, Wis 6: MP max 4 − 4 = 0, at
	// the floor 3.
	walk(8, 12, 15, 15, 5, 5)
	check("12 h", 16, 3, 8, 12, 12, 2, Work)
	if c.ExertionSaves != 4 {
		t.Errorf("12 h: %d saves; want 4", c.ExertionSaves)
	}
	// Stay up: worked 12 > 8 keeps the saves coming: DC 18 natural 20
	// passes, DC 20, 22, 24 fail on 1s → 5 failures, −10: Con 0 → asleep;
	// HP max 20 − 10 = 10, at the floor 11.
	c, _, _ = c.SetActivity(src, Awake)
	walk(12, 16, 20, 1, 1, 1)
	check("16 h", 11, 3, 8, 12, 16, 5, Sleep)
	// Hours 17–20 sleep off 4 hours worked; a wake attempt at DC 10 + 8 +
	// 10 = 28 fails on 19.
	walk(16, 20)
	check("20 h", 11, 3, 8, 8, 0, 5, Sleep)
	src.Push(19)
	c, out, _ := c.SetActivity(src, Awake)
	if out.Saves[0].DC != 28 || c.Activity != Sleep {
		t.Errorf("wake at 20 h: %s, %s; want DC 28 and asleep", out.Saves[0], c.Activity)
	}
	// Hours 21–28 sleep off the other 8 hours worked; day 2 begins at 24 h:
	// WP +2 → 10. Hour 29 removes a failure (4 left, −8: Con 2, HP max 12),
	// and HP regenerate to it.
	walk(20, 29)
	check("29 h", 12, 3, 10, 0, 0, 4, Sleep)
	src.Push(18)
	c, out, _ = c.SetActivity(src, Awake)
	if out.Saves[0].DC != 18 || c.Activity != Awake {
		t.Errorf("wake at 29 h: %s, %s; want DC 18 and awake", out.Saves[0], c.Activity)
	}
	// Awake hours 30–48: the 17th, 18th and 19th hours awake (46–48) save
	// at DC 10 + 2 × 8 = 26, 28, 30; natural 20s pass. HP regenerate to
	// the lowered max 12, MP stay at the floor 3.
	walk(29, 48, 20, 20, 20)
	check("48 h", 12, 3, 10, 0, 19, 4, Awake)
	if c.ExertionSaves != 11 || c.Penalty() != 8 || c.Condition() != "exhausted" {
		t.Errorf("48 h: saves %d, penalty %d, %s; want 11, 8, exhausted", c.ExertionSaves, c.Penalty(), c.Condition())
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
	src := dice.NewScripted(5, 5, 12) // DC 10, 11, 12: the third stabilizes
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
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -seed %d)", s, s)
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
				next, _, err = c.SetActivity(src, Activity(rng.IntN(3)))
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
