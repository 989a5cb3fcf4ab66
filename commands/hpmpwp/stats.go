package hpmpwp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/initiative"
	"github.com/hpkeeper/hpkeeper/commands/spelling"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
)

// NewSheet builds a character (RULES.md §2.1): hp-max is required; every
// ability defaults to 10, HP, MP and WP start full, and MP max, when not
// given, is rolled on the class's mana die with m.Roll.
func (sys System) NewSheet(m *commands.Mutation, stats []commands.Stat) (json.RawMessage, error) {
	c := rules.New(rules.DefaultClass, 1, 1)
	c, err := sys.apply(m, c, stats, true)
	if err != nil {
		return nil, err
	}
	return commands.EncodeSheet(sheetOf(c))
}

// SetSheet applies stats to a stored character (RULES.md §2.1). A lowered
// maximum (hp-max, mp-max, con) caps the current value; a raised one restores
// nothing. A level gained without mp-max rolls the new levels' mana dice.
func (sys System) SetSheet(m *commands.Mutation, raw json.RawMessage, stats []commands.Stat) (json.RawMessage, error) {
	var s sheet
	if err := commands.DecodeSheet(raw, &s); err != nil {
		return nil, err
	}
	c, err := sys.apply(m, s.state(), stats, false)
	if err != nil {
		return nil, err
	}
	return commands.EncodeSheet(sheetOf(c, s.ChoiceSeq))
}

// parseClass checks a class value: 1 to 32 letters, digits and '-' (spaces are
// impossible in stats; "psychic_warrior" becomes "psychic-warrior"). A typo
// of a class the rules name ("wizzard") is refused with the class meant,
// unless it is marked new ("+wizzard", spelling.NewWord).
func parseClass(st commands.Stat) (string, error) {
	class, refusal := spelling.NewWord(st.Key, rules.NormalizeClass(st.Value), rules.Classes)
	if refusal != "" {
		return "", commands.Errorf(commands.CodeInvalid, "%s", refusal)
	}
	ok := len(class) >= 1 && len(class) <= 32
	for _, r := range class {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			ok = false
		}
	}
	if !ok {
		return "", commands.BadStat(st.Key, st.Value, "a class name of up to 32 letters, digits and '-', e.g. wizard or psychic-warrior")
	}
	return class, nil
}

// parseFeats reads the feats value: a comma list of endurance and die-hard, or
// "none" to clear them.
func parseFeats(st commands.Stat) (endurance, dieHard bool, err error) {
	if strings.EqualFold(st.Value, "none") {
		return false, false, nil
	}
	for _, f := range strings.Split(strings.ToLower(st.Value), ",") {
		switch strings.TrimSpace(f) {
		case rules.Endurance:
			endurance = true
		case rules.DieHard:
			dieHard = true
		default:
			return false, false, commands.BadStat(st.Key, st.Value, "a comma list of endurance and die-hard, or none")
		}
	}
	return endurance, dieHard, nil
}

// apply sets stats on c in two passes: first everything but the current HP,
// MP and WP, then (after MP max is rolled when due) the current values,
// checked against the new maxima. Creating, HP, MP and WP start full.
func (sys System) apply(m *commands.Mutation, c rules.Character, stats []commands.Stat, creating bool) (rules.Character, error) {
	given := map[string]bool{}
	for _, st := range stats {
		if !slices.Contains(sys.StatKeys(), st.Key) {
			return c, commands.UnknownStat(sys, st.Key) // before hp-max is missed: "hp-mx" is a typo
		}
		given[st.Key] = true
	}
	if creating && !given["hp-max"] {
		return c, commands.Errorf(commands.CodeInvalid, "hp-mp-wp characters need hp-max=N (as usual in 3.5), e.g. stats:\"hp-max=12 class=fighter\".")
	}
	oldLevel := c.Level
	for _, st := range stats {
		var err error
		switch st.Key {
		case "class":
			c.Class, err = parseClass(st)
		case "level":
			c.Level, err = commands.StatInt(st, rules.MinLevel, rules.MaxLevel)
		case "hp-max":
			c.HPMax, err = commands.StatInt(st, 1, rules.MaxPoints)
		case "mp-max":
			c.MPMax, err = commands.StatInt(st, 0, rules.MaxPoints)
		case "str":
			c.Str, err = commands.StatInt(st, rules.MinScore, rules.MaxScore)
		case "dex":
			c.Dex, err = commands.StatInt(st, rules.MinScore, rules.MaxScore)
		case "con":
			c.Con, err = commands.StatInt(st, rules.MinScore, rules.MaxScore)
		case "int":
			c.Int, err = commands.StatInt(st, rules.MinScore, rules.MaxScore)
		case "wis":
			c.Wis, err = commands.StatInt(st, rules.MinScore, rules.MaxScore)
		case "cha":
			c.Cha, err = commands.StatInt(st, rules.MinScore, rules.MaxScore)
		case "temp-con":
			c.TempWP, err = commands.StatInt(st, 0, rules.MaxScore)
		case "fort":
			c.Fort, err = commands.StatInt(st, rules.MinSave, rules.MaxSave)
		case "will":
			c.Will, err = commands.StatInt(st, rules.MinSave, rules.MaxSave)
		case "init":
			c.Init, err = commands.StatInt(st, initiative.MinBonus, initiative.MaxBonus)
		case "feats":
			c.Endurance, c.DieHard, err = parseFeats(st)
		case "effect":
			if c.Effect, err = rules.ParseEffect(st.Value); err != nil {
				err = commands.BadStat(st.Key, st.Value, "none, fatigued or exhausted (a spell or effect, until the GM clears it)")
			}
		case "state":
			if c.State, err = rules.ParseState(st.Value); err != nil {
				err = commands.BadStat(st.Key, st.Value, "fine, disabled, dying, stable or dead (a GM correction; WP decide fine or not)")
			}
			c.ChoicePending = false
		case "hp", "mp", "wp":
			// Set below, once the maxima are known.
		default:
			return c, commands.UnknownStat(sys, st.Key)
		}
		if err != nil {
			return c, err
		}
	}
	if !given["mp-max"] {
		if err := rollMP(m, &c, oldLevel, creating); err != nil {
			return c, err
		}
	}
	if creating {
		c.HP, c.MP, c.WP = c.HPMax, c.MPMax, c.WPMax()
	} else {
		c.HP, c.MP, c.WP = min(c.HP, c.HPMax), min(c.MP, c.MPMax), min(c.WP, c.WPMax())
	}
	for _, st := range stats {
		var err error
		switch st.Key {
		case "hp":
			c.HP, err = commands.StatInt(st, 0, c.HPMax)
		case "mp":
			c.MP, err = commands.StatInt(st, 0, c.MPMax)
		case "wp":
			c.WP, err = commands.StatInt(st, rules.MinWP, c.WPMax())
		}
		if err != nil {
			return c, err
		}
	}
	// The state follows the WP sign (RULES.md §2.4), and HP and MP are
	// capped at the maxima lowered by fatigue (RULES.md §2.3), whatever
	// cause the edit brought (the GM's effect, a lower Con or Wis, wound
	// damage). An hp or mp given above the lowered maximum is refused.
	if given["state"] && c.State == rules.Dying && c.DyingSince == 0 {
		c.DyingSince = m.Table.Clock
	}
	if err := givenWithinFatigue(c, stats); err != nil {
		return c, err
	}
	unsettled := c
	c = c.Settle()
	if c.HP < unsettled.HP {
		m.Note("HP %d → %d (capped at the fatigued maximum).", unsettled.HP, c.HP)
	}
	if c.MP < unsettled.MP {
		m.Note("MP %d → %d (capped at the fatigued maximum).", unsettled.MP, c.MP)
	}
	if err := c.Validate(); err != nil {
		return c, commands.Errorf(commands.CodeInvalid, "%v.", err)
	}
	return c, nil
}

// givenWithinFatigue refuses an hp or mp in stats above the maximum
// lowered by fatigue's penalty (RULES.md §2.3) on the edited character c.
func givenWithinFatigue(c rules.Character, stats []commands.Stat) error {
	cond := c.Condition()
	for _, st := range stats {
		switch {
		case st.Key == "hp" && c.HP > c.EffectiveHPMax():
			return commands.Errorf(commands.CodeInvalid, "%s: HP must be 0 to %d, the HP max %d lowered while %s, not %d.",
				commands.Escape(st.Key+"="+st.Value), c.EffectiveHPMax(), c.HPMax, cond, c.HP)
		case st.Key == "mp" && c.MP > c.EffectiveMPMax():
			return commands.Errorf(commands.CodeInvalid, "%s: MP must be 0 to %d, the MP max %d lowered while %s, not %d.",
				commands.Escape(st.Key+"="+st.Value), c.EffectiveMPMax(), c.MPMax, cond, c.MP)
		}
	}
	return nil
}

// rollMP rolls MP max when it is not given (RULES.md §2.1): at creation
// the whole of it (level 1 takes the mana die's maximum, each further level
// one roll), on /char set only the levels gained since oldLevel, added to the
// maximum without raising current MP. Losing levels leaves MP max alone.
// The dice go through m.Roll as one expression whose total is the MP max
// (or its gain) with its parts (rules.MPDice), so that the reply and the
// event show the sum, e.g. "2d10+16 [9, 4] + 16 [d10 max at level 1, Wis
// +2 a level] = 29".
func rollMP(m *commands.Mutation, c *rules.Character, oldLevel int, creating bool) error {
	die, mod := rules.ManaDie(c.Class), rules.Modifier(c.Wis)
	first := oldLevel + 1
	if creating {
		first = 2
	}
	n := c.Level - first + 1
	switch {
	case n <= 0 && creating:
		c.MPMax = rules.MPMax(c.Class, c.Wis, nil)
		m.Note("MP max %d: level 1 d%d maximum %d; Wis %+d, at least 1.", c.MPMax, die, die, mod)
	case n > 0:
		e, err := rules.MPDice(c.Class, c.Wis, n, creating)
		if err != nil {
			return err
		}
		res, err := m.Roll(e)
		if err != nil {
			return err
		}
		levels := fmt.Sprintf("levels %d–%d", first, c.Level)
		if n == 1 {
			levels = fmt.Sprintf("level %d", first)
		}
		if creating {
			c.MPMax = res.Total
			m.Note("MP max %d: the d%d's maximum at level 1, %s rolled.", c.MPMax, die, levels)
			break
		}
		c.MPMax = min(c.MPMax+res.Total, rules.MaxPoints)
		m.Note("MP max +%d → %d: %s rolled.", res.Total, c.MPMax, levels)
	}
	return nil
}
