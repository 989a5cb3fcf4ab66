package harm

import (
	"errors"

	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
)

// ruleError turns an error of the harm rules into a reply naming the
// character; other errors (a dice error is already an *Error) pass through.
func ruleError(name string, err error) error {
	var e *commands.Error
	if errors.As(err, &e) {
		return err
	}
	code := commands.Code(0)
	switch {
	case errors.Is(err, rules.ErrTakenOut):
		return commands.Errorf(commands.CodeConflict, "%s is taken out of the conflict and makes no checks until it ends: the GM ends it by moving the clock a turn or more (/clock action:advance amount:1 unit:turns) or, with a turn order open, by /init end. Nothing was changed.", commands.Escape(name))
	case errors.Is(err, rules.ErrPoolEmpty), errors.Is(err, rules.ErrNothingToHeal), errors.Is(err, rules.ErrRestTooSoon):
		code = commands.CodeConflict
	case errors.Is(err, rules.ErrNoAbility), errors.Is(err, rules.ErrWrongPool), errors.Is(err, rules.ErrNotInnate),
		errors.Is(err, rules.ErrBadSpend), errors.Is(err, rules.ErrNoHarm), errors.Is(err, rules.ErrTooManyDice),
		errors.Is(err, rules.ErrBadFudgeDice):
		code = commands.CodeInvalid
	default:
		return err
	}
	return commands.Errorf(code, "%s: %v. Nothing was changed.", commands.Escape(name), err)
}
