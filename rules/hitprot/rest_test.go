package hitprot

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// meghan is the Meghan of RULES.md §1.5: magic-user 3, 1 HP, 3 HD (d4).
func meghan() Character {
	c := New(MagicUser, 3)
	c.HP = 1
	return c
}

// TestMeghanRest is RULES.md §1.5's rest example: rolls 3 → HP 3, HD 2.
func TestMeghanRest(t *testing.T) {
	c, res, err := meghan().Rest(dice.NewScripted(3), 0)
	if err != nil || c.HP != 3 || c.HD != 2 || res.Roll.String() != "1d4 [3] = 3" {
		t.Fatalf("Rest = HP %d HD %d %+v, %v; want HP 3, HD 2", c.HP, c.HD, res, err)
	}
	// A rest never lowers HP (the reading of §1.5).
	c, _, _ = c.Rest(dice.NewScripted(1), 0)
	if c.HP != 3 || c.HD != 1 {
		t.Errorf("low rest: HP %d HD %d; want 3, 1", c.HP, c.HD)
	}
}

// TestMeghanNight is RULES.md §1.5's night example: 3 HP, sleeps, rolls 2
// → stays at 3 HP; regains 1 HD.
func TestMeghanNight(t *testing.T) {
	c := meghan()
	c.HP, c.HD = 3, 2
	c, res, err := c.Night(dice.NewScripted(2), 0)
	if err != nil || c.HP != 3 || c.HD != 3 || res.Roll.Total != 2 {
		t.Fatalf("Night = HP %d HD %d %+v, %v; want HP 3, HD 3", c.HP, c.HD, res, err)
	}
	// HD never exceed the level.
	c, _, _ = c.Night(dice.NewScripted(4), 0)
	if c.HP != 4 || c.HD != 3 {
		t.Errorf("second night: HP %d HD %d; want 4, 3", c.HP, c.HD)
	}
}

func TestRestRefused(t *testing.T) {
	c := meghan()
	c.HD = 0
	if _, _, err := c.Rest(nil, 0); !errors.Is(err, ErrNoHD) {
		t.Errorf("rest with 0 HD: %v", err)
	}
	c = meghan()
	c.Untreated = 1
	if _, _, err := c.Rest(nil, 0); !errors.Is(err, ErrCannotRestore) || !strings.Contains(err.Error(), "untreated") {
		t.Errorf("rest with a wound: %v", err)
	}
	// The night skips the re-roll but still regains the HD.
	c.HD = 1
	n, res, err := c.Night(nil, 0)
	if err != nil || res.Skipped == "" || n.HD != 2 || n.HP != 1 {
		t.Errorf("night with a wound: %+v HD %d, %v", res, n.HD, err)
	}
	c = meghan()
	c.NoRestoreUntil = 10
	if _, _, err := c.Rest(nil, 9); !errors.Is(err, ErrCannotRestore) {
		t.Errorf("rest in a period: %v", err)
	}
	if _, _, err := c.Rest(dice.NewScripted(2), 10); err != nil {
		t.Errorf("rest after the period: %v", err)
	}
	c.Status = Dead
	if _, _, err := c.Night(nil, 0); !errors.Is(err, ErrDead) {
		t.Errorf("night for the dead: %v", err)
	}
	if _, _, err := meghan().CatchBreath(nil, 0); !errors.Is(err, ErrNotFighter) {
		t.Errorf("magic-user catching breath: %v", err)
	}
	f := lister()
	f.HP = 1
	if got, _, err := f.CatchBreath(dice.NewScripted(5), 0); err != nil || got.HP != 5 || got.HD != 0 {
		t.Errorf("fighter catching breath: HP %d HD %d, %v", got.HP, got.HD, err)
	}
}

// TestRestBackToNormal: a character that stayed up and survives is back to
// normal play once its HP is above 0 (RULES.md §1.5).
func TestRestBackToNormal(t *testing.T) {
	c := lister()
	c.HP, c.Status = 0, StayingUp
	c, _, err := c.Rest(dice.NewScripted(3), 0)
	if err != nil || c.Status != Up || c.HP != 3 {
		t.Errorf("rest from staying up: %v HP %d, %v", c.Status, c.HP, err)
	}
}

// TestReadingRestNeverLowersHP is RULES.md §1.5's Reading: the post spells
// out "keep the higher" only for the night's re-roll, but a rest exists to
// restore HP, so it never lowers them either. Meghan (magic-user 3, d4) at
// 3 HP with 3 HD rests and rolls 1d4 [1]: HP stay 3, the hit die is spent
// (HD 2).
func TestReadingRestNeverLowersHP(t *testing.T) {
	c := New(MagicUser, 3)
	c.HP = 3
	got, res, err := c.Rest(dice.NewScripted(1), 0)
	if err != nil || got.HP != 3 || got.HD != 2 || res.Roll.Total != 1 {
		t.Errorf("rest rolling 1 at 3 HP: HP %d, HD %d, roll %d, %v; want HP 3, HD 2", got.HP, got.HD, res.Roll.Total, err)
	}
}
