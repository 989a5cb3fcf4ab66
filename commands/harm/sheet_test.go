package harm_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/harm"
)

// TestCreateDefaults pins the harm defaults: innate abilities at rank 0,
// pools 3/3, Healthy, harm counter 0 (RULES.md §3.1, §3.2).
func TestCreateDefaults(t *testing.T) {
	st := commandstest.NewSheets(t, "harm", harm.System{})
	out := st.Create("Garrett", "")
	commandstest.WantIn(t, "create", out,
		"Created **Garrett** for", "Vig ██████████ 3/3", "Ins ██████████ 3/3", "Rea ██████████ 3/3", "Conditions: Healthy (harm counter 0)",
		"Vigor abilities: Endure 0 (Unskilled)",
		"Instinct abilities: React 0 (Unskilled)",
		"Reason abilities: Willpower 0 (Unskilled)")
	if strings.Contains(out, "Rolled") || st.Dice.Remaining() != 0 {
		t.Errorf("harm create = %q; want nothing rolled", out)
	}
}

// TestCreateWithStats: ranks with their labels, pools drawn on per
// RULES.md §3.1, custom abilities with and without a pool, "current/max".
func TestCreateWithStats(t *testing.T) {
	st := commandstest.NewSheets(t, "harm", harm.System{})
	out := st.Create("Garrett", "endure=2 react=1 willpower=4 first-aid=3 counsel=5 climb=2 sneak=6:instinct vigor=5 instinct=2/4 reason=0")
	commandstest.WantIn(t, "create", out,
		"Vig ██████████ 5/5", "Ins █████░░░░░ 2/4", "Rea ░░░░░░░░░░ 0/0", "Conditions: Healthy (harm counter 0)",
		"Vigor abilities: Endure 2 (Journeyman)\nClimb 2 (Journeyman)",
		"Instinct abilities: React 1 (Apprentice)\nSneak 6 (rank 6)",
		"Reason abilities: Willpower 4 (Grand Master)\nFirst Aid 3 (Master)\nCounsel 5 (rank 5)")
}

func TestCreateRefused(t *testing.T) {
	st := commandstest.NewSheets(t, "harm", harm.System{})
	create := func(stats string, want ...string) {
		t.Helper()
		st.Refused("char", "create", map[string]string{"name": "X", "stats": stats}, want...)
	}
	create("endure=7", "endure=7", "from 0 to 6")
	create("react=-1", "react=-1")
	create("climb=2:luck", "climb=2:luck", "vigor, instinct or reason")
	create("first-aid=2:vigor", "first-aid always draws on reason")
	create("endure=1:reason", "endure always draws on vigor")
	create("vigor=21", "vigor=21", "0 to 20")
	create("vigor=4/3", "vigor=4/3", "current at most max")
	create("reason=x", "reason=x")
	// The reply is Discord markdown: the quoted key's '_' is escaped.
	create("climb_wall=2", `Unknown stat "climb\_wall" for harm`,
		"Valid keys: counsel, endure, first-aid, instinct, react, reason, vigor, willpower", "name=rank:pool")
	create("2climb=1", `Unknown stat "2climb"`)
	// A key of another system is an unknown stat, as in the other systems,
	// not a new ability with a bad rank.
	create("class=fighter", `Unknown stat "class" for harm`, "Valid keys: counsel, endure")
	create("climb=high", `Unknown stat "climb" for harm`, "any other ability as name=rank")
	create("climb=9", "climb=9", "a rank from 0 to 6")
	create("willpower=none", "willpower is innate")
	var many []string
	for _, c := range "abcdefghijklmnopqr" {
		many = append(many, string(c)+"x=1")
	}
	create(strings.Join(many, " "), "at most 20 abilities")
	if out := commandstest.SheetText(st.Handle("char", "list", nil)); !strings.Contains(out, "No characters") {
		t.Errorf("after refused creates, /char list = %q; want no characters", out)
	}
	// 17 more abilities and the three innate ones make the most allowed.
	st.Create("Max", strings.Join(many[:17], " "))
	st.Refused("char", "set", map[string]string{"name": "Max", "stats": "zz=1"}, "at most 20 abilities", "name=none")
	st.Set("Max", "ax=none zz=1")
}

// TestSet: a new pool max caps the current points and raising it does
// not refill them; abilities keep their pool unless one is given.
func TestSet(t *testing.T) {
	st := commandstest.NewSheets(t, "harm", harm.System{})
	st.Create("Garrett", "climb=1:instinct vigor=5")
	out := st.Set("Garrett", "vigor=2")
	commandstest.WantIn(t, "set vigor=2", out, "**Garrett**: set vigor=2: Vigor 5/5 → 2/2.")
	out = st.Set("Garrett", "vigor=6")
	commandstest.WantIn(t, "set vigor=6", out, "Vigor 2/2 → 2/6")
	out = st.Set("Garrett", "vigor=6/6 reason=1/3")
	commandstest.WantIn(t, "set current/max", out, "Vigor 2/6 → 6/6 · Reason 3/3 → 1/3")

	out = st.Set("Garrett", "climb=3 endure=2")
	commandstest.WantIn(t, "set climb=3", out, "Vigor abilities: Endure 2 (Journeyman)", "Instinct abilities: React 0 (Unskilled), Climb 3 (Master)")
	out = st.Set("Garrett", "climb=3:reason first-aid=1")
	commandstest.WantIn(t, "set climb to reason", out, "Reason abilities: Willpower 0 (Unskilled), First Aid 1 (Apprentice), Climb 3 (Master)")
	out = st.Set("Garrett", "climb=none")
	if strings.Contains(out, "Climb") {
		t.Errorf("set climb=none = %q; want Climb removed", out)
	}
	st.Refused("char", "set", map[string]string{"name": "Garrett", "stats": "endure=9"}, "endure=9")
	commandstest.WantIn(t, "show", st.Show("Garrett"),
		"Vig ██████████ 6/6", "Rea ███░░░░░░░ 1/3", "Endure 2 (Journeyman)", "First Aid 1 (Apprentice)")
}

// TestFudgeDiceOption: the harm table offers fudge-dice 3 (default) or 4.
func TestFudgeDiceOption(t *testing.T) {
	st := commandstest.NewSheets(t, "harm", harm.System{})
	commandstest.WantIn(t, "table show", st.OK("table", "show", nil), "fudge-dice=3")
	commandstest.WantIn(t, "option", st.OK("table", "option", map[string]string{"name": "fudge-dice", "value": "4"}), "fudge-dice: 3 → 4")
	st.Refused("table", "option", map[string]string{"name": "fudge-dice", "value": "5"}, "3 or 4")
}
