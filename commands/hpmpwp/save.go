package hpmpwp

import (
	"strconv"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// save is /save type:fort|will bonus:N: d20 + the sheet's save + bonus,
// shown for the GM to compare with a DC (RULES.md §0.4).
func save(m *commands.Mutation) (*commands.Response, error) {
	kind := m.Req.Options["type"] // fort or will (Options)
	targets, err := m.TargetsToChange(m.Req.Options["target"])
	if err != nil {
		return nil, err
	}
	extra, _ := strconv.Atoi(m.Req.Options["bonus"])
	for _, ch := range targets {
		m := m.For(ch)
		c, _, err := load(ch)
		if err != nil {
			return nil, err
		}
		bonus, name := c.Fort, "Fort"
		if kind == "will" {
			bonus, name = c.Will, "Will"
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
		m.Say("**%s** %s save: %s %+d = %d%s", commands.Escape(ch.Name), name, res, bonus+extra, res.Total+bonus+extra, note)
	}
	return &commands.Response{}, nil
}
