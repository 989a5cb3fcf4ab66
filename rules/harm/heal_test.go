package harm

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
)

// TestHealFirstAidSLBecomesBonusDice: the helper's First Aid SL is the
// patient's bonus dice; SL ≥ 1 improves one step and lowers the counter by
// the SL (RULES.md §3.3).
func TestHealFirstAidSLBecomesBonusDice(t *testing.T) {
	healer := garrett() // First Aid 1
	_, aid, err := healer.Help(scripted(1, 0, 0), FirstAidHelp, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if aid.Check.Check.Ability != FirstAid || aid.Check.SL != 2 {
		t.Fatalf("Help(first-aid) = %s SL %d; want First Aid SL 2", aid.Check.Roll, aid.Check.SL)
	}
	p := garrett()
	p.Condition, p.HarmCounter = Bloody, 3
	n, out, err := p.Heal(scripted(1, -1, 1, 0, 1), Healing{Trigger: FirstAidHelp, HelpSL: aid.Check.SL})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Check.Roll.String(); got != "5dFkh3+2 [+, ~~−~~, +, ~~0~~, +] + 2 = 5" {
		t.Errorf("healing check rolled %s; want 5dFkh3+2 [+, ~~−~~, +, ~~0~~, +] + 2 = 5", got)
	}
	if n.Condition != Healthy || n.HarmCounter != 0 || out.CounterBefore != 3 || out.CounterAfter != 0 {
		t.Errorf("healed to %v counter %d (%d → %d); want Healthy, 0", n.Condition, n.HarmCounter, out.CounterBefore, out.CounterAfter)
	}
}

// TestHealBrokenPenaltyCancelsOneHelpDie: a Broken patient's healing check
// (innate) has a penalty die, which cancels one bonus die; the healing check
// costs no pool point (it is not an action, RULES.md §3.2).
func TestHealBrokenPenaltyCancelsOneHelpDie(t *testing.T) {
	p := garrett()
	p.Condition, p.HarmCounter = Broken, 2
	p.Instinct.Current = 0
	n, out, err := p.Heal(scripted(0, 0, 1, 0), Healing{Trigger: CounselHelp, HelpSL: 2, Ability: React})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Check.Roll.String(); got != "4dFkh3+1 [~~0~~, 0, +, 0] + 1 = 2" {
		t.Errorf("Broken healing rolled %s; want 4dFkh3+1 [~~0~~, 0, +, 0] + 1 = 2", got)
	}
	if n.Condition != Bloody || n.HarmCounter != 0 || n.Instinct.Current != 0 {
		t.Errorf("healed to %v counter %d Instinct %d; want Bloody, 0, 0", n.Condition, n.HarmCounter, n.Instinct.Current)
	}
}

// TestHealSLZeroChangesNothingButUsesTheTrigger (RULES.md §3.3).
func TestHealSLZeroChangesNothingButUsesTheTrigger(t *testing.T) {
	p := garrett()
	p.Condition, p.HarmCounter = Bloody, 2
	n, out, err := p.Heal(scripted(-1, -1, 0), Healing{Trigger: PoolPoints, Ability: Endure})
	if err != nil {
		t.Fatal(err)
	}
	if out.Check.SL != 0 || out.Check.Total != 0 || n.Condition != Bloody || n.HarmCounter != 2 {
		t.Errorf("SL %d: %v counter %d; want SL 0, Bloody 2", out.Check.SL, n.Condition, n.HarmCounter)
	}
	if n.Vigor.Current+n.Instinct.Current+n.Reason.Current != 4 {
		t.Errorf("pools after SL 0 healing: %+v %+v %+v; want 5 of 9 points spent", n.Vigor, n.Instinct, n.Reason)
	}
	// A day of rest with SL 0 starts the next day of rest.
	p.RestFrom = 0
	now := clock.Time(0).Add(1, clock.Day)
	n, _, err = p.Heal(scripted(-1, -1, -1), Healing{Trigger: DayOfRest, Now: now})
	if err != nil || n.RestFrom != now || n.Condition != Bloody {
		t.Errorf("rest with SL 0: RestFrom %v, %v, err %v; want %v, Bloody", n.RestFrom, n.Condition, err, now)
	}
}

// TestHealImprovesOneStepOnly: even a large SL improves one step; the
// counter does not go below 0; a Healthy character with a counter lowers it.
func TestHealImprovesOneStepOnly(t *testing.T) {
	tests := []struct {
		cond        Condition
		counter     int
		faces       []int
		wantCond    Condition
		wantCounter int
	}{
		{Broken, 0, []int{1, 1, 1, 1}, Bloody, 0}, // penalty die: 4dFkl3+2 = 5
		{Bloody, 4, []int{1, 0, 0}, Healthy, 1},   // SL 3
		{Bloody, 1, []int{1, 1, 1}, Healthy, 0},   // SL 5, not below 0
		{Healthy, 3, []int{0, 0, 0}, Healthy, 1},  // SL 2
	}
	for _, tt := range tests {
		p := garrett()
		p.Condition, p.HarmCounter = tt.cond, tt.counter
		n, _, err := p.Heal(scripted(tt.faces...), Healing{Trigger: PoolPoints})
		if err != nil {
			t.Fatal(err)
		}
		if n.Condition != tt.wantCond || n.HarmCounter != tt.wantCounter {
			t.Errorf("Heal %v/%d = %v/%d; want %v/%d", tt.cond, tt.counter, n.Condition, n.HarmCounter, tt.wantCond, tt.wantCounter)
		}
	}
}

// TestHealRefusals: nothing to heal, a non-innate ability, and the triggers'
// preconditions (RULES.md §3.3).
func TestHealRefusals(t *testing.T) {
	h := garrett()
	if _, _, err := h.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints}); !errors.Is(err, ErrNothingToHeal) {
		t.Errorf("Heal(Healthy, 0) err = %v; want ErrNothingToHeal", err)
	}
	p := garrett()
	p.Condition = Bloody
	if _, _, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints, Ability: "climb"}); !errors.Is(err, ErrNotInnate) {
		t.Errorf("Heal(climb) err = %v; want ErrNotInnate", err)
	}
	p.Vigor.Current, p.Instinct.Current, p.Reason.Current = 2, 1, 1
	if n, _, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints}); !errors.Is(err, ErrPoolEmpty) || n.Vigor.Current != 2 {
		t.Errorf("Heal(pools) with 4 points: err = %v, Vigor %d; want ErrPoolEmpty, 2", err, n.Vigor.Current)
	}
	if _, _, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints, Spend: map[string]int{Vigor: 2, Reason: 2}}); !errors.Is(err, ErrBadSpend) {
		t.Errorf("Heal(pools 2+2) err = %v; want ErrBadSpend", err)
	}
	if _, _, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints, Spend: map[string]int{Vigor: 3, Reason: 2}}); !errors.Is(err, ErrPoolEmpty) {
		t.Errorf("Heal(pools vigor 3 of 2) err = %v; want ErrPoolEmpty", err)
	}
	if _, _, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints, Spend: map[string]int{"luck": 5}}); !errors.Is(err, ErrBadSpend) {
		t.Errorf("Heal(pools luck) err = %v; want ErrBadSpend", err)
	}
}

// TestHealPoolsMix: the 5 points come in any mix as chosen, or one by one
// from the fullest pool (ties: Vigor, Instinct, Reason).
func TestHealPoolsMix(t *testing.T) {
	p := garrett()
	p.Condition = Bloody
	p.Vigor, p.Instinct, p.Reason = Pool{4, 5}, Pool{3, 3}, Pool{1, 3}
	n, out, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints})
	if err != nil {
		t.Fatal(err)
	}
	// One point at a time from the fullest pool, Vigor first on a tie:
	// V4 → 3; V3 = I3 → V2; I3 → 2; V2 = I2 → V1; I2 → 1.
	if n.Vigor.Current != 1 || n.Instinct.Current != 1 || n.Reason.Current != 1 {
		t.Errorf("fullest-first: %d/%d/%d; want 1/1/1", n.Vigor.Current, n.Instinct.Current, n.Reason.Current)
	}
	want := []PoolChange{{Vigor, 4, 1, "healing"}, {Instinct, 3, 1, "healing"}}
	if len(out.Spent) != 2 || out.Spent[0] != want[0] || out.Spent[1] != want[1] {
		t.Errorf("spent %+v; want %+v", out.Spent, want)
	}
	n, out, err = p.Heal(scripted(0, 0, 0), Healing{Trigger: PoolPoints, Spend: map[string]int{Reason: 1, Instinct: 3, Vigor: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n.Vigor.Current != 3 || n.Instinct.Current != 0 || n.Reason.Current != 0 || len(out.Spent) != 3 {
		t.Errorf("chosen mix: %d/%d/%d, spent %+v; want 3/0/0", n.Vigor.Current, n.Instinct.Current, n.Reason.Current, out.Spent)
	}
}

// TestHealRestNeedsADay: the rest trigger needs a full day (1,440 rounds) on
// the clock since RestFrom, and restarts it (RULES.md §3.3).
func TestHealRestNeedsADay(t *testing.T) {
	p := garrett()
	p.Condition = Bloody
	p.RestFrom = clock.Time(0).Add(2, clock.Hour)
	early := p.RestFrom.Add(23, clock.Hour)
	if _, _, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: DayOfRest, Now: early}); !errors.Is(err, ErrRestTooSoon) {
		t.Errorf("Heal(rest) after 23 hours: err = %v; want ErrRestTooSoon", err)
	}
	now := p.RestFrom.Add(1, clock.Day)
	n, out, err := p.Heal(scripted(1, 0, 0), Healing{Trigger: DayOfRest, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if n.Condition != Healthy || n.RestFrom != now || out.RestFrom != p.RestFrom || out.Check.Check.Ability != Endure {
		t.Errorf("Heal(rest) after a day: %v, RestFrom %v, check %s; want Healthy, %v, endure", n.Condition, n.RestFrom, out.Check.Check.Ability, now)
	}
	n.Condition = Bloody
	if _, _, err := n.Heal(scripted(0, 0, 0), Healing{Trigger: DayOfRest, Now: now}); !errors.Is(err, ErrRestTooSoon) {
		t.Errorf("second Heal(rest) the same day: err = %v; want ErrRestTooSoon", err)
	}
}

// TestHelpIsAnAction: a Bloody helper's First Aid has a penalty die, and a
// Broken helper pays 1 Reason (the reading named on Help); without First
// Aid it is refused.
func TestHelpIsAnAction(t *testing.T) {
	h := garrett()
	h.Condition = Broken
	n, out, err := h.Help(scripted(0, 0, 0, 0), FirstAidHelp, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if out.Check.Roll.Expr.String() != "4dFkl3+1" || n.Reason.Current != 2 {
		t.Errorf("Broken Help rolled %s, Reason %d; want 4dFkl3+1, 2", out.Check.Roll.Expr, n.Reason.Current)
	}
	if _, _, err := New().Help(scripted(0, 0, 0), CounselHelp, 0, ""); !errors.Is(err, ErrNoAbility) {
		t.Errorf("Help(counsel) without Counsel: err = %v; want ErrNoAbility", err)
	}
}

func TestDefaultAbilityAndParseTrigger(t *testing.T) {
	for tr, want := range map[Trigger]string{FirstAidHelp: Endure, CounselHelp: Willpower, DayOfRest: Endure, PoolPoints: Endure} {
		if got := tr.DefaultAbility(); got != want {
			t.Errorf("%v.DefaultAbility() = %s; want %s", tr, got, want)
		}
		if got, err := ParseTrigger(tr.String()); err != nil || got != tr {
			t.Errorf("ParseTrigger(%q) = %v, %v", tr, got, err)
		}
	}
	if _, err := ParseTrigger("magic"); err == nil {
		t.Errorf("ParseTrigger(magic) succeeded")
	}
}

// TestRefreshPoolsAndSpend: a day refills every pool; /spend takes points.
func TestRefreshPoolsAndSpend(t *testing.T) {
	c := garrett()
	c.Vigor.Current, c.Reason.Current = 0, 2
	n, ch := c.RefreshPools()
	if n.Vigor.Current != 3 || n.Reason.Current != 3 || len(ch) != 2 || ch[0] != (PoolChange{Vigor, 0, 3, "day of rest"}) {
		t.Errorf("RefreshPools = %+v, %+v", n, ch)
	}
	n, pc, err := n.Spend(Instinct, 2)
	if err != nil || n.Instinct.Current != 1 || pc != (PoolChange{Instinct, 3, 1, "spent"}) {
		t.Errorf("Spend(instinct, 2) = %d, %+v, %v", n.Instinct.Current, pc, err)
	}
	if _, _, err := n.Spend(Instinct, 2); !errors.Is(err, ErrPoolEmpty) {
		t.Errorf("Spend(instinct, 2) of 1: err = %v; want ErrPoolEmpty", err)
	}
}

// TestReadingDayOfRestRefillsPools is RULES.md §3.3's Reading: a day of
// rest, /rest kind:day or the clock passing a whole day outside a
// conflict, refills every pool to its maximum, and both are the healing
// trigger. Garrett (Vigor 1/3, Instinct 0/3, Reason 3/3, Bloody) was last
// harmed at day 1, 05:00, so his day of rest ends at day 2, 05:00: a move
// of the clock that passes that time refills his pools and allows one rest
// healing; one that stops short does nothing.
func TestReadingDayOfRestRefillsPools(t *testing.T) {
	g := garrett()
	g.Condition, g.Vigor.Current, g.Instinct.Current = Bloody, 1, 0
	g.RestFrom = clock.Time(0).Add(5, clock.Hour)
	at := func(day, hour int64) clock.Time { return clock.Time(0).Add(day-1, clock.Day).Add(hour, clock.Hour) }
	// Day 1, 06:00 → day 2, 04:00: 22 hours, short of day 2, 05:00.
	if n, ch, days := g.PassTime(at(1, 6), at(2, 4)); days != 0 || len(ch) != 0 || n.Vigor.Current != 1 {
		t.Errorf("PassTime(day 1 06:00 → day 2 04:00) = %d days, %+v; want none", days, ch)
	}
	// Day 2, 04:00 → 06:00: two hours, but they pass day 2, 05:00.
	n, ch, days := g.PassTime(at(2, 4), at(2, 6))
	want := []PoolChange{{Vigor, 1, 3, "day of rest"}, {Instinct, 0, 3, "day of rest"}}
	if days != 1 || fmt.Sprint(ch) != fmt.Sprint(want) || n.Vigor.Current != 3 || n.Instinct.Current != 3 || n.Reason.Current != 3 {
		t.Errorf("PassTime(day 2 04:00 → 06:00) = %d days, %+v; want 1 day, %+v", days, ch, want)
	}
	if got := n.RestHealings(at(2, 6)); got != 1 {
		t.Errorf("RestHealings at day 2, 06:00 = %d; want 1 (the same day is the healing trigger)", got)
	}
	// Three days from day 1, 05:00 complete three days of rest.
	if got := g.DaysOfRest(at(1, 5), at(4, 5)); got != 3 {
		t.Errorf("DaysOfRest(day 1 05:00 → day 4 05:00) = %d; want 3", got)
	}
	// After the rest healing (RestFrom a day on, to day 2, 05:00) the next
	// day of rest ends at day 3, 05:00, as the clock's days did before.
	healed, _, err := n.Heal(scripted(0, 0, 0), Healing{Trigger: DayOfRest, Now: at(2, 6)})
	if err != nil || healed.RestFrom != at(2, 5) || healed.DaysOfRest(at(2, 6), at(3, 5)) != 1 || healed.DaysOfRest(at(2, 6), at(3, 4)) != 0 {
		t.Errorf("after the rest healing: RestFrom %v, %v; want day 2, 05:00 and the next day of rest at day 3, 05:00", healed.RestFrom, err)
	}
}

// TestReadingConditionIsOneTrack is RULES.md §3.3's Reading: the condition
// is one track for every kind of harm, so First Aid and Counsel both heal
// it (the GM judges which fits), and a healing check of a Healthy
// character with a counter above 0 lowers the counter by the SL.
func TestReadingConditionIsOneTrack(t *testing.T) {
	// Bloody from mental harm, healed with First Aid SL 1 (one bonus die):
	// Willpower 0, 4dFkh3 [+, +, 0, −] keeps +, +, 0: SL 2 → Healthy.
	p := garrett()
	p.Condition = Bloody
	n, out, err := p.Heal(scripted(1, 1, 0, -1), Healing{Trigger: FirstAidHelp, HelpSL: 1, Ability: Willpower})
	if err != nil || out.Check.SL != 2 || n.Condition != Healthy {
		t.Errorf("First Aid on mental harm: SL %d, %s, %v; want SL 2, Healthy", out.Check.SL, n.Condition, err)
	}
	// Bloody from physical harm, healed with Counsel SL 1: Endure 2,
	// 4dFkh3+2 [0, 0, 0, −] keeps 0, 0, 0: SL 2 → Healthy.
	n, out, err = p.Heal(scripted(0, 0, 0, -1), Healing{Trigger: CounselHelp, HelpSL: 1, Ability: Endure})
	if err != nil || out.Check.SL != 2 || n.Condition != Healthy {
		t.Errorf("Counsel on physical harm: SL %d, %s, %v; want SL 2, Healthy", out.Check.SL, n.Condition, err)
	}
	// Healthy with counter 3: 5 pool points, Endure 2, 3dF [−, 0, 0] + 2 =
	// 1 → SL 1: counter 3 → 2, still Healthy.
	h := garrett()
	h.HarmCounter = 3
	n, out, err = h.Heal(scripted(-1, 0, 0), Healing{Trigger: PoolPoints, Ability: Endure})
	if err != nil || out.Check.SL != 1 || n.Condition != Healthy || n.HarmCounter != 2 {
		t.Errorf("Healthy, counter 3: SL %d, %s, counter %d, %v; want SL 1, Healthy, 2", out.Check.SL, n.Condition, n.HarmCounter, err)
	}
}
