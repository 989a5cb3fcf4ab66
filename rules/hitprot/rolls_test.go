package hitprot

import (
	"errors"
	"testing"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestHDLimitMatrix is RULES.md §1.6 as a matrix: class × purpose × melee →
// the hit dice allowed on one roll (-1: any number).
func TestHDLimitMatrix(t *testing.T) {
	purposes := []string{PurposeAttack, PurposeDamage, PurposeSave, PurposeSpell, PurposeOther}
	want := func(class, purpose string, melee bool) int {
		switch class {
		case Fighter:
			if melee && (purpose == PurposeAttack || purpose == PurposeDamage) {
				return Unlimited
			}
		case Cleric:
			if purpose == PurposeSave {
				return Unlimited
			}
		case MagicUser:
			if purpose == PurposeSpell {
				return Unlimited
			}
		}
		return 1
	}
	unlimited := 0
	for _, class := range []string{Fighter, Cleric, MagicUser, Thief, "ranger"} {
		for _, p := range purposes {
			for _, melee := range []bool{false, true} {
				got := HDLimit(class, p, melee)
				if got != want(class, p, melee) {
					t.Errorf("HDLimit(%s, %s, melee %v) = %d; want %d", class, p, melee, got, want(class, p, melee))
				}
				if got == Unlimited {
					unlimited++
				}
			}
		}
	}
	// Fighter: melee attack, melee damage; cleric: save ×2; magic-user: spell ×2.
	if unlimited != 6 {
		t.Errorf("%d unlimited cells; want 6", unlimited)
	}
}

func TestAddHD(t *testing.T) {
	f := New(Fighter, 3)
	got, r, err := f.AddHD(dice.NewScripted(1, 2, 3), 3, PurposeAttack, true)
	if err != nil || got.HD != 0 || r.String() != "3d8 [1, 2, 3] = 6" {
		t.Errorf("fighter melee 3 HD = %v %v, %v", got.HD, r, err)
	}
	if _, _, err := f.AddHD(nil, 2, PurposeAttack, false); !errors.Is(err, ErrTooManyHD) {
		t.Errorf("fighter ranged 2 HD: %v", err)
	}
	if _, _, err := f.AddHD(nil, 4, PurposeDamage, true); !errors.Is(err, ErrNoHD) {
		t.Errorf("fighter 4 HD of 3: %v", err)
	}
	m := New(MagicUser, 2)
	if got, _, err := m.AddHD(dice.NewScripted(4, 4), 2, PurposeSpell, false); err != nil || got.HD != 0 {
		t.Errorf("magic-user spell 2 HD: %v", err)
	}
}

// TestSave: d20 + HD + bonus ≥ target (RULES.md §0.4); clerics add any
// number of HD to saves, others one.
func TestSave(t *testing.T) {
	c := New(Cleric, 3) // death 11
	got, s, err := c.Save(dice.NewScripted(5, 3, 2, 1), SaveDeath, 3, 0)
	if err != nil || !s.Passed || s.Total != 11 || got.HD != 0 {
		t.Fatalf("cleric save = %+v HD %d, %v", s, got.HD, err)
	}
	if s.String() != "save vs death 1d20 [5] = 5 + hit dice 3d6 [3, 2, 1] = 6 → 11 vs 11: passed" {
		t.Errorf("save string = %q", s.String())
	}
	th := New(Thief, 3)
	if _, _, err := th.Save(nil, SaveDeath, 2, 0); !errors.Is(err, ErrTooManyHD) {
		t.Errorf("thief 2 HD on a save: %v", err)
	}
	// A natural 20 is not special: 20 - 5 = 15 vs 16 fails.
	hi := New(Fighter, 1) // spells 16
	_, s, err = hi.Save(dice.NewScripted(20), SaveSpells, 0, -5)
	if err != nil || s.Passed || s.Total != 15 || s.Target != 16 {
		t.Errorf("natural 20 - 5 vs 16 = %+v, %v; want 15: failed", s, err)
	}
	// Nor is a natural 1: 1 + 15 = 16 vs 16 passes.
	_, s, err = hi.Save(dice.NewScripted(1), SaveSpells, 0, 15)
	if err != nil || !s.Passed || s.Total != 16 {
		t.Errorf("natural 1 + 15 vs 16 = %+v, %v; want 16: passed", s, err)
	}
	if _, _, err := hi.Save(nil, "fort", 0, 0); err == nil {
		t.Errorf("save vs fort succeeded")
	}
}

func TestSpendHD(t *testing.T) {
	c := New(Fighter, 2)
	if got, err := c.SpendHD(2); err != nil || got.HD != 0 {
		t.Errorf("SpendHD(2) = %d, %v", got.HD, err)
	}
	if _, err := c.SpendHD(3); !errors.Is(err, ErrNoHD) {
		t.Errorf("SpendHD(3) of 2: %v", err)
	}
}
