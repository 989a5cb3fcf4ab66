package harm

import (
	"fmt"
	"testing"
)

// TestNewDefaultsPoolsThreeEachInnateUnskilled pins the defaults chosen where
// RULES.md §3.1 gives none: every pool 3/3, the innate abilities at rank 0,
// Healthy with harm counter 0.
func TestNewDefaultsPoolsThreeEachInnateUnskilled(t *testing.T) {
	c := New()
	for _, name := range Pools {
		if got := *c.PoolNamed(name); got != (Pool{Current: 3, Max: 3}) {
			t.Errorf("New().%s = %+v; want 3/3", name, got)
		}
	}
	want := map[string]Ability{Endure: {0, Vigor}, React: {0, Instinct}, Willpower: {0, Reason}}
	if fmt.Sprint(c.Abilities) != fmt.Sprint(want) {
		t.Errorf("New().Abilities = %v; want %v", c.Abilities, want)
	}
	if c.Condition != Healthy || c.HarmCounter != 0 {
		t.Errorf("New() is %v with counter %d; want Healthy, 0", c.Condition, c.HarmCounter)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate(New()) = %v", err)
	}
}

// TestPoolOf checks RULES.md §3.1's pools.
func TestPoolOf(t *testing.T) {
	tests := []struct {
		ability string
		pool    string
		fixed   bool
	}{
		{Endure, Vigor, true},
		{React, Instinct, true},
		{Willpower, Reason, true},
		{FirstAid, Reason, true},
		{Counsel, Reason, true},
		{"climb", Vigor, false},
	}
	for _, tt := range tests {
		if pool, fixed := PoolOf(tt.ability); pool != tt.pool || fixed != tt.fixed {
			t.Errorf("PoolOf(%q) = %s, %v; want %s, %v", tt.ability, pool, fixed, tt.pool, tt.fixed)
		}
	}
}

// TestRankLabel checks the labels of RULES.md §3.1; it names ranks 0–4 only,
// so 5 and 6 (allowed) show as "rank 5" and "rank 6", not a made-up name.
func TestRankLabel(t *testing.T) {
	want := []string{"Unskilled", "Apprentice", "Journeyman", "Master", "Grand Master", "rank 5", "rank 6"}
	for rank, w := range want {
		if got := RankLabel(rank); got != w {
			t.Errorf("RankLabel(%d) = %q; want %q", rank, got, w)
		}
	}
	if got := RankLabel(7); got != "rank 7" {
		t.Errorf("RankLabel(7) = %q; want \"rank 7\"", got)
	}
}

func TestCondition(t *testing.T) {
	for _, c := range []Condition{Healthy, Bloody, Broken} {
		got, err := ParseCondition(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCondition(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
	if got, err := ParseCondition("bloody"); err != nil || got != Bloody {
		t.Errorf("ParseCondition(bloody) = %v, %v; want Bloody", got, err)
	}
	if _, err := ParseCondition("dead"); err == nil {
		t.Errorf("ParseCondition(dead) succeeded; want an error")
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"climb": true, "first-aid": true, "lore-2": true, "a": true,
		"": false, "Climb": false, "2climb": false, "climb-": false, "a--b": false,
		"sword_play": false, "vigor": false, "reason": false, "ölkunde": false,
		"abcdefghijklmnopqrstuvwx": true, "abcdefghijklmnopqrstuvwxy": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v; want %v", name, got, want)
		}
	}
}

func TestAbilityNamesOrder(t *testing.T) {
	c := New()
	c.Abilities["swim"] = Ability{1, Vigor}
	c.Abilities[Counsel] = Ability{2, Reason}
	c.Abilities["climb"] = Ability{1, Instinct}
	c.Abilities[FirstAid] = Ability{1, Reason}
	got := fmt.Sprint(c.AbilityNames())
	if want := "[endure react willpower first-aid counsel climb swim]"; got != want {
		t.Errorf("AbilityNames() = %s; want %s", got, want)
	}
}

func TestCloneSharesNoMap(t *testing.T) {
	c := New()
	d := c.Clone()
	d.Abilities[Endure] = Ability{4, Vigor}
	if c.Abilities[Endure].Rank != 0 {
		t.Errorf("changing a clone's Endure changed the original to %d", c.Abilities[Endure].Rank)
	}
}

func TestValidate(t *testing.T) {
	bad := map[string]func(*Character){
		"no endure":          func(c *Character) { delete(c.Abilities, Endure) },
		"rank 7":             func(c *Character) { c.Abilities[React] = Ability{7, Instinct} },
		"rank -1":            func(c *Character) { c.Abilities["climb"] = Ability{-1, Vigor} },
		"unknown pool":       func(c *Character) { c.Abilities["climb"] = Ability{1, "luck"} },
		"endure on reason":   func(c *Character) { c.Abilities[Endure] = Ability{1, Reason} },
		"first aid on vigor": func(c *Character) { c.Abilities[FirstAid] = Ability{1, Vigor} },
		"bad name":           func(c *Character) { c.Abilities["Climb"] = Ability{1, Vigor} },
		"pool max 21":        func(c *Character) { c.Vigor = Pool{3, 21} },
		"pool over max":      func(c *Character) { c.Reason = Pool{4, 3} },
		"pool negative":      func(c *Character) { c.Instinct = Pool{-1, 3} },
		"condition 3":        func(c *Character) { c.Condition = 3 },
		"counter negative":   func(c *Character) { c.HarmCounter = -1 },
		"too many abilities": func(c *Character) {
			for i := 0; len(c.Abilities) <= MaxAbilities; i++ {
				c.Abilities[fmt.Sprintf("skill-%d", i)] = Ability{1, Vigor}
			}
		},
	}
	for name, f := range bad {
		c := New()
		f(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("Validate with %s = nil; want an error", name)
		}
	}
	ok := New()
	ok.Abilities["climb"] = Ability{6, Instinct}
	ok.Vigor, ok.Condition, ok.HarmCounter = Pool{0, 20}, Broken, 4
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(%+v) = %v; want nil", ok, err)
	}
}
