package hpmpwp_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
)

// TestCreateDefaults: a level-1 fighter with only hp-max gets the
// defaults of RULES.md §2.1; MP max is the d4's maximum with no dice rolled.
func TestCreateDefaults(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	out := st.Create("Tor", "hp-max=12")
	commandstest.WantIn(t, "create", out,
		"Created **Tor** for", "HP ██████████ 12/12", "MP ██████████ 4/4", "WP ██████████ 10/10",
		"fighter 1", "Mana die: d4", "Fort +0 · Will +0",
		"Str 10 (+0) · Dex 10 (+0) · Con 10 (+0) · Int 10 (+0) · Wis 10 (+0) · Cha 10 (+0)",
		"Feats: none")
	if strings.Contains(out, "Rolled") {
		t.Errorf("create at level 1 = %q; want no dice rolled", out)
	}
}

// TestCreateRollsMPMax: MP max not given is rolled with the table's
// dice, shown in the reply and recorded in the event (RULES.md §2.1): wizard
// level 3, Wis 14 (+2): 10 + 2, then 3 + 2 and 7 + 2 → 26. The roll is the
// sum with its parts, so the MP max beside it adds up (issue 24: MP 29
// was shown beside "Rolled 2d10 [9, 4] = 13").
func TestCreateRollsMPMax(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	st.Dice.Push(3, 7)
	out := st.Create("Mira", "class=Wizard level=3 hp-max=14 wis=14 con=13 temp-con=2 fort=1 will=4 feats=endurance,die-hard")
	commandstest.WantIn(t, "create", out,
		"Rolled 2d10+16 [3, 7] + 16 [d10 max at level 1, Wis +2 a level] = 26", "HP ██████████ 14/14", "MP ██████████ 26/26", "WP ██████████ 15/15",
		"wizard 3", "Mana die: d10", "Con 13 (+1)", "Wis 14 (+2)",
		"Fort +1 · Will +4", "Feats: endurance, die-hard", "Temporary WP: 2")
	if n := st.Dice.Remaining(); n != 0 {
		t.Errorf("%d scripted dice left; want both mana dice used", n)
	}
	hist := commandstest.SheetText(st.Handle("history", "", nil))
	commandstest.WantIn(t, "history", hist, "dice: 2d10+16 [3, 7] + 16 [d10 max at level 1, Wis +2 a level] = 26", "MP max 26: the d10's maximum at level 1, levels 2–3 rolled.")
}

// TestTemporaryWPBar: temporary WP come on top of the WP maximum in the WP
// bar, current and maximum alike (RULES.md §2.1), so a character at full WP
// with temporary WP reads full: WP 12/12 (+2 temp) is a bar of 14/14, not a
// wounded 12/14; once damage takes the temporary WP, the bar is 12/12.
func TestTemporaryWPBar(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	out := st.Create("Mira", "hp-max=14 con=12 temp-con=2")
	commandstest.WantIn(t, "create", out, "WP ██████████ 14/14", "Temporary WP: 2")
	out = st.OK("damage", "", map[string]string{"target": "Mira", "amount": "16"})
	commandstest.WantIn(t, "damage", out, "temporary WP 2 → 0")
	commandstest.WantIn(t, "card", st.Show("Mira"), "WP ██████████ 12/12")
}

// TestWisPenaltyMPFloor: a Wis penalty cannot make a level give less
// than 1 MP (RULES.md §2.1): bard level 3, Wis 6 (−2): max(1, 8 − 2) = 6,
// then 1 and 2 each give 1 → 8: each die below 3 counts as 3 (mi3).
func TestWisPenaltyMPFloor(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	st.Dice.Push(1, 2)
	out := st.Create("Pip", "class=bard level=3 hp-max=9 wis=6")
	commandstest.WantIn(t, "create", out, "Rolled 2d8mi3+2 [1→3, 2→3] + 2 [d8 max at level 1, Wis -2 a level] = 8", "MP ██████████ 8/8", "Wis 6 (-2)")
}

// TestCreateGivenValues: given mp-max is not rolled; hp, mp, wp set
// the current values within the maxima.
func TestCreateGivenValues(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	out := st.Create("Gus", "class=psychic_warrior level=5 hp-max=30 hp=25 mp-max=12 mp=5 con=9 wp=-3")
	commandstest.WantIn(t, "create", out, "HP ████████░░ 25/30", "MP ████░░░░░░ 5/12", "WP ░░░░░░░░░░ -3/9", "psychic-warrior 5", "Mana die: d8", "Con 9 (-1)")
	if strings.Contains(out, "Rolled") {
		t.Errorf("create with mp-max = %q; want nothing rolled", out)
	}
}

func TestCreateRefused(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	create := func(stats string, want ...string) {
		t.Helper()
		st.Refused("char", "create", map[string]string{"name": "X", "stats": stats}, want...)
	}
	create("", "hp-mp-wp characters need hp-max=N (as usual in 3.5)")
	create("class=wizard str=12", "need hp-max=N")
	create("hp-max=10 hit-die=d8", `Unknown stat "hit-die" for hp-mp-wp`,
		"Valid keys: cha, class, con, dex, effect, feats, fort, hp, hp-max, init, int, level, mp, mp-max, state, str, temp-con, will, wis, wp.")
	create("hp-max=0", "hp-max=0", "from 1 to 9999")
	create("hp-max=10 level=41", "level=41", "from 1 to 40")
	create("hp-max=10 str=51", "str=51", "from 1 to 50")
	create("hp-max=10 con=0", "con=0", "from 1 to 50")
	create("hp-max=10 hp=11", "hp=11", "from 0 to 10")
	create("hp-max=10 mp-max=4 mp=5", "mp=5", "from 0 to 4")
	create("hp-max=10 con=12 wp=13", "wp=13", "from -100 to 12")
	create("hp-max=10 wp=-101", "from -100 to 10")
	create("hp-max=10 fort=41", "fort=41", "from -20 to 40")
	create("hp-max=10 will=-21", "will=-21")
	create("hp-max=10 temp-con=-1", "temp-con=-1")
	create("hp-max=10 feats=toughness", "feats=toughness", "endurance and die-hard")
	create("hp-max=10 class=w!z", "class=w!z")
	create("hp-max=ten", "hp-max=ten", "whole number")
	create("hp-max=10 level=0", "level=0")
	// MP max rolled, but the given mp is over it: nothing is created.
	st.Dice.Push(1)
	create("hp-max=10 level=2 mp=10", "mp=10", "from 0 to 5")
	if out := commandstest.SheetText(st.Handle("char", "list", nil)); !strings.Contains(out, "No characters") {
		t.Errorf("after refused creates, /char list = %q; want no characters", out)
	}
	// Running out of scripted dice is refused, not an internal error.
	create("hp-max=10 level=2", "ran out")
}

// TestSet: a lowered maximum caps the current value, a raised one
// restores nothing; Con is the WP maximum. Raising Con above WP makes Tor
// fatigued (wound damage), and HP and MP are capped at the maxima fatigue
// lowers (RULES.md §2.3).
func TestSet(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	list := func() string { return commandstest.SheetText(st.Handle("char", "list", nil)) }
	st.Create("Tor", "hp-max=20 con=15 mp-max=6")
	commandstest.WantIn(t, "list", list(), "HP 20/20 · MP 6/6 · WP 15/15")

	out := st.Set("Tor", "con=12")
	commandstest.WantIn(t, "set con=12", out, "**Tor**: set con=12: WP 15/15 → 12/12", "Con 12 (+1)")
	out = st.Set("Tor", "con=16")
	commandstest.WantIn(t, "set con=16", out, "HP 20/20 → 19/20 · MP 6/6 → 5/6 · WP 12/12 → 12/16 · fatigued", "HP max 20 → 19; MP max 6 → 5")
	out = st.Set("Tor", "hp-max=15 mp-max=4")
	commandstest.WantIn(t, "set maxima down", out, "HP 19/20 → 14/15 · MP 5/6 → 3/4")
	out = st.Set("Tor", "hp-max=25 hp=20 wp=16 temp-con=3")
	commandstest.WantIn(t, "set currents", out, "HP 14/15 → 20/25 · WP 12/16 → 16/16 (+3 temp)")
	out = st.Set("Tor", "temp-con=0 feats=die-hard str=18 class=cleric fort=5")
	commandstest.WantIn(t, "set misc", out, "WP 16/16", "cleric 1", "Mana die: d10", "Str 18 (+4)", "Fort +5", "Feats: die-hard")
	if _, after, _ := strings.Cut(out, "→"); strings.Contains(after, "temp") {
		t.Errorf("set temp-con=0 = %q; want no temporary WP after it", out)
	}
	out = st.Set("Tor", "feats=none")
	commandstest.WantIn(t, "set feats=none", out, "Feats: none")

	st.Refused("char", "set", map[string]string{"name": "Tor", "stats": "hp=26"}, "hp=26", "from 0 to 25")
	st.Refused("char", "set", map[string]string{"name": "Tor", "stats": "wp=17"}, "wp=17", "from -100 to 16")
	st.Refused("char", "set", map[string]string{"name": "Tor", "stats": "vigor=3"}, `Unknown stat "vigor"`, "Valid keys:")
	commandstest.WantIn(t, "list after refusals", list(), "HP 20/25 · MP 3/4 · WP 16/16")
}

// TestSetLevelRollsMP: gaining levels without mp-max rolls the new
// levels' mana dice and adds them to MP max, not to current MP. MP 13 of 32
// is ≤ 50%: Sel is fatigued, and HP are capped at the lowered HP max 6 +
// 3 × (−1) = 3, raised to the floor ⌊6/2⌋ + 1 = 4 (RULES.md §2.3 Reading).
func TestSetLevelRollsMP(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	st.Create("Sel", "class=sorcerer hp-max=6 wis=12")
	commandstest.WantIn(t, "create", st.Show("Sel"), "MP ██████████ 13/13")
	st.Dice.Push(5, 12)
	out := st.Set("Sel", "level=3")
	commandstest.WantIn(t, "set level=3", out, "HP 6/6 → 4/6 · MP 13/13 → 13/32 · fatigued", "sorcerer 3", "Rolled 2d12+2 [5, 12] + 2 [Wis +1 a level] = 19")
	commandstest.WantIn(t, "history", commandstest.SheetText(st.Handle("history", "", nil)), "MP max +19 → 32: levels 2–3 rolled.")
	out = st.Set("Sel", "level=2")
	commandstest.WantIn(t, "set level=2", out, "sorcerer 2", "MP max 32 → 30")
	if strings.Contains(out, "Rolled") {
		t.Errorf("losing a level = %q; want nothing rolled", out)
	}
	out = st.Set("Sel", "level=4 mp-max=20")
	commandstest.WantIn(t, "set level with mp-max", out, "MP 13/32 → 13/20", "sorcerer 4")
	if strings.Contains(out, "Rolled") {
		t.Errorf("set level with mp-max = %q; want nothing rolled", out)
	}
}

// TestHasNoTableOptions: an hp-mp-wp table has no table options of its
// own, so harm's fudge-dice is refused there with the options it has
// (those of every table), not "no table options" (dice is one).
func TestHasNoTableOptions(t *testing.T) {
	st := commandstest.NewSheets(t, "hp-mp-wp", hpmpwp.System{})
	st.Refused("table", "option", map[string]string{"name": "fudge-dice", "value": "4"}, `Unknown table option "fudge-dice"; this hp-mp-wp table has dice`)
	st.OK("table", "option", map[string]string{"name": "dice", "value": "manual"})
}
