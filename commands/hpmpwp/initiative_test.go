package hpmpwp_test

import (
	"encoding/json"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// TestInitiativeRoll: d20 + Dex modifier + init (RULES.md §0.6), the Dex
// modifier of the current Dex score, fatigue's −2 included (§2.3), and
// init-dice in place of the d20.
func TestInitiativeRoll(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 dex=14 init=1"`))
	commandstest.WantIn(t, "sheet", tb.OK(tb.Do("ann", "/char show name:Vala")), "Initiative: d20 +3 (Dex +2, init +1)")
	tb.OK(tb.Do("ann", "/init start"))
	tb.Dice.Push(11)
	commandstest.WantIn(t, "fresh", tb.OK(tb.Do("ann", "/init join target:Vala")), "initiative 1d20+3 [11] + 3 = 14 (Dex +2, init +1).")
	// Fatigued (HP at half): Dex 14 − 2 = 12, modifier +1.
	tb.OK(tb.Do("ann", "/char set name:Vala stats:hp=10"))
	tb.OK(tb.Do("ann", "/init remove target:Vala"))
	tb.Dice.Push(11)
	commandstest.WantIn(t, "fatigued", tb.OK(tb.Do("ann", "/init join target:Vala")), "initiative 1d20+2 [11] + 2 = 13 (Dex +1 at Dex 12, fatigued, init +1).")
	tb.OK(tb.Do("ann", "/init end"))
	tb.OK(tb.Do("ann", "/table option name:init-dice value:1d12"))
	tb.OK(tb.Do("ann", "/init start"))
	tb.Dice.Push(12)
	commandstest.WantIn(t, "init-dice", tb.OK(tb.Do("ann", "/init join target:Vala")), "initiative 1d12+2 [12] + 2 = 14")
	tb.NoDiceLeft()
}

// TestCanAct: the dead, the dying and the stable (unconscious) cannot
// act, nor a sleeper (the reading on CanAct); the disabled are conscious
// and act (RULES.md §0.6, §2.4), and so does one whose Die Hard choice is
// pending (the rules hold it stable until it chooses, a state it may
// never reach: its turn is not skipped for it).
func TestCanAct(t *testing.T) {
	tests := []struct {
		name  string
		sheet map[string]any
		ok    bool
		why   string
	}{
		{"fine", nil, true, ""},
		{"disabled", map[string]any{"wp": -1, "state": "disabled"}, true, ""},
		{"dying", map[string]any{"wp": -3, "state": "dying"}, false, "dying, unconscious"},
		{"stable", map[string]any{"wp": -3, "state": "stable"}, false, "stable, unconscious"},
		{"dead", map[string]any{"wp": -30, "state": "dead"}, false, "dead"},
		{"asleep", map[string]any{"activity": "sleep"}, false, "asleep"},
		{"choosing (Die Hard)", map[string]any{"wp": -3, "state": "stable", "die_hard": true, "choice_seq": 3}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := map[string]any{"class": "fighter", "level": 1, "str": 10, "dex": 10, "con": 10, "int": 10, "wis": 10, "cha": 10,
				"hp_max": 10, "hp": 10, "mp_max": 4, "mp": 4, "wp": 10}
			for k, v := range tt.sheet {
				base[k] = v
			}
			b, err := json.Marshal(base)
			if err != nil {
				t.Fatal(err)
			}
			ok, why, err := hpmpwp.System{}.CanAct(&storage.Character{ID: 1, Name: "Vala", Sheet: b}, 0)
			if err != nil || ok != tt.ok || why != tt.why {
				t.Errorf("CanAct(%v) = %v, %q, %v; want %v, %q", tt.sheet, ok, why, err, tt.ok, tt.why)
			}
		})
	}
}
