package hpmpwp

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

const hour = clock.RoundsPerHour

// hasLine fails unless one of out's lines contains want.
func hasLine(t *testing.T, what string, out Outcome, want string) {
	t.Helper()
	if !slices.ContainsFunc(out.Lines, func(l string) bool { return strings.Contains(l, want) }) {
		t.Errorf("%s: lines %q; want one containing %q", what, out.Lines, want)
	}
}

// TestNightRestSleepsEightHours: a night's rest keeps a fresh character
// asleep for the whole 8 hours on the clock, its hours awake staying 0, and
// it wakes at the end (RULES.md §2.6, hpkeeper's reading of "the GM puts the
// whole table to sleep for 8 hours").
func TestNightRestSleepsEightHours(t *testing.T) {
	c := fighter(10, 10)
	c, out, err := c.NightRest(8 * hour)
	if err != nil || c.Activity != Sleep || c.SleepUntil != 8*hour {
		t.Fatalf("NightRest = %s until %d, %v; want asleep until %d", c.Activity, c.SleepUntil, err, 8*hour)
	}
	hasLine(t, "NightRest", out, "goes to sleep")
	src := dice.NewScripted()
	mid, _, err := c.Advance(src, 0, 7*hour)
	if err != nil || mid.Activity != Sleep || mid.HoursAwake != 0 {
		t.Fatalf("after 7 h: %s, %d h awake, %v; want asleep, 0 h awake", mid.Activity, mid.HoursAwake, err)
	}
	end, out, err := mid.Advance(src, 7*hour, 8*hour)
	if err != nil || end.Activity != Awake || end.HoursAwake != 0 || end.SleepUntil != 0 {
		t.Fatalf("after 8 h: %+v, %v; want awake with 0 h awake and no sleep-until", end, err)
	}
	hasLine(t, "8th hour", out, "day 1, 08:00: wakes: the night's rest is over")
}

// TestNightRestPaysOffWork: 3 hours worked and 1 exertion failure are slept
// off in the first 4 hours, the character sleeps on to the end of the night,
// and the advance sums the sleep up (RULES.md §2.6); fatigue from the
// failure ending is reported (RULES.md §0.2).
func TestNightRestPaysOffWork(t *testing.T) {
	c := fighter(10, 10)
	c.HoursWorked, c.HoursAwake, c.ExertionSaves, c.ExertionFailures = 3, 12, 2, 1
	c, _, _ = c.NightRest(8 * hour)
	c, out, err := c.Advance(dice.NewScripted(), 0, 8*hour)
	if err != nil || c.Activity != Awake || c.HoursWorked != 0 || c.ExertionFailures != 0 || c.ExertionSaves != 0 {
		t.Fatalf("after the night: %+v, %v", c, err)
	}
	hasLine(t, "night", out, "day 1, 04:00: no longer fatigued")
	hasLine(t, "night", out, "day 1, 08:00: wakes: the night's rest is over")
	if last := out.Lines[len(out.Lines)-1]; last != "slept 8 h: 3 h worked and 1 exertion failure slept off" {
		t.Errorf("last line %q; want the sleep summary", last)
	}
}

// TestNightRestOutlastedByDebt: a character with more to sleep off than the
// night sleeps on past its end and wakes when it is all slept off.
func TestNightRestOutlastedByDebt(t *testing.T) {
	c := fighter(10, 10)
	c.HoursWorked = 10
	c, _, _ = c.NightRest(8 * hour)
	c, _, _ = c.Advance(dice.NewScripted(), 0, 9*hour)
	if c.Activity != Sleep || c.HoursWorked != 1 {
		t.Fatalf("after 9 h: %s, %d h worked; want asleep, 1", c.Activity, c.HoursWorked)
	}
	c, out, _ := c.Advance(dice.NewScripted(), 9*hour, 10*hour)
	if c.Activity != Awake {
		t.Errorf("after 10 h: %s; want awake", c.Activity)
	}
	hasLine(t, "10th hour", out, "has slept it all off and wakes")
}

// TestNightRestRefusals: the dead and the unconscious do not go to bed.
func TestNightRestRefusals(t *testing.T) {
	c := fighter(10, 10)
	c.WP, c.State = -2, Stable
	if _, _, err := c.NightRest(1); !errors.Is(err, ErrUnconscious) {
		t.Errorf("NightRest while stable: %v; want ErrUnconscious", err)
	}
	c.State = Dead
	if _, _, err := c.NightRest(1); !errors.Is(err, ErrDead) {
		t.Errorf("NightRest while dead: %v; want ErrDead", err)
	}
}

// TestAnyActivityWakesEarlyWithASave: setting work (or awake) on a sleeper
// is the wake-early attempt of RULES.md §2.6: Ann, asleep with 11 hours
// worked and 2 exertion failures, saves at DC 10 + 11 + 2 × 2 = 25.
func TestAnyActivityWakesEarlyWithASave(t *testing.T) {
	ann := fighter(10, 10)
	ann.Activity, ann.HoursWorked, ann.ExertionSaves, ann.ExertionFailures, ann.Will = Sleep, 11, 4, 2, 3
	for _, a := range []Activity{Work, Awake} {
		got, out, err := ann.SetActivity(dice.NewScripted(19), a, 0)
		if err != nil || len(out.Saves) != 1 || out.Saves[0].DC != 25 || out.Saves[0].Kind != "Will" || got.Activity != Sleep {
			t.Errorf("SetActivity(%s) with 19 + 3: %q, %s, %v; want a failed Will DC 25 and still asleep", a, out.Lines, got.Activity, err)
		}
		hasLine(t, a.String(), out, "sleeps on")
		got, out, _ = ann.SetActivity(dice.NewScripted(20), a, 0)
		if got.Activity != a {
			t.Errorf("SetActivity(%s) with a natural 20: %s; want %s", a, got.Activity, a)
		}
		hasLine(t, a.String(), out, "wakes early")
	}
	// Sleep on a sleeper rolls nothing.
	if _, out, err := ann.SetActivity(dice.NewScripted(), Sleep, 0); err != nil || len(out.Saves) != 0 {
		t.Errorf("SetActivity(sleep) on a sleeper: %v, %d saves; want none", err, len(out.Saves))
	}
	// Waking early from a night's rest ends it.
	rested, _, _ := fighter(10, 10).NightRest(8 * hour)
	if got, _, _ := rested.SetActivity(dice.NewScripted(10), Work, 0); got.Activity != Work || got.SleepUntil != 0 {
		t.Errorf("waking from a night's rest: %s until %d; want work, no sleep-until", got.Activity, got.SleepUntil)
	}
}

// TestUnconsciousHoursCountAsSleep is hpkeeper's reading of RULES.md §2.6
// for the unconscious: a stable or dying character's hours count as sleep
// (hours awake reset, work and exertion failures slept off, the save count
// reset) but it does not wake while unconscious, and makes no exertion
// saves.
func TestUnconsciousHoursCountAsSleep(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State, c.Activity = 5, -2, Stable, Work
	c.HoursWorked, c.HoursAwake, c.ExertionSaves, c.ExertionFailures = 5, 14, 3, 1
	got, out, err := c.Advance(dice.NewScripted(), 0, 6*hour)
	if err != nil {
		t.Fatal(err)
	}
	if got.HoursWorked != 0 || got.ExertionFailures != 0 || got.HoursAwake != 0 || got.ExertionSaves != 0 {
		t.Errorf("after 6 h stable: %d worked, %d failures, %d awake, %d saves; want all 0", got.HoursWorked, got.ExertionFailures, got.HoursAwake, got.ExertionSaves)
	}
	if got.Activity != Work || got.State != Stable || len(out.Saves) != 0 {
		t.Errorf("after 6 h stable: %s, %s, %d saves; want the activity unchanged, stable, no saves", got.Activity, got.State, len(out.Saves))
	}
	hasLine(t, "stable", out, "unconscious 6 h (counts as sleep): 5 h worked and 1 exertion failure slept off")
	// Asleep and unconscious with nothing left: still asleep (no waking).
	c.Activity, c.HoursWorked, c.ExertionFailures = Sleep, 1, 0
	if got, _, _ := c.PassHour(dice.NewScripted(), hour); got.Activity != Sleep || got.HoursWorked != 0 {
		t.Errorf("stable sleeper: %s, %d worked; want asleep, 0", got.Activity, got.HoursWorked)
	}
	// Dying: the hour counts too.
	c.State, c.HoursWorked, c.HoursAwake = Dying, 2, 3
	if got, _, _ := c.PassHour(dice.NewScripted(), hour); got.HoursWorked != 1 || got.HoursAwake != 0 {
		t.Errorf("dying hour: %d worked, %d awake; want 1, 0", got.HoursWorked, got.HoursAwake)
	}
}

// TestFatigueEndingReported: fatigue and exhaustion ending on the clock are
// reported when they end (RULES.md §0.2, §2.3): HP 0/10 regenerate 1 an
// hour; HP 1 ends exhaustion, HP 6 (> 50%) ends fatigue.
func TestFatigueEndingReported(t *testing.T) {
	c := fighter(10, 10)
	c.HP = 0
	_, out, err := c.Advance(dice.NewScripted(), 0, 6*hour)
	if err != nil {
		t.Fatal(err)
	}
	hasLine(t, "advance", out, "day 1, 01:00: no longer exhausted (still fatigued)")
	hasLine(t, "advance", out, "day 1, 06:00: no longer fatigued")
	healed, hout, _ := fighter(10, 10).withHP(4).Heal(PoolHP, 6)
	if healed.Fatigued() {
		t.Fatalf("healed to %d: still fatigued", healed.HP)
	}
	hasLine(t, "heal", hout, "no longer fatigued")
}

func (c Character) withHP(hp int) Character { c.HP = hp; return c }

// TestStrainEnduranceAndDieHardDeath: Endurance's +4 applies to the save of
// a strenuous action, and a Die Hard character failing it by 10 dies
// (RULES.md §2.4). Disabled at WP −4, Fort −5: 1 WP → −5, DC 11. Exhausted
// (HP 0, WP below 0), so fatigue's −2 takes Con 10 to 8 and Fort −5 to −6
// (RULES.md §2.3 Reading).
func TestStrainEnduranceAndDieHardDeath(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State, c.Fort = 0, -4, Disabled, -5
	// d20 6 − 6 = 0 fails DC 11 by 11: dead; with Endurance 6 − 5 + 4 − 1 =
	// 4 fails by 7: dying.
	if got, _, _ := c.Strain(dice.NewScripted(6), 0); got.State != Dead {
		t.Errorf("Strain 6 − 6 vs DC 11 = %s; want dead", got.State)
	}
	c.Endurance = true
	got, out, _ := c.Strain(dice.NewScripted(6), 0)
	if got.State != Dying || out.Saves[0].Bonus != -2 || out.Saves[0].Fatigue != -1 {
		t.Errorf("Strain with Endurance: %s, bonus %+d (fatigue %+d); want dying, −5 + 4 − 1 = −2 (fatigue −1)", got.State, out.Saves[0].Bonus, out.Saves[0].Fatigue)
	}
	c.Endurance, c.DieHard = false, true
	got, out, _ = c.Strain(dice.NewScripted(6), 0)
	if got.State != Dead || !out.Saves[0].FailedBy10() {
		t.Errorf("Die Hard Strain failed by 10: %s; want dead", got.State)
	}
}

// TestDyingSaveFailedBy10WithEndurance: the per-round save of a dying
// character with Endurance (+4): DC 12 at its third round, Fort −5, −1 for
// fatigue (exhausted at WP −3: Con 10 → 8; RULES.md §2.3 Reading): d20 7
// gives 7 − 5 + 4 − 1 = 5 (still dying; 1 without Endurance, dead), d20 3
// gives 1 (dead).
func TestDyingSaveFailedBy10WithEndurance(t *testing.T) {
	c := fighter(10, 10)
	c.HP, c.WP, c.State, c.DyingSince, c.Fort = 0, -3, Dying, 100, -5
	if got, _, _ := c.NextRound(dice.NewScripted(7), 103); got.State != Dead {
		t.Errorf("without Endurance, 7 − 6 vs DC 12 = %s; want dead", got.State)
	}
	c.Endurance = true
	if got, out, _ := c.NextRound(dice.NewScripted(7), 103); got.State != Dying || out.Saves[0].Total != 5 {
		t.Errorf("with Endurance, 7 − 2 vs DC 12 = %s; want still dying", got.State)
	}
	if got, out, _ := c.NextRound(dice.NewScripted(3), 103); got.State != Dead || !out.Saves[0].FailedBy10() {
		t.Errorf("with Endurance, 3 − 2 vs DC 12 = %s; want dead (failed by 10)", got.State)
	}
}

// TestReadingNightEndsWhereTheClockStops: a night from 00:02 sleeps the 8 whole hours it
// crosses and ends at 08:02, where the sleeper wakes: the reply's "until"
// is where the clock stops (issue 24: a night "until 08:00" ended at
// 08:02), and it is still asleep at 08:01.
func TestReadingNightEndsWhereTheClockStops(t *testing.T) {
	c, _, _ := fighter(10, 10).NightRest(2 + 8*hour)
	if c.SleepUntil != 2+8*hour {
		t.Fatalf("SleepUntil = %d; want %d", c.SleepUntil, 2+8*hour)
	}
	if early, _, _ := c.Advance(dice.NewScripted(), 2, 1+8*hour); early.Activity != Sleep || early.HoursAwake != 0 {
		t.Errorf("at 08:01: %s, %d h awake; want asleep, 0 h awake", early.Activity, early.HoursAwake)
	}
	c, out, _ := c.Advance(dice.NewScripted(), 2, 2+8*hour)
	if c.Activity != Awake || c.SleepUntil != 0 {
		t.Errorf("after the night: %s until %d; want awake", c.Activity, c.SleepUntil)
	}
	hasLine(t, "night", out, "day 1, 08:02: wakes: the night's rest is over")
	hasLine(t, "night", out, "slept 8 h")
}
