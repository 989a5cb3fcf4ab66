package dice

import (
	"errors"
	"sync"
	"testing"
)

var (
	d6    = Die{Sides: 6}
	d20   = Die{Sides: 20}
	fudge = Die{Sides: 3, Fudge: true}
)

func TestScripted(t *testing.T) {
	s := NewScripted(3, 6, -1)
	if n := s.Remaining(); n != 3 {
		t.Fatalf("Remaining() = %d; want 3", n)
	}
	for i, want := range []struct {
		die  Die
		face int
	}{{d6, 3}, {d6, 6}, {fudge, -1}} {
		got, err := s.Roll(want.die)
		if err != nil || got != want.face {
			t.Fatalf("roll %d: Roll(%v) = %d, %v; want %d", i, want.die, got, err, want.face)
		}
	}
	if _, err := s.Roll(d6); !errors.Is(err, ErrScriptExhausted) {
		t.Fatalf("Roll on an empty script error %v; want ErrScriptExhausted", err)
	}
	if ErrScriptExhausted.Error() != "scripted dice ran out" {
		t.Errorf("ErrScriptExhausted = %q", ErrScriptExhausted)
	}
	s.Push(1, 2)
	s.Push(4)
	if n := s.Remaining(); n != 3 {
		t.Fatalf("Remaining() after Push = %d; want 3", n)
	}
	for _, want := range []int{1, 2, 4} {
		if got, err := s.Roll(d20); err != nil || got != want {
			t.Fatalf("Roll after Push = %d, %v; want %d", got, err, want)
		}
	}
	if n := s.Remaining(); n != 0 {
		t.Errorf("Remaining() = %d; want 0", n)
	}
}

func TestScriptedCopiesFaces(t *testing.T) {
	faces := []int{1, 2}
	s := NewScripted(faces...)
	faces[0] = 6
	if got, _ := s.Roll(d6); got != 1 {
		t.Errorf("Roll = %d after the caller changed its slice; want 1", got)
	}
}

func TestScriptedFaceOutOfRange(t *testing.T) {
	tests := []struct {
		die  Die
		face int
		want string
	}{
		{d6, 7, "scripted face 7 cannot come up on a d6 (1 to 6)"},
		{d6, 0, "scripted face 0 cannot come up on a d6 (1 to 6)"},
		{fudge, 2, "scripted face 2 cannot come up on a dF (-1 to 1)"},
		{Die{Sides: 4}, -1, "scripted face -1 cannot come up on a d4 (1 to 4)"},
	}
	for _, tt := range tests {
		s := NewScripted(tt.face, 1)
		_, err := s.Roll(tt.die)
		if !errors.Is(err, ErrFaceOutOfRange) || err.Error() != tt.want {
			t.Errorf("Roll(%v) with face %d error %v; want %q wrapping ErrFaceOutOfRange", tt.die, tt.face, err, tt.want)
		}
		// The bad face is used up; the next one is handed out.
		if got, err := s.Roll(tt.die); err != nil || got != 1 {
			t.Errorf("Roll after a bad face = %d, %v; want 1", got, err)
		}
	}
}

func TestSourcesRefuseInvalidDice(t *testing.T) {
	bad := []Die{{Sides: 1}, {Sides: 0}, {Sides: 1001}, {Sides: 6, Fudge: true}}
	sources := map[string]Source{
		"Scripted":  NewScripted(1, 1, 1, 1),
		"Random":    Random(),
		"NewRandom": NewRandom(1),
	}
	for name, src := range sources {
		for _, d := range bad {
			if _, err := src.Roll(d); !errors.Is(err, ErrInvalidDie) {
				t.Errorf("%s.Roll(%+v) error %v; want ErrInvalidDie", name, d, err)
			}
		}
	}
}

func TestQueue(t *testing.T) {
	q := NewQueue(NewScripted(20, 19))
	q.Push(5)
	for _, want := range []int{5, 20, 19} {
		if got, err := q.Roll(d20); err != nil || got != want {
			t.Fatalf("Roll = %d, %v; want %d", got, err, want)
		}
	}
	// The fallback's own errors pass through.
	if _, err := q.Roll(d20); !errors.Is(err, ErrScriptExhausted) {
		t.Errorf("Roll with an exhausted fallback error %v; want ErrScriptExhausted", err)
	}

	r := NewQueue(NewRandom(7))
	for range 100 {
		if f, err := r.Roll(d6); err != nil || f < 1 || f > 6 {
			t.Fatalf("Roll with a random fallback = %d, %v; want 1..6 and no error", f, err)
		}
	}
	if _, err := NewQueue(nil).Roll(d6); !errors.Is(err, ErrScriptExhausted) {
		t.Errorf("NewQueue(nil).Roll error %v; want ErrScriptExhausted", err)
	}
}

func TestRandomFaces(t *testing.T) {
	for name, src := range map[string]Source{"Random": Random(), "NewRandom": NewRandom(42)} {
		for _, d := range []Die{d6, d20, fudge, {Sides: 2}, {Sides: 1000}} {
			lo, hi := d.faces()
			seen := map[int]bool{}
			for range 2000 {
				f, err := src.Roll(d)
				if err != nil || f < lo || f > hi {
					t.Fatalf("%s.Roll(%v) = %d, %v; want %d..%d", name, d, f, err, lo, hi)
				}
				seen[f] = true
			}
			if d.Sides <= 20 && len(seen) != hi-lo+1 {
				t.Errorf("%s.Roll(%v): %d distinct faces in 2000 rolls; want %d", name, d, len(seen), hi-lo+1)
			}
		}
	}
}

func TestNewRandomRepeatable(t *testing.T) {
	a, b, c := NewRandom(99), NewRandom(99), NewRandom(100)
	same := true
	for range 50 {
		x, _ := a.Roll(d20)
		y, _ := b.Roll(d20)
		z, _ := c.Roll(d20)
		if x != y {
			t.Fatalf("NewRandom(99) twice gave %d and %d", x, y)
		}
		same = same && x == z
	}
	if same {
		t.Errorf("NewRandom(99) and NewRandom(100) gave the same 50 faces")
	}
}

// TestSourcesConcurrent is for the race detector: the sources are shared by
// concurrent handlers.
func TestSourcesConcurrent(t *testing.T) {
	q := NewQueue(NewRandom(3))
	sources := []Source{Random(), NewRandom(1), q}
	e := MustParse("4d6dl1+1d20")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if g == 0 && i%10 == 0 {
					q.Push(1, 2, 3)
					_ = q.Remaining()
				}
				res, err := e.Roll(sources[(g+i)%len(sources)])
				if err != nil || res.Total < e.Min() || res.Total > e.Max() {
					t.Errorf("Roll = %v, %v", res, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestSetFallback: a queue whose fallback is taken away fails once its
// faces run out, and rolls with a fallback given back.
func TestSetFallback(t *testing.T) {
	q := NewQueue(NewRandom(1))
	q.Push(4)
	q.SetFallback(nil)
	if f, err := q.Roll(Die{Sides: 6}); f != 4 || err != nil {
		t.Fatalf("Roll = %d, %v; want the queued 4", f, err)
	}
	if _, err := q.Roll(Die{Sides: 6}); !errors.Is(err, ErrScriptExhausted) {
		t.Fatalf("Roll after the queue ran out = %v; want ErrScriptExhausted", err)
	}
	q.SetFallback(NewRandom(1))
	if f, err := q.Roll(Die{Sides: 6}); err != nil || f < 1 || f > 6 {
		t.Fatalf("Roll with a fallback again = %d, %v; want a face of a d6", f, err)
	}
}
