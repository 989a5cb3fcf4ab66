package harm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/harm"
	"github.com/hpkeeper/hpkeeper/commands/view"
)

// newTable returns a test table whose service plays the harm system.
func newTable(t *testing.T) *commandstest.Table {
	t.Helper()
	return commandstest.New(t, harm.System{})
}

// newParty sets up a harm table run by ann (GM) with Garrett (RULES.md
// §3.2's example, owned by bob) and Ada (a healer, owned by cat).
func newParty(t *testing.T) *commandstest.Table {
	t.Helper()
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:harm"))
	tb.OK(tb.Do("bob", `/char create name:Garrett stats:"endure=2 react=1 climb=2:vigor"`))
	tb.OK(tb.Do("cat", `/char create name:Ada stats:"first-aid=2 counsel=1 willpower=1 reason=4"`))
	return tb
}

// wantAll fails unless got contains every want, in order.
func wantAll(t *testing.T, what, got string, want ...string) {
	t.Helper()
	got = strings.ReplaceAll(got, "**", "")
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("%s = %q;\nwant it to contain (in order) %q", what, got, w)
		}
		rest = rest[i+len(w):]
	}
}

// TestGarrettExample is RULES.md §3.2's example through /damage with
// scripted Fudge faces (Reading: the post compares with 5; the counter is 4).
func TestGarrettExample(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(1, 0, 0)
	out := tb.OK(tb.Do("ann", "/damage target:Garrett amount:3 kind:physical"))
	wantAll(t, "sword", out, "Garrett takes 3 physical harm, harm counter 0 → 3: Endure 2 (Journeyman): 3dF+2 [+, 0, 0] + 2 = 3 → SL 3 ≥ 3: stays Healthy.")
	tb.Dice.Push(0, 0, 0)
	out = tb.OK(tb.Do("ann", "/damage target:Garrett amount:1 kind:social"))
	wantAll(t, "insult", out, "Garrett takes 1 social harm, harm counter 3 → 4: React 1 (Apprentice): 3dF+1 [0, 0, 0] + 1 = 1 → SL 1 < 4: Healthy → Bloody, harm counter back to 0.")
	wantAll(t, "card", tb.OK(tb.Do("bob", "/char show name:Garrett")), "Bloody: a penalty die on every check except Endure, React and Willpower")
	wantAll(t, "show", tb.OK(tb.Do("bob", "/char list")), "Garrett (", "Bloody · harm counter 0 · Vigor 3/3")
	if tb.Dice.Remaining() != 0 {
		t.Errorf("%d faces left; want all used", tb.Dice.Remaining())
	}
	// Undo restores the state before the insult, exactly.
	tb.OK(tb.Do("ann", "/undo"))
	wantAll(t, "show after undo", tb.OK(tb.Do("bob", "/char list")), "Garrett (", "Healthy · harm counter 3 · Vigor 3/3")
}

// TestReadingRoundsAreTimeInsideAConflict is RULES.md §3.2.4's Reading:
// rounds are time inside a conflict; advancing by a turn or more ends it.
// Harm on a Broken character takes it out without a roll; moving the clock
// by rounds only (/clock next-round, or advance with unit rounds, the
// default) keeps it out; advancing by turns (or hours, or days) ends the
// conflict.
func TestReadingRoundsAreTimeInsideAConflict(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(-1, -1, -1, -1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	out := tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	wantAll(t, "to Broken", out, "Bloody → Broken")
	out = tb.OK(tb.Do("ann", "/damage target:Garrett amount:2 kind:mental"))
	wantAll(t, "taken out", out, "Garrett takes 2 mental harm while Broken: taken out of the conflict; the opponent gets its goal.")
	if strings.Contains(out, "dF") {
		t.Errorf("taken out rolled dice: %q", out)
	}
	wantAll(t, "show", tb.OK(tb.Do("ann", "/char list")), "Garrett (", "Broken · harm counter 0 · Vigor 3/3 · Instinct 3/3 · Reason 3/3 · taken out")
	for _, line := range []string{"/clock action:next-round", "/clock action:advance amount:1 unit:rounds", "/clock action:advance amount:30", "/clock action:advance amount:1 unit:rounds"} {
		out = tb.OK(tb.Do("ann", line))
		if strings.Contains(out, "no longer taken out") {
			t.Errorf("%s ended the conflict: %q", line, out)
		}
		wantAll(t, "show after "+line, tb.OK(tb.Do("ann", "/char show name:Garrett")), "taken out")
	}
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:1 unit:turns"))
	wantAll(t, "advance", out, "Garrett is no longer taken out: the conflict is over (Broken).")
	if show := tb.OK(tb.Do("ann", "/char show name:Garrett")); strings.Contains(show, "taken out") {
		t.Errorf("after /clock advance: %q; want taken out cleared", show)
	}
	// The harm help tells a GM how to end a conflict.
	help := tb.Do("ann", "/help topic:harm").Content
	wantAll(t, "help harm", help, "/clock action:advance", "by turns, hours or days", "ends the conflict", "rounds")
}

// TestHoursAndDaysEndTheConflict: advancing by hours or days, and a day
// of rest for the whole table, end the conflict too (RULES.md §3.2.4).
func TestHoursAndDaysEndTheConflict(t *testing.T) {
	for _, line := range []string{"/clock action:advance amount:1 unit:hours", "/clock action:advance amount:2 unit:days", "/rest kind:day"} {
		tb := newParty(t)
		tb.Dice.Push(-1, -1, -1, -1, -1, -1)
		tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
		tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
		tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
		wantAll(t, line, tb.OK(tb.Do("ann", line)), "Garrett is no longer taken out")
	}
}

// TestRollChecks: /roll as:… ability:… with rank labels, the condition's
// penalty die by ability kind, pool points for bonus dice and their
// cancellation, the table option fudge-dice 4 (RULES.md §3.1, §3.2).
func TestRollChecks(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(1, 0, -1)
	out := tb.OK(tb.Do("bob", "/roll as:Garrett ability:climb"))
	wantAll(t, "climb", out, "Garrett checks Climb 2 (Journeyman): 3dF+2 [+, 0, −] + 2 = 2 → SL 2.")

	tb.Dice.Push(-1, 1, -1, 0)
	out = tb.OK(tb.Do("bob", "/roll as:Garrett ability:climb pool:vigor"))
	wantAll(t, "climb with a point", out, "1 bonus die (Vigor point): 4dFkh3+2 [~~−~~, +, −, 0] + 2 = 2 → SL 2; spent Vigor 3 → 2 (bonus die).")
	tb.Refused(tb.Do("bob", "/roll as:Garrett ability:climb pool:reason"), "climb draws on vigor, not reason")
	tb.Refused(tb.Do("bob", "/roll as:Garrett ability:swim"), `Garrett has no ability "swim"`)
	tb.Refused(tb.Do("cat", "/roll as:Garrett ability:climb"), "only its owner or a GM")

	// Bloody: a penalty die on Climb, none on Endure; a point cancels it.
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	tb.Dice.Push(1, 1, 0, -1)
	out = tb.OK(tb.Do("bob", "/roll as:Garrett ability:climb"))
	wantAll(t, "Bloody climb", out, "Climb 2 (Journeyman), 1 penalty die (Bloody): 4dFkl3+2 [~~+~~, +, 0, −] + 2 = 2 → SL 2.")
	tb.Dice.Push(1, 1, 0)
	out = tb.OK(tb.Do("bob", "/roll as:Garrett ability:endure"))
	wantAll(t, "Bloody endure", out, "Endure 2 (Journeyman): 3dF+2 [+, +, 0] + 2 = 4 → SL 4")
	tb.Dice.Push(0, 0, -1)
	out = tb.OK(tb.Do("bob", `/roll as:Garrett ability:Climb pool:vigor`))
	wantAll(t, "Bloody climb with a point", out, "1 penalty die (Bloody), 1 bonus die (Vigor point), they cancel: 3dF+2 [0, 0, −] + 2 = 1 → SL 1", "Vigor 2 → 1")

	// fudge-dice 4: the base is 4dF; SL floored at 0.
	tb.OK(tb.Do("ann", "/table option name:fudge-dice value:4"))
	tb.Dice.Push(-1, -1, -1, -1)
	out = tb.OK(tb.Do("bob", "/roll as:Garrett ability:react"))
	wantAll(t, "4dF", out, "React 1 (Apprentice): 4dF+1 [−, −, −, −] + 1 = -3 → SL 0")
}

// TestBrokenActionCost: a Broken character's action costs 1 point of
// the ability's pool, spent by the bot; with none left it is refused and
// nothing changes; harm and healing checks cost nothing (RULES.md §3.2).
// Reading: COMMANDS.md calls pool "required while Broken"; RULES.md says the
// bot spends the point, so pool is not needed and, given, buys a bonus die
// as well (2 points).
func TestBrokenActionCost(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("bob", "/char set name:Garrett stats:vigor=2/3"))
	tb.Dice.Push(-1, -1, -1, -1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	tb.Dice.Push(1, 0, 0, 0)
	out := tb.OK(tb.Do("bob", "/roll as:Garrett ability:endure"))
	wantAll(t, "Broken endure", out, "Endure 2 (Journeyman), 1 penalty die (Broken): 4dFkl3+2 [~~+~~, 0, 0, 0] + 2 = 2 → SL 2; spent Vigor 2 → 1 (Broken action).")
	tb.Refused(tb.Do("bob", "/roll as:Garrett ability:climb pool:vigor"), "Broken action and bonus die needs 2 points (vigor) and has 1")
	tb.Dice.Push(0, 0, 0, 0)
	out = tb.OK(tb.Do("bob", "/roll as:Garrett ability:climb"))
	wantAll(t, "Broken climb", out, "spent Vigor 1 → 0 (Broken action).")
	tb.Refused(tb.Do("bob", "/roll as:Garrett ability:climb"), "Broken action needs 1 point (vigor) and has 0")
	if n := tb.Dice.Remaining(); n != 0 {
		t.Errorf("a refused action used dice: %d left", n)
	}
	// The healing check costs nothing though Vigor is 0.
	tb.Dice.Push(1, 1, 0, 0)
	out = tb.OK(tb.Do("bob", "/heal target:Garrett trigger:pools"))
	wantAll(t, "Broken healing", out, "Garrett spends 5 pool points: Instinct 3 → 0, Reason 3 → 1 (healing); healing check:",
		"Endure 2 (Journeyman), 1 penalty die (Broken): 4dFkl3+2 [~~+~~, +, 0, 0] + 2 = 3 → SL 3: Broken → Bloody.")
	wantAll(t, "show", tb.OK(tb.Do("bob", "/char list")), "Garrett (", "Bloody · harm counter 0 · Vigor 0/3 · Instinct 0/3 · Reason 1/3")
}

// TestHealFirstAidAndCounsel: the healer's check SL becomes bonus dice;
// the healer's owner may help another player's character; the healer cannot
// be the patient (RULES.md §3.3).
func TestHealFirstAidAndCounsel(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:3"))
	tb.Refused(tb.Do("cat", "/heal target:Garrett trigger:first-aid"), "needs healer")
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:first-aid healer:Ada"), "Ada belongs to <@cat>")
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:first-aid healer:Ada"), "nothing to heal")
	tb.Refused(tb.Do("cat", "/heal target:Garrett trigger:counsel healer:Garrett"), "another character")

	tb.Dice.Push(0, 0, 0)        // Ada's First Aid: 0 + 2 = SL 2
	tb.Dice.Push(1, -1, 0, 1, 0) // Garrett's Endure with 2 bonus dice
	out := tb.OK(tb.Do("cat", "/heal target:Garrett trigger:first-aid healer:Ada"))
	wantAll(t, "first aid", out,
		"Ada gives Garrett first aid: First Aid 2 (Journeyman): 3dF+2 [0, 0, 0] + 2 = 2 → SL 2 = 2 bonus dice.",
		"Garrett's healing check: Endure 2 (Journeyman), 2 bonus dice (First Aid SL 2): 5dFkh3+2 [+, ~~−~~, ~~0~~, +, 0] + 2 = 4 → SL 4: Bloody → Healthy.")

	// Counsel with SL 0 helps not at all; a healing check of SL 0 changes
	// nothing, but the counsel is spent.
	tb.Dice.Push(1, 1, 1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:5 kind:mental"))
	tb.Dice.Push(-1, -1, 0) // Counsel 1: -2+1 → SL 0
	tb.Dice.Push(-1, 0, -1) // Willpower 0: SL 0
	out = tb.OK(tb.Do("cat", "/heal target:Garrett trigger:counsel healer:Ada"))
	wantAll(t, "counsel SL 0", out, "Counsel 1 (Apprentice): 3dF+1 [−, −, 0] + 1 = -1 → SL 0 = 0 bonus dice.",
		"Garrett's healing check: Willpower 0 (Unskilled): 3dF [−, 0, −] = -2 → SL 0: nothing changes (the counsel is used up).")
	tb.Refused(tb.Do("cat", "/heal target:Garrett trigger:first-aid healer:Ada ability:climb"), "must be one of endure, react, willpower")
}

// TestHealRestNeedsADay: trigger:rest needs a day on the clock since the
// character's last day of rest (from its creation or last harm); /rest
// kind:day passes one and refreshes the pools (RULES.md §3.3).
func TestHealRestNeedsADay(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("bob", "/char set name:Garrett stats:vigor=0/3"))
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:2"))
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:rest"), "a day of rest has not passed")
	tb.Refused(tb.Do("bob", "/rest kind:day"), "Only a GM")
	tb.Refused(tb.Do("ann", "/rest kind:night"), `Option kind must be day at this harm table (got "night"); /help topic:rest says what each means.`)
	out := tb.OK(tb.Do("ann", "/rest kind:day"))
	wantAll(t, "rest day", out, "The clock moves 1 day", "Garrett: Vigor 0 → 3 (day of rest); may heal (Bloody) with `/heal target:Garrett trigger:rest`.")
	tb.Dice.Push(1, 0, 0)
	out = tb.OK(tb.Do("bob", "/heal target:Garrett trigger:rest ability:endure"))
	wantAll(t, "heal rest", out, "Garrett has rested a day (since day 1, 00:00); healing check: Endure 2 (Journeyman): 3dF+2 [+, 0, 0] + 2 = 3 → SL 3: Bloody → Healthy.")
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:rest"), "a day of rest has not passed")
}

// TestHealPools: trigger:pools spends 5 points, chosen with spend or from
// the fullest pools, and is refused without 5 (RULES.md §3.3).
func TestHealPools(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Ada amount:1 kind:social"))
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:pools spend:vigor=2,reason=2"), "spends 5 points in all, not 4")
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:pools spend:vigor=4,reason=1"), "vigor has 3, not 4")
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:pools spend:luck=5"), "spend takes pool=points pairs")
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:rest spend:vigor=5"), "spend chooses the points of trigger:pools")
	tb.Dice.Push(0, 0, 0)
	out := tb.OK(tb.Do("cat", "/heal target:Ada trigger:pools spend:vigor=1,reason=4 ability:react"))
	wantAll(t, "pools", out, "Ada spends 5 pool points: Vigor 3 → 2, Reason 4 → 0 (healing);",
		"React 0 (Unskilled): 3dF [0, 0, 0] = 0 → SL 0: nothing changes (the pool points are spent).")
	// Ada has Vigor 2, Instinct 3, Reason 0: the fullest pools give the 5.
	tb.Dice.Push(1, 0, 0)
	out = tb.OK(tb.Do("cat", "/heal target:Ada trigger:pools"))
	wantAll(t, "pools from the fullest", out, "Ada spends 5 pool points: Vigor 2 → 0, Instinct 3 → 0 (healing);",
		"healing check: Endure 0 (Unskilled): 3dF [+, 0, 0] = 1 → SL 1: Bloody → Healthy.")
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Ada amount:1"))
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:pools"), "healing needs 5 pool points and there are 0")
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:pools amount:3"), "amount: is not used")
}

// TestSpendAndPermissions: /spend takes pool points; /damage is for the
// owner or a GM; amount may be dice (the opponent's check).
func TestSpendAndPermissions(t *testing.T) {
	tb := newParty(t)
	wantAll(t, "spend", tb.OK(tb.Do("bob", "/spend target:Garrett resource:instinct amount:2")), "Garrett spends 2 Instinct: Instinct 3 → 1.")
	tb.Refused(tb.Do("bob", "/spend target:Garrett resource:instinct amount:2"), "instinct has 1, not 2")
	tb.Refused(tb.Do("bob", "/spend target:Garrett resource:hd amount:1"), `Option resource must be one of vigor, instinct, reason at this harm table (got "hd")`)
	tb.Refused(tb.Do("cat", "/damage target:Garrett amount:1"), "only its owner or a GM")
	tb.Refused(tb.Do("ann", "/damage target:Garrett amount:0"), "must be 1 to 1000")
	tb.Refused(tb.Do("ann", "/damage target:Garrett amount:1 soak:true"), "soak: is not used")
	tb.Dice.Push(1, 1, 0)
	tb.Dice.Push(0, 0, 0)
	out := tb.OK(tb.Do("ann", "/damage target:Garrett amount:3dF+1 kind:physical"))
	wantAll(t, "dice amount", out, "Harm rolled: 3dF+1 [+, +, 0] + 1 = 3 → SL 3.", "Garrett takes 3 physical harm, harm counter 0 → 3:", "SL 2 < 3: Healthy → Bloody")
	tb.Dice.Push(-1, -1, 0)
	out = tb.OK(tb.Do("ann", "/damage target:Garrett amount:3dF"))
	wantAll(t, "dice amount SL 0", out, "SL 0: no harm is dealt.")
	tb.Dice.Push(0, 0, 0, 0, 0, 0)
	out = tb.OK(tb.Do("ann", "/damage target:Garrett,Ada amount:1 kind:social"))
	wantAll(t, "two targets", out, "Garrett takes 1 social harm", "Ada takes 1 social harm")
}

// TestRollRefusesUnusedOptions: /roll options of other systems are
// refused, not ignored.
func TestRollRefusesUnusedOptions(t *testing.T) {
	tb := newParty(t)
	tb.Refused(tb.Do("bob", "/roll as:Garrett ability:climb purpose:attack"), "/roll purpose: is not used by the harm system")
	tb.Refused(tb.Do("bob", "/roll as:Garrett expr:1d6 purpose:damage"), "/roll purpose: is not used by the harm system")
	tb.Refused(tb.Do("bob", "/roll as:Garrett ability:climb hd:1"), "/roll hd: is not used by the harm system")
	tb.Refused(tb.Do("bob", "/roll as:Garrett ability:climb melee:true"), "/roll melee: is not used by the harm system")
	if n := tb.Dice.Remaining(); n != 0 {
		t.Errorf("%d faces queued; want none used", n)
	}
}

// TestDamagePoolPoint: the harm check is a check, so /damage pool:…
// spends a point of the checked ability's pool for a bonus die (RULES.md
// §3.1): Endure draws on Vigor, React on Instinct, Willpower on Reason. A
// wrong pool or an empty one is refused and nothing changes.
func TestDamagePoolPoint(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(-1, 1, 0, 1)
	out := tb.OK(tb.Do("bob", "/damage target:Garrett amount:3 kind:physical pool:vigor"))
	wantAll(t, "harm with a Vigor point", out, "Garrett takes 3 physical harm, harm counter 0 → 3:",
		"Endure 2 (Journeyman), 1 bonus die (Vigor point): 4dFkh3+2 [~~−~~, +, 0, +] + 2 = 4 → SL 4 ≥ 3: stays Healthy; spent Vigor 3 → 2 (bonus die).")
	tb.Refused(tb.Do("bob", "/damage target:Garrett amount:1 kind:social pool:vigor"), "react draws on instinct, not vigor")
	tb.Refused(tb.Do("bob", "/damage target:Garrett amount:1 kind:mental pool:instinct"), "willpower draws on reason, not instinct")
	tb.OK(tb.Do("bob", "/char set name:Garrett stats:vigor=0/3"))
	tb.Refused(tb.Do("bob", "/damage target:Garrett amount:1 pool:vigor"), "Garrett: not enough pool points: bonus die needs 1 point (vigor) and has 0. Nothing was changed.")
	wantAll(t, "show after refusal", tb.OK(tb.Do("bob", "/char list")), "Garrett (", "Healthy · harm counter 3 · Vigor 0/3 · Instinct 3/3 · Reason 3/3")
	// Two targets: each pays from its own pool.
	tb.Dice.Push(0, 0, 0, 0, 0, 0, 0, 0)
	out = tb.OK(tb.Do("ann", "/damage target:Garrett,Ada amount:1 kind:mental pool:reason"))
	wantAll(t, "two targets", out, "Garrett takes 1 mental harm", "1 bonus die (Reason point)", "spent Reason 3 → 2 (bonus die).",
		"Ada takes 1 mental harm", "1 bonus die (Reason point)", "spent Reason 4 → 3 (bonus die).")
}

// TestHealPoolPoints: the healing check and the healer's First Aid or
// Counsel check are checks: pool:… buys the patient a bonus die from the
// healing ability's pool, healer-pool:… the healer one from Reason (RULES.md
// §3.1, §3.3).
func TestHealPoolPoints(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:3"))
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:pools pool:hp"), `Option pool must be one of vigor, instinct, reason at this harm table (got "hp")`)
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:pools pool:instinct"), "endure draws on vigor, not instinct")
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:pools healer-pool:reason"), "healer-pool buys the healer a bonus die")
	tb.Refused(tb.Do("cat", "/heal target:Garrett trigger:first-aid healer:Ada healer-pool:vigor"), "first-aid draws on reason, not vigor")
	// Ada's owner may give first aid but not spend Garrett's Vigor.
	tb.Refused(tb.Do("cat", "/heal target:Garrett trigger:first-aid healer:Ada pool:vigor"), "Garrett belongs to <@bob>")

	tb.Dice.Push(0, 0, -1, 1)        // Ada's First Aid 2 with a Reason point: SL 3
	tb.Dice.Push(-1, -1, 0, 0, 0, 1) // Garrett's Endure with 3 bonus dice
	out := tb.OK(tb.Do("cat", "/heal target:Garrett trigger:first-aid healer:Ada healer-pool:reason"))
	wantAll(t, "first aid with a Reason point", out,
		"Ada gives Garrett first aid: First Aid 2 (Journeyman), 1 bonus die (Reason point): 4dFkh3+2 [0, 0, ~~−~~, +] + 2 = 3 → SL 3 = 3 bonus dice; spent Reason 4 → 3 (bonus die).",
		"Garrett's healing check: Endure 2 (Journeyman), 3 bonus dice (First Aid SL 3): 6dFkh3+2 [~~−~~, ~~−~~, ~~0~~, 0, 0, +] + 2 = 3 → SL 3: Bloody → Healthy")
	if strings.Contains(out, "Vigor") {
		t.Errorf("no patient pool point was asked for: %q", out)
	}

	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:3"))
	tb.Dice.Push(-1, 1, 0, 0)
	out = tb.OK(tb.Do("bob", "/heal target:Garrett trigger:pools spend:instinct=3,reason=2 pool:vigor ability:endure"))
	wantAll(t, "pools healing with a Vigor point", out,
		"Garrett spends 5 pool points: Instinct 3 → 0, Reason 3 → 1 (healing); healing check: Endure 2 (Journeyman), 1 bonus die (Vigor point): 4dFkh3+2 [~~−~~, +, 0, 0] + 2 = 3 → SL 3: Bloody → Healthy; spent Vigor 3 → 2 (bonus die).")

	// No point left: refused before any die is rolled; nothing changes.
	tb.OK(tb.Do("cat", "/char set name:Ada stats:reason=0/4"))
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:3"))
	tb.Dice.Push(1, 1, 1, 1, 1, 1, 1)
	tb.Refused(tb.Do("cat", "/heal target:Garrett trigger:first-aid healer:Ada healer-pool:reason"), "Ada: not enough pool points: bonus die needs 1 point (reason) and has 0")
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:rest pool:vigor ability:endure"), "a day of rest has not passed")
	if n := tb.Dice.Remaining(); n != 7 {
		t.Errorf("a refused healing used dice: %d of 7 faces left", n)
	}
	wantAll(t, "show", tb.OK(tb.Do("bob", "/char list")), "Garrett (", "Bloody · harm counter 0 · Vigor 2/3")
}

// TestEveryDayOfRestHeals: every day the clock passes is one day of rest,
// so a 3-day advance allows three rest healings and a fourth is refused
// (RULES.md §3.3).
func TestEveryDayOfRestHeals(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(-1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:3"))
	tb.OK(tb.Do("ann", "/clock action:advance amount:3 unit:days"))
	for i, since := range []string{"day 1, 00:00; 2 more days of rest", "day 2, 00:00; 1 more day of rest", "day 3, 00:00)"} {
		tb.Dice.Push(-1, -1, -1) // Endure 2: -1 → SL 0, the day is used up
		out := tb.OK(tb.Do("bob", "/heal target:Garrett trigger:rest"))
		wantAll(t, fmt.Sprintf("rest healing %d", i+1), out, "Garrett has rested a day (since "+since,
			"SL 0: nothing changes (the day of rest is used up).")
	}
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:rest"), "a day of rest has not passed: it started at day 4, 00:00 and ends at day 5, 00:00")
}

// TestRestDayForOneCharacter: /rest kind:day target:… gives that
// character alone a day of rest: its pools refill and it may heal with
// trigger:rest, while the table's clock stands, so no conflict ends and no
// one else gains a day (the reading named on rules.Character.RestDay).
// Without target the whole table's day passes on the clock.
func TestRestDayForOneCharacter(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("bob", "/char set name:Garrett stats:vigor=0/3"))
	tb.OK(tb.Do("cat", "/char set name:Ada stats:reason=1/4"))
	tb.Dice.Push(-1, -1, -1, -1, -1, -1, -1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Ada amount:1 kind:social"))
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1")) // Broken: taken out

	out := tb.OK(tb.Do("ann", "/rest kind:day target:Garrett"))
	wantAll(t, "rest Garrett", out, "Garrett rests a day; the table's clock does not move (day 1, 00:00).",
		"Garrett: Vigor 0 → 3 (day of rest); may heal (Broken) with `/heal target:Garrett trigger:rest`")
	if strings.Contains(out, "Ada") || strings.Contains(out, "no longer taken out") || strings.Contains(out, "clock moves") {
		t.Errorf("a day of rest for Garrett touched more: %q", out)
	}
	if got := tb.OK(tb.Do("ann", "/clock")); !strings.Contains(got, "day 1, 00:00") {
		t.Errorf("clock after /rest kind:day target:Garrett = %q; want day 1, 00:00", got)
	}
	wantAll(t, "Garrett", tb.OK(tb.Do("ann", "/char list")), "Garrett (", "Broken · harm counter 0 · Vigor 3/3", "taken out")
	wantAll(t, "Ada", tb.OK(tb.Do("ann", "/char list")), "Ada (", "Bloody · harm counter 0 · Vigor 3/3 · Instinct 3/3 · Reason 1/4")
	tb.Refused(tb.Do("cat", "/heal target:Ada trigger:rest"), "a day of rest has not passed")
	tb.Dice.Push(1, 1, 0, 0) // Broken: a penalty die on Endure
	out = tb.OK(tb.Do("bob", "/heal target:Garrett trigger:rest"))
	wantAll(t, "Garrett heals", out, "Garrett has rested a day (taken alone, while the table's clock stood); healing check:", "Broken → Bloody")
	tb.Refused(tb.Do("bob", "/heal target:Garrett trigger:rest"), "a day of rest has not passed")

	// Without target the table's day passes: the conflict ends, every pool
	// refills and every character has a day of rest.
	out = tb.OK(tb.Do("ann", "/rest kind:day"))
	wantAll(t, "rest table", out, "The clock moves 1 day: day 1, 00:00 → day 2, 00:00.", "Garrett is no longer taken out",
		"Ada: Reason 1 → 4 (day of rest); may heal (Bloody) with `/heal target:Ada trigger:rest`")
	tb.Dice.Push(1, 1, 1)
	wantAll(t, "Ada heals", tb.OK(tb.Do("cat", "/heal target:Ada trigger:rest")), "Ada has rested a day (since day 1, 00:00); healing check:", "Bloody → Healthy")
}

// TestReadingTakenOutMakesNoChecks is RULES.md §3.2's Reading at the table:
// Garrett, taken out, makes no checks until the conflict ends: /roll as:
// is refused, naming how the conflict ends, and spends no pool point (it
// cost Vigor 3 → 2 before); nor does he give First Aid. Once the clock
// moves a turn, his check rolls and costs.
func TestReadingTakenOutMakesNoChecks(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("ann", `/char set name:Garrett stats:"first-aid=1"`))
	tb.Dice.Push(-1, -1, -1, -1, -1, -1)
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1"))
	wantAll(t, "taken out", tb.OK(tb.Do("ann", "/damage target:Garrett amount:1")), "taken out of the conflict")
	for _, line := range []string{"/roll as:Garrett ability:endure", "/roll as:Garrett ability:climb pool:vigor"} {
		tb.Refused(tb.Do("bob", line), "Garrett is taken out of the conflict and makes no checks until it ends: the GM ends it by moving the clock a turn or more (/clock action:advance amount:1 unit:turns)")
	}
	tb.Dice.Push(0, 0, 0)
	tb.OK(tb.Do("ann", "/damage target:Ada amount:1 kind:social")) // Ada Bloody: someone to tend
	tb.Refused(tb.Do("bob", "/heal target:Ada trigger:first-aid healer:Garrett"), "Garrett is taken out of the conflict")
	wantAll(t, "no point spent", tb.OK(tb.Do("bob", "/char list")), "Garrett (", "Broken · harm counter 0 · Vigor 3/3 · Instinct 3/3 · Reason 3/3")
	tb.OK(tb.Do("ann", "/clock action:advance amount:1 unit:turns"))
	// Broken: 4dFkl3+2 [0, 0, 0, +] keeps 0, 0, 0: SL 2; Vigor 3 → 2.
	tb.Dice.Push(0, 0, 0, 1)
	wantAll(t, "after the conflict", tb.OK(tb.Do("bob", "/roll as:Garrett ability:endure")), "SL 2", "spent Vigor 3 → 2 (Broken action)")
	tb.NoDiceLeft()
}

// TestReadingDayOfRestRefillsPools is RULES.md §3.3's Reading at the table:
// a day of rest refills every pool, from /rest kind:day and from the clock
// passing a whole day outside a conflict alike, and either is the rest
// healing trigger. Garrett (Vigor 3/3) spends 2 Vigor at day 1, 00:00,
// where his day of rest began (his creation; no harm since).
func TestReadingDayOfRestRefillsPools(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("bob", "/spend target:Garrett resource:vigor amount:2"))
	// Rounds are time inside a conflict: 1,440 rounds (a day) refill nothing.
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:1440 unit:rounds"))
	if strings.Contains(out, "day of rest") {
		t.Errorf("a day of rounds = %q; want no day of rest inside a conflict", out)
	}
	wantAll(t, "still spent", tb.OK(tb.Do("bob", "/char list")), "Vigor 1/3")
	// The clock now reads day 2, 00:00; his next day of rest ends at day
	// 3, 00:00. 23 hours stop short of it; one more hour passes it.
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:23 unit:hours"))
	if strings.Contains(out, "day of rest") {
		t.Errorf("23 hours = %q; want no day of rest yet", out)
	}
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:1 unit:hours"))
	wantAll(t, "a day passed", out, "The clock moves 1 hour: day 2, 23:00 → day 3, 00:00.", "Garrett: Vigor 1 → 3 (day of rest).")
	if strings.Contains(out, "Ada") {
		t.Errorf("the day = %q; want nothing said of Ada, whose pools were full", out)
	}
	// A harmed character's day of rest starts at the harm, and the day on
	// the clock that refills its pools is its rest healing trigger.
	tb.Dice.Push(-1, -1, -1) // Endure 3dF+2 [−, −, −] = −1: SL 0 < 1, Bloody
	tb.OK(tb.Do("ann", "/damage target:Garrett amount:1 kind:physical"))
	tb.OK(tb.Do("bob", "/spend target:Garrett resource:vigor amount:1"))
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:1 unit:days"))
	wantAll(t, "a day after the harm", out, "Garrett: Vigor 2 → 3 (day of rest); may heal (Bloody) with `/heal target:Garrett trigger:rest`.")
	tb.Dice.Push(0, 0, 1)
	wantAll(t, "rest healing", tb.OK(tb.Do("bob", "/heal target:Garrett trigger:rest")), "Bloody → Healthy")
	tb.NoDiceLeft()
}

// TestHiddenNPCReadsInHarmsWords: players read a hidden NPC at a harm
// table in the system's own words, Healthy, Bloody, Broken and Taken out,
// each in one colour, never a word of another system's (issue 24: "a
// Healthy NPC with harm counter 1 reads 'Wounded', the same as Bloody"):
// in the channel's reply, in /char show and in /char list.
func TestHiddenNPCReadsInHarmsWords(t *testing.T) {
	tb := newParty(t)
	tb.Private(tb.Do("ann", `/char create name:Bandit stats:"endure=0 vigor=3 hidden=true"`))
	for _, step := range []struct {
		faces  []int
		line   string
		word   string
		colour int
	}{
		{nil, "", "Healthy", view.ColorFine},
		{[]int{1, 0, 0}, "/damage target:Bandit amount:1", "Healthy", view.ColorFine}, // SL 1 ≥ 1: harm counter 1
		{[]int{0, 0, 0}, "/damage target:Bandit amount:1", "Bloody", view.ColorWounded},
		{[]int{0, 0, 0}, "/damage target:Bandit amount:1", "Broken", view.ColorZero},
		{nil, "/damage target:Bandit amount:1", "Taken out", view.ColorDying},
	} {
		if step.line != "" {
			tb.Dice.Push(step.faces...)
			out := tb.OK(tb.Do("ann", step.line))
			commandstest.WantIn(t, step.line+" in the channel", out, "**Bandit**: "+step.word)
			if strings.Contains(out, "harm counter") || strings.Contains(out, "Wounded") {
				t.Errorf("%s in the channel = %q; shows the hidden Bandit's state", step.line, out)
			}
		}
		show := tb.Do("bob", "/char show name:Bandit")
		if len(show.Embeds) != 1 || show.Embeds[0].Description != "**"+step.word+"**" || show.Embeds[0].Color != step.colour {
			t.Errorf("after %q a player's /char show name:Bandit = %+v; want %q in %#x", step.line, show.Embeds, step.word, step.colour)
		}
		commandstest.WantIn(t, "a player's /char list", tb.OK(tb.Do("bob", "/char list"))+"\n", "**Bandit** (ann): "+step.word+"\n")
	}
	tb.NoDiceLeft()
}
