package commands_test

import (
	"strings"
	"testing"
)

// hmwWant fails unless got contains every want.
func hmwWant(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q; want it to contain %q", what, got, w)
		}
	}
}

// TestHpMpWpFight: RULES.md §2.2's ×3 critical through /damage, then a hit
// while disabled, dying saves on /clock next-round, /attend, and WP healing.
func TestHpMpWpFight(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hp-mp-wp"))
	tb.ok(tb.do("ann", `/char create name:Vala stats:"hp-max=20 con=15 fort=2"`))
	tb.dice.Push(12)
	out := tb.ok(tb.do("ann", "/damage target:Vala amount:8 crit:3"))
	hmwWant(t, "crit", out, "8 damage, critical ×3", "HP 20 → 12 · MP 4 → 3 · WP 15 → -1",
		"critical ×3: 8 × 2 = 16 more to WP", "Fort DC 10 (reaching negative WP): 1d20 [12] = 12 +2 = 14, succeeded",
		"State: **disabled (conscious)** (was fine)", "exhausted (WP -1 ≤ 0*)", "MP max 4 → 3", "Rolled 1d20 [12] = 12")
	tb.refused(tb.do("bob", "/damage target:Vala amount:1"), "only its owner or a GM")
	tb.dice.Push(3)
	out = tb.ok(tb.do("ann", "/damage target:Vala amount:4 nonlethal:true"))
	hmwWant(t, "hit while disabled", out, "HP 12 → 8", "Fort DC 10 (hit at negative WP): 1d20 [3] = 3 +2 = 5, failed", "is dying")
	tb.dice.Push(5)
	out = tb.ok(tb.do("!gm", "/clock action:next-round"))
	hmwWant(t, "round 1", out, "Fort DC 10 (stabilize): 1d20 [5] = 5 +2 = 7, failed", "is still dying")
	tb.dice.Push(5)
	out = tb.ok(tb.do("!gm", "/clock action:next-round"))
	hmwWant(t, "round 2", out, "Fort DC 11 (stabilize)")
	tb.dice.Push(14)
	out = tb.ok(tb.do("bob", "/attend target:Vala bonus:1"))
	hmwWant(t, "attend", out, "bob attends", "Heal DC 15 (attend): 1d20 [14] = 14 +1 = 15, succeeded", "State: **stable (unconscious)** (was dying)")
	tb.refused(tb.do("bob", "/attend target:Vala"), "not dying")
	out = tb.ok(tb.do("ann", "/heal target:Vala amount:3 pool:wp"))
	hmwWant(t, "heal", out, "WP -1 → 2", "State: **fine** (was stable)")
	tb.ok(tb.do("ann", "/undo"))
	hmwWant(t, "after undo", tb.ok(tb.do("ann", "/char show name:Vala")), "WP -1/15 · stable (unconscious) · exhausted")
	if n := tb.dice.Remaining(); n != 0 {
		t.Errorf("%d dice unused", n)
	}
}

// TestHpMpWpDieHardButtons: the choice blocks damage, takes the owner or a
// GM, and a second press is refused (RULES.md §2.4).
func TestHpMpWpDieHardButtons(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hp-mp-wp"))
	tb.ok(tb.do("bob", `/char create name:Dur stats:"hp-max=5 feats=die-hard"`))
	tb.dice.Push(4)
	resp := tb.do("ann", "/damage target:Dur amount:17")
	hmwWant(t, "damage", tb.ok(resp), "WP 10 → -2", "failed", "Die Hard: must choose", "Act Disabled")
	tb.refused(tb.do("ann", "/damage target:Dur amount:1"), "must first choose")
	tb.refused(tb.press("carl", resp, "Act Disabled"), "only its owner or a GM")
	pressed := tb.press("bob", resp, "Act Disabled")
	if !pressed.UpdateMessage || !pressed.Components[0][0].Disabled {
		t.Errorf("press = %+v; want the message updated with disabled buttons", pressed)
	}
	hmwWant(t, "press", tb.ok(pressed), "bob pressed **Act Disabled**", "State: **disabled (conscious)**")
	tb.refused(tb.press("bob", resp, "Fall Unconscious"), "already made or no longer pending")
	tb.dice.Push(15)
	out := tb.ok(tb.do("bob", "/strain target:Dur"))
	hmwWant(t, "strain", out, "WP -2 → -3", "Fort DC 10 (strenuous action)", "Die Hard: stays disabled")
}

// TestHpMpWpSpendActivityAndNight: MP spending, a GM effect, work and a
// night's rest moving the clock 8 hours (RULES.md §2.3, §2.5, §2.6).
func TestHpMpWpSpendActivityAndNight(t *testing.T) {
	tb := newTable(t)
	tb.ok(tb.do("ann", "/table setup system:hp-mp-wp"))
	tb.ok(tb.do("ann", `/char create name:Mira stats:"class=wizard hp-max=8 wis=14"`))
	out := tb.ok(tb.do("ann", "/spend target:Mira resource:mp amount:7"))
	hmwWant(t, "spend", out, "MP 12 → 5", "fatigued (MP 5 ≤ 50% of 12)", "MP max 12 → 11")
	tb.refused(tb.do("ann", "/spend target:Mira resource:mp amount:6"), "not enough MP")
	tb.refused(tb.do("ann", "/spend target:Mira resource:hd amount:1"), "spend mp")
	hmwWant(t, "effect", tb.ok(tb.do("ann", `/char set name:Mira stats:"effect=exhausted"`)), "exhausted")
	tb.ok(tb.do("ann", `/char set name:Mira stats:"effect=none"`))
	tb.ok(tb.do("ann", "/activity target:Mira kind:work"))
	tb.refused(tb.do("bob", "/rest kind:night"), "Only a GM")
	out = tb.ok(tb.do("!gm", "/rest kind:night"))
	hmwWant(t, "night", out, "Night's rest, to sleep: Mira.", "The clock moves 8 hours", "MP 5 → 12", "has slept it all off and wakes")
	hmwWant(t, "clock", tb.ok(tb.do("!gm", "/clock action:show")), "day 1, 08:00")
}
