package hitprot_test

import (
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/hitprot"
)

// newTable returns a test table whose service plays the hit-protection system.
func newTable(t *testing.T) *commandstest.Table {
	t.Helper()
	return commandstest.New(t, hitprot.System{})
}

// newParty sets up a hit-protection table run by ann (GM) with bob's Lister
// (fighter, d6, 4 HP) and meg's Meghan (magic-user 3, 1 HP).
func newParty(t *testing.T) *commandstest.Table {
	t.Helper()
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hit-protection"))
	tb.OK(tb.Do("bob", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`))
	tb.OK(tb.Do("meg", `/char create name:Meghan stats:"class=magic-user level=3 hp=1"`))
	return tb
}

// TestSoakAndMeghan plays RULES.md §1.5's Meghan (rest, then the
// night) and §1.3's soak through the commands.
func TestSoakAndMeghan(t *testing.T) {
	tb := newParty(t)
	tb.Dice.Push(3)
	out := tb.OK(tb.Do("meg", "/rest kind:turn"))
	commandstest.WantIn(t, "rest", out, "Meghan", "1d4 [3] = 3", "HP 1 → 3", "HD 3 → 2")
	tb.Dice.Push(3)
	out = tb.OK(tb.Do("ann", "/damage target:Meghan amount:4 soak:true"))
	commandstest.WantIn(t, "soak", out, "**Meghan** takes 4 damage, soaked to 1 with a hit die (1d4 [3] = 3): HP 3 → 2/4 · HD 2 → 1/3.")
	tb.OK(tb.Do("ann", "/char set name:Meghan stats:\"hp=3 hd=2\""))
	tb.Refused(tb.Do("meg", "/rest kind:night"), "Only a GM")
	tb.Dice.Push(4, 2) // Lister re-rolls 4, then Meghan 2 (keeps 3)
	out = tb.OK(tb.Do("ann", "/rest kind:night"))
	// Only what changed is given as a change; what did not says why.
	commandstest.WantIn(t, "night", out, "The clock moves 1 day", "day 2",
		"**Meghan** sleeps the night: re-rolls 1d4 [2] = 2, not higher than HP 3; HD 2 → 3/3.",
		"**Lister** sleeps the night: re-rolls 1d6 [4] = 4, not higher than HP 4.")
	if strings.Contains(out, "HD 1 → 1") || strings.Contains(out, "HP 4 → 4") {
		t.Errorf("night = %q; want no change shown where nothing changed", out)
	}
	tb.NoDiceLeft()
	tb.Refused(tb.Do("ann", "/rest kind:day"), "turn, breath")
	tb.OK(tb.Do("ann", "/char set name:Meghan stats:hd=0"))
	tb.Refused(tb.Do("meg", "/rest kind:turn"), "no hit dice left")
}

// TestWoundsAndClock: wounds block rests until treated, periods
// until the clock passes them; /clock reports every stun, period and
// bleed-out.
func TestWoundsAndClock(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("ann", `/char create name:Rook stats:"class=thief hp=2"`))
	resp := tb.Do("ann", "/damage target:Lister,Rook amount:4")
	if got := buttons(resp); got != "[-Lister-] [Heroic Death] [Stay Up] [Go Down] [-Rook-] [Heroic Death] [Stay Up] [Go Down]" {
		t.Fatalf("two choices: %q", got)
	}
	commandstest.WantIn(t, "two", tb.OK(resp), "**Lister** is at 0 HP: bob (its owner)", "**Rook** is at 0 HP: ann (its owner)", "The 0-HP choice")
	// Lister: 2d6 [3, 3] = 6 Nasty, paralysis 5 fails (14): stunned 1 round; 1d4 = 2 days.
	tb.Dice.Push(3, 3, 5, 2)
	up := tb.Press("bob", resp, "Stay Up")
	if got := buttons(up); got != "[-Lister-] [-Heroic Death-] [-Stay Up-] [-Go Down-] [-Rook-] [Heroic Death] [Stay Up] [Go Down]" {
		t.Errorf("after Lister's choice: %q", got)
	}
	commandstest.WantIn(t, "nasty", commandstest.Text(up), "Nasty Wound", "stunned 1 round", "mobility handicap", "2 days (1d4 [2] = 2", "**Rook** is at 0 HP: ann (its owner) or a GM chooses")
	// Rook: 2d6 [6, 5] = 11 Fatal I, death 13 passes with 13; 1d8 = 3 rounds.
	tb.Dice.Push(6, 5, 13, 3)
	// The console presses the latest message; here the updated one.
	rook := tb.PressRow("ann", up, 1, "Stay Up")
	commandstest.WantIn(t, "fatal", commandstest.Text(rook), "Fatal Wound I", "dies in 3 rounds")
	tb.Refused(tb.Do("bob", "/rest kind:turn"), "untreated wound")
	commandstest.WantIn(t, "treat", tb.OK(tb.Do("meg", "/treat target:Lister")), "untreated wounds 1 → 0")
	tb.Refused(tb.Do("meg", "/treat target:Lister"), "no untreated wound")
	commandstest.WantIn(t, "treat in the history", tb.OK(tb.Do("meg", "/history target:Lister")), "meg treated Lister: untreated wounds 1 → 0.")
	tb.Refused(tb.Do("bob", "/rest kind:turn"), "no HP restoring until day 3")
	tb.Refused(tb.Do("meg", "/attend target:Rook"), "skilled healer")
	tb.Refused(tb.Do("meg", "/attend target:Rook healer:Lister skilled:true"), "Lister belongs to <@bob>")
	tb.Refused(tb.Do("ann", "/attend target:Rook healer:Rook skilled:true"), "Rook cannot give itself the care")
	out := tb.OK(tb.Do("ann", "/clock action:next-round"))
	commandstest.WantIn(t, "round 1", out, "**Lister** no longer stunned")
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:2 unit:days"))
	commandstest.WantIn(t, "2 days (1d4 [2] = 2", out, "**Rook** dies of the Fatal Wound I (day 1, 00:03)", "**Lister** may restore HP again (day 3, 00:00): the no-restoring period is over")
	tb.Dice.Push(5)
	commandstest.WantIn(t, "rest", tb.OK(tb.Do("bob", "/rest kind:turn")), "HP 0 → 5", "HD 1 → 0")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("bob", "/char show name:Lister")), "HP ████████░░ 5/6", "HD ░░░░░░░░░░ 0/1")
	tb.NoDiceLeft()
}

// TestRollsAndSaves: hit dice on rolls within §1.6's limits.
func TestRollsAndSaves(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("ann", `/char create name:Bruno stats:"class=fighter level=3 hp=5"`))
	tb.Dice.Push(12, 1, 2, 3)
	out := tb.OK(tb.Do("ann", "/roll as:Bruno expr:d20 hd:3 purpose:attack melee:true"))
	commandstest.WantIn(t, "melee", out, "1d20 [12] = 12 + hit dice 3d8 [1, 2, 3] = 6 → **18**", "melee attack", "HD 3 → 0")
	tb.Refused(tb.Do("meg", "/roll as:Meghan expr:d20 hd:2 purpose:attack"), "one hit die per attack roll")
	tb.Dice.Push(9, 4, 4)
	out = tb.OK(tb.Do("meg", "/roll as:Meghan expr:d20 hd:2 purpose:spell"))
	commandstest.WantIn(t, "spell", out, "hit dice 2d4 [4, 4] = 8", "HD 3 → 1")
	tb.Refused(tb.Do("meg", "/roll as:Meghan expr:d20 hd:2 purpose:spell"), "asked 2, has 1")
	tb.Dice.Push(10, 3)
	out = tb.OK(tb.Do("meg", "/save target:Meghan type:death hd:1"))
	commandstest.WantIn(t, "save", out, "save vs death 1d20 [10] = 10 + hit dice 1d4 [3] = 3 → 13 vs 13: passed", "HD 1 → 0")
	tb.Refused(tb.Do("meg", "/save target:Meghan type:fort"), `Option type must be one of death, wands, paralysis, breath, spells at this hit-protection table (got "fort")`)
	tb.Refused(tb.Do("bob", "/save target:Meghan type:death"), "only its owner or a GM")
	commandstest.WantIn(t, "spend", tb.OK(tb.Do("bob", "/spend target:Lister resource:hd amount:1")), "HD 1 → 0")
	tb.Refused(tb.Do("bob", "/spend target:Lister resource:hd amount:1"), "no hit dice left")
	tb.Refused(tb.Do("bob", "/spend target:Lister resource:mp amount:1"), `Option resource must be hd at this hit-protection table (got "mp")`)
	tb.NoDiceLeft()
}

func TestCatchBreathAndUndo(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("ann", "/char set name:Lister stats:hp=1"))
	tb.Refused(tb.Do("bob", "/rest kind:breath"), "Catching breath is off")
	tb.OK(tb.Do("ann", "/table option name:catch-breath value:on"))
	tb.Refused(tb.Do("meg", "/rest kind:breath"), "only a fighter")
	tb.Dice.Push(6)
	commandstest.WantIn(t, "breath", tb.OK(tb.Do("bob", "/rest kind:breath")), "catch its breath", "HP 1 → 6", "HD 1 → 0")
	// /undo restores the sheet exactly, and a damage with its choice.
	tb.OK(tb.Do("bob", "/undo"))
	commandstest.WantIn(t, "undo", tb.OK(tb.Do("bob", "/char show name:Lister")), "HP ██░░░░░░░░ 1/6", "HD ██████████ 1/1")
	resp := tb.Do("ann", "/damage target:Lister amount:1d4")
	tb.Refused(resp, "ran out")
	tb.Dice.Push(2)
	resp = tb.Do("ann", "/damage target:Lister amount:1d4")
	commandstest.WantIn(t, "dice damage", tb.OK(resp), "**Lister** takes 1d4 [2] = 2 damage: HP 1 → 0/6.")
	tb.OK(tb.Do("ann", "/undo"))
	tb.Refused(tb.Press("bob", resp, "Stay Up"), "This message is out of date: the damage it answers (#8) was undone")
	tb.Refused(tb.Do("ann", "/damage target:Lister amount:-2"), "0 to 1000")
	tb.Refused(tb.Do("ann", "/damage target:Lister amount:5000"), "0 to 1000")
	tb.Refused(tb.Do("ann", "/damage target:Lister amount:2 crit:2"), "/damage crit: is not used by the hit-protection system")
	tb.Refused(tb.Do("meg", "/damage target:Lister amount:2"), "only its owner or a GM")
}

// TestBleedOutsThroughClock: a Critical Wound's and a Fatal Wound
// II's countdowns kill through /clock, and a lost limb's use comes back
// when its weeks end (RULES.md §0.2, §1.4).
func TestBleedOutsThroughClock(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("ann", `/char create name:Rook stats:"class=thief hp=2"`))
	tb.OK(tb.Do("ann", `/char create name:Bram stats:"class=fighter hp=2"`))
	resp := tb.Do("ann", "/damage target:Lister,Rook,Bram amount:4")
	// Lister: 2d6 [4, 4] = 8 Critical, death save 3 fails, 1d4 = 1 (left
	// arm lost), 2d4 [1, 1] = 2 rounds.
	tb.Dice.Push(4, 4, 3, 1, 1, 1)
	commandstest.WantIn(t, "Lister", commandstest.Text(tb.PressRow("bob", resp, 0, "Stay Up")), "loses the left arm", "dies in 2 rounds")
	// Rook: 2d6 [6, 6] = 12 Fatal II, death save 13 passes (13), 1d4 = 3 rounds.
	tb.Dice.Push(6, 6, 13, 3)
	commandstest.WantIn(t, "Rook", commandstest.Text(tb.PressRow("ann", resp, 1, "Stay Up")), "Fatal Wound II", "dies in 3 rounds", "nothing can prevent it")
	tb.Refused(tb.Do("ann", "/attend target:Rook healer:true"), "nothing can prevent the Fatal Wound II; still dies in 3 rounds")
	// Bram: 2d6 [5, 4] = 9 Critical, death save 12 passes, 1d4 = 4 (right
	// leg), stunned 1d6 = 6 rounds, 2d6 [1, 1] = 2 weeks.
	tb.Dice.Push(5, 4, 12, 4, 6, 1, 1)
	commandstest.WantIn(t, "Bram", commandstest.Text(tb.PressRow("ann", resp, 2, "Stay Up")), "loses the use of the right leg", "stunned 6 rounds")
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:2"))
	commandstest.WantIn(t, "round 2", out, "**Lister** dies of the Critical Wound (day 1, 00:02)")
	tb.Refused(tb.Do("ann", "/clock action:advance amount:2 unit:weeks"), "unit")
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:14 unit:days"))
	commandstest.WantIn(t, "2 weeks", out, "**Rook** dies of the Fatal Wound II (day 1, 00:03).",
		"**Bram** no longer stunned (day 1, 00:06); regains the use of the right leg (day 15, 00:00); may restore HP again (day 15, 00:00): the no-restoring period is over.")
	commandstest.WantIn(t, "list", tb.OK(tb.Do("ann", "/char list")), "Lister** (bob): HP 0/6 · HD 1/1 · dead (bled out from a Critical Wound)")
	tb.NoDiceLeft()
}

// TestAttendHealer: healer names the character who attends (the one meaning
// it has in every system), skilled says a skilled healer or healing magic
// attends; healer:true is still read as skilled:true (RULES.md §1.4).
func TestAttendHealer(t *testing.T) {
	tb := newParty(t)
	tb.Press("bob", tb.Do("ann", "/damage target:Lister amount:4"), "Go Down")
	tb.Dice.Push(1, 1, 1)
	commandstest.WantIn(t, "named", tb.OK(tb.Do("meg", "/attend target:Lister healer:Meghan skilled:true")),
		"**Meghan** (a skilled healer) attends **Lister** (a round)", "Unhurt")
	commandstest.WantIn(t, "history", tb.OK(tb.Do("meg", "/history target:Lister")), "Meghan (a skilled healer) attends Lister (a round): fate revealed, with advantage: injury 3d6dh1 [~~1~~, 1, 1] = 2 → Unhurt.")
	tb.NoDiceLeft()
	help := commandstest.Text(tb.Do("meg", "/help topic:attend"))
	commandstest.WantIn(t, "help", help, "`healer`: The character giving the care", "hit-protection: the character who attends",
		"`skilled`: A skilled healer or healing magic attends")
}

// TestAttendNotByOwner: RULES.md §1.3 item 6, "any other
// character's player (or a GM) may attend": the owner of the down character
// may not roll its hidden fate (and so cannot undo and re-roll it).
func TestAttendNotByOwner(t *testing.T) {
	tb := newParty(t)
	tb.Press("bob", tb.Do("ann", "/damage target:Lister amount:4"), "Go Down")
	tb.Refused(tb.Do("bob", "/attend target:Lister"), "another character's player or a GM attends")
	tb.Dice.Push(1, 1, 1)
	commandstest.WantIn(t, "GM attends", tb.OK(tb.Do("ann", "/attend target:Lister")), "Unhurt")
	// A GM's own character may be attended by the GM.
	tb.OK(tb.Do("ann", `/char create name:Rook stats:"class=thief hp=1"`))
	tb.Press("ann", tb.Do("ann", "/damage target:Rook amount:1"), "Go Down")
	tb.Dice.Push(1, 2, 2)
	commandstest.WantIn(t, "GM attends own", tb.OK(tb.Do("ann", "/attend target:Rook")), "Flesh Wound")
	tb.NoDiceLeft()
}

// TestCharSetAndZeroHPRules: /char set hp above 0 on a character
// that stayed up or went down is back to normal play (RULES.md §1.5), so
// the next damage is plain HP loss; a dead sheet is the GM's only; a player
// cannot raise HP while a no-restoring period (or any block) runs.
func TestCharSetAndZeroHPRules(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:4")
	tb.Dice.Push(1, 1) // 2d6 = 2 → Unhurt: nothing blocks restoring
	commandstest.WantIn(t, "unhurt", tb.OK(tb.Press("bob", resp, "Stay Up")), "Unhurt", "fights on at 0 HP")
	commandstest.WantIn(t, "set", tb.OK(tb.Do("bob", "/char set name:Lister stats:hp=3")), "HP 0/6 → 3/6 · no longer staying up")
	if out := tb.OK(tb.Do("bob", "/char show name:Lister")); strings.Contains(out, "staying up") {
		t.Errorf("set hp=3 on a staying-up character: %q; want it back to normal play", out)
	}
	out := tb.OK(tb.Do("ann", "/damage target:Lister amount:1"))
	commandstest.WantIn(t, "damage after set", out, "HP 3 → 2")
	if strings.Contains(out, "Injury table") {
		t.Errorf("damage after recovery rolled on the injury table: %q", out)
	}

	// Down (fate hidden): the player cannot raise HP; the GM can, and that
	// ends the 0-HP rules for it too.
	tb.Press("bob", tb.Do("ann", "/damage target:Lister amount:2"), "Go Down")
	tb.Refused(tb.Do("bob", "/char set name:Lister stats:hp=2"), "only a GM can raise its hp")
	commandstest.WantIn(t, "GM set", tb.OK(tb.Do("ann", "/char set name:Lister stats:hp=2")), "HP 0/6 → 2/6 · no longer down (fate hidden until attended)")
	if got := tb.OK(tb.Do("bob", "/char show name:Lister")); strings.Contains(got, "down") {
		t.Errorf("after the GM's hp=2: %q; want normal play", got)
	}

	// A no-restoring period: the player may not skip it by editing the sheet.
	// Rook: Stay Up 2d6 [3, 3] = 6 Nasty, paralysis 20 passes, 1d4 = 2 days.
	tb.OK(tb.Do("meg", `/char create name:Rook stats:"class=thief hp=1"`))
	resp = tb.Do("ann", "/damage target:Rook amount:1")
	tb.Dice.Push(3, 3, 20, 2)
	tb.OK(tb.Press("meg", resp, "Stay Up"))
	tb.OK(tb.Do("meg", "/treat target:Rook"))
	tb.Refused(tb.Do("meg", "/char set name:Rook stats:hp=3"), "no HP restoring until day 3")
	tb.OK(tb.Do("meg", `/char set name:Rook stats:"hp=0 level=2"`)) // not a raise
	commandstest.WantIn(t, "GM raises", tb.OK(tb.Do("ann", "/char set name:Rook stats:hp=3")), "HP 0/4 → 3/4")

	// Dead: only a GM changes the sheet.
	tb.OK(tb.Do("ann", "/damage target:Rook amount:3"))
	tb.Press("meg", tb.Do("ann", "/char show name:Rook"), "Go Down")
	tb.OK(tb.Do("ann", "/damage target:Rook amount:1"))
	tb.Refused(tb.Do("meg", "/char set name:Rook stats:level=3"), "Rook** is dead; only a GM can change the sheet")
	out = tb.OK(tb.Do("ann", "/char set name:Rook stats:level=3"))
	commandstest.WantIn(t, "GM edits the dead", out, "**Rook**: set level=3: HD 2/2 → 3/3 · Class: thief 3.")
	commandstest.WantIn(t, "the dead's card", tb.OK(tb.Do("ann", "/char show name:Rook")), "dead")
	tb.NoDiceLeft()
}

// TestZeroDamageOnTheDown: 0 damage is no attack on a down
// character (the reading of TestZeroDamageIsNoAttackOnTheDown).
func TestZeroDamageOnTheDown(t *testing.T) {
	tb := newParty(t)
	tb.Press("bob", tb.Do("ann", "/damage target:Lister amount:4"), "Go Down")
	out := tb.OK(tb.Do("ann", "/damage target:Lister amount:0"))
	commandstest.WantIn(t, "0 damage", out, "**Lister** takes 0 damage: down: no damage gets through, so this is no attack: no effect.")
	if strings.Contains(out, "dies") {
		t.Errorf("0 damage killed a down character: %q", out)
	}
}

// TestDamageAtZeroInNormalPlay: a character created at 0 HP (normal
// play) that takes damage gets the 0-HP choice — the reading named in
// rules/hitprot TestDamageAtZeroInNormalPlay: it is at 0 and hit.
func TestDamageAtZeroInNormalPlay(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("ann", `/char create name:Rook stats:"class=thief hp=0"`))
	resp := tb.Do("ann", "/damage target:Rook amount:1")
	commandstest.WantIn(t, "damage at 0", tb.OK(resp), "**Rook** takes 1 damage.\n**Rook** is at 0 HP")
	if got := buttons(resp); got != "[Heroic Death] [Stay Up] [Go Down]" {
		t.Errorf("buttons = %q", got)
	}
}

// TestCleanErrors: refusals are sentences, without the rule
// package's error words.
func TestCleanErrors(t *testing.T) {
	tb := newParty(t)
	tb.Press("bob", tb.Do("ann", "/damage target:Lister amount:4"), "Go Down")
	soak := tb.Do("ann", "/damage target:Lister amount:2 soak:true")
	tb.Refused(soak, "a down character cannot soak. Nothing was changed.")
	tb.Refused(tb.Do("meg", "/roll as:Meghan expr:d20 hd:2 purpose:attack"), "one hit die per attack roll for class magic-user (asked 2)")
	// Any class word reads right, without an article to get wrong ("a elf").
	tb.OK(tb.Do("ann", `/char create name:Elf stats:"class=elf level=2 hp=1"`))
	tb.Refused(tb.Do("ann", "/roll as:Elf expr:d20 hd:2 purpose:attack melee:true"), "one hit die per attack roll (melee) for class elf (asked 2)")
	tb.Refused(tb.Do("ann", "/save target:Elf type:death hd:2"), "one hit die per save for class elf (asked 2)")
	tb.OK(tb.Do("ann", "/table option name:catch-breath value:on"))
	tb.Refused(tb.Do("ann", "/rest kind:breath target:Elf"), "**Elf** cannot catch its breath: only a fighter may (class elf).")
	tb.Refused(tb.Do("bob", "/treat target:Meghan"), "Meghan** has no untreated wound")
	tb.OK(tb.Do("ann", "/char set name:Meghan stats:hd=0"))
	tb.Refused(tb.Do("meg", "/rest kind:turn"), "no hit dice left; only a night's sleep re-rolls HP")
	tb.Refused(tb.Do("ann", "/damage target:Meghan amount:1 soak:true"), "has no hit dice left to soak with")
	for _, r := range []*commands.Response{soak,
		tb.Do("meg", "/roll as:Meghan expr:d20 hd:2 purpose:attack"),
		tb.Do("meg", "/rest kind:turn"),
		tb.Do("ann", "/damage target:Meghan amount:1 soak:true"),
		tb.Do("ann", "/damage target:Lister amount:1 type:cold"),
	} {
		for _, bad := range []string{"bad input", "too many hit dice for this roll:", "no hit dice left:", "cannot restore HP:", "cannot be stopped"} {
			if strings.Contains(r.Content, bad) {
				t.Errorf("refusal %q contains %q", r.Content, bad)
			}
		}
	}
}

// TestRollHDNeedsAs: /roll hd:N without as: is refused, not ignored
// (RULES.md §1.6: hit dice are a character's).
func TestRollHDNeedsAs(t *testing.T) {
	tb := newParty(t)
	tb.Refused(tb.Do("bob", "/roll expr:d20 hd:1"), "hd needs as:<character>")
	tb.NoDiceLeft()
}

// TestAttendHiddenRefusal: a player who attends a hidden NPC whose
// bleeding nothing can stop is refused without its wound or the round it
// dies in (the NPC's numbers, RULES.md §0.1 hidden=true); its GM reads
// them.
func TestAttendHiddenRefusal(t *testing.T) {
	tb := newParty(t)
	tb.Do("ann", `/char create name:Goblin stats:"class=thief hp=2 hidden=true"`)
	resp := tb.Do("ann", "/damage target:Goblin amount:4")
	// 2d6 [6, 6] = 12 Fatal II, death save 13 passes (13), 1d4 = 3 rounds.
	tb.Dice.Push(6, 6, 13, 3)
	var choice *commands.Response
	for _, f := range resp.FollowUps {
		if len(f.Components) > 0 {
			choice = f
		}
	}
	if choice == nil {
		t.Fatalf("no follow-up with the Goblin's buttons in %+v", resp)
	}
	commandstest.WantIn(t, "GM", commandstest.FollowUp(tb.Press("ann", choice, "Stay Up")), "Fatal Wound II", "dies in 3 rounds")
	refusal := tb.Do("meg", "/attend target:Goblin")
	tb.Refused(refusal, "Goblin")
	for _, secret := range []string{"Fatal Wound", "dies", "round", "day "} {
		if strings.Contains(refusal.Content, secret) {
			t.Errorf("a player's refused /attend of the hidden Goblin says %q: %q", secret, refusal.Content)
		}
	}
	// The GM reads why, and is offered no skilled healer: it cannot help
	// a Fatal Wound II.
	gm := tb.Do("ann", "/attend target:Goblin")
	tb.Refused(gm, "nothing can prevent the Fatal Wound II")
	if strings.Contains(gm.Content, "skilled") {
		t.Errorf("the GM's refusal %q suggests a skilled healer, who cannot stop a Fatal Wound II", gm.Content)
	}
}

// TestHiddenWordStandsOrFalls: players read a hidden NPC that stayed up at
// 0 HP as "Badly wounded" (it fights on, RULES.md §1.3.5), and one that
// went down as "Down".
func TestHiddenWordStandsOrFalls(t *testing.T) {
	for _, tc := range []struct{ choice, word string }{{"Stay Up", "Badly wounded"}, {"Go Down", "Down"}} {
		t.Run(tc.choice, func(t *testing.T) {
			tb := newParty(t)
			tb.Do("ann", `/char create name:Goblin stats:"class=thief hp=2 hidden=true"`)
			resp := tb.Do("ann", "/damage target:Goblin amount:4")
			var choice *commands.Response
			for _, f := range resp.FollowUps {
				if len(f.Components) > 0 {
					choice = f
				}
			}
			if choice == nil {
				t.Fatalf("no follow-up with the Goblin's buttons in %+v", resp)
			}
			tb.Dice.Push(1, 2) // Stay Up: 2d6 [1, 2] = 3, a Flesh Wound
			tb.Press("ann", choice, tc.choice)
			list := commandstest.Text(tb.Do("meg", "/char list"))
			commandstest.WantIn(t, "a player's /char list", list, "**Goblin** (ann): "+tc.word)
			if tc.word == "Down" && strings.Contains(list, "Badly wounded") {
				t.Errorf("/char list = %q; a Goblin that went down is not badly wounded", list)
			}
		})
	}
}

// TestReadingLostLimbStaysLost is RULES.md §1.4's Reading at the table, the
// case that found it: Lister passes a Critical Wound (the use of the right
// arm lost until day 50), then fails a second one (loses the right arm);
// on day 50 the clock says nothing of the arm, and the card lists it once,
// as lost.
func TestReadingLostLimbStaysLost(t *testing.T) {
	tb := newParty(t)
	resp := tb.Do("ann", "/damage target:Lister amount:4")
	// Stay Up: 2d6 [1, 1] = 2, Unhurt.
	tb.Dice.Push(1, 1)
	tb.OK(tb.Press("bob", resp, "Stay Up"))
	// 7 + 1d6 [2] = 9, Critical Wound; save vs death 15 ≥ 12; 1d4 [2]:
	// the right arm; stunned 1d6 [1]; 2d6 [3, 4] = 7 weeks: until day 50.
	tb.Dice.Push(2, 15, 2, 1, 3, 4)
	commandstest.WantIn(t, "passed", tb.OK(tb.Do("ann", "/damage target:Lister amount:7")), "loses the use of the right arm (1d4 [2] = 2) until day 50, 00:00")
	// Again: save vs death 3 fails; 1d4 [2]: the right arm, lost; 2d4 [1,
	// 1] = 2 rounds to live; Meghan attends: 2d6 [1, 1] = 2 weeks.
	tb.Dice.Push(2, 3, 2, 1, 1)
	commandstest.WantIn(t, "failed", tb.OK(tb.Do("ann", "/damage target:Lister amount:7")), "loses the right arm (1d4 [2] = 2)")
	tb.Dice.Push(1, 1)
	tb.OK(tb.Do("meg", "/attend target:Lister"))
	show := tb.OK(tb.Do("bob", "/char show name:Lister"))
	commandstest.WantIn(t, "card", show, "lost the right arm")
	if strings.Contains(show, "no use of the right arm") {
		t.Errorf("card = %q; want the arm listed once, as lost", show)
	}
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:50 unit:days"))
	commandstest.WantIn(t, "day 50", out, "may restore HP again (day 50, 00:00)")
	if strings.Contains(out, "regains") {
		t.Errorf("clock = %q; want no limb back", out)
	}
	tb.NoDiceLeft()
}

// TestReadingLevelGainedAddsHitDie is RULES.md §1.1's Reading: a level
// gained (/char set level) adds one hit die to the current HD as well as to
// the maximum (0/2 → 1/3); a level lost removes one from each, not below 0
// (1/3 → 0/2 → 0/1).
func TestReadingLevelGainedAddsHitDie(t *testing.T) {
	tb := newParty(t)
	tb.OK(tb.Do("bob", `/char set name:Lister stats:"level=2 hd=0"`))
	commandstest.WantIn(t, "level 2", tb.OK(tb.Do("bob", "/char list")), "HD 0/2")
	tb.OK(tb.Do("bob", "/char set name:Lister stats:level=3"))
	commandstest.WantIn(t, "gained", tb.OK(tb.Do("bob", "/char list")), "HD 1/3")
	tb.OK(tb.Do("bob", "/char set name:Lister stats:level=2"))
	commandstest.WantIn(t, "lost", tb.OK(tb.Do("bob", "/char list")), "HD 0/2")
	tb.OK(tb.Do("bob", "/char set name:Lister stats:level=1"))
	commandstest.WantIn(t, "lost again", tb.OK(tb.Do("bob", "/char list")), "HD 0/1")
}
