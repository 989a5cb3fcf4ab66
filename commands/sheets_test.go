package commands_test

import (
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// TestSheetSystemsUndo: /undo restores a sheet changed by /char set in both
// systems (RULES.md §0.5).
func TestSheetSystemsUndo(t *testing.T) {
	for _, sys := range []struct{ system, stats, before, after string }{
		{"hp-mp-wp", "hp-max=8", "HP ██████████ 8/8", "HP ████░░░░░░ 3/8"},
		{"harm", "", "Vig ██████████ 3/3", "Vig ███░░░░░░░ 1/3"},
	} {
		t.Run(sys.system, func(t *testing.T) {
			st := commandstest.NewSheets(t, sys.system, allSystems...)
			st.Create("Ada", sys.stats)
			if sys.system == "harm" {
				st.Set("Ada", "vigor=1/3")
			} else {
				st.Set("Ada", "hp=3")
			}
			commandstest.WantIn(t, "show", st.Show("Ada"), sys.after)
			st.OK("undo", "", nil)
			commandstest.WantIn(t, "show after undo", st.Show("Ada"), sys.before)
		})
	}
}

// TestSheetSystemsHelpAndStubs: /help lists each system's stats keys and
// options, and commands the systems do not implement yet are refused.
func TestSheetSystemsHelpAndStubs(t *testing.T) {
	st := commandstest.NewSheets(t, "harm", allSystems...)
	// /help answers only the caller (ephemeral), so read the reply directly.
	commandstest.WantIn(t, "help harm", commandstest.SheetText(st.Handle("help", "", map[string]string{"topic": "harm"})),
		"SOY Hybrid Harm", "counsel, endure, first-aid, instinct, react, reason, vigor, willpower", "fudge-dice (3/4")
	commandstest.WantIn(t, "help hp-mp-wp", commandstest.SheetText(st.Handle("help", "", map[string]string{"topic": "hp-mp-wp"})),
		"Universal HP/MP/WP", "cha, class, con, dex, effect, feats, fort, hp, hp-max, init, int, level, mp, mp-max, state, str, temp-con, will, wis, wp")
	st.Create("Ada", "")
	// harm implements /damage, /heal, /rest and /spend (harm_test.go); /strain is not one of its commands.
	st.Refused("strain", "", map[string]string{"target": "Ada"}, "not part of the harm system")
}
