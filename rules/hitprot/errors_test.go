package hitprot

import (
	"errors"
	"testing"
)

// TestRefusal: a rule that refuses for a reason returns a *Refusal whose
// kind errors.Is finds and whose reason errors.As reads, in the rule's
// words, so that no caller parses the error's text.
func TestRefusal(t *testing.T) {
	c := New(Fighter, 3)
	_, err := c.SpendHD(c.HD + 2)
	var r *Refusal
	if !errors.Is(err, ErrNoHD) || !errors.As(err, &r) || r.Reason != "asked 5, has 3" {
		t.Errorf("SpendHD(5) with 3 HD error %v (%#v); want ErrNoHD with the reason \"asked 5, has 3\"", err, r)
	}
	_, _, _, err = Character{Class: Fighter, Level: 1, HitDie: 8, HP: 0, HD: 1, Status: Down}.TakeDamage(nil, Hit{Amount: 3, Soak: true})
	if !errors.Is(err, ErrBadInput) || !errors.As(err, &r) || r.Reason != "a down character cannot soak" {
		t.Errorf("TakeDamage(soak) of a down character error %v; want ErrBadInput with the reason \"a down character cannot soak\"", err)
	}
}
