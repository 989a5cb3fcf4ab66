package actions

import (
	"context"
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// rollCommand is /roll: a roll of dice anyone may make, at a table or
// not, which the table's system extends with `as:` (System.Roll). Its
// options marked BySystem mean what the table's system says
// (System.Options): their descriptions name no system, their values are
// autocompleted from the table's system, and /help lists them per system.
func rollCommand() *commands.Command {
	return &commands.Command{
		Name: "roll", Description: "Roll dice, optionally for a character", Handler: roll,
		Topic: rollTopic,
		Options: []commands.Option{
			{Name: "expr", Description: "Dice expression, e.g. 1d20+3, 4d6kh3 or 2d6ro<3 (your system's rolls are suggested)", Type: commands.OptionString, Autocomplete: true, MaxLength: 64},
			{Name: "as", Description: "Roll as this character", Type: commands.OptionString, Autocomplete: true, MaxLength: 32},
			{Name: "hd", Description: "Hit dice to add", Type: commands.OptionInteger, MinValue: 0, MaxValue: 100, BySystem: true},
			{Name: "purpose", Description: "What the roll is for", Type: commands.OptionString, BySystem: true, MaxLength: 32},
			{Name: "melee", Description: "A melee roll", Type: commands.OptionBoolean, BySystem: true},
			{Name: "ability", Description: "Ability for a check", Type: commands.OptionString, BySystem: true, MaxLength: 32},
			{Name: "pool", Description: "Pool point to spend for a bonus die", Type: commands.OptionString, BySystem: true, MaxLength: 32},
		},
	}
}

// rollTopic is /help topic:roll: the dice notation with an example of
// every operator (docs/dice.md has it in full).
const rollTopic = "`/roll expr:3d6dl1` rolls dice (Avrae's notation with Dice Maiden's pools); with `as:` a character rolls and may add hit dice or make a check.\n" +
	"• sums: `3d6+2`, `4dF+2`, `d%` (1–100), `(1d8+3)*2`, `1d6/2` (rounds down), `//`, `%`\n" +
	"• keep/drop: `4d6kh3`, `2d20kl1`, `3d6dl1`, `4d6pl1`; by value `4d6k>3`, `4d6p1` (`k3` keeps 3s; `d1` drops the lowest)\n" +
	"• reroll: `2d6ro<3` once, `1d20rr1` until none, `1d6ra6` adds one; `4d6r2` (2 or less) once, `ir2` until\n" +
	"• explode: `4d6e6` (again on new 6s), `1d10e>7`, `4d6e` (highest face)\n" +
	"• min/max `8d6mi2`, `10d6ma5`; pools `6d10t7` counts 7+, `tl4` 4 or less, `f1` takes one off per 1, `t7ds10` counts 10s twice\n" +
	"• sets `(1d4+1, 3, 2d6kl1)kh1`; compare `1d20+5>=15` (1 or 0); labels `3d6 [fire]`; comments `1d20+5 ! to hit`\n" +
	"Limits: 64 characters, 100 dice named, 1,000 rolled (rerolls and explosions count)."

// roll answers /roll: a plain roll of `expr` (RULES.md §0.3), or, with `as`,
// a roll for a character that the table's system may extend (hit dice on
// rolls, ability checks).
func roll(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	if _, ok := r.Options["as"]; ok {
		return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
			if err := m.CheckSystemOptions(); err != nil {
				return nil, err
			}
			if h := m.System.Roll(); h != nil {
				return h(m)
			}
			c, err := m.Character(r.Options["as"])
			if err != nil {
				return nil, err
			}
			if err := m.CanChange(c); err != nil {
				return nil, err
			}
			expr, ok := r.Options["expr"]
			if !ok {
				return nil, commands.Errorf(commands.CodeInvalid, "/roll needs expr, e.g. expr:1d20+3.")
			}
			m = m.For(c)
			res, err := m.RollString(expr)
			if err != nil {
				return nil, err
			}
			m.Say("**%s** rolled %s%s", commands.Escape(c.Name), res.String(), commands.ReadingNotes(res.Expr))
			return &commands.Response{}, nil
		})

	}
	defs := s.Registry().Lookup("roll").Options
	for _, o := range defs {
		if _, ok := r.Options[o.Name]; !ok || !o.BySystem {
			continue
		}
		// A system's option without as: a table whose system does not
		// take it refuses it by name, as with as:; else as: is missing.
		var sys commands.System
		_ = s.DB().View(func(tx *storage.Tx) error {
			if t, err := tx.Table(r.ChannelID); err == nil {
				sys, _ = s.System(t.System)
			}
			return nil
		})
		if sys != nil {
			if err := s.CheckSystemOptions(r, sys); err != nil {
				return nil, err
			}
		}
		if _, ok := r.Options["hd"]; ok {
			return nil, commands.Errorf(commands.CodeInvalid, "/roll hd needs as:<character>, whose hit dice are spent (e.g. as:Lister).")
		}
		return nil, commands.Errorf(commands.CodeInvalid, "/roll %s: is for a character's roll: give as:<character> too.", o.Name)
	}
	expr, ok := r.Options["expr"]
	if !ok {
		return nil, commands.Errorf(commands.CodeInvalid, "/roll needs expr, e.g. expr:3d6 or expr:1d20+3.")
	}
	e, err := dice.Parse(expr)
	if err != nil {
		return nil, commands.Errorf(commands.CodeInvalid, "Bad dice expression: %v.", err)
	}
	res, err := e.Roll(s.Dice())
	if err != nil {
		return nil, commands.RollError(err)
	}
	return &commands.Response{Content: fmt.Sprintf("%s rolled %s%s", commands.Escape(r.UserName), res.String(), commands.ReadingNotes(e))}, nil
}
