package hpmpwp

import (
	"fmt"
	"strconv"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
)

// save is /save type:fort|will bonus:N: d20 + the sheet's save + bonus,
// shown for the GM to compare with a DC (RULES.md §0.4). The sheet's Fort
// and Will are the rested values: the fatigue and exertion penalties of the
// moment lower them, and the reply shows by how much, e.g. "Fort +2 −1
// fatigue" (RULES.md §2.3 Reading).
func save(m *commands.Mutation) (*commands.Response, error) {
	kind := m.Req.Options["type"] // fort or will (Options)
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	extra, _ := strconv.Atoi(m.Req.Options["bonus"])
	for _, ch := range targets {
		m := m.For(ch)
		char, err := load(ch)
		if err != nil {
			return nil, err
		}
		c := char.c
		fortAdj, willAdj := c.FatigueAdjust()
		bonus, adj, name := c.Fort, fortAdj, "Fort"
		if kind == "will" {
			bonus, adj, name = c.Will, willAdj, "Will"
		}
		res, err := m.Roll(dice.Expr{Terms: []dice.Term{{Sign: 1, Count: 1, Sides: 20}}})
		if err != nil {
			return nil, err
		}
		note := ""
		switch res.Total {
		case 1:
			note = " (natural 1: fails)"
		case 20:
			note = " (natural 20: succeeds)"
		}
		total := res.Total + bonus + adj + extra
		switch {
		case adj == 0 && bonus+extra == 0: // the d20 alone: its total once
			m.Say("**%s** %s save: %s%s", commands.Escape(ch.Name), name, res, note)
			continue
		case adj == 0:
			m.Say("**%s** %s save: %s %+d = %d%s", commands.Escape(ch.Name), name, res, bonus+extra, total, note)
			continue
		}
		more := ""
		if extra != 0 {
			more = fmt.Sprintf(" %+d", extra)
		}
		m.Say("**%s** %s save: %s, %s %+d −%d %s%s = %d%s", commands.Escape(ch.Name), name, res,
			name, bonus, -adj, rules.FatigueWord(adj), more, total, note)
	}
	return &commands.Response{}, nil
}
