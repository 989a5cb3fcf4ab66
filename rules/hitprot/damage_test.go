package hitprot

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// lister is the Lister of RULES.md §1.3: a level-1 fighter with a d6 hit die
// and 4 HP.
func lister() Character {
	c := New(Fighter, 1)
	c.HitDie, c.HP = 6, 4
	return c
}

// TestListerExample plays RULES.md §1.3 item 5 with scripted dice: reduced to
// 0, Stay Up, 2d6 rolls [1, 2] = 3 → Flesh Wound; then 7 damage, 1d6 rolls
// 2 → 9 → Critical Wound.
func TestListerExample(t *testing.T) {
	c := lister()
	src := dice.NewScripted()
	c, _, res, err := c.TakeDamage(src, Hit{Amount: 4})
	if err != nil || c.HP != 0 || c.Status != Choosing || !res.ReachedZero {
		t.Fatalf("TakeDamage(4) = HP %d, %v, %+v, %v; want HP 0 with the 0-HP choice pending", c.HP, c.Status, res, err)
	}
	if _, _, _, err := c.TakeDamage(src, Hit{Amount: 1}); !errors.Is(err, ErrChoicePending) {
		t.Errorf("damage while choosing: %v; want ErrChoicePending", err)
	}
	src.Push(1, 2)
	c, o, err := c.StayUp(src, 0)
	if err != nil || o.Injury == nil || o.Injury.Total != 3 || o.Injury.Band != FleshWound {
		t.Fatalf("StayUp = %+v, %v; want 2d6 = 3, Flesh Wound", o.Injury, err)
	}
	if got := o.Injury.Roll.String(); got != "2d6 [1, 2] = 3" {
		t.Errorf("Stay Up roll = %q", got)
	}
	if c.Status != StayingUp || c.Untreated != 1 {
		t.Errorf("after Flesh Wound: %v, %d untreated; want staying up with 1 untreated wound", c.Status, c.Untreated)
	}
	// 7 damage, 1d6 rolls 2 → 9 → Critical Wound; the save vs death (12)
	// passes with 15, 1d4 = 3 (left leg), stunned 1d6 = 4 rounds, 2d6 = 5 weeks.
	src.Push(2, 15, 3, 4, 2, 3)
	c, o, res, err = c.TakeDamage(src, Hit{Amount: 7, Now: 10})
	if err != nil || o.Injury.Total != 9 || o.Injury.Band != CriticalWound || o.Injury.Damage != 7 {
		t.Fatalf("second hit = %+v, %v; want 7 + 1d6 [2] = 9, Critical Wound", o.Injury, err)
	}
	if len(o.Saves) != 1 || o.Saves[0].Category != SaveDeath || !o.Saves[0].Passed {
		t.Errorf("saves = %+v; want one passed save vs death", o.Saves)
	}
	if c.StunnedUntil != 14 || len(c.Limbs) != 1 || c.Limbs[0].Name != "left leg" || c.Limbs[0].Lost {
		t.Errorf("after the Critical Wound: stun %d, limbs %+v", c.StunnedUntil, c.Limbs)
	}
	if c.NoRestoreUntil != 10+5*7*clock.RoundsPerDay || c.Untreated != 2 {
		t.Errorf("no restoring until %d, %d untreated; want 5 weeks, 2", c.NoRestoreUntil, c.Untreated)
	}
	if src.Remaining() != 0 {
		t.Errorf("%d dice unused", src.Remaining())
	}
}

// TestSoakExample is RULES.md §1.3 item 1: 4 damage, soak with d4 rolling 3
// → 1 damage taken, HD 1 fewer (Meghan and the goblin's arrow).
func TestSoakExample(t *testing.T) {
	c := New(MagicUser, 3)
	c.HP = 3
	c, o, res, err := c.TakeDamage(dice.NewScripted(3), Hit{Amount: 4, Soak: true})
	if err != nil || res.Soaked != 3 || res.Taken != 1 || c.HP != 2 || c.HD != 2 {
		t.Fatalf("soak = %+v HP %d HD %d, %v; want 1 taken, HP 2, HD 2", res, c.HP, c.HD, err)
	}
	if len(o.Rolls) != 1 || o.Rolls[0].String() != "1d4 [3] = 3" {
		t.Errorf("rolls = %v", o.Rolls)
	}
	// Soak never lowers damage below 0; with no HD it is refused.
	c, _, res, _ = c.TakeDamage(dice.NewScripted(4), Hit{Amount: 2, Soak: true})
	if res.Taken != 0 || c.HP != 2 {
		t.Errorf("over-soak took %d, HP %d; want 0, 2", res.Taken, c.HP)
	}
	c.HD = 0
	if _, _, _, err := c.TakeDamage(dice.NewScripted(4), Hit{Amount: 2, Soak: true}); !errors.Is(err, ErrNoHD) {
		t.Errorf("soak with 0 HD: %v; want ErrNoHD", err)
	}
}

func TestDamageBasics(t *testing.T) {
	c := lister()
	// Damage beyond 0 is lost; damage types are checked; negative refused.
	c2, _, _, _ := c.TakeDamage(nil, Hit{Amount: 99, Type: Fire})
	if c2.HP != 0 || c2.ZeroType != Fire {
		t.Errorf("99 fire damage: HP %d type %q", c2.HP, c2.ZeroType)
	}
	if _, _, _, err := c.TakeDamage(nil, Hit{Amount: -1}); !errors.Is(err, ErrBadInput) {
		t.Errorf("negative damage: %v", err)
	}
	if _, _, _, err := c.TakeDamage(nil, Hit{Amount: 1, Type: "cold"}); !errors.Is(err, ErrBadInput) {
		t.Errorf("cold damage: %v", err)
	}
	// A dead character takes no damage.
	dead, _ := c2.HeroicDeath("pulls the pin")
	if dead.Status != Dead || dead.HeroicAction != "pulls the pin" {
		t.Fatalf("HeroicDeath = %+v", dead)
	}
	if _, _, _, err := dead.TakeDamage(nil, Hit{Amount: 1}); !errors.Is(err, ErrDead) {
		t.Errorf("damage to the dead: %v", err)
	}
	if _, err := dead.HeroicDeath("again"); !errors.Is(err, ErrNoChoice) {
		t.Errorf("second choice: %v; want ErrNoChoice", err)
	}
	if _, _, err := c.StayUp(nil, 0); !errors.Is(err, ErrNoChoice) {
		t.Errorf("Stay Up without a pending choice: %v", err)
	}
}

// TestFullySoakedWhileStayingUp names the reading that a hit soaked to 0
// damage rolls nothing on the injury table.
func TestFullySoakedWhileStayingUp(t *testing.T) {
	c := lister()
	c.HP, c.Status = 0, StayingUp
	c, o, res, err := c.TakeDamage(dice.NewScripted(6), Hit{Amount: 3, Soak: true})
	if err != nil || !res.NoEffect || o.Injury != nil || c.HD != 0 {
		t.Errorf("fully soaked hit: %+v %+v %v", res, o.Injury, err)
	}
}

// TestGoDown covers RULES.md §1.3 item 6: down, fate hidden; lethal damage
// kills; lethal:false is recorded only; attending rolls 3d6dh1.
func TestGoDown(t *testing.T) {
	c := lister()
	c.HP, c.Status = 0, Choosing
	down, err := c.GoDown()
	if err != nil || down.Status != Down {
		t.Fatalf("GoDown = %v, %v", down.Status, err)
	}
	if _, _, _, err := down.TakeDamage(dice.NewScripted(1), Hit{Amount: 1, Soak: true}); !errors.Is(err, ErrBadInput) {
		t.Errorf("soak while down: %v", err)
	}
	same, _, res, err := down.TakeDamage(nil, Hit{Amount: 5, NonLethal: true})
	if err != nil || !res.NoEffect || same.Status != Down || same.DownHits != 1 {
		t.Errorf("non-lethal on down: %+v %v %v", res, same.Status, err)
	}
	killed, _, res, err := down.TakeDamage(nil, Hit{Amount: 1})
	if err != nil || !res.Killed || killed.Status != Dead || killed.DeathCause != "killed while down" {
		t.Errorf("lethal on down: %+v %v %v", res, killed.Status, err)
	}
	if why := down.RestoreBlock(0); !strings.Contains(why, "fate hidden") {
		t.Errorf("rest while down = %q", why)
	}
	// Attend: 3d6dh1 [5, 2, 1] keeps 2 and 1 = 3 → Flesh Wound.
	att, o, err := down.Attend(dice.NewScripted(5, 2, 1), false, 0)
	if err != nil || o.Injury.Roll.String() != "3d6dh1 [~~5~~, 2, 1] = 3" || o.Injury.Band != FleshWound || !att.FateRevealed {
		t.Fatalf("Attend = %+v, %v", o.Injury, err)
	}
	if _, _, err := att.Attend(nil, false, 0); !errors.Is(err, ErrNothingToAttend) {
		t.Errorf("second attend: %v; want ErrNothingToAttend", err)
	}
	// Still down, so lethal damage still kills.
	if k, _, _, _ := att.TakeDamage(nil, Hit{Amount: 1}); k.Status != Dead {
		t.Errorf("lethal on attended down: %v", k.Status)
	}
}

// TestAttendRevealingCriticalCountsAsAttending names the reading that the
// attend revealing a down character's Critical Wound stops its bleed-out.
func TestAttendRevealingCriticalCountsAsAttending(t *testing.T) {
	c := lister()
	c.HP, c.Status = 0, Down
	// 3d6dh1 [6, 4, 4] = 8 → Critical; save vs death 3 fails; 1d4 1 → left
	// arm lost; 2d4 [1, 1] rounds; then the attend stops it: 2d6 [1, 1] weeks.
	c, o, err := c.Attend(dice.NewScripted(6, 4, 4, 3, 1, 1, 1, 1, 1), false, 50)
	if err != nil || o.Injury.Band != CriticalWound || len(c.Bleeds) != 0 {
		t.Fatalf("Attend = %+v bleeds %+v, %v", o.Injury, c.Bleeds, err)
	}
	if !c.Limbs[0].Lost || c.Limbs[0].Name != "left arm" || c.NoRestoreUntil != 50+2*7*clock.RoundsPerDay {
		t.Errorf("limbs %+v, no restoring until %d", c.Limbs, c.NoRestoreUntil)
	}
	// The reading is named in the outcome, so the reply says it.
	if !strings.Contains(strings.Join(o.Notes, "\n"), "this attend, which revealed the fate, also attends the wound: the Critical Wound's bleeding stops") {
		t.Errorf("notes %q; want the reading named", o.Notes)
	}
}

// TestZeroDamageIsNoAttackOnTheDown names the reading of RULES.md §1.3 item
// 6: a hit whose damage (after soak) is 0 is not an attack, so it does not
// kill a down character, lethal or not, and nothing is recorded.
func TestZeroDamageIsNoAttackOnTheDown(t *testing.T) {
	c := lister()
	c.HP, c.Status = 0, Down
	for _, nonLethal := range []bool{false, true} {
		got, o, res, err := c.TakeDamage(nil, Hit{Amount: 0, NonLethal: nonLethal})
		if err != nil || got.Status != Down || res.Killed || !res.NoEffect || got.DownHits != 0 || len(o.Rolls) != 0 {
			t.Errorf("0 damage (non-lethal %v) on a down character: %v %+v %v; want no effect", nonLethal, got.Status, res, err)
		}
		if !strings.Contains(strings.Join(o.Notes, "\n"), "no attack") {
			t.Errorf("notes %q; want the reading named", o.Notes)
		}
	}
	// 1 damage still kills.
	if got, _, _, _ := c.TakeDamage(nil, Hit{Amount: 1}); got.Status != Dead {
		t.Errorf("1 lethal damage on the down: %v", got.Status)
	}
}

// TestDamageAtZeroInNormalPlay names the reading of RULES.md §1.3 item 3
// for a character at 0 HP in normal play (created or set at 0 HP): it is at
// 0 and hit, so damage of 1 or more brings the 0-HP choice; 0 damage does
// not.
func TestDamageAtZeroInNormalPlay(t *testing.T) {
	c := lister()
	c.HP = 0
	if got, _, res, err := c.TakeDamage(nil, Hit{Amount: 0}); err != nil || got.Status != Up || res.ReachedZero {
		t.Errorf("0 damage at 0 HP: %v %+v %v; want nothing", got.Status, res, err)
	}
	got, _, res, err := c.TakeDamage(nil, Hit{Amount: 2, Type: Acid})
	if err != nil || got.Status != Choosing || !res.ReachedZero || got.ZeroType != Acid || got.HP != 0 {
		t.Errorf("2 damage at 0 HP in normal play: %v %+v %v; want the 0-HP choice", got.Status, res, err)
	}
}

// TestRecover: HP above 0 after staying up, going down or with the choice
// still pending (a sheet edit) is back to normal play (RULES.md §1.5); at
// 0 HP, or dead, nothing changes.
func TestRecover(t *testing.T) {
	for _, st := range []Status{StayingUp, Down, Choosing} {
		c := lister()
		c.HP, c.Status, c.ZeroType, c.FateRevealed, c.Untreated = 3, st, Fire, true, 1
		got := c.Recover()
		if got.Status != Up || got.ZeroType != "" || got.FateRevealed || got.Untreated != 1 {
			t.Errorf("Recover from %v at 3 HP = %+v", st, got)
		}
		c.HP = 0
		if got := c.Recover(); got.Status != st {
			t.Errorf("Recover from %v at 0 HP = %v", st, got.Status)
		}
	}
	d := lister()
	d.Status = Dead
	if got := d.Recover(); got.Status != Dead {
		t.Errorf("Recover of the dead = %v", got.Status)
	}
}

func TestAttendBleeds(t *testing.T) {
	base := lister()
	base.HP, base.Status = 0, StayingUp
	crit := base
	crit.Bleeds = []Bleed{{Wound: CriticalWound, DiesAt: 20}}
	got, o, err := crit.Attend(dice.NewScripted(3, 4), false, 15)
	if err != nil || len(got.Bleeds) != 0 || got.NoRestoreUntil != 15+7*7*clock.RoundsPerDay || len(o.Rolls) != 1 {
		t.Errorf("attend Critical = %+v %v, %v", got.Bleeds, got.NoRestoreUntil, err)
	}
	f1 := base
	f1.Bleeds = []Bleed{{Wound: FatalWoundI, DiesAt: 20}}
	if _, _, err := f1.Attend(nil, false, 15); !errors.Is(err, ErrCannotStop) || !strings.Contains(err.Error(), "healer") {
		t.Errorf("attend Fatal I without healer: %v", err)
	}
	if got, _, err := f1.Attend(nil, true, 15); err != nil || len(got.Bleeds) != 0 {
		t.Errorf("attend Fatal I with healer: %+v %v", got.Bleeds, err)
	}
	f2 := base
	f2.Bleeds = []Bleed{{Wound: FatalWoundII, DiesAt: 20}}
	if _, _, err := f2.Attend(nil, true, 15); !errors.Is(err, ErrCannotStop) {
		t.Errorf("attend Fatal II: %v", err)
	}
	if _, _, err := base.Attend(nil, true, 15); !errors.Is(err, ErrNothingToAttend) {
		t.Errorf("attend with nothing: %v", err)
	}
}

func TestTreat(t *testing.T) {
	c := lister()
	if _, err := c.Treat(); !errors.Is(err, ErrNothingToTreat) {
		t.Errorf("treat unhurt: %v", err)
	}
	c.Untreated, c.Mobility = 2, true
	c, err := c.Treat()
	if err != nil || c.Untreated != 0 || c.Mobility {
		t.Errorf("treat = %+v, %v", c, err)
	}
}
