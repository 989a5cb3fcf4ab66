package hpmpwp

import (
	"errors"

	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// ruleError turns an error of the rules into a reply for ch.
func ruleError(ch *storage.Character, err error) error {
	name := commands.Escape(ch.Name)
	switch {
	case errors.Is(err, rules.ErrDead):
		return commands.Errorf(commands.CodeConflict, "%s is dead; nothing was changed.", name)
	case errors.Is(err, rules.ErrChoicePending):
		return commands.Errorf(commands.CodeConflict, "%s must first choose (Die Hard): Act Disabled or Fall Unconscious (%s offers the buttons again). Nothing was changed.", name, commands.CodeSpan("/char show name:"+ch.Name))
	case errors.Is(err, rules.ErrNotDisabled):
		return commands.Errorf(commands.CodeConflict, "%s is not disabled: /strain is for a strenuous action at negative WP while conscious.", name)
	case errors.Is(err, rules.ErrNotDying):
		return commands.Errorf(commands.CodeConflict, "%s is not dying; there is nothing to stabilize.", name)
	case errors.Is(err, rules.ErrNotAsleep):
		return commands.Errorf(commands.CodeConflict, "%s is not asleep: /wake is for a sleeper whose player made a Listen check.", name)
	case errors.Is(err, rules.ErrUnconscious):
		return commands.Errorf(commands.CodeConflict, "%s is unconscious and cannot cast.", name)
	case errors.Is(err, rules.ErrNotEnoughMP), errors.Is(err, rules.ErrBadAmount):
		return commands.Errorf(commands.CodeInvalid, "%s: %v.", name, err)
	}
	return err
}
