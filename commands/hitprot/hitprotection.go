package hitprot

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// System adapts the hit-protection system (RULES.md §1).
type System struct{}

// hpSheet is the stored form of a hit-protection character (RULES.md §1.1,
// with the 0-HP and injury state of §1.3 and §1.4). ChoiceSeq and Chose are
// the adapter's own: the event whose 0-HP message carries the buttons, and
// the choice made there.
type hpSheet struct {
	Class          string         `json:"class"`
	Level          int            `json:"level"`
	HitDie         int            `json:"hit_die"`
	HP             int            `json:"hp"`
	HD             int            `json:"hd"`
	Saves          map[string]int `json:"saves,omitempty"`
	Status         string         `json:"status,omitempty"`
	ZeroType       string         `json:"zero_type,omitempty"`
	FateRevealed   bool           `json:"fate_revealed,omitempty"`
	Untreated      int            `json:"untreated,omitempty"`
	Mobility       bool           `json:"mobility,omitempty"`
	Scars          int            `json:"scars,omitempty"`
	StunnedUntil   int64          `json:"stunned_until,omitempty"`
	NoRestoreUntil int64          `json:"no_restore_until,omitempty"`
	Bleeds         []hpBleed      `json:"bleeds,omitempty"`
	Limbs          []hpLimb       `json:"limbs,omitempty"`
	DownHits       int            `json:"down_hits,omitempty"`
	DeathCause     string         `json:"death_cause,omitempty"`
	HeroicAction   string         `json:"heroic_action,omitempty"`
	ChoiceSeq      uint64         `json:"choice_seq,omitempty"`
	Chose          string         `json:"chose,omitempty"`
}

// hpBleed is the stored form of a hitprot.Bleed.
type hpBleed struct {
	Wound  string `json:"wound"`
	DiesAt int64  `json:"dies_at"`
}

// hpLimb is the stored form of a hitprot.Limb.
type hpLimb struct {
	Name  string `json:"name"`
	Lost  bool   `json:"lost,omitempty"`
	Until int64  `json:"until,omitempty"`
}

func (s hpSheet) character() hitprot.Character {
	c := hitprot.Character{Class: s.Class, Level: s.Level, HitDie: s.HitDie, HP: s.HP, HD: s.HD, Saves: s.Saves,
		Status: hitprot.ParseStatus(s.Status), ZeroType: s.ZeroType, FateRevealed: s.FateRevealed,
		Untreated: s.Untreated, Mobility: s.Mobility, Scars: s.Scars,
		StunnedUntil: clock.Time(s.StunnedUntil), NoRestoreUntil: clock.Time(s.NoRestoreUntil),
		DownHits: s.DownHits, DeathCause: s.DeathCause, HeroicAction: s.HeroicAction}
	for _, b := range s.Bleeds {
		c.Bleeds = append(c.Bleeds, hitprot.Bleed{Wound: hitprot.ParseBand(b.Wound), DiesAt: clock.Time(b.DiesAt)})
	}
	for _, l := range s.Limbs {
		c.Limbs = append(c.Limbs, hitprot.Limb{Name: l.Name, Lost: l.Lost, Until: clock.Time(l.Until)})
	}
	return c
}

// with returns s holding c, keeping the adapter's own fields.
func (s hpSheet) with(c hitprot.Character) hpSheet {
	n := fromCharacter(c)
	n.ChoiceSeq, n.Chose = s.ChoiceSeq, s.Chose
	return n
}

func fromCharacter(c hitprot.Character) hpSheet {
	s := hpSheet{Class: c.Class, Level: c.Level, HitDie: c.HitDie, HP: c.HP, HD: c.HD, Saves: c.Saves,
		ZeroType: c.ZeroType, FateRevealed: c.FateRevealed, Untreated: c.Untreated, Mobility: c.Mobility,
		Scars: c.Scars, StunnedUntil: int64(c.StunnedUntil), NoRestoreUntil: int64(c.NoRestoreUntil),
		DownHits: c.DownHits, DeathCause: c.DeathCause, HeroicAction: c.HeroicAction}
	if c.Status != hitprot.Up {
		s.Status = c.Status.String()
	}
	for _, b := range c.Bleeds {
		s.Bleeds = append(s.Bleeds, hpBleed{Wound: b.Wound.String(), DiesAt: int64(b.DiesAt)})
	}
	for _, l := range c.Limbs {
		s.Limbs = append(s.Limbs, hpLimb{Name: l.Name, Lost: l.Lost, Until: int64(l.Until)})
	}
	return s
}

func (System) Name() string { return "hit-protection" }

func (System) Help() string {
	return "Hit Protection & Hit Dice: a character has one die's worth of HP; levels add hit dice, spent to soak damage, rest and boost rolls. At 0 HP the player chooses Heroic Death, Stay Up or Go Down; wounds come from the injury table."
}

func (System) TableOptions() []commands.TableOption {
	return []commands.TableOption{{Name: "catch-breath", Help: "fighters may catch their breath for a round", Values: []string{"off", "on"}}}
}

func (System) StatKeys() []string {
	return []string{"class", "level", "hit-die", "hp", "hd", "save-death", "save-wands", "save-paralysis", "save-breath", "save-spells"}
}

// NewSheet builds a character from the class defaults (RULES.md §1.1) and
// the stats; HP not given are rolled on the hit die.
func (sys System) NewSheet(m *commands.Mutation, stats []commands.Stat) (json.RawMessage, error) {
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
	return commands.EncodeSheet(fromCharacter(c))
}

// SetSheet sets stats on a character (/char set). A dead character's sheet
// is the GM's only (RULES.md §1.3 item 7); so is raising HP while anything
// blocks restoring them — an untreated wound, a no-restoring period, a
// bleed-out, a pending choice or a hidden fate (§1.4, §1.5) — so a player
// cannot skip a period by editing the sheet. HP above 0 bring a character
// that stayed up, went down or had its choice pending back to normal play
// (§1.5).
func (sys System) SetSheet(m *commands.Mutation, raw json.RawMessage, stats []commands.Stat) (json.RawMessage, error) {
	var s hpSheet
	if err := commands.DecodeSheet(raw, &s); err != nil {
		return nil, err
	}
	old := s.character()
	name := "**" + commands.Escape(m.Req.Options["name"]) + "**"
	if ch, err := m.Character(m.Req.Options["name"]); err == nil {
		name = "**" + commands.Escape(ch.Name) + "**"
	}
	gm := m.IsGM()
	if old.Status == hitprot.Dead && !gm {
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
func (sys System) apply(c hitprot.Character, stats []commands.Stat, creating bool) (hitprot.Character, error) {
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
			if lvl, err = commands.StatInt(st, 1, hitprot.MaxLevel); err == nil && !given["hd"] {
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

func (System) Describe(ch *storage.Character) (string, []commands.Field, error) {
	var s hpSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return "", nil, err
	}
	c := s.character()
	status := fmt.Sprintf("HP %d/%d · HD %d/%d", c.HP, c.HitDie, c.HD, c.Level)
	conds := c.Conditions(0)
	if len(conds) > 0 {
		status += " · " + strings.Join(conds, ", ")
	}
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
	fields := []commands.Field{
		{Name: "Class", Value: fmt.Sprintf("%s %d", commands.Escape(c.Class), c.Level), Inline: true},
		{Name: "Hit die", Value: fmt.Sprintf("d%d", c.HitDie), Inline: true},
		{Name: "Saves (d20 ≥)", Value: strings.Join(saves, ", ") + note},
	}
	if c.HeroicAction != "" {
		fields = append(fields, commands.Field{Name: "Heroic action", Value: commands.Escape(c.HeroicAction)})
	}
	return status, fields, nil
}
