package hitprot

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/commands/spelling"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
)

// NewSheet builds a character from the class defaults (RULES.md §1.1) and
// the stats; HP not given are rolled on the hit die.
func (sys System) NewSheet(m *commands.Mutation, stats []commands.Stat) (json.RawMessage, error) {
	class := rules.Fighter
	for _, st := range stats {
		if st.Key == "class" {
			var err error
			if class, err = parseClass(st); err != nil {
				return nil, err
			}
		}
	}
	c := rules.New(class, 1)
	hpGiven := false
	for _, st := range stats {
		if st.Key == "hp" {
			hpGiven = true
		}
	}
	c, err := sys.apply(c, stats, true)
	if err != nil {
		return nil, err
	}
	if !hpGiven {
		res, err := m.Roll(dice.Expr{Terms: []dice.Term{{Sign: 1, Count: 1, Sides: c.HitDie}}})
		if err != nil {
			return nil, err
		}
		c.HP = res.Total
	}
	return commands.EncodeSheet(sheetOf(c))
}

// SetSheet sets stats on a character (/char set). A dead character's sheet
// is the GM's only (RULES.md §1.3 item 7); so is raising HP while anything
// blocks restoring them — an untreated wound, a no-restoring period, a
// bleed-out, a pending choice or a hidden fate (§1.4, §1.5) — so a player
// cannot skip a period by editing the sheet. HP above 0 bring a character
// that stayed up, went down or had its choice pending back to normal play
// (§1.5).
func (sys System) SetSheet(m *commands.Mutation, raw json.RawMessage, stats []commands.Stat) (json.RawMessage, error) {
	var s sheet
	if err := commands.DecodeSheet(raw, &s); err != nil {
		return nil, err
	}
	old := s.state()
	name := "**" + commands.Escape(m.Req.Options["name"]) + "**"
	if ch, err := m.Character(m.Req.Options["name"]); err == nil {
		name = "**" + commands.Escape(ch.Name) + "**"
	}
	gm := m.IsGM()
	if old.Status == rules.Dead && !gm {
		return nil, commands.Errorf(commands.CodeForbidden, "%s is dead; only a GM can change the sheet. Nothing was changed.", name)
	}
	c, err := sys.apply(old, stats, false)
	if err != nil {
		return nil, err
	}
	if c.HP > old.HP && !gm {
		if why := old.RestoreBlock(clock.Time(m.Table.Clock)); why != "" {
			return nil, commands.Errorf(commands.CodeForbidden, "%s cannot have HP restored now (%s); only a GM can raise its hp. Nothing was changed.", name, why)
		}
	}
	return commands.EncodeSheet(s.with(c.Recover()))
}

// apply sets stats on c. A new level brings its hit dice along (HD follow
// the level unless hd is given); a smaller hit die caps HP. The result is
// validated against RULES.md §1.1.
func (sys System) apply(c rules.Character, stats []commands.Stat, creating bool) (rules.Character, error) {
	given := map[string]bool{}
	for _, st := range stats {
		given[st.Key] = true
	}
	if c.Saves != nil {
		saves := make(map[string]int, len(c.Saves))
		for k, v := range c.Saves {
			saves[k] = v
		}
		c.Saves = saves
	}
	for _, st := range stats {
		var err error
		switch st.Key {
		case "class":
			if c.Class, err = parseClass(st); err != nil {
				return c, err
			}
			if creating && !given["hit-die"] {
				c.HitDie = rules.DefaultHitDie(c.Class)
			}
		case "level":
			var lvl int
			if lvl, err = commands.StatInt(st, 1, rules.MaxLevel); err == nil && !given["hd"] {
				c.HD += lvl - c.Level
				c.HD = max(0, min(c.HD, lvl))
			}
			c.Level = lvl
		case "hit-die":
			v := strings.TrimPrefix(strings.ToLower(st.Value), "d")
			var n int
			if _, e := fmt.Sscanf(v, "%d", &n); e != nil || fmt.Sprint(n) != v || !validHitDie(n) {
				return c, commands.BadStat(st.Key, st.Value, "d4, d6, d8, d10 or d12")
			}
			c.HitDie = n
			if !given["hp"] {
				c.HP = min(c.HP, n)
			}
		case "hp", "hd":
			// Checked below, once level and hit die are known.
		case "init":
			c.Init, err = commands.StatInt(st, initiative.MinBonus, initiative.MaxBonus)
		default:
			cat, ok := strings.CutPrefix(st.Key, "save-")
			if !ok || !isSaveCategory(cat) {
				return c, commands.UnknownStat(sys, st.Key)
			}
			var t int
			if t, err = commands.StatInt(st, 1, 20); err == nil {
				if c.Saves == nil {
					c.Saves = map[string]int{}
				}
				c.Saves[cat] = t
			}
		}
		if err != nil {
			return c, err
		}
	}
	for _, st := range stats {
		var err error
		switch st.Key {
		case "hp":
			c.HP, err = commands.StatInt(st, 0, c.HitDie)
		case "hd":
			c.HD, err = commands.StatInt(st, 0, c.Level)
		}
		if err != nil {
			return c, err
		}
	}
	if err := c.Validate(); err != nil {
		return c, commands.Errorf(commands.CodeInvalid, "%v.", err)
	}
	return c, nil
}

func validHitDie(n int) bool {
	for _, d := range rules.HitDice {
		if d == n {
			return true
		}
	}
	return false
}

func isSaveCategory(cat string) bool {
	for _, c := range rules.SaveCategories {
		if c == cat {
			return true
		}
	}
	return false
}

// classes are the classes RULES.md §1.1 and §1.2 name; any other word is
// a class too, with the fighter's saves.
var classes = []string{rules.Fighter, rules.Cleric, rules.MagicUser, rules.Thief}

// parseClass reads a class value, lower-cased: a typo of a class the
// rules name ("theif") is refused with the class meant, unless it is
// marked new ("+theif", spelling.NewWord).
func parseClass(st commands.Stat) (string, error) {
	class, refusal := spelling.NewWord(st.Key, strings.ToLower(st.Value), classes)
	if refusal != "" {
		return "", commands.Errorf(commands.CodeInvalid, "%s", refusal)
	}
	return class, nil
}
