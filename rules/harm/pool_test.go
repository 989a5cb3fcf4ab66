package harm

import (
	"errors"
	"reflect"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestHarmCheckPoolPoint: a harm check is a check, so a point of the pool of
// the ability checked buys one bonus die (RULES.md §3.1): Endure draws on
// Vigor. With no point left, or a point of another pool, the harm is refused
// and nothing changes; it is not an action, so a Bloody character pays only
// the bonus die's point.
func TestHarmCheckPoolPoint(t *testing.T) {
	c := garrett() // Endure 2, Vigor 3/3
	n, out, err := c.TakeHarm(scripted(-1, 1, 0, 1), Harm{SL: 3, Kind: Physical, Pool: Vigor})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Check.Roll.String(); got != "4dFkh3+2 [~~−~~, +, 0, +] + 2 = 4" {
		t.Errorf("harm check with a Vigor point rolled %s; want 4dFkh3+2 [~~−~~, +, 0, +] + 2 = 4", got)
	}
	if n.Vigor.Current != 2 || c.Vigor.Current != 3 || !reflect.DeepEqual(out.Spent, []PoolChange{{Vigor, 3, 2, "bonus die"}}) {
		t.Errorf("Vigor %d (was %d), spent %+v; want 3 → 2 for the bonus die", n.Vigor.Current, c.Vigor.Current, out.Spent)
	}
	if n.Condition != Healthy || n.HarmCounter != 3 {
		t.Errorf("after 3 harm with 4 ≥ 3: %v counter %d; want Healthy 3", n.Condition, n.HarmCounter)
	}

	// Bloody: no penalty die on Endure, and no Broken action cost.
	b := garrett()
	b.Condition = Bloody
	n, out, err = b.TakeHarm(scripted(0, 0, 0, 0), Harm{SL: 1, Kind: Social, Pool: Instinct})
	if err != nil {
		t.Fatal(err)
	}
	if out.Check.Roll.Expr.String() != "4dFkh3+1" || n.Instinct.Current != 2 || len(out.Spent) != 1 {
		t.Errorf("Bloody React check with an Instinct point: %s, Instinct %d, spent %+v; want 4dFkh3+1, 2, one point", out.Check.Roll.Expr, n.Instinct.Current, out.Spent)
	}

	// No point left: refused, no die rolled, nothing changed.
	e := garrett()
	e.Vigor.Current = 0
	src := dice.NewScripted(0, 0, 0, 0)
	n, _, err = e.TakeHarm(src, Harm{SL: 2, Kind: Physical, Pool: Vigor})
	if !errors.Is(err, ErrPoolEmpty) || src.Remaining() != 4 || !reflect.DeepEqual(n, e) {
		t.Errorf("harm check with Vigor 0: err %v, %d faces left, %+v; want ErrPoolEmpty, 4, unchanged", err, src.Remaining(), n)
	}
	// The wrong pool: Willpower (mental harm) draws on Reason.
	if _, _, err := c.TakeHarm(scripted(0, 0, 0, 0), Harm{SL: 1, Kind: Mental, Pool: Vigor}); !errors.Is(err, ErrWrongPool) {
		t.Errorf("mental harm with a Vigor point: err %v; want ErrWrongPool", err)
	}
	// Broken: taken out with no check, so no point is spent.
	k := garrett()
	k.Condition = Broken
	n, out, err = k.TakeHarm(scripted(), Harm{SL: 1, Pool: Vigor})
	if err != nil || !out.TakenOut || n.Vigor.Current != 3 || len(out.Spent) != 0 {
		t.Errorf("Broken harm with a Vigor point: %v, taken out %v, Vigor %d, spent %+v; want taken out, nothing spent", err, out.TakenOut, n.Vigor.Current, out.Spent)
	}
}

// TestHealCheckPoolPoint: a healing check is a check, so a point of the pool
// of its (innate) ability buys one bonus die, on top of the First Aid or
// Counsel dice (RULES.md §3.1, §3.3).
func TestHealCheckPoolPoint(t *testing.T) {
	p := garrett()
	p.Condition, p.HarmCounter = Bloody, 3
	n, out, err := p.Heal(scripted(1, -1, 1, 0, 1), Healing{Trigger: FirstAidHelp, HelpSL: 1, Ability: Endure, Pool: Vigor})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Check.Roll.String(); got != "5dFkh3+2 [+, ~~−~~, +, ~~0~~, +] + 2 = 5" {
		t.Errorf("healing check rolled %s; want 5dFkh3+2 [+, ~~−~~, +, ~~0~~, +] + 2 = 5", got)
	}
	if n.Condition != Healthy || n.Vigor.Current != 2 || !reflect.DeepEqual(out.Spent, []PoolChange{{Vigor, 3, 2, "bonus die"}}) {
		t.Errorf("healed to %v, Vigor %d, spent %+v; want Healthy, Vigor 3 → 2 (bonus die)", n.Condition, n.Vigor.Current, out.Spent)
	}
	// The wrong pool for the ability, and an empty pool: refused, unchanged.
	if _, _, err := p.Heal(scripted(0, 0, 0, 0), Healing{Trigger: PoolPoints, Ability: React, Pool: Vigor}); !errors.Is(err, ErrWrongPool) {
		t.Errorf("React healing with a Vigor point: err %v; want ErrWrongPool", err)
	}
	e := p.Clone()
	e.Reason.Current = 0
	if n, _, err := e.Heal(scripted(0, 0, 0, 0), Healing{Trigger: CounselHelp, HelpSL: 1, Pool: Reason}); !errors.Is(err, ErrPoolEmpty) || !reflect.DeepEqual(n, e) {
		t.Errorf("Willpower healing with Reason 0: err %v; want ErrPoolEmpty, unchanged", err)
	}
	// With the pools trigger the bonus die's point comes first, then the 5
	// from the fullest pools: Vigor 1, Instinct 3, Reason 2 pays all 6.
	q := p.Clone()
	q.Vigor.Current, q.Instinct.Current, q.Reason.Current = 1, 3, 2
	n, out, err = q.Heal(scripted(0, 0, 0, 0), Healing{Trigger: PoolPoints, Pool: Vigor})
	if err != nil {
		t.Fatal(err)
	}
	want := []PoolChange{{Vigor, 1, 0, "bonus die"}, {Instinct, 3, 0, "healing"}, {Reason, 2, 0, "healing"}}
	if !reflect.DeepEqual(out.Spent, want) || n.Vigor.Current+n.Instinct.Current+n.Reason.Current != 0 {
		t.Errorf("pools trigger with a Vigor point: spent %+v; want %+v", out.Spent, want)
	}
}

// TestHelpPoolPoint: the healer's First Aid or Counsel check is a check: a
// Reason point buys a bonus die; another pool or none left is refused.
func TestHelpPoolPoint(t *testing.T) {
	h := garrett() // First Aid 1, Reason 3/3
	n, out, err := h.Help(scripted(1, -1, 0, 1), FirstAidHelp, 0, Reason)
	if err != nil {
		t.Fatal(err)
	}
	if out.Check.Roll.String() != "4dFkh3+1 [+, ~~−~~, 0, +] + 1 = 3" || out.Check.SL != 3 || n.Reason.Current != 2 {
		t.Errorf("Help with a Reason point: %s SL %d, Reason %d; want 4dFkh3+1 … = 3, SL 3, Reason 2", out.Check.Roll, out.Check.SL, n.Reason.Current)
	}
	if _, _, err := h.Help(scripted(0, 0, 0, 0), FirstAidHelp, 0, Vigor); !errors.Is(err, ErrWrongPool) {
		t.Errorf("Help with a Vigor point: err %v; want ErrWrongPool", err)
	}
	h.Reason.Current = 0
	if _, _, err := h.Help(scripted(0, 0, 0, 0), FirstAidHelp, 0, Reason); !errors.Is(err, ErrPoolEmpty) {
		t.Errorf("Help with Reason 0: err %v; want ErrPoolEmpty", err)
	}
}

// TestHealRestEachDayIsATrigger: every day on the clock since RestFrom is a
// day of rest, so three days allow three rest healings and a fourth is
// refused (RULES.md §3.3); each uses up the earliest day left.
func TestHealRestEachDayIsATrigger(t *testing.T) {
	p := garrett()
	p.Condition, p.HarmCounter = Bloody, 20
	now := clock.Time(0).Add(3, clock.Day)
	if got := p.RestHealings(now); got != 3 {
		t.Errorf("RestHealings after 3 days = %d; want 3", got)
	}
	for day := int64(1); day <= 3; day++ {
		n, out, err := p.Heal(scripted(-1, -1, -1), Healing{Trigger: DayOfRest, Now: now}) // SL 0
		if err != nil {
			t.Fatalf("rest healing %d of 3: %v", day, err)
		}
		if want := clock.Time(0).Add(day, clock.Day); n.RestFrom != want || out.RestFrom != p.RestFrom {
			t.Errorf("rest healing %d: RestFrom %v → %v; want %v → %v", day, out.RestFrom, n.RestFrom, p.RestFrom, want)
		}
		p = n
	}
	if got := p.RestHealings(now); got != 0 {
		t.Errorf("RestHealings after 3 used = %d; want 0", got)
	}
	if _, _, err := p.Heal(scripted(0, 0, 0), Healing{Trigger: DayOfRest, Now: now}); !errors.Is(err, ErrRestTooSoon) {
		t.Errorf("a fourth rest healing: err %v; want ErrRestTooSoon", err)
	}
}

// TestRestDayAlone: a day of rest the character takes while the table's
// clock stands (/rest kind:day target:…) refills its pools and counts as a
// day of rest for it alone; harm afterwards restarts the day of rest.
func TestRestDayAlone(t *testing.T) {
	p := garrett()
	p.Condition, p.Vigor.Current = Bloody, 0
	p.RestFrom = clock.Time(0).Add(5, clock.Hour)
	now := p.RestFrom
	n, changes := p.RestDay()
	if n.Vigor.Current != 3 || !reflect.DeepEqual(changes, []PoolChange{{Vigor, 0, 3, "day of rest"}}) || n.RestDays != 1 || p.RestDays != 0 {
		t.Errorf("RestDay: Vigor %d, changes %+v, RestDays %d; want 3, Vigor 0 → 3, 1", n.Vigor.Current, changes, n.RestDays)
	}
	if got := n.RestHealings(now); got != 1 {
		t.Errorf("RestHealings after RestDay = %d; want 1", got)
	}
	h, out, err := n.Heal(scripted(1, 0, 0), Healing{Trigger: DayOfRest, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if h.Condition != Healthy || h.RestDays != 0 || h.RestFrom != p.RestFrom || !out.RestAlone {
		t.Errorf("rest healing on a day alone: %v, RestDays %d, RestFrom %v, alone %v; want Healthy, 0, unchanged, true", h.Condition, h.RestDays, h.RestFrom, out.RestAlone)
	}
	h.Condition = Bloody
	if _, _, err := h.Heal(scripted(0, 0, 0), Healing{Trigger: DayOfRest, Now: now}); !errors.Is(err, ErrRestTooSoon) {
		t.Errorf("second rest healing: err %v; want ErrRestTooSoon", err)
	}
	// Harm restarts the day of rest: a day taken before it no longer counts.
	n, _ = p.RestDay()
	n, _, err = n.TakeHarm(scripted(1, 1, 1), Harm{SL: 1, At: now})
	if err != nil || n.RestDays != 0 || n.RestHealings(now) != 0 {
		t.Errorf("harm after RestDay: RestDays %d, err %v; want 0", n.RestDays, err)
	}
}
