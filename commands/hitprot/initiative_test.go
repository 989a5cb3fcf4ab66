package hitprot_test

import (
	"encoding/json"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// TestInitiativeRoll: 1d6 + init (RULES.md §0.6), init from -20 to 20 on
// the sheet (default 0), and init-dice in place of the 1d6.
func TestInitiativeRoll(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("bob", `/char set name:Lister stats:init=-2`))
	tb.Refused(tb.Do("bob", `/char set name:Lister stats:init=21`), "init=21")
	commandstest.WantIn(t, "sheet", tb.OK(tb.Do("bob", "/char show name:Lister")), "Initiative: 1d6 -2 (init)")
	tb.OK(tb.Do("ann", "/init start"))
	tb.Dice.Push(5, 3)
	out := tb.OK(tb.Do("ann", "/init join target:Lister,Meghan"))
	commandstest.WantIn(t, "join", out, "**Lister** joins the turn order: initiative 1d6-2 [5] - 2 = 3 (init -2).",
		"**Meghan** joins the turn order: initiative 1d6 [3] = 3.")
	// A tie: Meghan's bonus 0 beats Lister's -2.
	commandstest.WantIn(t, "tie", tb.OK(tb.Do("bob", "/init show")), "▫ **Meghan** 3\n▫ **Lister** 3")
	commandstest.WantIn(t, "first turn", tb.OK(tb.Do("ann", "/init next")), "Round 1 of the turn order begins. It is **Meghan**'s turn.")
	tb.OK(tb.Do("ann", "/init end"))
	tb.OK(tb.Do("ann", "/table option name:init-dice value:2d10"))
	tb.OK(tb.Do("ann", "/init start"))
	tb.Dice.Push(7, 8)
	commandstest.WantIn(t, "init-dice", tb.OK(tb.Do("bob", "/init join target:Lister")), "initiative 2d10-2 [7, 8] - 2 = 13 (init -2)")
	tb.NoDiceLeft()
}

// sheetChar is a stored hit-protection character with the sheet given.
func sheetChar(t *testing.T, sheet map[string]any) *storage.Character {
	t.Helper()
	base := map[string]any{"class": "fighter", "level": 1, "hit_die": 6, "hp": 3, "hd": 1}
	for k, v := range sheet {
		base[k] = v
	}
	b, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	return &storage.Character{ID: 1, Name: "Lister", Sheet: b}
}

// TestCanAct: the dead, the down (fate hidden or attended: it stays down
// until its HP are above 0) and the stunned until a later round cannot
// act; a stun that ends this round, staying up, a bleed-out and a
// pending 0-HP choice do not stop a turn (RULES.md §0.6, §1.3–§1.5).
func TestCanAct(t *testing.T) {
	tests := []struct {
		name  string
		sheet map[string]any
		now   int64
		ok    bool
		why   string
	}{
		{"up", nil, 0, true, ""},
		{"dead", map[string]any{"status": "dead", "hp": 0}, 0, false, "dead"},
		{"down, fate hidden", map[string]any{"status": "down", "hp": 0}, 0, false, "down, its fate hidden until attended"},
		{"down, attended", map[string]any{"status": "down", "hp": 0, "fate_revealed": true}, 0, false, "down until its HP are above 0"},
		{"stunned past this round", map[string]any{"stunned_until": 5}, 4, false, "stunned for 1 more round"},
		{"stunned for rounds", map[string]any{"stunned_until": 7}, 4, false, "stunned for 3 more rounds"},
		{"stun ends this round", map[string]any{"stunned_until": 5}, 5, true, ""},
		{"staying up", map[string]any{"status": "staying up", "hp": 0}, 0, true, ""},
		{"bleeding out", map[string]any{"status": "staying up", "hp": 0, "bleeds": []map[string]any{{"wound": "Critical Wound", "dies_at": 3}}}, 1, true, ""},
		{"0-HP choice pending", map[string]any{"status": "0-HP choice pending", "hp": 0}, 0, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why, err := hitprot.System{}.CanAct(sheetChar(t, tt.sheet), tt.now)
			if err != nil || ok != tt.ok || why != tt.why {
				t.Errorf("CanAct(%v, %d) = %v, %q, %v; want %v, %q", tt.sheet, tt.now, ok, why, err, tt.ok, tt.why)
			}
		})
	}
}
