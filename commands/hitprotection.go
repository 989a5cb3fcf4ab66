package commands

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// hitProtection adapts the hit-protection system (RULES.md §1).
type hitProtection struct{}

// hpSheet is the stored form of a hit-protection character.
type hpSheet struct {
	Class  string         `json:"class"`
	Level  int            `json:"level"`
	HitDie int            `json:"hit_die"`
	HP     int            `json:"hp"`
	HD     int            `json:"hd"`
	Saves  map[string]int `json:"saves,omitempty"`
}

func (s hpSheet) character() hitprot.Character {
	return hitprot.Character{Class: s.Class, Level: s.Level, HitDie: s.HitDie, HP: s.HP, HD: s.HD, Saves: s.Saves}
}

func fromCharacter(c hitprot.Character) hpSheet {
	return hpSheet{Class: c.Class, Level: c.Level, HitDie: c.HitDie, HP: c.HP, HD: c.HD, Saves: c.Saves}
}

func (hitProtection) Name() string { return "hit-protection" }

func (hitProtection) Help() string {
	return "Hit Protection & Hit Dice: a character has one die's worth of HP; levels add hit dice, spent to soak damage, rest and boost rolls. At 0 HP the player chooses Heroic Death, Stay Up or Go Down; wounds come from the injury table."
}

func (hitProtection) TableOptions() []TableOption {
	return []TableOption{{Name: "catch-breath", Help: "fighters may catch their breath for a round", Values: []string{"off", "on"}}}
}

func (hitProtection) StatKeys() []string {
	return []string{"class", "level", "hit-die", "hp", "hd", "save-death", "save-wands", "save-paralysis", "save-breath", "save-spells"}
}

// NewSheet builds a character from the class defaults (RULES.md §1.1) and
// the stats; HP not given are rolled on the hit die.
func (sys hitProtection) NewSheet(m *Mutation, stats []Stat) (json.RawMessage, error) {
	class := hitprot.Fighter
	for _, st := range stats {
		if st.Key == "class" {
			class = strings.ToLower(st.Value)
		}
	}
	c := hitprot.New(class, 1)
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
	return encodeSheet(fromCharacter(c))
}

func (sys hitProtection) SetSheet(m *Mutation, raw json.RawMessage, stats []Stat) (json.RawMessage, error) {
	var s hpSheet
	if err := decodeSheet(raw, &s); err != nil {
		return nil, err
	}
	c, err := sys.apply(s.character(), stats, false)
	if err != nil {
		return nil, err
	}
	return encodeSheet(fromCharacter(c))
}

// apply sets stats on c. A new level brings its hit dice along (HD follow
// the level unless hd is given); a smaller hit die caps HP. The result is
// validated against RULES.md §1.1.
func (sys hitProtection) apply(c hitprot.Character, stats []Stat, creating bool) (hitprot.Character, error) {
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
			c.Class = strings.ToLower(st.Value)
			if creating && !given["hit-die"] {
				c.HitDie = hitprot.DefaultHitDie(c.Class)
			}
		case "level":
			var lvl int
			if lvl, err = StatInt(st, 1, hitprot.MaxLevel); err == nil && !given["hd"] {
				c.HD += lvl - c.Level
				c.HD = max(0, min(c.HD, lvl))
			}
			c.Level = lvl
		case "hit-die":
			v := strings.TrimPrefix(strings.ToLower(st.Value), "d")
			var n int
			if _, e := fmt.Sscanf(v, "%d", &n); e != nil || fmt.Sprint(n) != v || !validHitDie(n) {
				return c, BadStat(st.Key, st.Value, "d4, d6, d8, d10 or d12")
			}
			c.HitDie = n
			if !given["hp"] {
				c.HP = min(c.HP, n)
			}
		case "hp", "hd":
			// Checked below, once level and hit die are known.
		default:
			cat, ok := strings.CutPrefix(st.Key, "save-")
			if !ok || !isSaveCategory(cat) {
				return c, UnknownStat(sys, st.Key)
			}
			var t int
			if t, err = StatInt(st, 1, 20); err == nil {
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
			c.HP, err = StatInt(st, 0, c.HitDie)
		case "hd":
			c.HD, err = StatInt(st, 0, c.Level)
		}
		if err != nil {
			return c, err
		}
	}
	if err := c.Validate(); err != nil {
		return c, Errorf(CodeInvalid, "%v.", err)
	}
	return c, nil
}

func validHitDie(n int) bool {
	for _, d := range hitprot.HitDice {
		if d == n {
			return true
		}
	}
	return false
}

func isSaveCategory(cat string) bool {
	for _, c := range hitprot.SaveCategories {
		if c == cat {
			return true
		}
	}
	return false
}

func (hitProtection) Describe(ch *storage.Character) (string, []Field, error) {
	var s hpSheet
	if err := decodeSheet(ch.Sheet, &s); err != nil {
		return "", nil, err
	}
	c := s.character()
	status := fmt.Sprintf("HP %d/%d · HD %d/%d", c.HP, c.HitDie, c.HD, c.Level)
	var saves []string
	for _, cat := range hitprot.SaveCategories {
		t, _ := c.SaveTarget(cat)
		mark := ""
		if _, ok := c.Saves[cat]; ok {
			mark = "*"
		}
		saves = append(saves, fmt.Sprintf("%s %d%s", cat, t, mark))
	}
	note := ""
	if len(c.Saves) > 0 {
		note = " (* set on the sheet)"
	}
	return status, []Field{
		{Name: "Class", Value: fmt.Sprintf("%s %d", Escape(c.Class), c.Level), Inline: true},
		{Name: "Hit die", Value: fmt.Sprintf("d%d", c.HitDie), Inline: true},
		{Name: "Saves (d20 ≥)", Value: strings.Join(saves, ", ") + note},
	}, nil
}

func (hitProtection) Action(name string) ActionFunc      { return nil }
func (hitProtection) Roll() ActionFunc                   { return nil }
func (hitProtection) Components() map[string]HandlerFunc { return nil }

func (hitProtection) AdvanceClock(m *Mutation, from, to int64) ([]string, error) { return nil, nil }
