package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// roll answers /roll: a plain roll of `expr` (RULES.md §0.3), or, with `as`,
// a roll for a character that the table's system may extend (hit dice on
// rolls, ability checks).
func roll(ctx context.Context, s *Service, r *Request) (*Response, error) {
	if _, ok := r.Options["as"]; ok {
		return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
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
				return nil, Errorf(CodeInvalid, "/roll needs expr, e.g. expr:1d20+3.")
			}
			m = m.For(c)
			res, err := m.RollString(expr)
			if err != nil {
				return nil, err
			}
			m.Say("**%s** rolled %s%s", Escape(c.Name), res.String(), ReadingNotes(res.Expr))
			return &Response{}, nil
		})

	}
	defs := s.registry.Lookup("roll").Options
	for _, o := range defs {
		if _, ok := r.Options[o.Name]; !ok || !o.BySystem {
			continue
		}
		// A system's option without as: a table whose system does not
		// take it refuses it by name, as with as:; else as: is missing.
		var sys System
		_ = s.db.View(func(tx *storage.Tx) error {
			if t, err := tx.Table(r.ChannelID); err == nil {
				sys, _ = s.System(t.System)
			}
			return nil
		})
		if sys != nil {
			if err := checkSystemOptions(r, sys, defs); err != nil {
				return nil, err
			}
		}
		if _, ok := r.Options["hd"]; ok {
			return nil, Errorf(CodeInvalid, "/roll hd needs as:<character>, whose hit dice are spent (e.g. as:Lister).")
		}
		return nil, Errorf(CodeInvalid, "/roll %s: is for a character's roll: give as:<character> too.", o.Name)
	}
	expr, ok := r.Options["expr"]
	if !ok {
		return nil, Errorf(CodeInvalid, "/roll needs expr, e.g. expr:3d6 or expr:1d20+3.")
	}
	e, err := dice.Parse(expr)
	if err != nil {
		return nil, Errorf(CodeInvalid, "Bad dice expression: %v.", err)
	}
	res, err := e.Roll(s.dice)
	if err != nil {
		return nil, RollError(err)
	}
	return &Response{Content: fmt.Sprintf("%s rolled %s%s", Escape(r.UserName), res.String(), ReadingNotes(e))}, nil
}

// ReadingNotes renders, one small-print line each to follow a roll, how
// its expression was read where Avrae and Dice Maiden read it differently
// (docs/dice.md, "Where the bots differ"), e.g. "\n-# `4d6k3` keeps the
// dice showing 3, as in Avrae; for the highest 3 write `4d6kh3`"; "" for
// none. Every reply that rolls a player's expression adds it.
func ReadingNotes(e dice.Expr) string {
	var b strings.Builder
	for _, n := range e.Notes() {
		b.WriteString("\n-# ")
		b.WriteString(n)
	}
	return b.String()
}
