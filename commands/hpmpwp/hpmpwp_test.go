package hpmpwp_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// newTable returns a test table whose service plays the hp-mp-wp system.
func newTable(t *testing.T) *commandstest.Table {
	t.Helper()
	return commandstest.New(t, hpmpwp.System{})
}

// TestFight: RULES.md §2.2's ×3 critical through /damage, then a hit
// while disabled, dying saves on /clock next-round, /attend, and WP healing.
// At negative WP Vala is exhausted: fatigue's −2 takes Con 15 to 13, its
// modifier from +2 to +1, so every save is at Fort +2 −1 = +1 (RULES.md
// §2.3 Reading).
func TestFight(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 con=15 fort=2"`))
	tb.Dice.Push(12)
	out := tb.OK(tb.Do("ann", "/damage target:Vala amount:8 crit:3"))
	commandstest.WantIn(t, "crit", out, "**Vala** takes 8 damage, critical ×3: HP 20 → 12/20 · MP 4 → 3/4 (capped by fatigue) · WP 15 → -1/15; "+
		"Fort DC 10 (reaching negative WP): 1d20 [12] = 12, Fort +2 −1 fatigue = 13, succeeded; becomes disabled")
	// Each step of the rule is in the history.
	commandstest.WantIn(t, "crit, history", tb.OK(tb.Do("ann", "/history")), "critical ×3: WP also take the damage twice more: 2 × 8 = 16",
		"State: disabled (conscious), exhausted; was conscious", "exhausted (WP -1 ≤ 0, exhausting)", "MP max 4 → 3")
	tb.Refused(tb.Do("bob", "/damage target:Vala amount:1"), "only its owner or a GM")
	tb.Dice.Push(3)
	out = tb.OK(tb.Do("ann", "/damage target:Vala amount:4"))
	commandstest.WantIn(t, "hit while disabled", out, "HP 12 → 8", "Fort DC 10 (hit at negative WP): 1d20 [3] = 3, Fort +2 −1 fatigue = 4, failed", "is dying")
	tb.Dice.Push(5)
	out = tb.OK(tb.Do("!gm", "/clock action:next-round"))
	commandstest.WantIn(t, "round 1", out, "Fort DC 10 (stabilize): 1d20 [5] = 5, Fort +2 −1 fatigue = 6, failed", "is still dying")
	tb.Dice.Push(5)
	out = tb.OK(tb.Do("!gm", "/clock action:next-round"))
	commandstest.WantIn(t, "round 2", out, "Fort DC 11 (stabilize)")
	tb.Dice.Push(14)
	tb.OK(tb.Do("bob", `/char create name:Bors stats:"hp-max=8"`))
	out = tb.OK(tb.Do("bob", "/attend target:Vala healer:Bors bonus:1"))
	commandstest.WantIn(t, "attend", out, "**Bors** attends (a DC 15 Heal check)", "Heal DC 15 (attend): 1d20 [14] = 14 +1 = 15, succeeded; is stable: unconscious, not dying.")
	tb.Refused(tb.Do("bob", "/attend target:Vala"), "not dying")
	out = tb.OK(tb.Do("ann", "/heal target:Vala amount:3 pool:wp"))
	commandstest.WantIn(t, "heal", out, "**Vala** heals 3 WP: WP -1 → 2/15; WP back at 2: no longer stable; no longer exhausted (still fatigued).")
	tb.OK(tb.Do("ann", "/undo"))
	commandstest.WantIn(t, "after undo", tb.OK(tb.Do("ann", "/char list")), "WP -1/15 · stable (unconscious) · exhausted")
	if n := tb.Dice.Remaining(); n != 0 {
		t.Errorf("%d dice unused", n)
	}
}

// dieHard returns a table where the GM, ann, has just damaged bob's Dur
// (Die Hard) to -2 WP with a failed save, and the reply with the choice.
func dieHard(t *testing.T) (*commandstest.Table, *commands.Response) {
	t.Helper()
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("bob", `/char create name:Dur stats:"hp-max=5 feats=die-hard"`))
	tb.Dice.Push(4)
	return tb, tb.Do("ann", "/damage target:Dur amount:17")
}

// TestDieHardButtons: the choice blocks damage, takes the owner or a
// GM, and a second press is refused (RULES.md §2.4).
func TestDieHardButtons(t *testing.T) {
	tb, resp := dieHard(t)
	commandstest.WantIn(t, "damage", tb.OK(resp), "WP 10 → -2", "failed", "Die Hard: bob (its owner) or a GM chooses now", "Act Disabled")
	tb.Refused(tb.Do("ann", "/damage target:Dur amount:1"), "must first choose")
	tb.Refused(tb.Press("carl", resp, "Act Disabled"), "only its owner or a GM")
	pressed := tb.Press("bob", resp, "Act Disabled")
	if !pressed.UpdateMessage || !pressed.Components[0][0].Disabled {
		t.Errorf("press = %+v; want the message updated with disabled buttons", pressed)
	}
	commandstest.WantIn(t, "press", tb.OK(pressed), "Die Hard: bob pressed **Act Disabled** for **Dur**: acts as disabled: conscious and exhausted")
	tb.Refused(tb.Press("bob", resp, "Fall Unconscious"), "already made or no longer pending")
	// The history and /undo name the press as hit-protection's 0-HP choice
	// does, with the button's label (it read "/damage choice:act").
	commandstest.WantIn(t, "history", tb.OK(tb.Do("bob", "/history target:Dur")), "bob · pressed [Act Disabled] for Dur")
	tb.Dice.Push(15)
	out := tb.OK(tb.Do("bob", "/strain target:Dur"))
	commandstest.WantIn(t, "strain", out, "WP -2 → -3", "Fort DC 10 (strenuous action)", "Die Hard: stays disabled")
}

// TestSpendActivityAndNight: MP spending, a GM effect, work and a
// night's rest moving the clock 8 hours (RULES.md §2.3, §2.5, §2.6).
func TestSpendActivityAndNight(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Mira stats:"class=wizard hp-max=8 wis=14"`))
	out := tb.OK(tb.Do("ann", "/spend target:Mira resource:mp amount:7"))
	commandstest.WantIn(t, "spend", out, "**Mira** spends 7 MP: HP 8 → 7/8 (capped by fatigue) · MP 12 → 5/12; now fatigued.")
	commandstest.WantIn(t, "spend, card", tb.OK(tb.Do("ann", "/char show name:Mira")), "fatigued (MP 5 ≤ 50% of 12)", "MP max 12 → 11")
	tb.Refused(tb.Do("ann", "/spend target:Mira resource:mp amount:6"), "not enough MP")
	tb.Refused(tb.Do("ann", "/spend target:Mira resource:hd amount:1"), `Option resource must be mp at this hp-mp-wp table (got "hd")`)
	commandstest.WantIn(t, "effect", tb.OK(tb.Do("ann", `/char set name:Mira stats:"effect=exhausted"`)), "exhausted")
	tb.OK(tb.Do("ann", `/char set name:Mira stats:"effect=none"`))
	tb.OK(tb.Do("ann", "/activity target:Mira kind:work"))
	tb.Refused(tb.Do("bob", "/rest kind:night"), "Only a GM")
	out = tb.OK(tb.Do("!gm", "/rest kind:night"))
	commandstest.WantIn(t, "night", out, "Night's rest, to sleep until day 1, 08:00: Mira.", "The clock moves 8 hours", "MP 5 → 12",
		"day 1, 02:00: no longer fatigued", "day 1, 08:00: wakes: the night's rest is over", "slept 8 h")
	commandstest.WantIn(t, "clock", tb.OK(tb.Do("!gm", "/clock action:show")), "day 1, 08:00")
}

// TestNightKeepsEveryoneAsleep: /rest kind:night puts a fresh
// character to sleep for the whole 8 hours on the clock; it does not wake
// after the first hour with 7 hours awake (RULES.md §2.6, review finding 1).
// Called at 00:02, the night reads "until 08:02" and ends there, where the
// clock stops (issue 24: it read "until 08:00" and ended at 08:02).
func TestNightKeepsEveryoneAsleep(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("bob", `/char create name:Bob stats:"hp-max=10"`))
	tb.OK(tb.Do("ann", "/clock action:advance amount:2 unit:rounds"))
	out := tb.OK(tb.Do("ann", "/rest kind:night target:Bob"))
	commandstest.WantIn(t, "night", out, "to sleep until day 1, 08:02: Bob.", "The clock moves 8 hours: day 1, 00:02 → 08:02.", "day 1, 08:02: wakes: the night's rest is over", "slept 8 h")
	if strings.Contains(out, "01:00") {
		t.Errorf("night = %q; want nobody waking at 01:00", out)
	}
	commandstest.WantIn(t, "show", tb.OK(tb.Do("bob", "/char show name:Bob")), "awake · 0 h worked · 0 h awake")
}

// TestNightHidesHiddenSleepers: who goes to bed at a night's rest, and who
// was asleep already, is a hidden NPC's state: players read the visible
// sleepers only, the GM the hidden ones in the follow-up. A hidden NPC
// already asleep (Gob) or unconscious and so not put to bed (Orc) is not
// told apart from the others in the channel (BRIEF: hidden information
// stays hidden).
func TestNightHidesHiddenSleepers(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ann stats:"hp-max=10"`))
	tb.Private(tb.Do("!gm", `/char create name:Gob stats:"hp-max=6 con=8 hidden=true"`))
	tb.Private(tb.Do("!gm", `/char create name:Orc stats:"hp-max=6 con=8 hidden=true"`))
	tb.OK(tb.Do("!gm", "/activity target:Gob kind:sleep"))
	tb.Dice.Push(1) // Orc's save at negative WP fails: non-lethal, so unconscious and stable
	tb.OK(tb.Do("!gm", "/damage target:Orc amount:16 nonlethal:true"))
	resp := tb.Do("!gm", "/rest kind:night")
	out := tb.OK(resp)
	commandstest.WantIn(t, "night, public", out, "Night's rest, to sleep until day 1, 08:00: Ann.")
	for _, secret := range []string{"already asleep", "Gob,", "Gob (", "Ann, Gob"} {
		if strings.Contains(out, secret) {
			t.Errorf("night, public = %q; want no %q", out, secret)
		}
	}
	// Orc, not put to bed, and Gob, asleep already, are not told apart:
	// neither is named, as their words stay the same (hidden.go).
	if strings.Contains(out, "Orc") || strings.Contains(out, "Gob") {
		t.Errorf("night, public = %q; want no word of the hidden Orc or Gob, whose words did not change", out)
	}
	commandstest.WantIn(t, "night, the GM's", commandstest.FollowUp(resp), "Night's rest for the hidden characters: Gob (already asleep).")
	tb.Channel = "chan-2"
	tb.OK(tb.Do("!gm", "/table setup system:hp-mp-wp"))
	tb.Private(tb.Do("!gm", `/char create name:Imp stats:"hp-max=6 hidden=true"`))
	if out := tb.OK(tb.Do("!gm", "/rest kind:night")); strings.Contains(out, "nobody") || !strings.Contains(out, "Night's rest, to sleep until day 1, 08:00.") {
		t.Errorf("night of hidden characters alone, public = %q; want the time and no list", out)
	}
}

// TestWorkOnASleeperIsAWakeSave: /activity kind:work on a sleeper is
// the wake-early attempt (RULES.md §2.6, review finding 2): Ann, asleep with
// 11 hours worked and 2 exertion failures, saves at DC 10 + 11 + 2 × 2 = 25,
// at Will +2 −2: the failures' −4 takes Wis 10 to 6, its modifier from +0
// to −2 (RULES.md §2.3 Reading).
func TestWorkOnASleeperIsAWakeSave(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ann stats:"hp-max=10 will=2"`))
	tb.OK(tb.Do("ann", "/activity target:Ann kind:work"))
	tb.Dice.Push(1, 1, 20) // hours 9–11: DC 10, 12 failed on 1s, DC 14 passed on a 20
	tb.OK(tb.Do("ann", "/clock action:advance amount:11 unit:hours"))
	tb.OK(tb.Do("ann", "/activity target:Ann kind:sleep"))
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/char show name:Ann")), "sleep · 11 h worked", "failures 2")
	tb.Dice.Push(19)
	out := tb.OK(tb.Do("ann", "/activity target:Ann kind:work"))
	commandstest.WantIn(t, "work on a sleeper", out, "Will DC 25 (wake early): 1d20 [19] = 19, Will +2 −2 exertion = 19, failed", "sleeps on")
	tb.Dice.Push(20)
	out = tb.OK(tb.Do("ann", "/activity target:Ann kind:work"))
	commandstest.WantIn(t, "natural 20", out, "wakes early")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/char show name:Ann")), "Activity: work")
	if n := tb.Dice.Remaining(); n != 0 {
		t.Errorf("%d dice unused", n)
	}
}

// TestSetCapsAtFatiguedMaximum: the GM's effect is set with /char set
// and caps HP and MP at once (RULES.md §2.3, review finding 3): level 5, HP
// 40, MP 20; fatigued: Con and Wis −2 lower both maxima by 5.
func TestSetCapsAtFatiguedMaximum(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Lia stats:"level=5 hp-max=40 mp-max=20"`))
	out := tb.OK(tb.Do("ann", `/char set name:Lia stats:"effect=fatigued"`))
	commandstest.WantIn(t, "effect", out, "HP 40/40 → 35/40 · MP 20/20 → 15/20 · fatigued", "HP max 40 → 35; MP max 20 → 15")
	commandstest.WantIn(t, "history", tb.OK(tb.Do("ann", "/history target:Lia")), "HP 40/40 → 35/40 · MP 20/20 → 15/20")
	tb.Refused(tb.Do("ann", "/spend target:Lia resource:mp amount:20"), "20 MP needed, 15 left")
	tb.Refused(tb.Do("ann", `/char set name:Lia stats:"hp=40"`), "HP must be 0 to 35, the HP max 40 lowered while fatigued, not 40.")
	tb.Refused(tb.Do("ann", `/char set name:Lia stats:"mp=16"`), "MP must be 0 to 15")
	commandstest.WantIn(t, "lifted", tb.OK(tb.Do("ann", `/char set name:Lia stats:"effect=none hp=40 mp=20"`)), "HP 35/40 → 40/40 · MP 15/20 → 20/20 · no longer fatigued")
}

// TestDieHardNonlethal: a Die Hard character failing against
// non-lethal damage is unconscious and stable, with no choice offered
// (RULES.md §2.4, hpkeeper's reading: non-lethal wins; review finding 5).
func TestDieHardNonlethal(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("bob", `/char create name:Dur stats:"hp-max=5 feats=die-hard"`))
	tb.Dice.Push(4)
	resp := tb.Do("ann", "/damage target:Dur amount:17 nonlethal:true")
	commandstest.WantIn(t, "damage", tb.OK(resp), "failed", "non-lethal damage: unconscious and stable, no further saves; now exhausted.")
	if len(resp.Components) != 0 || strings.Contains(resp.Content, "Act Disabled") {
		t.Errorf("non-lethal failure offered a choice: %+v", resp)
	}
}

// TestAdvanceReportsEverySave: a long advance reports every save with
// its DC in /history, and sums them up in the reply with every die
// (RULES.md §0.2, review finding 6c; issue 24): 21 hours of work make 13
// exertion saves, DC 10 to 34.
func TestAdvanceReportsEverySave(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ox stats:"hp-max=10"`))
	tb.OK(tb.Do("ann", "/activity target:Ox kind:work"))
	for range 13 {
		tb.Dice.Push(20)
	}
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:21 unit:hours"))
	// The reply sums them up, with every die; the history has each.
	commandstest.WantIn(t, "advance", out, "**Ox**: Fort (exertion, hours worked) ×13: 13 succeeded (3 by 5 or more), 0 failed, DC 10–34.",
		"Rolled 13 × 1d20: 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20")
	hist := tb.OK(tb.Do("ann", "/history target:Ox"))
	for dc := 10; dc <= 34; dc += 2 {
		commandstest.WantIn(t, "history", hist, fmt.Sprintf("Fort DC %d (exertion", dc))
	}
}

// TestHealRollOfZero: a healing roll of 0 or less heals nothing
// (review finding 7), like damage.
func TestHealRollOfZero(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Pel stats:"hp-max=10 hp=4"`))
	tb.Dice.Push(2)
	out := tb.OK(tb.Do("ann", "/heal target:Pel amount:1d4-5"))
	commandstest.WantIn(t, "heal", out, "No healing (the roll came to 0).")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/char list")), "HP 4/10")
}

// TestDieHardSeveralTargets: each row of Die Hard buttons names its
// character, and a press keeps the rows of the others still choosing
// (RULES.md §2.4, review finding 9).
func TestDieHardSeveralTargets(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("bob", `/char create name:Dur stats:"hp-max=5 feats=die-hard"`))
	tb.OK(tb.Do("carl", `/char create name:Kor stats:"hp-max=5 feats=die-hard"`))
	tb.Dice.Push(4, 4)
	resp := tb.Do("ann", "/damage target:Dur,Kor amount:17")
	commandstest.WantIn(t, "damage", tb.OK(resp), "Die Hard: bob (its owner) or a GM chooses now", "Damage to **Dur** waits", "Die Hard: carl (its owner) or a GM chooses now", "Damage to **Kor** waits")
	if len(resp.Components) != 2 || resp.Components[0][0].Label != "Dur" || !resp.Components[0][0].Disabled || resp.Components[1][0].Label != "Kor" {
		t.Fatalf("rows = %+v; want a row led by a disabled Dur, then Kor", resp.Components)
	}
	pressed := tb.PressRow("carl", resp, 1, "Fall Unconscious")
	commandstest.WantIn(t, "press", tb.OK(pressed), "carl pressed **Fall Unconscious** for **Kor**", "**Dur**: Die Hard choice pending.")
	rows := pressed.Components
	if len(rows) != 2 || rows[0][0].Label != "Dur" || rows[0][1].Disabled || rows[1][0].Label != "Kor" || !rows[1][1].Disabled {
		t.Fatalf("rows after Kor's press = %+v; want Dur's row still enabled, Kor's disabled, in the order offered", rows)
	}
	commandstest.WantIn(t, "second press", tb.OK(tb.PressRow("bob", pressed, 0, "Act Disabled")), "bob pressed **Act Disabled** for **Dur**")
}

// TestStateWords: what a player would say (issue 15): at 0 HP and
// exhausted a character is conscious and exhausted, not "fine"; the dead
// are dead, with no fatigue; a ×2 critical hit is written as the rule says
// it (RULES.md §2.2).
func TestStateWords(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=10 con=12"`))
	out := tb.OK(tb.Do("ann", "/damage target:Vala amount:10"))
	commandstest.WantIn(t, "0 HP", out, "**Vala** takes 10 damage: HP 10 → 0/10 · MP 4 → 3/4 (capped by fatigue); now exhausted.")
	commandstest.WantIn(t, "0 HP, card", tb.OK(tb.Do("ann", "/char show name:Vala")), "Conditions: exhausted", "exhausted (HP 0, exhausting)")
	if strings.Contains(out, "fine") {
		t.Errorf("damage to 0 HP = %q; want no \"fine\"", out)
	}
	out = tb.OK(tb.Do("ann", "/damage target:Vala amount:3 crit:2"))
	commandstest.WantIn(t, "crit 2", out, "**Vala** takes 3 damage, critical ×2: WP 12 → 6/12.")
	commandstest.WantIn(t, "crit 2, history", tb.OK(tb.Do("ann", "/history")), "critical ×2: WP also take the damage once more: 3")
	tb.OK(tb.Do("ann", `/char set name:Vala stats:"state=dead"`))
	out = tb.OK(tb.Do("ann", "/char show name:Vala"))
	commandstest.WantIn(t, "dead", out, "Conditions: dead")
	for _, not := range []string{"exhausted", "fatigued", "−2 to all abilities"} {
		if strings.Contains(out, not) {
			t.Errorf("a dead character's sheet says %q: %q", not, out)
		}
	}
}

// TestDieHardAfterUndoneDamage: the Die Hard buttons of undone damage say
// the message is out of date because of the undo.
func TestDieHardAfterUndoneDamage(t *testing.T) {
	tb, resp := dieHard(t)
	tb.OK(tb.Do("ann", "/undo"))
	tb.Refused(tb.Press("bob", resp, "Act Disabled"), "This message is out of date: the damage it answers (#3) was undone, so **Dur** has no Die Hard choice to make here.")
}

// TestPendingChoiceOnShow: /char show offers a pending Die Hard
// choice's buttons again to the owner or a GM (Chooser), e.g. after /undo
// brought the choice back; the damage refusal says so.
func TestPendingChoiceOnShow(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("bob", `/char create name:Dur stats:"hp-max=5 feats=die-hard"`))
	tb.Dice.Push(4)
	resp := tb.Do("ann", "/damage target:Dur amount:17")
	tb.OK(tb.Press("bob", resp, "Act Disabled"))
	commandstest.WantIn(t, "show after the choice", tb.OK(tb.Do("bob", "/char show name:Dur")), "disabled (conscious)")
	tb.OK(tb.Do("bob", "/undo"))
	tb.Refused(tb.Do("ann", "/damage target:Dur amount:1"), "`/char show name:Dur` offers the buttons again")
	if show := tb.Do("carl", "/char show name:Dur"); len(show.Components) != 0 {
		t.Errorf("show to a stranger = %+v; want no buttons", show.Components)
	}
	show := tb.Do("bob", "/char show name:Dur")
	commandstest.WantIn(t, "show", tb.OK(show), "Die Hard: **Dur** must choose", "Conditions: choosing (Die Hard)")
	if strings.Contains(tb.OK(show), "stable") && !strings.Contains(tb.OK(show), "(stable)") {
		t.Errorf("show of a pending Die Hard choice names a state it may never reach: %q", tb.OK(show))
	}
	if len(show.Components) != 1 || show.Components[0][0].Disabled {
		t.Fatalf("show buttons = %+v; want one enabled row", show.Components)
	}
	commandstest.WantIn(t, "press from show", tb.OK(tb.Press("bob", show, "Fall Unconscious")), "bob pressed **Fall Unconscious**", "falls unconscious, stable")
	tb.Refused(tb.Press("bob", resp, "Act Disabled"), "already made or no longer pending")
	if show := tb.Do("bob", "/char show name:Dur"); len(show.Components) != 0 {
		t.Errorf("show after the choice = %+v; want no buttons", show.Components)
	}
}

// TestUnconsciousHoursCountAsSleep: hpkeeper's reading of RULES.md
// §2.6 (review finding 4): a worker knocked out sleeps off its work while
// unconscious, without waking, and does not come to with the full debt.
func TestUnconsciousHoursCountAsSleep(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Wen stats:"hp-max=5"`))
	tb.OK(tb.Do("ann", "/activity target:Wen kind:work"))
	tb.OK(tb.Do("ann", "/clock action:advance amount:5 unit:hours"))
	tb.Dice.Push(2)
	commandstest.WantIn(t, "knocked out", tb.OK(tb.Do("ann", "/damage target:Wen amount:16 nonlethal:true")), "unconscious and stable")
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:6 unit:hours"))
	commandstest.WantIn(t, "advance", out, "unconscious 6 h (counts as sleep): 5 h worked slept off")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/char show name:Wen")), "stable (unconscious)", "work · 0 h worked · 0 h awake")
}

var randomSeed = flag.Uint64("hpmpwp.seed", 0, "seed of TestRandomCommands (0: from the clock)")

// TestRandomCommands runs random command sequences, /char set among
// them, through the command layer and checks the sheet after each: HP and
// MP within 0 and the maxima lowered by fatigue (RULES.md §2.3), the state
// consistent with WP (§2.4), and only a sleeper keeps a sleep-until time.
func TestRandomCommands(t *testing.T) {
	seed := *randomSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-hpmpwp.seed=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	db := commandstest.OpenDB(t)
	svc := commands.New(db, dice.NewRandom(seed), []commands.System{hpmpwp.System{}}, commandstest.Features()...)
	do := func(user, line string) *commands.Response {
		tb := &commandstest.Table{T: t, Svc: svc, DB: db, Channel: "rand"}
		return tb.Do(user, line)
	}
	do("!gm", "/table setup system:hp-mp-wp")
	do("!gm", `/char create name:A stats:"level=5 hp-max=40 mp-max=20 feats=die-hard"`)
	do("!gm", `/char create name:B stats:"level=3 class=wizard hp-max=15 con=12 wis=14 feats=endurance fort=2"`)
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var last *commands.Response
	for step := range 400 {
		who := pick("A", "B", "A,B")
		one := pick("A", "B")
		var line string
		switch rng.IntN(12) {
		case 0, 1:
			line = fmt.Sprintf("/damage target:%s amount:%d", who, 1+rng.IntN(25))
			if rng.IntN(3) == 0 {
				line += fmt.Sprintf(" crit:%d", 2+rng.IntN(3))
			}
			if rng.IntN(3) == 0 {
				line += " nonlethal:true"
			}
		case 2:
			line = fmt.Sprintf("/heal target:%s amount:%d pool:%s", who, 1+rng.IntN(10), pick("hp", "wp"))
		case 3:
			line = fmt.Sprintf("/spend target:%s resource:mp amount:%d", one, 1+rng.IntN(8))
		case 4:
			line = fmt.Sprintf("/activity target:%s kind:%s", who, pick("awake", "work", "sleep"))
		case 5:
			line = fmt.Sprintf("/clock action:advance amount:%d unit:%s", 1+rng.IntN(12), pick("rounds", "hours", "hours"))
		case 6:
			line = "/rest kind:night"
		case 7, 8:
			stats := []string{
				"effect=" + pick("none", "fatigued", "exhausted"),
				fmt.Sprintf("hp=%d", rng.IntN(41)), fmt.Sprintf("mp=%d", rng.IntN(21)),
				fmt.Sprintf("wp=%d", rng.IntN(20)-8), fmt.Sprintf("con=%d", 3+rng.IntN(14)),
				fmt.Sprintf("wis=%d", 3+rng.IntN(14)), fmt.Sprintf("level=%d", 1+rng.IntN(8)),
				"state=" + pick("fine", "disabled", "dying", "stable"),
			}
			rng.Shuffle(len(stats), func(i, j int) { stats[i], stats[j] = stats[j], stats[i] })
			line = fmt.Sprintf(`/char set name:%s stats:"%s"`, one, strings.Join(stats[:1+rng.IntN(3)], " "))
		case 9:
			line = fmt.Sprintf("/strain target:%s", one)
		case 10:
			if last != nil && len(last.Components) > 0 {
				row := last.Components[rng.IntN(len(last.Components))]
				b := row[len(row)-1-rng.IntN(2)]
				last = svc.Handle(context.Background(), &commands.Request{Kind: commands.KindComponent, ChannelID: "rand",
					GuildID: "g1", UserID: "gm", UserName: "gm", Permissions: commands.ManageChannels, CustomID: b.CustomID})
			}
		default:
			line = pick("/undo", fmt.Sprintf("/attend target:%s bonus:%d", one, rng.IntN(10)), fmt.Sprintf("/char show name:%s", one))
		}
		if line != "" {
			last = do("!gm", line)
		}
		err := db.View(func(tx *storage.Tx) error {
			for _, name := range []string{"A", "B"} {
				ch, err := tx.CharacterByName("rand", name)
				if errors.Is(err, storage.ErrNotFound) {
					continue // an /undo took back its creation
				}
				if err != nil {
					return err
				}
				var s struct {
					Level, Con, Wis, HP, MP, WP int
					HPMax                       int `json:"hp_max"`
					MPMax                       int `json:"mp_max"`
					State, Effect, Activity     string
					ExertionFailures            int   `json:"exertion_failures"`
					SleepUntil                  int64 `json:"sleep_until"`
				}
				if err := json.Unmarshal(ch.Sheet, &s); err != nil {
					return err
				}
				c := rules.New("fighter", s.Level, s.HPMax)
				c.Con, c.Wis, c.HP, c.MPMax, c.MP, c.WP, c.ExertionFailures = s.Con, s.Wis, s.HP, s.MPMax, s.MP, s.WP, s.ExertionFailures
				if s.Effect != "" {
					c.Effect, _ = rules.ParseEffect(s.Effect)
				}
				switch {
				case c.HP < 0 || c.HP > c.EffectiveHPMax() || c.MP < 0 || c.MP > c.EffectiveMPMax():
					return fmt.Errorf("%s out of range: HP %d/%d (lowered %d), MP %d/%d (lowered %d)", name, c.HP, c.HPMax, c.EffectiveHPMax(), c.MP, c.MPMax, c.EffectiveMPMax())
				case s.State != "dead" && (c.WP < 0) == (s.State == ""):
					return fmt.Errorf("%s: state %q with WP %d", name, s.State, c.WP)
				case s.SleepUntil != 0 && s.Activity != "sleep":
					return fmt.Errorf("%s: %q with a sleep-until time", name, s.Activity)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("seed %d step %d after %q: %v", seed, step, line, err)
		}
	}
}

// TestRefusesOtherSystemsOptions: options of shared commands that
// hp-mp-wp does not use are refused, never silently ignored.
func TestRefusesOtherSystemsOptions(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", "/char create name:Vala stats:hp-max=20"))
	tb.Refused(tb.Do("ann", "/heal target:Vala amount:2 pool:vigor"), `Option pool must be one of hp, wp at this hp-mp-wp table (got "vigor")`)
	tb.Refused(tb.Do("ann", "/heal target:Vala amount:2 trigger:rest"), "/heal trigger: is not used by the hp-mp-wp system")
	tb.Refused(tb.Do("ann", "/damage target:Vala amount:2 soak:true"), "/damage soak: is not used by the hp-mp-wp system")
	tb.Refused(tb.Do("ann", "/attend target:Vala skilled:true"), "/attend skilled: is not used by the hp-mp-wp system")
	tb.Refused(tb.Do("ann", "/attend target:Vala healer:Vala"), "Vala cannot give itself the care")
}

// TestFatigueFloor is RULES.md §2.3's example through the commands: a
// fighter 5 with MP max 8 and Wis 10 at half HP is capped at the floor MP
// 5, not at 3, and healing ends the fatigue; the next hour refills MP.
func TestFatigueFloor(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Brom stats:"level=5 hp-max=40 mp-max=8"`))
	tb.Dice.Push(10, 10)
	out := tb.OK(tb.Do("ann", "/damage target:Brom amount:2d10"))
	commandstest.WantIn(t, "damage", out, "**Brom** takes 2d10 [10, 10] = 20 damage: HP 40 → 20/40 · MP 8 → 5/8 (capped by fatigue); now fatigued.")
	commandstest.WantIn(t, "damage, history", tb.OK(tb.Do("ann", "/history")), "fatigued (HP 20 ≤ 50% of 40)", "MP max 8 → 5")
	if strings.Contains(out, "MP 5 ≤") {
		t.Errorf("damage = %q; want MP 5 of 8 above the 50%% line", out)
	}
	out = tb.OK(tb.Do("ann", "/heal target:Brom amount:20"))
	commandstest.WantIn(t, "heal", out, "HP 20 → 35", "no longer fatigued")
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:1 unit:hours"))
	commandstest.WantIn(t, "an hour", out, "**Brom**: HP 35 → 40/40 · MP 5 → 8/8.")
	tb.NoDiceLeft()
}

// TestAwakeAfterWork is RULES.md §2.6's corrected trigger through the
// commands: a barbarian works 9 hours (one save, DC 10) and stays awake; the
// hours up to 16 awake roll nothing, the 17th saves at DC 12.
func TestAwakeAfterWork(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Krag stats:"class=barbarian hp-max=12 fort=2"`))
	tb.OK(tb.Do("ann", "/activity target:Krag kind:work"))
	tb.Dice.Push(11)
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:9 unit:hours"))
	commandstest.WantIn(t, "workday", out, "Fort DC 10 (exertion, hours worked): 1d20 [11] = 11 +2 = 13, succeeded")
	tb.OK(tb.Do("ann", "/activity target:Krag kind:awake"))
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:7 unit:hours"))
	if strings.Contains(out, "exertion") || strings.Contains(out, "Rolled") {
		t.Errorf("hours 10–16 awake = %q; want no exertion save", out)
	}
	tb.Dice.Push(9)
	out = tb.OK(tb.Do("ann", "/clock action:advance amount:1 unit:hours"))
	commandstest.WantIn(t, "17th hour awake", out, "Fort DC 12 (exertion, hours awake): 1d20 [9] = 9 +2 = 11, failed", "exertion failure 1: −2 to all abilities")
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/char show name:Krag")), "awake · 9 h worked · 17 h awake · exertion saves 2, failures 1")
	tb.NoDiceLeft()
}

// TestLongAdvanceSummary: an advance of more than DetailHours sums up each
// character instead of a line per hour (RULES.md §0.2): Ox stays awake for
// 48 hours (awake:true), hours awake 17–48 save on natural 20s, DC 10 to 72.
func TestLongAdvanceSummary(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ox stats:"hp-max=10 mp-max=0"`))
	for range 32 {
		tb.Dice.Push(20)
	}
	out := tb.OK(tb.Do("ann", "/clock action:advance amount:2 unit:days awake:true"))
	commandstest.WantIn(t, "summary", out, "The clock moves 2 days: day 1, 00:00 → day 3, 00:00.",
		"**Ox**: Fort (exertion, hours awake) ×32: 32 succeeded (3 by 5 or more), 0 failed, DC 10–72. Rolled 32 × 1d20: 20, 20,")
	if strings.Contains(out, "day 1, 17:00:") || strings.Contains(out, "natural 20") {
		t.Errorf("summary = %q; want no line per hour", out)
	}
	commandstest.WantIn(t, "history", tb.OK(tb.Do("ann", "/history target:Ox")), "Fort (exertion, hours awake) ×32")
	tb.NoDiceLeft()
}

// TestStallScript is issue 14's script: one character at a new table and
// /clock action:advance amount:10000 unit:days. It is refused before any
// work with the limit; the longest advance allowed, 90 days, is summed up,
// and what it stores stays bounded: the event lists at most
// MaxRecordedRolls rolls and then counts them, its summary has a few lines a
// character, and the reply fits Discord. (Its time is measured by
// BenchmarkWorstCase, not here.)
func TestStallScript(t *testing.T) {
	db := commandstest.OpenDB(t)
	src := &countingDice{Source: dice.NewRandom(14)}
	tb := &commandstest.Table{T: t, Svc: commands.New(db, src, []commands.System{hpmpwp.System{}}, commandstest.Features()...), DB: db, Channel: "dm"}
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ox stats:"hp-max=10 mp-max=0"`))
	tb.Refused(tb.Do("ann", "/clock action:advance amount:10000 unit:days"), "The clock moves at most 90 days in one command")
	src.n = 0
	resp := tb.Do("ann", "/clock action:advance amount:90 unit:days awake:true")
	out := tb.OK(resp)
	commandstest.WantIn(t, "90 days", out, "The clock moves 90 days", "**Ox**: Fort (exertion, hours awake) ×", "; wakes ×", "Rolled 500 × 1d20: ", "more rolls, not listed: an event lists 500.")
	if n := len([]rune(resp.Content)); n > 2000 {
		t.Errorf("reply of %d characters", n)
	}
	err := db.View(func(tx *storage.Tx) error {
		e, err := tx.Event("dm", 3)
		if err != nil {
			return err
		}
		if len(e.Dice) != commands.MaxRecordedRolls+1 || !strings.HasPrefix(e.Dice[len(e.Dice)-1], "… and ") || !strings.HasSuffix(e.Dice[len(e.Dice)-1], " more rolls") {
			t.Errorf("event dice: %d entries ending %q; want %d listed and the rest counted", len(e.Dice), e.Dice[len(e.Dice)-1], commands.MaxRecordedRolls)
		}
		// Every die rolled is listed or counted, once.
		if want := fmt.Sprintf("… and %d more rolls", src.n-commands.MaxRecordedRolls); e.Dice[len(e.Dice)-1] != want {
			t.Errorf("event dice end %q; %d dice were rolled, so want %q", e.Dice[len(e.Dice)-1], src.n, want)
		}
		if lines := strings.Count(e.Summary, "\n") + 1; lines > 12 {
			t.Errorf("event summary of %d lines:\n%s", lines, e.Summary)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRefusalKeepsHiddenState: a player's refused /attend of a hidden NPC
// does not say why (that it is not dying would tell its state); the GM's
// refusal does.
func TestRefusalKeepsHiddenState(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.Private(tb.Do("ann", `/char create name:Gob stats:"hp-max=9 hidden=true"`))
	player := tb.Do("bob", "/attend target:Gob")
	tb.Refused(player, "**Gob** is hidden, so the bot cannot tell you why")
	if strings.Contains(player.Content, "dying") || strings.Contains(player.Content, "stabilize") {
		t.Errorf("a player's refused /attend of the hidden Gob = %q; it tells its state", player.Content)
	}
	tb.Refused(tb.Do("ann", "/attend target:Gob"), "Gob is not dying; there is nothing to stabilize")
	// A refusal that tells nothing of the state passes unchanged.
	tb.Refused(tb.Do("bob", "/damage target:Gob amount:1"), "only its owner or a GM")
}

// countingDice counts the dice rolled through it.
type countingDice struct {
	dice.Source
	n int
}

func (c *countingDice) Roll(d dice.Die) (int, error) {
	c.n++
	return c.Source.Roll(d)
}

// TestReadingFortWillUnderFatigue is RULES.md §2.3's Reading at the table:
// /save type:fort|will and every save of §2.4 use the sheet's (rested) Fort
// and Will lowered by the penalties of the moment, and say so. Vala: Con
// 15, Wis 10, Fort +2, Will +1, HP max 20.
func TestReadingFortWillUnderFatigue(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20 con=15 fort=2 will=1"`))
	// Rested: d20 10 + 2 = 12.
	tb.Dice.Push(10)
	commandstest.WantIn(t, "rested", tb.OK(tb.Do("ann", "/save target:Vala type:fort")), "**Vala** Fort save: 1d20 [10] = 10 +2 = 12")
	// 10 damage: HP 10 ≤ 50% of 20, fatigued: −2 takes Con 15 to 13 (+2 →
	// +1) and Wis 10 to 8 (+0 → −1). Fort: 10 + 2 − 1 + 1 (bonus) = 12;
	// Will: 10 + 1 − 1 = 10.
	tb.OK(tb.Do("ann", "/damage target:Vala amount:10"))
	tb.Dice.Push(10, 10)
	commandstest.WantIn(t, "fatigued fort", tb.OK(tb.Do("ann", "/save target:Vala type:fort bonus:1")), "**Vala** Fort save: 1d20 [10] = 10, Fort +2 −1 fatigue +1 = 12")
	commandstest.WantIn(t, "fatigued will", tb.OK(tb.Do("ann", "/save target:Vala type:will")), "**Vala** Will save: 1d20 [10] = 10, Will +1 −1 fatigue = 10")
	// The sheet keeps the rested values and shows what they are now.
	commandstest.WantIn(t, "show", tb.OK(tb.Do("ann", "/char show name:Vala")), "Fort +2 · Will +1; −1 fatigue: Fort +1 · Will +0")
	// 10 more: HP 0. Then 19: WP 15 → −4, DC 10 at Fort +2 −1 = +1: d20 9
	// gives 10, disabled (with the rested +2 it would give 11).
	tb.OK(tb.Do("ann", "/damage target:Vala amount:10"))
	tb.Dice.Push(9)
	commandstest.WantIn(t, "negative WP", tb.OK(tb.Do("ann", "/damage target:Vala amount:19")),
		"WP 15 → -4", "Fort DC 10 (reaching negative WP): 1d20 [9] = 9, Fort +2 −1 fatigue = 10, succeeded", "becomes disabled")
	tb.NoDiceLeft()
}

// TestReadingNonlethalAtNegativeWP is RULES.md §2.4's Reading at the
// table: every non-lethal hit at negative WP, not only the one that
// crosses 0, leaves a character whose save fails unconscious and stable,
// never dying or dead. Vala (HP max 10, Con 10, Fort +0) is disabled at WP
// −1; exhausted there, she saves at Fort +0 −1 fatigue.
func TestReadingNonlethalAtNegativeWP(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("ann", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=10"`))
	tb.Dice.Push(15) // 21 damage: HP 10 → 0, WP 10 → −1, DC 10: 15 − 1 = 14, disabled
	commandstest.WantIn(t, "reach", tb.OK(tb.Do("ann", "/damage target:Vala amount:21")), "becomes disabled")
	// Non-lethal 4: WP −1 → −5, DC 11: 1 − 1 = 0 fails by 11, which a
	// lethal hit would make dead; non-lethal, she is stable.
	tb.Dice.Push(1)
	out := tb.OK(tb.Do("ann", "/damage target:Vala amount:4 nonlethal:true"))
	commandstest.WantIn(t, "non-lethal", out, "**Vala** takes 4 damage, non-lethal: WP -1 → -5/10; "+
		"Fort DC 11 (hit at negative WP): 1d20 [1] = 1, Fort +0 −1 fatigue = 0, failed by 10 or more; "+
		"non-lethal damage: unconscious and stable, no further saves.")
	// Stable, another non-lethal hit rolls nothing and leaves her stable;
	// the next round makes no save either.
	out = tb.OK(tb.Do("ann", "/damage target:Vala amount:2 nonlethal:true"))
	commandstest.WantIn(t, "stable", out, "WP -5 → -7", "non-lethal damage: stays stable")
	commandstest.WantIn(t, "round", tb.OK(tb.Do("!gm", "/clock action:next-round")), "Nothing ended or fired.")
	tb.NoDiceLeft()
}

// TestWokenByANoise: /wake (RULES.md §2.6): a noise reaches a sleeper whose
// player made a Listen check; it wakes unless it succeeds at a Will save
// against the Listen DC, or at once with stay-asleep:false; one event that
// /undo takes back. Ann: Will +2, rested (no fatigue adjustment).
func TestWokenByANoise(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ann stats:"hp-max=10 will=2"`))
	tb.Refused(tb.Do("ann", "/wake target:Ann listen-dc:12"), "Ann is not asleep")
	tb.OK(tb.Do("ann", "/activity target:Ann kind:sleep"))
	// DC 12: 10 + 2 = 12 sleeps on; 9 + 2 = 11 wakes.
	tb.Dice.Push(10)
	commandstest.WantIn(t, "sleeps on", tb.OK(tb.Do("ann", "/wake target:Ann listen-dc:12")),
		"Will DC 12 (woken by a noise, the Listen DC): 1d20 [10] = 10 +2 = 12, succeeded", "sleeps on through the noise")
	tb.Refused(tb.Do("bob", "/wake target:Ann listen-dc:12"), "only its owner or a GM")
	tb.Dice.Push(9)
	commandstest.WantIn(t, "wakes", tb.OK(tb.Do("gm", "/wake target:Ann listen-dc:12")),
		"1d20 [9] = 9 +2 = 11, failed", "wakes to the noise")
	commandstest.WantIn(t, "awake", tb.OK(tb.Do("ann", "/char show name:Ann")), "Activity: awake")
	tb.OK(tb.Do("gm", "/undo"))
	commandstest.WantIn(t, "undone", tb.OK(tb.Do("ann", "/char show name:Ann")), "Activity: sleep")
	// stay-asleep:false: the owner fails the save on purpose, no die.
	commandstest.WantIn(t, "on purpose", tb.OK(tb.Do("ann", "/wake target:Ann listen-dc:30 stay-asleep:false")),
		"a noise (Listen DC 30): fails the Will save on purpose and wakes")
	tb.NoDiceLeft()
}

// TestReadingSleepWithNothingToSleepOff is RULES.md §2.6's Reading at the
// table: sent to sleep with no hour worked and no exertion failure, a
// character sleeps one hour and wakes, and the reply says so.
func TestReadingSleepWithNothingToSleepOff(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Ann stats:"hp-max=10"`))
	tb.OK(tb.Do("gm", "/clock action:advance amount:16 unit:rounds"))
	commandstest.WantIn(t, "sleep", tb.OK(tb.Do("ann", "/activity target:Ann kind:sleep")),
		"goes to sleep with nothing to sleep off (no hour worked, no exertion failure): sleeps one hour and wakes at day 1, 01:00")
	commandstest.WantIn(t, "hour", tb.OK(tb.Do("gm", "/clock action:advance amount:1 unit:hours")),
		"**Ann**: day 1, 01:00: wakes after an hour's sleep (nothing to sleep off); slept 1 h.")
	// The same Reading leaves the forced march's Will save (DC 10) to the
	// GM: /save with the Will bonus, 9 + 0 = 9.
	tb.Dice.Push(9)
	commandstest.WantIn(t, "forced march", tb.OK(tb.Do("gm", "/save target:Ann type:will")), "**Ann** Will save: 1d20 [9] = 9")
	tb.NoDiceLeft()
}

// TestHiddenDieHardChoiceStands: a hidden NPC whose Die Hard choice is
// pending takes its turns (its choice is not made for it), so players read
// it as standing, "Badly wounded", never "Down" of one that then acts
// (issue 24); its GM reads "choosing (Die Hard)".
func TestHiddenDieHardChoiceStands(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("gm", "/table setup system:hp-mp-wp"))
	tb.OK(tb.Do("ann", `/char create name:Vala stats:"hp-max=20"`))
	tb.Private(tb.Do("gm", `/char create name:Orc stats:"hp-max=5 feats=die-hard hidden=true"`))
	tb.Dice.Push(4)
	resp := tb.Do("gm", "/damage target:Orc amount:17")
	commandstest.WantIn(t, "players", tb.OK(resp), "**Orc**: Badly wounded")
	commandstest.WantIn(t, "the GM", commandstest.FollowUp(resp), "Die Hard: gm (its owner) or a GM chooses now")
	show := tb.Do("gm", "/char show name:Orc")
	commandstest.WantIn(t, "the GM's /char show", commandstest.Text(show)+commandstest.FollowUp(show), "Conditions: choosing (Die Hard)")
	tb.OK(tb.Do("gm", "/init start"))
	tb.OK(tb.Do("ann", "/init join target:Vala roll:2"))
	tb.Do("gm", "/init join target:Orc roll:9")
	out := tb.OK(tb.Do("gm", "/init next"))
	commandstest.WantIn(t, "round 1", out, "It is **Orc**'s turn.")
	if strings.Contains(out, "cannot act") {
		t.Errorf("round 1 = %q; want the choosing Orc to take its turn", out)
	}
	tb.NoDiceLeft()
}
