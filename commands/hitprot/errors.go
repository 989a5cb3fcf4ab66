package hitprot

import (
	"errors"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// ruleError turns a rule error into a reply for the character named: a clean
// sentence, without the rule package's error words (": bad input").
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
		return commands.Errorf(commands.CodeConflict, "%s's 0-HP choice is pending: %s (its owner) or a GM must press Heroic Death, Stay Up or Go Down first; use /char show name:%s to get the buttons again. Nothing was changed.",
			name, commands.Escape(h.ch.OwnerName), commands.Arg(h.ch.Name))
	case errors.Is(err, rules.ErrNoChoice):
		return commands.Errorf(commands.CodeConflict, "%s has no pending 0-HP choice. Nothing was changed.", name)
	case errors.Is(err, rules.ErrBadInput):
		return commands.Errorf(commands.CodeInvalid, "%s: %s. Nothing was changed.", name, reason(err, rules.ErrBadInput))
	case errors.Is(err, rules.ErrTooManyHD):
		return commands.Errorf(commands.CodeInvalid, "%s: %s. Nothing was changed.", name, reason(err, rules.ErrTooManyHD))
	case errors.Is(err, rules.ErrNoHD):
		switch why := reason(err, rules.ErrNoHD); {
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
		return commands.Errorf(commands.CodeConflict, "%s: %s. Nothing was changed.", name, reason(err, rules.ErrCannotStop))
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

// reason is the text of err without the words of the rule error sentinel
// it wraps ("a down character cannot soak: bad input" → "a down character
// cannot soak").
func reason(err, sentinel error) string { return trimSentinel(err.Error(), sentinel) }

// trimSentinel removes the words of sentinel from the front or the end of
// s.
func trimSentinel(s string, sentinel error) string {
	word := sentinel.Error()
	s = strings.TrimSuffix(s, ": "+word)
	s = strings.TrimPrefix(s, word+": ")
	if s == word {
		return ""
	}
	return s
}
