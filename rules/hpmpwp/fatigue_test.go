package hpmpwp

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestFatigueCauses checks each cause of RULES.md §2.3 alone.
func TestFatigueCauses(t *testing.T) {
	base := fighter(20, 10) // MP 4/4
	tests := []struct {
		name      string
		f         func(*Character)
		cond      string
		causeText string
	}{
		{"none", func(c *Character) {}, "", ""},
		{"HP at 50%", func(c *Character) { c.HP = 10 }, "fatigued", "HP 10 ≤ 50% of 20"},
		{"HP above 50%", func(c *Character) { c.HP = 11 }, "", ""},
		{"HP 0", func(c *Character) { c.HP = 0 }, "exhausted", "HP 0"},
		{"MP at 50%", func(c *Character) { c.MP = 2 }, "fatigued", "MP 2 ≤ 50% of 4"},
		{"MP 0", func(c *Character) { c.MP = 0 }, "exhausted", "MP 0"},
		{"MP max 0 is no cause", func(c *Character) { c.MPMax, c.MP = 0, 0 }, "", ""},
		{"WP damage", func(c *Character) { c.WP = 9 }, "fatigued", "WP 9 < 10"},
		{"WP 0", func(c *Character) { c.WP = 0 }, "exhausted", "WP 0 ≤ 0"},
		{"WP negative", func(c *Character) { c.WP, c.State = -2, Disabled }, "exhausted", "WP -2 ≤ 0"},
		{"temporary WP lost is no cause", func(c *Character) { c.TempWP = 0 }, "", ""},
		{"one exertion failure", func(c *Character) { c.ExertionSaves, c.ExertionFailures = 1, 1 }, "fatigued", "1 exertion failure"},
		{"two exertion failures", func(c *Character) { c.ExertionSaves, c.ExertionFailures = 2, 2 }, "fatigued", "2 exertion failures"},
		{"three exertion failures", func(c *Character) { c.ExertionSaves, c.ExertionFailures = 3, 3 }, "exhausted", "3 exertion failures"},
		{"GM fatigued", func(c *Character) { c.Effect = EffectFatigued }, "fatigued", "a spell or effect the GM set"},
		{"GM exhausted", func(c *Character) { c.Effect = EffectExhausted }, "exhausted", "a spell or effect the GM set"},
	}
	for _, tt := range tests {
		c := base
		tt.f(&c)
		if got := c.Condition(); got != tt.cond {
			t.Errorf("%s: Condition() = %q; want %q", tt.name, got, tt.cond)
		}
		if tt.cond != "" && !strings.Contains(c.FatigueSummary(), tt.causeText) {
			t.Errorf("%s: FatigueSummary() = %q; want cause %q", tt.name, c.FatigueSummary(), tt.causeText)
		}
		if got := c.FatigueSummary(); nestedParens.MatchString(got) {
			t.Errorf("%s: FatigueSummary() = %q has parentheses inside parentheses", tt.name, got)
		}
		if tt.cond != "" && c.Exhausted() != (tt.cond == "exhausted") {
			t.Errorf("%s: Exhausted() = %v", tt.name, c.Exhausted())
		}
	}
}

// nestedParens matches parentheses inside parentheses, which issue 24
// found hard to read: "exhausted (WP -1 ≤ 0 (exhausting))".
var nestedParens = regexp.MustCompile(`\([^()]*\(`)

// TestFatigueSummaryFlat: every cause at once reads without parentheses
// inside parentheses, the exhausting ones marked.
func TestFatigueSummaryFlat(t *testing.T) {
	c := fighter(20, 10)
	c.HP, c.MP, c.WP, c.ExertionSaves, c.ExertionFailures, c.Effect = 10, 0, 9, 1, 1, EffectFatigued
	got := c.FatigueSummary()
	want := "exhausted (HP 10 ≤ 50% of 20; MP 0, exhausting; WP 9 < 10 from wound damage; 1 exertion failure; a spell or effect the GM set): "
	if !strings.HasPrefix(got, want) || nestedParens.MatchString(got) {
		t.Errorf("FatigueSummary() = %q; want it to start %q, flat", got, want)
	}
}

// TestFiftyPercentBoundary: 2 × HP ≤ max on odd and even maxima.
func TestFiftyPercentBoundary(t *testing.T) {
	for _, tt := range []struct {
		max, hp int
		want    bool
	}{
		{20, 10, true}, {20, 11, false}, {15, 7, true}, {15, 8, false}, {1, 1, false}, {3, 1, true}, {3, 2, false},
	} {
		c := fighter(tt.max, 10)
		c.HP = tt.hp
		if got := c.Fatigued(); got != tt.want {
			t.Errorf("HP %d/%d: Fatigued() = %v; want %v", tt.hp, tt.max, got, tt.want)
		}
		c = fighter(10, 10)
		c.MPMax, c.MP = tt.max, tt.hp
		if got := c.Fatigued(); got != tt.want {
			t.Errorf("MP %d/%d: Fatigued() = %v; want %v", tt.hp, tt.max, got, tt.want)
		}
	}
}

// TestReadingFatigueTestsUseUnpenalizedMaxima is RULES.md §2.3's Reading: the
// 50% test uses the HP max without fatigue's own penalty. Level 4, HP max
// 20, Con 10: fatigued, Con 8 lowers HP max by 4 to 16; HP 10 is 50% of 20
// (fatigued) though above 50% of 16, so fatigue holds steady, and HP 11 is
// not fatigued at all.
func TestReadingFatigueTestsUseUnpenalizedMaxima(t *testing.T) {
	c := fighter(20, 10)
	c.Level, c.HP = 4, 10
	if !c.Fatigued() || c.EffectiveHPMax() != 16 {
		t.Errorf("HP 10/20 level 4: fatigued %v, HP max %d; want true, 16", c.Fatigued(), c.EffectiveHPMax())
	}
	c.HP = 11
	if c.Fatigued() || c.EffectiveHPMax() != 20 {
		t.Errorf("HP 11/20: fatigued %v, HP max %d; want false, 20", c.Fatigued(), c.EffectiveHPMax())
	}
}

// TestPenaltyLowersMaxima: the Con and Wis penalties lower HP max and MP max
// by level × the change of modifier; current HP and MP are capped and not
// raised again (RULES.md §2.3).
func TestPenaltyLowersMaxima(t *testing.T) {
	c := fighter(30, 11) // Con 11: −2 → 9, modifier 0 → −1
	c.Level, c.Wis, c.MPMax, c.MP = 3, 13, 20, 20
	c.ExertionSaves, c.ExertionFailures = 1, 1 // Wis 13 → 11: +1 → 0
	if c.EffectiveHPMax() != 27 || c.EffectiveMPMax() != 17 {
		t.Errorf("HP max %d, MP max %d; want 27, 17", c.EffectiveHPMax(), c.EffectiveMPMax())
	}
	c = c.Settle()
	if c.HP != 27 || c.MP != 17 {
		t.Errorf("settled HP %d, MP %d; want capped at 27, 17", c.HP, c.MP)
	}
	c.ExertionSaves, c.ExertionFailures = 0, 0
	c = c.Settle()
	if c.HP != 27 || c.MP != 17 || c.EffectiveHPMax() != 30 {
		t.Errorf("after the penalty ends: HP %d, MP %d, max %d; want 27, 17, 30 (not raised again)", c.HP, c.MP, c.EffectiveHPMax())
	}
	// Even Con 10 → 8 changes the modifier by 1 as well; three failures
	// (−6): Con 4, modifier −3.
	c = fighter(30, 10)
	c.Level, c.ExertionSaves, c.ExertionFailures = 2, 3, 3
	if got := c.EffectiveHPMax(); got != 24 {
		t.Errorf("Con 10 −6 at level 2: HP max %d; want 24", got)
	}
	if !strings.Contains(c.FatigueSummary(), "HP max 30 → 24") || !strings.Contains(c.FatigueSummary(), "exhausted") {
		t.Errorf("FatigueSummary() = %q", c.FatigueSummary())
	}
}

// TestFatigueFromOtherCausesAddsNoSecondPenalty: an exertion failure and low
// HP together are −2, not −4 (RULES.md §2.6).
func TestFatigueFromOtherCausesAddsNoSecondPenalty(t *testing.T) {
	c := fighter(20, 10)
	c.HP, c.ExertionSaves, c.ExertionFailures = 5, 1, 1
	if c.Penalty() != 2 {
		t.Errorf("Penalty() = %d; want 2", c.Penalty())
	}
}

// TestReadingFatigueFloorExample is RULES.md §2.3's example of the fatigue floor:
// a fighter 5 with MP max 8 and Wis 10, fatigued by half its HP: Wis 8
// lowers MP max by 5 to 3, raised to the floor ⌊8/2⌋ + 1 = 5, so MP 8 → 5,
// which is above 50% of 8. Healed, it is no longer fatigued, and the next
// hour regenerates its HP and MP to the full maxima. Without the floor it was capped at MP 3 and stayed
// "fatigued (MP 3 ≤ 50% of 8)" for good.
func TestReadingFatigueFloorExample(t *testing.T) {
	c := New(DefaultClass, 5, 40)
	c.MPMax, c.MP = 8, 8
	c, out, err := c.TakeDamage(dice.NewScripted(), Hit{Amount: 20}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.HP != 20 || c.EffectiveMPMax() != 5 || c.MP != 5 || !out.CappedMP {
		t.Fatalf("20 damage: HP %d, MP %d/%d (capped %v); want HP 20, MP 5 at the floor 5", c.HP, c.MP, c.EffectiveMPMax(), out.CappedMP)
	}
	if got := c.FatigueSummary(); !strings.Contains(got, "fatigued (HP 20 ≤ 50% of 40)") || strings.Contains(got, "MP 5 ≤") || !strings.Contains(got, "MP max 8 → 5") {
		t.Errorf("FatigueSummary() = %q; want fatigue from HP alone and MP max 8 → 5", got)
	}
	c, out, err = c.Heal(PoolHP, 20)
	if err != nil {
		t.Fatal(err)
	}
	// Healing is capped at the HP max lowered while fatigued (Con 8: 40 −
	// 5 = 35); at HP 35 the fatigue ends.
	if c.Fatigued() || c.HP != 35 || !slices.Contains(out.Lines, "no longer fatigued") {
		t.Fatalf("healed: %q, HP %d, lines %q; want no longer fatigued, HP 35", c.Condition(), c.HP, out.Lines)
	}
	// The line names the cap the healing met, not the maximum once fatigue
	// ended ("max 40" under HP 35 read as a wrong cap).
	if !slices.Contains(out.Lines, "heals 15 HP (max 35 while fatigued)") {
		t.Errorf("healed: lines %q; want heals 15 HP (max 35 while fatigued)", out.Lines)
	}
	c, _, err = c.PassHour(dice.NewScripted(), 60)
	if err != nil {
		t.Fatal(err)
	}
	if c.HP != 40 || c.MP != 8 {
		t.Errorf("an hour later: HP %d, MP %d; want 40 and 8 (+5 each, up to the maxima)", c.HP, c.MP)
	}
}

// TestReadingFatigueFloor is RULES.md §2.3's Reading on the floor: the
// lowest maximum fatigue leaves is ⌊max / 2⌋ + 1, for small, odd and even
// maxima (the Example is TestReadingFatigueFloorExample).
func TestReadingFatigueFloor(t *testing.T) {
	for max, want := range map[int]int{0: 0, 1: 1, 2: 2, 3: 2, 4: 3, 8: 5, 9: 5, 40: 21} {
		if got := FatigueFloor(max); got != want {
			t.Errorf("FatigueFloor(%d) = %d; want %d", max, got, want)
		}
	}
	// A level-20 character with HP max 30 and three exertion failures (−6:
	// Con 10 → 4, modifier −3) would drop to 30 − 60; the floor keeps 16.
	c := fighter(30, 10)
	c.Level, c.ExertionSaves, c.ExertionFailures = 20, 3, 3
	if got := c.EffectiveHPMax(); got != 16 {
		t.Errorf("EffectiveHPMax() = %d; want the floor 16", got)
	}
}
