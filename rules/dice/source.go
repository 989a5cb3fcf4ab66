package dice

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
)

// Die describes one die (RULES.md §0.3): a numbered die with Sides faces
// 1..Sides (2 ≤ Sides ≤ 1000), or, when Fudge is set, a Fudge die with the
// faces −1, 0 and +1, whose Sides is 3.
type Die struct {
	Sides int
	Fudge bool
}

// String returns the die in dice notation: "d6", or "dF" for a Fudge die.
func (d Die) String() string {
	if d.Fudge {
		return "dF"
	}
	return fmt.Sprintf("d%d", d.Sides)
}

// faces returns the lowest and highest face of d.
func (d Die) faces() (lo, hi int) {
	if d.Fudge {
		return -1, 1
	}
	return 1, d.Sides
}

// check returns an error wrapping ErrInvalidDie when d is not a die of
// RULES.md §0.3.
func (d Die) check() error {
	if d.Fudge {
		if d.Sides != 3 {
			return fmt.Errorf("%w: a Fudge die has Sides 3, not %d", ErrInvalidDie, d.Sides)
		}
		return nil
	}
	if d.Sides < MinSides || d.Sides > MaxSides {
		return fmt.Errorf("%w: d%d (a die has %d to %d sides)", ErrInvalidDie, d.Sides, MinSides, MaxSides)
	}
	return nil
}

// Source hands out die faces: Roll returns a face 1..d.Sides for a numbered
// die and −1, 0 or +1 for a Fudge die. Implementations return an error
// wrapping ErrInvalidDie for a die outside RULES.md §0.3, and may fail for
// reasons of their own (a Scripted source runs out). Expressions call Roll
// once per die, term by term, in the order the dice appear in the expression.
type Source interface {
	Roll(d Die) (int, error)
}

// ExprRoller is a Source that rolls whole expressions itself: Expr.Roll
// hands it the expression (once it is valid) instead of asking it for the
// dice one by one, as io.Copy hands the copy to a WriterTo. A source that
// records every roll for a table's history is one (package commands): it
// records an expression as it was rolled, "2d6 [3, 4] = 7", whichever rule
// rolled it. RollExpr must roll e as Expr.Roll would, with a source that is
// not e's ExprRoller.
type ExprRoller interface {
	Source
	RollExpr(e Expr) (Result, error)
}

// A Pacer is a Source that is told where a roll's dice start to depend on
// the faces already rolled: Expr.Roll calls Pause before each pass of
// rerolls or explosions and before the die of an ra, whose number depends
// on those faces. A source that gathers faces ahead of the roll (the
// physical dice of commands, which ask a player for several at once) ends
// its batch there. Other sources need not implement it.
type Pacer interface {
	Pause()
}

var (
	// ErrScriptExhausted is returned (wrapped, when it comes through
	// Expr.Roll) when a Scripted source without a fallback has no faces left.
	ErrScriptExhausted = errors.New("scripted dice ran out")

	// ErrFaceOutOfRange is wrapped by the error a Scripted source returns
	// when its next face cannot come up on the die being rolled, such as 7
	// for a d6 or 2 for a Fudge die.
	ErrFaceOutOfRange = errors.New("scripted face out of range")

	// ErrInvalidDie is wrapped by the error a Source returns when asked to
	// roll a Die that RULES.md §0.3 does not allow (Sides outside 2..1000,
	// or a Fudge die whose Sides is not 3).
	ErrInvalidDie = errors.New("invalid die")
)

// faceError reports a scripted face that cannot come up on a die.
type faceError struct {
	face int
	die  Die
}

func (e *faceError) Error() string {
	lo, hi := e.die.faces()
	return fmt.Sprintf("scripted face %d cannot come up on a %s (%d to %d)", e.face, e.die, lo, hi)
}

func (e *faceError) Unwrap() error { return ErrFaceOutOfRange }

// randomSource rolls with a *rand.Rand (guarded by mu) or, when r is nil,
// with math/rand/v2's top-level functions, which are safe for concurrent use.
type randomSource struct {
	mu sync.Mutex
	r  *rand.Rand
}

// Roll returns a uniformly random face of d, or an error wrapping
// ErrInvalidDie.
func (s *randomSource) Roll(d Die) (int, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	lo, hi := d.faces()
	n := hi - lo + 1
	if s.r == nil {
		return lo + rand.IntN(n), nil
	}
	s.mu.Lock()
	f := s.r.IntN(n)
	s.mu.Unlock()
	return lo + f, nil
}

var production = &randomSource{}

// Random returns the production Source: uniformly random faces from
// math/rand/v2's top-level generator, which is seeded by the runtime. It is
// safe for concurrent use.
func Random() Source { return production }

// NewRandom returns a Source of uniformly random faces from a PCG generator
// seeded with seed, for repeatable runs (the console's --seed N). The same
// seed gives the same faces in the same order with the same Go release. It
// is safe for concurrent use.
func NewRandom(seed uint64) Source {
	return &randomSource{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Scripted is a Source that hands out given faces in order (tests, and the
// console's --dice 1,2,6 and :dice). A face is used up when it is handed
// out, even when it does not fit the die being rolled. Without a fallback an
// empty script fails with ErrScriptExhausted; with one (see NewQueue) the
// fallback rolls instead. A Scripted source is safe for concurrent use.
type Scripted struct {
	mu       sync.Mutex
	faces    []int
	next     int // index in faces of the next face to hand out
	fallback Source
}

// NewScripted returns a Scripted source that hands out faces in order
// (Fudge faces as −1, 0 and 1) and then fails with ErrScriptExhausted.
func NewScripted(faces ...int) *Scripted {
	return &Scripted{faces: append([]int(nil), faces...)}
}

// NewQueue returns a Scripted source with no faces yet that rolls with
// fallback whenever its script is empty: Push queues faces to be used first.
// When fallback is non-nil it never returns ErrScriptExhausted; NewQueue(nil)
// is the same as NewScripted().
func NewQueue(fallback Source) *Scripted {
	return &Scripted{fallback: fallback}
}

// Roll hands out the next scripted face for d. It returns an error wrapping
// ErrInvalidDie for a die outside RULES.md §0.3, ErrScriptExhausted when the
// script is empty and there is no fallback (the fallback's own errors pass
// through unchanged), and an error wrapping ErrFaceOutOfRange, naming the
// face and the die, when the face cannot come up on d (for example 7 on a d6
// or 2 on a Fudge die).
func (s *Scripted) Roll(d Die) (int, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	if s.next == len(s.faces) {
		fallback := s.fallback
		s.mu.Unlock()
		if fallback == nil {
			return 0, ErrScriptExhausted
		}
		return fallback.Roll(d)
	}
	f := s.faces[s.next]
	s.next++
	s.mu.Unlock()
	if lo, hi := d.faces(); f < lo || f > hi {
		return 0, &faceError{face: f, die: d}
	}
	return f, nil
}

// SetFallback replaces the source that rolls once the script is empty
// (see NewQueue); nil makes running out an ErrScriptExhausted error.
func (s *Scripted) SetFallback(fallback Source) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = fallback
}

// Push queues faces after the ones not yet handed out.
func (s *Scripted) Push(faces ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next > 0 && s.next >= len(s.faces)/2 {
		// Drop the used faces so that a long console session does not grow
		// the script without bound.
		s.faces = append(s.faces[:0], s.faces[s.next:]...)
		s.next = 0
	}
	s.faces = append(s.faces, faces...)
}

// Remaining returns the number of scripted faces not yet handed out (not
// counting the fallback).
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faces) - s.next
}
