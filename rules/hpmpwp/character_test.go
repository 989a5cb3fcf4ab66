package hpmpwp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestModifier checks ⌊(score − 10)/2⌋ of RULES.md §2, rounding down below
// 10 too.
func TestModifier(t *testing.T) {
	for score, want := range map[int]int{1: -5, 2: -4, 3: -4, 7: -2, 8: -1, 9: -1, 10: 0, 11: 0, 12: 1, 13: 1, 18: 4, 50: 20} {
		if got := Modifier(score); got != want {
			t.Errorf("Modifier(%d) = %d; want %d", score, got, want)
		}
	}
}

// TestManaDie checks every class of RULES.md §2.1 and the default.
func TestManaDie(t *testing.T) {
	tests := map[string]int{
		"sorcerer": 12, "psion": 12, "wilder": 12,
		"cleric": 10, "druid": 10, "wizard": 10,
		"bard": 8, "psychic-warrior": 8, "Psychic Warrior": 8, "psychic_warrior": 8,
		"paladin": 6, "ranger": 6,
		"barbarian": 4, "fighter": 4, "monk": 4, "rogue": 4, "soulknife": 4,
		"artificer": 4, "": 4, "WIZARD": 10,
	}
	for class, want := range tests {
		if got := ManaDie(class); got != want {
			t.Errorf("ManaDie(%q) = %d; want %d", class, got, want)
		}
	}
}

func TestNewDefaults(t *testing.T) {
	c := New(DefaultClass, 1, 12)
	want := Character{Class: "fighter", Level: 1, Str: 10, Dex: 10, Con: 10, Int: 10, Wis: 10, Cha: 10, HPMax: 12, HP: 12, WP: 10}
	if c != want {
		t.Errorf("New(fighter, 1, 12) = %+v; want %+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate(New(...)) = %v; want nil", err)
	}
	if got := c.WPMax(); got != 10 {
		t.Errorf("WPMax() = %d; want the Con score 10", got)
	}
}

// TestRollMPMax checks RULES.md §2.1's MP max with scripted mana dice; the
// roll is the MP max with its parts (MPDice).
func TestRollMPMax(t *testing.T) {
	tests := []struct {
		name  string
		class string
		level int
		wis   int
		faces []int
		want  int
		roll  string
	}{
		{"level 1 is the die's maximum", "wizard", 1, 10, nil, 10, ""},
		{"level 1 adds the Wis modifier", "sorcerer", 1, 14, nil, 14, ""},
		{"level 1 at least 1", "fighter", 1, 1, nil, 1, ""},
		{"each further level rolls", "wizard", 3, 10, []int{3, 7}, 20, "2d10+10 [3, 7] + 10 [d10 max at level 1] = 20"},
		{"each level adds the Wis modifier", "cleric", 3, 16, []int{1, 4}, 13 + 4 + 7, "2d10+19 [1, 4] + 19 [d10 max at level 1, Wis +3 a level] = 24"},
		{"Wis penalty makes a level give 1", "bard", 3, 6, []int{1, 2}, 6 + 1 + 1, "2d8mi3+2 [1→3, 2→3] + 2 [d8 max at level 1, Wis -2 a level] = 8"},
		{"Wis penalty above the floor", "bard", 2, 7, []int{5}, 6 + 3, "1d8mi3+4 [5] + 4 [d8 max at level 1, Wis -2 a level] = 9"},
		{"psychic warrior d8", "psychic-warrior", 2, 10, []int{8}, 16, "1d8+8 [8] + 8 [d8 max at level 1] = 16"},
		{"other class d4", "artificer", 2, 10, []int{2}, 6, "1d4+4 [2] + 4 [d4 max at level 1] = 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := dice.NewScripted(tt.faces...)
			got, res, err := RollMPMax(tt.class, tt.level, tt.wis, src)
			if err != nil {
				t.Fatalf("RollMPMax(%q, %d, %d) error %v", tt.class, tt.level, tt.wis, err)
			}
			if got != tt.want {
				t.Errorf("RollMPMax(%q, %d, %d) with %v = %d; want %d", tt.class, tt.level, tt.wis, tt.faces, got, tt.want)
			}
			if res.String() != tt.roll {
				t.Errorf("RollMPMax(%q, %d, %d) roll = %q; want %q", tt.class, tt.level, tt.wis, res.String(), tt.roll)
			}
			if src.Remaining() != 0 {
				t.Errorf("RollMPMax left %d scripted faces unused", src.Remaining())
			}
			if pure := MPMax(tt.class, tt.wis, tt.faces); pure != tt.want {
				t.Errorf("MPMax(%q, %d, %v) = %d; want %d", tt.class, tt.wis, tt.faces, pure, tt.want)
			}
		})
	}
}

func TestRollMPMaxErrors(t *testing.T) {
	if _, _, err := RollMPMax("wizard", 3, 10, dice.NewScripted(4)); !errors.Is(err, dice.ErrScriptExhausted) {
		t.Errorf("RollMPMax with one face for two levels: error %v; want ErrScriptExhausted", err)
	}
	for _, level := range []int{0, 41} {
		if _, _, err := RollMPMax("wizard", level, 10, dice.NewScripted()); err == nil {
			t.Errorf("RollMPMax at level %d succeeded; want an error", level)
		}
	}
}

func TestMPGain(t *testing.T) {
	if got := MPGain(8, 1, 2, 3); got != 1+1+2 {
		t.Errorf("MPGain(Wis 8, 1, 2, 3) = %d; want 4 (each level at least 1)", got)
	}
	if got := MPGain(12); got != 0 {
		t.Errorf("MPGain(Wis 12) = %d; want 0 for no levels", got)
	}
}

func TestManaDice(t *testing.T) {
	if got := ManaDice("wizard", 4).String(); got != "4d10" {
		t.Errorf("ManaDice(wizard, 4) = %s; want 4d10", got)
	}
	if err := ManaDice("fighter", MaxLevel-1).Validate(); err != nil {
		t.Errorf("ManaDice(fighter, %d) is not valid: %v", MaxLevel-1, err)
	}
}

func TestFeats(t *testing.T) {
	c := New("monk", 2, 10)
	if got := c.Feats(); len(got) != 0 {
		t.Errorf("Feats() of a new character = %v; want none", got)
	}
	c.DieHard, c.Endurance = true, true
	if got := fmt.Sprint(c.Feats()); got != "[endurance die-hard]" {
		t.Errorf("Feats() = %s; want [endurance die-hard]", got)
	}
}

func TestValidate(t *testing.T) {
	ok := New("wizard", 5, 20)
	ok.MPMax, ok.MP, ok.WP, ok.TempWP, ok.Fort, ok.Will = 12, 3, -4, 2, -1, 6
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate(%+v) = %v", ok, err)
	}
	bad := map[string]func(*Character){
		"no class":          func(c *Character) { c.Class = "" },
		"level 0":           func(c *Character) { c.Level = 0 },
		"level 41":          func(c *Character) { c.Level = 41 },
		"Str 0":             func(c *Character) { c.Str = 0 },
		"Cha 51":            func(c *Character) { c.Cha = 51 },
		"HP max 0":          func(c *Character) { c.HPMax, c.HP = 0, 0 },
		"HP over max":       func(c *Character) { c.HP = 21 },
		"HP negative":       func(c *Character) { c.HP = -1 },
		"MP over max":       func(c *Character) { c.MP = 13 },
		"MP max negative":   func(c *Character) { c.MPMax, c.MP = -1, 0 },
		"WP over Con":       func(c *Character) { c.WP = 11 },
		"WP below -100":     func(c *Character) { c.WP = -101 },
		"temp WP negative":  func(c *Character) { c.TempWP = -1 },
		"Fort below -20":    func(c *Character) { c.Fort = -21 },
		"Will above +40":    func(c *Character) { c.Will = 41 },
		"Con lowered below": func(c *Character) { c.Con = 8; c.WP = 9 },
	}
	for name, f := range bad {
		c := ok
		f(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("Validate with %s (%+v) = nil; want an error", name, c)
		}
	}
}
