package hitprot

import (
	"errors"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// ruleError turns a rule error into a reply for the character named: a clean
// sentence in the reply's words, with the reason the rule gave (reason),
// never the rule package's error text.
func ruleError(h *character, err error) error {
	if err == nil {
		return nil
	}
	if e := commands.RollError(err); e != err {
		return e
	}
	var ue *commands.Error
	if errors.As(err, &ue) {
		return err
	}
	name := h.name()
	switch {
	case errors.Is(err, rules.ErrDead):
		return commands.Errorf(commands.CodeConflict, "%s is dead: no damage, rests or rolls.", name)
	case errors.Is(err, rules.ErrChoicePending):
		return commands.Errorf(commands.CodeConflict, "%s's 0-HP choice is pending: %s (its owner) or a GM must press Heroic Death, Stay Up or Go Down first; use %s to get the buttons again. Nothing was changed.",
			name, commands.Escape(h.ch.OwnerName), commands.CodeSpan("/char show name:"+h.ch.Name))
	case errors.Is(err, rules.ErrNoChoice):
		return commands.Errorf(commands.CodeConflict, "%s has no pending 0-HP choice. Nothing was changed.", name)
	case errors.Is(err, rules.ErrBadInput):
		return commands.Errorf(commands.CodeInvalid, "%s: %s. Nothing was changed.", name, reason(err))
	case errors.Is(err, rules.ErrTooManyHD):
		return commands.Errorf(commands.CodeInvalid, "%s: %s. Nothing was changed.", name, reason(err))
	case errors.Is(err, rules.ErrNoHD):
		switch why := reason(err); {
		case why == "cannot soak":
			return commands.Errorf(commands.CodeConflict, "%s has no hit dice left to soak with. Nothing was changed.", name)
		case why == "" || strings.HasSuffix(why, "has 0"):
			return commands.Errorf(commands.CodeConflict, "%s has no hit dice left%s. Nothing was changed.", name, parenthesize(why))
		default:
			return commands.Errorf(commands.CodeConflict, "%s has too few hit dice left%s. Nothing was changed.", name, parenthesize(why))
		}
	case errors.Is(err, rules.ErrNothingToAttend):
		return commands.Errorf(commands.CodeConflict, "%s has nothing to attend: not down with a hidden fate, and not bleeding out. Nothing was changed.", name)
	case errors.Is(err, rules.ErrCannotStop):
		return commands.Errorf(commands.CodeConflict, "%s: %s. Nothing was changed.", name, reason(err))
	case errors.Is(err, rules.ErrNothingToTreat):
		return commands.Errorf(commands.CodeConflict, "%s has no untreated wound to treat. Nothing was changed.", name)
	}
	return commands.Errorf(commands.CodeConflict, "%s: %s. Nothing was changed.", name, strings.TrimSuffix(err.Error(), "."))
}

// parenthesize returns " (s)", or "" for an empty s.
func parenthesize(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// reason is the reason a rule gave for refusing (the rules' *Refusal: "a
// down character cannot soak", "asked 3, has 1"), or "" when it gave none.
func reason(err error) string {
	var r *rules.Refusal
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}
