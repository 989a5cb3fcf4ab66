package spelling

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"thief", "thief", 0},
		{"theif", "thief", 1},   // a swap
		{"enduer", "endure", 1}, // a swap
		{"endur", "endure", 1},  // a deletion
		{"Endure", "endure", 0}, // case
		{"fightr", "fighter", 1},
		{"wizzard", "wizard", 1},
		{"cleirc", "cleric", 1},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"kitten", "sitting", 3},
		{"ünd", "und", 1},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	classes := []string{"fighter", "cleric", "magic-user", "thief"}
	tests := []struct {
		word  string
		known []string
		want  string
	}{
		{"theif", classes, "thief"},
		{"fightr", classes, "fighter"},
		{"magic-usr", classes, "magic-user"},
		{"thief", classes, ""},   // a known word
		{"THIEF", classes, ""},   // a known word, another case
		{"paladin", classes, ""}, // a class of its own
		{"bard", classes, ""},    // far from all
		{"mage", []string{"sage"}, "sage"},
		{"mages", []string{"sage"}, ""}, // two edits from a short word
		{"enduer", []string{"endure", "react", "willpower"}, "endure"},
		{"willpwer", []string{"endure", "react", "willpower"}, "willpower"},
		{"climb", []string{"endure", "react", "willpower"}, ""},
		{"hpmax", []string{"hp", "hp-max", "mp-max"}, "hp-max"},
		{"bx", []string{"ax"}, ""},         // too short to tell
		{"dx", []string{"dex", "con"}, ""}, // too short to tell
	}
	for _, tt := range tests {
		if got := Closest(tt.word, tt.known); got != tt.want {
			t.Errorf("Closest(%q, %v) = %q; want %q", tt.word, tt.known, got, tt.want)
		}
	}
}

func TestMarked(t *testing.T) {
	if w, ok := Marked("+enduer"); w != "enduer" || !ok {
		t.Errorf("Marked(+enduer) = %q, %v; want enduer, true", w, ok)
	}
	if w, ok := Marked("endure"); w != "endure" || ok {
		t.Errorf("Marked(endure) = %q, %v; want endure, false", w, ok)
	}
}
