package harm

import (
	"errors"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/harm"
)

// harmErr turns an error of the harm rules into a reply naming the
// character; other errors (a dice error is already an *Error) pass through.
func harmErr(name string, err error) error {
	var e *commands.Error
	if errors.As(err, &e) {
		return err
	}
	code := commands.Code(0)
	switch {
	case errors.Is(err, harm.ErrPoolEmpty), errors.Is(err, harm.ErrNothingToHeal), errors.Is(err, harm.ErrRestTooSoon):
		code = commands.CodeConflict
	case errors.Is(err, harm.ErrNoAbility), errors.Is(err, harm.ErrWrongPool), errors.Is(err, harm.ErrNotInnate),
		errors.Is(err, harm.ErrBadSpend), errors.Is(err, harm.ErrNoHarm), errors.Is(err, harm.ErrTooManyDice),
		errors.Is(err, harm.ErrBadFudgeDice):
		code = commands.CodeInvalid
	default:
		return err
	}
	return commands.Errorf(code, "%s: %v. Nothing was changed.", commands.Escape(name), err)
}
