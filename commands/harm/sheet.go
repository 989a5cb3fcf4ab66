package harm

import (
	"fmt"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/harm"
	"github.com/hpkeeper/hpkeeper/storage"
)

// harmSheet is the stored form of a harm character (RULES.md §3.1, §3.2).
type harmSheet struct {
	Abilities map[string]harmAbility `json:"abilities"`
	Pools     map[string]harmPool    `json:"pools"`
	Condition string                 `json:"condition"`
	Harm      int                    `json:"harm"`
	TakenOut  bool                   `json:"taken_out,omitempty"`
	// RestFrom is the clock (rounds) a day of rest counts from (§3.3).
	RestFrom int64 `json:"rest_from,omitempty"`
	// RestDays counts the days of rest taken alone (/rest kind:day
	// target:…) not yet used by a rest healing (§3.3).
	RestDays int `json:"rest_days,omitempty"`
}

// harmAbility is the stored form of a harm.Ability.
type harmAbility struct {
	Rank int    `json:"rank"`
	Pool string `json:"pool"`
}

// harmPool is the stored form of a harm.Pool.
type harmPool struct {
	Current int `json:"current"`
	Max     int `json:"max"`
}

func (s harmSheet) character() (harm.Character, error) {
	cond, err := harm.ParseCondition(s.Condition)
	if err != nil {
		return harm.Character{}, fmt.Errorf("decode harm sheet: %w", err)
	}
	c := harm.Character{Abilities: make(map[string]harm.Ability, len(s.Abilities)), Condition: cond, HarmCounter: s.Harm,
		TakenOut: s.TakenOut, RestFrom: clock.Time(s.RestFrom), RestDays: s.RestDays}
	for name, a := range s.Abilities {
		c.Abilities[name] = harm.Ability{Rank: a.Rank, Pool: a.Pool}
	}
	for _, name := range harm.Pools {
		p := s.Pools[name]
		*c.PoolNamed(name) = harm.Pool{Current: p.Current, Max: p.Max}
	}
	return c, nil
}

func harmSheetOf(c harm.Character) harmSheet {
	s := harmSheet{
		Abilities: make(map[string]harmAbility, len(c.Abilities)),
		Pools:     make(map[string]harmPool, len(harm.Pools)),
		Condition: c.Condition.String(),
		Harm:      c.HarmCounter,
		TakenOut:  c.TakenOut,
		RestFrom:  int64(c.RestFrom),
		RestDays:  c.RestDays,
	}
	for name, a := range c.Abilities {
		s.Abilities[name] = harmAbility{Rank: a.Rank, Pool: a.Pool}
	}
	for _, name := range harm.Pools {
		p := c.PoolNamed(name)
		s.Pools[name] = harmPool{Current: p.Current, Max: p.Max}
	}
	return s
}

func harmLoad(ch *storage.Character) (harm.Character, error) {
	var s harmSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return harm.Character{}, err
	}
	return s.character()
}

func harmStore(m *commands.Mutation, ch *storage.Character, c harm.Character) error {
	raw, err := commands.EncodeSheet(harmSheetOf(c))
	if err != nil {
		return err
	}
	ch.Sheet = raw
	return m.Save(ch)
}
