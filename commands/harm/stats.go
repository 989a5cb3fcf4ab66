package harm

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/spelling"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/harm"
)

// NewSheet builds a Healthy character with harm counter 0 (RULES.md §3.1,
// §3.2): the innate abilities at rank 0 unless given, every pool at
// rules.DefaultPool unless given, each pool full. A day of rest counts from
// the table's clock at creation (§3.3).
func (sys System) NewSheet(m *commands.Mutation, stats []commands.Stat) (json.RawMessage, error) {
	c, err := sys.apply(rules.New(), stats, true)
	if err != nil {
		return nil, err
	}
	c.RestFrom = clock.Time(m.Table.Clock)
	return commands.EncodeSheet(sheetOf(c))
}

// SetSheet applies stats to a stored character. A pool given as a maximum
// caps its current points and never refills them; "current/max" sets both.
func (sys System) SetSheet(m *commands.Mutation, raw json.RawMessage, stats []commands.Stat) (json.RawMessage, error) {
	var s sheet
	if err := commands.DecodeSheet(raw, &s); err != nil {
		return nil, err
	}
	c, err := s.state()
	if err != nil {
		return nil, err
	}
	c, err = sys.apply(c, stats, false)
	if err != nil {
		return nil, err
	}
	return commands.EncodeSheet(sheetOf(c))
}

// unknownStat is UnknownStat for harm, which also takes any ability name.
func unknownStat(sys commands.System, key string) error {
	keys := append([]string(nil), sys.StatKeys()...)
	sort.Strings(keys)
	return commands.Errorf(commands.CodeInvalid, "Unknown stat %q for harm%s. Valid keys: %s; or any other ability as name=rank or name=rank:pool, with a name of lower-case letters, digits and '-' (at most %d).",
		commands.Clip(key, 40), commands.DidYouMean(key, keys), strings.Join(keys, ", "), rules.MaxNameLen)
}

// apply sets stats on a copy of c (RULES.md §3.1):
//   - vigor, instinct, reason: "max" or "current/max", 0..rules.MaxPool;
//     a bare max fills the pool when creating and caps it otherwise;
//   - an ability: "rank" (0..6) or "rank:pool"; the five abilities RULES.md
//     names keep their pool, another keeps its pool when it exists, else
//     draws on the pool given or Vigor; "none" removes a non-innate ability.
//
// **Reading:** any other name=rank adds an ability (COMMANDS.md), but a
// name a typo away from a key harm names or an ability the sheet had
// before the command ("enduer" for endure, spelling.Typo) is refused with
// "did you mean endure=2?", unless the player marks it new: +enduer=2.
// Names given in one command are meant together ("climb=2 climbs=1").
func (sys System) apply(c rules.Character, stats []commands.Stat, creating bool) (rules.Character, error) {
	c = c.Clone()
	words := append(append([]string(nil), sys.StatKeys()...), c.AbilityNames()...)
	for _, st := range stats {
		var marked bool
		st.Key, marked = spelling.Marked(st.Key)
		if p := c.PoolNamed(st.Key); p != nil {
			cur, mx, err := poolValue(st)
			if err != nil {
				return c, err
			}
			switch {
			case cur >= 0:
				p.Current = cur
			case creating:
				p.Current = mx
			default:
				p.Current = min(p.Current, mx)
			}
			p.Max = mx
			continue
		}
		if !rules.ValidName(st.Key) {
			return c, unknownStat(sys, st.Key)
		}
		if strings.EqualFold(st.Value, "none") {
			if rules.IsInnate(st.Key) {
				return c, commands.BadStat(st.Key, st.Value, st.Key+" is innate and cannot be removed; its lowest rank is 0")
			}
			delete(c.Abilities, st.Key)
			continue
		}
		_, known := c.Abilities[st.Key]
		if _, fixed := rules.PoolOf(st.Key); !known && !fixed && !isRank(st.Value) {
			// Not an ability this sheet has or RULES.md names, and not a
			// rank either: a key of another system (class=fighter), not a
			// new ability.
			return c, unknownStat(sys, st.Key)
		}
		if near := spelling.Closest(st.Key, words); near != "" && !known && !marked {
			return c, commands.Errorf(commands.CodeInvalid, "%s=%s would add a new ability, %s: did you mean %s=%s? To add %s as an ability of its own, mark it new: %s%s=%s.",
				st.Key, commands.Clip(st.Value, 20), st.Key, near, commands.Clip(st.Value, 20), st.Key, spelling.Mark, st.Key, commands.Clip(st.Value, 20))
		}
		a, err := abilityValue(st, c.Abilities)
		if err != nil {
			return c, err
		}
		if _, ok := c.Abilities[st.Key]; !ok && len(c.Abilities) >= rules.MaxAbilities {
			return c, commands.Errorf(commands.CodeInvalid, "A character has at most %d abilities; remove one with name=none first.", rules.MaxAbilities)
		}
		c.Abilities[st.Key] = a
	}
	if err := c.Validate(); err != nil {
		return c, commands.Errorf(commands.CodeInvalid, "%v.", err)
	}
	return c, nil
}

// isRank reports whether an ability value starts with a whole number, a
// rank, whether or not it is in range ("2", "9", "2:vigor").
func isRank(v string) bool {
	rank, _, _ := strings.Cut(v, ":")
	_, err := strconv.Atoi(rank)
	return err == nil
}

// poolValue reads "max" or "current/max"; cur is −1 when not given.
func poolValue(st commands.Stat) (cur, mx int, err error) {
	want := fmt.Sprintf("a maximum from 0 to %d, or current/max such as 2/5", rules.MaxPool)
	curS, maxS, both := strings.Cut(st.Value, "/")
	if !both {
		maxS, curS = curS, ""
	}
	mx, err = strconv.Atoi(maxS)
	if err != nil || mx < 0 || mx > rules.MaxPool {
		return 0, 0, commands.BadStat(st.Key, st.Value, want)
	}
	cur = -1
	if both {
		cur, err = strconv.Atoi(curS)
		if err != nil || cur < 0 || cur > mx {
			return 0, 0, commands.BadStat(st.Key, st.Value, want+" (current at most max)")
		}
	}
	return cur, mx, nil
}

// abilityValue reads "rank" or "rank:pool" for the ability st.Key.
func abilityValue(st commands.Stat, have map[string]rules.Ability) (rules.Ability, error) {
	rankS, poolS, hasPool := strings.Cut(st.Value, ":")
	rank, err := strconv.Atoi(rankS)
	if err != nil || rank < 0 || rank > rules.MaxRank {
		return rules.Ability{}, commands.BadStat(st.Key, st.Value, fmt.Sprintf("a rank from 0 to %d, optionally with :vigor, :instinct or :reason", rules.MaxRank))
	}
	pool, fixed := rules.PoolOf(st.Key)
	if old, ok := have[st.Key]; ok && !fixed {
		pool = old.Pool
	}
	if hasPool {
		p := strings.ToLower(poolS)
		switch {
		case !rules.IsPool(p):
			return rules.Ability{}, commands.BadStat(st.Key, st.Value, "the pool is vigor, instinct or reason")
		case fixed && p != pool:
			return rules.Ability{}, commands.BadStat(st.Key, st.Value, fmt.Sprintf("%s always draws on %s", st.Key, pool))
		}
		pool = p
	}
	return rules.Ability{Rank: rank, Pool: pool}, nil
}
