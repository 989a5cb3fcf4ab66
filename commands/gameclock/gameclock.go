// Package gameclock is /clock, a feature of the commands kernel (RULES.md
// §0.2): anyone reads the table's game clock; a GM moves it a round or by
// an amount of a unit, at most commands.MaxAdvanceDays at once, through
// Mutation.MoveClock, where the table's system resolves every timed effect
// on the way (and may refuse a move it says more about first: hp-mp-wp
// asks before a day's advance keeps characters awake past their sleep).
package gameclock

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Feature is /clock.
type Feature struct{}

var _ commands.Feature = Feature{}

// Register adds /clock, at the end of the commands so far: wired after the
// system commands (commands/actions), it comes where the kernel had it.
func (Feature) Register(g *commands.Registry) {
	g.Add(&commands.Command{
		Name: "clock", Description: "Show or move the game clock", Handler: clockCommand, Cost: advanceCost,
		Topic: fmt.Sprintf("`/clock action:show` shows the time. GMs move it with `/clock action:next-round` or `/clock action:advance amount:… unit:rounds|turns|hours|days`, at most %d days (%d hours) in one advance; everything that ends or fires is reported.", commands.MaxAdvanceDays, commands.MaxAdvanceDays*24),
		Options: []commands.Option{
			{Name: "action", Description: "What to do (default show)", Type: commands.OptionString, Choices: []string{"next-round", "advance", "show"}},
			{Name: "amount", Description: "How many units (advance)", Type: commands.OptionInteger, MinValue: 1, MaxValue: 10000},
			{Name: "unit", Description: "Unit (advance; default rounds)", Type: commands.OptionString, Choices: []string{"rounds", "turns", "hours", "days"}},
		},
	})
}

// clockCommand answers /clock (RULES.md §0.2): anyone may show the clock; a
// GM moves it a round (next-round) or by an amount of a unit (advance), and
// the table's system resolves every timed effect on the way. Options the
// system gives /clock (hp-mp-wp's awake) are checked against it.
func clockCommand(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	action := r.Options["action"]
	if action == "show" || action == "" {
		var resp *commands.Response
		err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
			resp = &commands.Response{Content: "The clock reads " + clock.Time(t.Clock).String() + "."}
			return nil
		})
		return resp, err
	}
	n, unit := int64(1), clock.Round
	if action == "advance" {
		a, ok := r.Options["amount"]
		if !ok {
			return nil, commands.Errorf(commands.CodeInvalid, "/clock action:advance needs amount (and unit, default rounds).")
		}
		n, _ = strconv.ParseInt(a, 10, 64)
		if u, ok := r.Options["unit"]; ok {
			var err error
			if unit, err = clock.ParseUnit(u); err != nil {
				return nil, commands.Errorf(commands.CodeInvalid, "%v.", err)
			}
		}
	} else if _, ok := r.Options["amount"]; ok {
		return nil, commands.Errorf(commands.CodeInvalid, "next-round moves exactly one round; use action:advance with amount.")
	}
	if err := checkAdvance(n, unit); err != nil {
		return nil, err
	}
	return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
		if err := m.RequireGM("move the clock"); err != nil {
			return nil, err
		}
		if err := m.CheckSystemOptions(); err != nil {
			return nil, err
		}
		if _, err := m.MoveClock(n, unit); err != nil {
			return nil, err
		}
		return &commands.Response{}, nil
	})
}

// checkAdvance refuses moving the clock n units past
// commands.MaxAdvanceDays, with the command to type instead, in the same
// unit.
func checkAdvance(n int64, unit clock.Unit) error {
	most := commands.MaxAdvanceDays * clock.RoundsPerDay / unit.Rounds()
	if n <= most {
		return nil
	}
	limit := fmt.Sprintf("%d days", commands.MaxAdvanceDays)
	if unit != clock.Day {
		limit += fmt.Sprintf(" (%d %s)", most, unit)
	}
	return commands.Errorf(commands.CodeInvalid, "The clock moves at most %s in one command, longer than any timer runs; %d %s is more. Move it in steps: `/clock action:advance amount:%d unit:%s`, then the rest.",
		limit, n, unit, most, unit)
}

// AdvanceDayCost is what each whole day a /clock advance passes costs, in
// units: the longest advance (commands.MaxAdvanceDays, which can hold the
// writer for tens of milliseconds at the largest hp-mp-wp table) takes 900
// of the commands.WorkBurst, so one user gets about one a minute; a week
// costs 70.
const AdvanceDayCost = 10

// advanceCost is the cost of a /clock request: AdvanceDayCost for each
// whole day it moves the clock (n × unit, up to 10,000 × a day, cannot
// overflow).
func advanceCost(r *commands.Request) int {
	if r.Options["action"] != "advance" {
		return 0
	}
	n, err := strconv.ParseInt(r.Options["amount"], 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	unit := clock.Round
	if u, ok := r.Options["unit"]; ok {
		if unit, err = clock.ParseUnit(u); err != nil {
			return 0
		}
	}
	rounds := n * unit.Rounds()
	if rounds > commands.MaxAdvanceDays*clock.RoundsPerDay {
		return 0 // refused before any work (checkAdvance)
	}
	return int(rounds/clock.RoundsPerDay) * AdvanceDayCost
}
