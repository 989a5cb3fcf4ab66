package hitprot

import "testing"

func TestDefaultHitDie(t *testing.T) {
	for class, want := range map[string]int{Fighter: 8, Cleric: 6, MagicUser: 4, Thief: 4, "ranger": 6} {
		if got := DefaultHitDie(class); got != want {
			t.Errorf("DefaultHitDie(%q) = %d; want %d", class, got, want)
		}
	}
}

// TestDefaultSaves checks every row of RULES.md §1.2 at both ends of its
// level range.
func TestDefaultSaves(t *testing.T) {
	tests := []struct {
		class  string
		levels []int
		want   [5]int
	}{
		{Fighter, []int{1, 3}, [5]int{12, 13, 14, 15, 16}},
		{Fighter, []int{4, 6}, [5]int{10, 11, 12, 13, 14}},
		{Fighter, []int{7, 9}, [5]int{8, 9, 10, 10, 12}},
		{Fighter, []int{10, 20}, [5]int{6, 7, 8, 8, 10}},
		{"bard", []int{1, 3}, [5]int{12, 13, 14, 15, 16}},
		{"bard", []int{10}, [5]int{6, 7, 8, 8, 10}},
		{Cleric, []int{1, 4}, [5]int{11, 12, 14, 16, 15}},
		{Cleric, []int{5, 8}, [5]int{9, 10, 12, 14, 12}},
		{Cleric, []int{9, 20}, [5]int{6, 7, 9, 11, 9}},
		{MagicUser, []int{1, 5}, [5]int{13, 14, 13, 16, 15}},
		{MagicUser, []int{6, 10}, [5]int{11, 12, 11, 14, 12}},
		{MagicUser, []int{11, 20}, [5]int{8, 9, 8, 11, 8}},
		{Thief, []int{1, 4}, [5]int{13, 14, 13, 16, 15}},
		{Thief, []int{5, 8}, [5]int{12, 13, 11, 14, 13}},
		{Thief, []int{9, 20}, [5]int{10, 11, 9, 12, 10}},
	}
	for _, tt := range tests {
		for _, level := range tt.levels {
			got := DefaultSaves(tt.class, level)
			for i, cat := range SaveCategories {
				if got[cat] != tt.want[i] {
					t.Errorf("DefaultSaves(%q, %d)[%s] = %d; want %d", tt.class, level, cat, got[cat], tt.want[i])
				}
			}
		}
	}
}

func TestSaveTargetOverride(t *testing.T) {
	c := New(Fighter, 1)
	c.Saves = map[string]int{SaveDeath: 9}
	if got, _ := c.SaveTarget(SaveDeath); got != 9 {
		t.Errorf("SaveTarget(death) with override 9 = %d; want 9", got)
	}
	if got, _ := c.SaveTarget(SaveWands); got != 13 {
		t.Errorf("SaveTarget(wands) = %d; want the default 13", got)
	}
	if _, err := c.SaveTarget("fort"); err == nil {
		t.Errorf("SaveTarget(fort) succeeded; want an error")
	}
}

func TestValidate(t *testing.T) {
	ok := Character{Class: Fighter, Level: 2, HitDie: 6, HP: 6, HD: 2}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate(%+v) = %v", ok, err)
	}
	bad := []Character{
		{Class: Fighter, Level: 0, HitDie: 6},
		{Class: Fighter, Level: 21, HitDie: 6},
		{Class: Fighter, Level: 1, HitDie: 7},
		{Class: Fighter, Level: 1, HitDie: 6, HP: 7},
		{Class: Fighter, Level: 1, HitDie: 6, HP: -1},
		{Class: Fighter, Level: 1, HitDie: 6, HD: 2},
		{Class: Fighter, Level: 1, HitDie: 6, Saves: map[string]int{SaveDeath: 21}},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil; want an error", c)
		}
	}
}
