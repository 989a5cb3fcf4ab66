package hitprot

import "fmt"

// Refusal is the error a rule returns when it refuses for a reason it can
// name: the kind of refusal, one of the sentinel errors of this package
// (ErrNoHD, ErrBadInput, ErrTooManyHD, ErrCannotStop, ErrCannotRestore),
// which errors.Is finds, and the reason in the rule's words, e.g. "asked
// 3, has 1" for ErrNoHD. A caller reads the reason with errors.As, never
// from the error's text.
type Refusal struct {
	Kind   error
	Reason string
}

// Error joins the kind and the reason: "no hit dice left: asked 3, has 1".
func (e *Refusal) Error() string { return e.Kind.Error() + ": " + e.Reason }

// Unwrap returns the kind, so that errors.Is finds it.
func (e *Refusal) Unwrap() error { return e.Kind }

// refuse returns the *Refusal of kind with the reason formatted.
func refuse(kind error, format string, args ...any) error {
	return &Refusal{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}
