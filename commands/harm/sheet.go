package harm

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

// sheet is the stored form of a harm character (RULES.md §3.1, §3.2).
type sheet struct {
	Abilities map[string]sheetAbility `json:"abilities"`
	Pools     map[string]sheetPool    `json:"pools"`
	Condition string                  `json:"condition"`
	Harm      int                     `json:"harm"`
	TakenOut  bool                    `json:"taken_out,omitempty"`
	// RestFrom is the clock (rounds) a day of rest counts from (§3.3).
	RestFrom int64 `json:"rest_from,omitempty"`
	// RestDays counts the days of rest taken alone (/rest kind:day
	// target:…) not yet used by a rest healing (§3.3).
	RestDays int `json:"rest_days,omitempty"`
}

// sheetAbility is the stored form of a rules.Ability.
type sheetAbility struct {
	Rank int    `json:"rank"`
	Pool string `json:"pool"`
}

// sheetPool is the stored form of a rules.Pool.
type sheetPool struct {
	Current int `json:"current"`
	Max     int `json:"max"`
}

func (s sheet) state() (rules.Character, error) {
	cond, err := rules.ParseCondition(s.Condition)
	if err != nil {
		return rules.Character{}, fmt.Errorf("decode harm sheet: %w", err)
	}
	c := rules.Character{Abilities: make(map[string]rules.Ability, len(s.Abilities)), Condition: cond, HarmCounter: s.Harm,
		TakenOut: s.TakenOut, RestFrom: clock.Time(s.RestFrom), RestDays: s.RestDays}
	for name, a := range s.Abilities {
		c.Abilities[name] = rules.Ability{Rank: a.Rank, Pool: a.Pool}
	}
	for _, name := range rules.Pools {
		p := s.Pools[name]
		*c.PoolNamed(name) = rules.Pool{Current: p.Current, Max: p.Max}
	}
	return c, nil
}

func sheetOf(c rules.Character) sheet {
	s := sheet{
		Abilities: make(map[string]sheetAbility, len(c.Abilities)),
		Pools:     make(map[string]sheetPool, len(rules.Pools)),
		Condition: c.Condition.String(),
		Harm:      c.HarmCounter,
		TakenOut:  c.TakenOut,
		RestFrom:  int64(c.RestFrom),
		RestDays:  c.RestDays,
	}
	for name, a := range c.Abilities {
		s.Abilities[name] = sheetAbility{Rank: a.Rank, Pool: a.Pool}
	}
	for _, name := range rules.Pools {
		p := c.PoolNamed(name)
		s.Pools[name] = sheetPool{Current: p.Current, Max: p.Max}
	}
	return s
}

// character is one harm character loaded in a mutation: its record, its
// stored sheet and its state in the rules.
type character struct {
	ch    *storage.Character
	sheet sheet
	c     rules.Character
}

// load decodes a stored character's sheet into the rules' state.
func load(ch *storage.Character) (*character, error) {
	var s sheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return nil, err
	}
	c, err := s.state()
	if err != nil {
		return nil, err
	}
	return &character{ch: ch, sheet: s, c: c}, nil
}

// store saves c as the character's new state.
func (h *character) store(m *commands.Mutation, c rules.Character) error {
	h.c, h.sheet = c, sheetOf(c)
	return m.SaveSheet(h.ch, h.sheet)
}
