package commands

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/layout"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Level is how hurt a character is, the same scale for every system: it sets
// the colour of the character's embed and the word a hidden character shows
// to players (Unhurt, Wounded, Badly wounded, Down, Dead).
type Level int

// The levels, from unhurt to dead.
const (
	// LevelFine: no damage taken (full HP, Healthy…).
	LevelFine Level = iota
	// LevelWounded: hurt but up (HP below max, Bloody…).
	LevelWounded
	// LevelZero: at 0 (0 HP, disabled or stable at negative WP, Broken…).
	LevelZero
	// LevelDying: dying (bleeding out, dying at negative WP, taken out).
	LevelDying
	// LevelDead: dead.
	LevelDead
)

// The embed colours of the levels (RGB).
const (
	ColorFine    = 0x57F287
	ColorWounded = 0xFEE75C
	ColorZero    = 0xE67E22
	ColorDying   = 0xED4245
	ColorDead    = 0x2C2F33
)

// Color is the embed colour of the level.
func (l Level) Color() int {
	switch l {
	case LevelWounded:
		return ColorWounded
	case LevelZero:
		return ColorZero
	case LevelDying:
		return ColorDying
	case LevelDead:
		return ColorDead
	}
	return ColorFine
}

// Word is what players see of a hidden character at this level.
func (l Level) Word() string {
	switch l {
	case LevelWounded:
		return "Wounded"
	case LevelZero, LevelDying:
		return "Down"
	case LevelDead:
		return "Dead"
	}
	return "Unhurt"
}

// String names the level: fine, wounded, zero, dying or dead.
func (l Level) String() string {
	switch l {
	case LevelWounded:
		return "wounded"
	case LevelZero:
		return "zero"
	case LevelDying:
		return "dying"
	case LevelDead:
		return "dead"
	}
	return "fine"
}

// Bar is one gauge of a character, e.g. HP 6 of 10.
type Bar struct {
	Label        string
	Current, Max int
}

// barWidth is the number of cells of a text bar.
const barWidth = 10

// Text renders the bar as "HP ██████░░░░ 6/10". Current is clamped to
// 0..Max for the cells (negative WP show an empty bar, the number stays).
func (b Bar) Text() string {
	full := 0
	if b.Max > 0 {
		cur := max(0, min(b.Current, b.Max))
		full = (cur*barWidth + b.Max/2) / b.Max
		if cur > 0 && full == 0 {
			full = 1
		}
		if cur < b.Max && full == barWidth {
			full = barWidth - 1
		}
	}
	return fmt.Sprintf("%s %s%s %d/%d", b.Label, strings.Repeat("█", full), strings.Repeat("░", barWidth-full), b.Current, b.Max)
}

// CharacterView is a character as every display shows it, whatever the
// system: its level, its gauges, its conditions and its running timers.
type CharacterView struct {
	Level Level
	// Bars are the gauges in the system's order (HP, HD; HP, MP, WP; pools).
	Bars []Bar
	// State is the system's one-word state when it has one (e.g. "Bloody",
	// "disabled"); "" otherwise.
	State string
	// Conditions are the conditions in rule terms, without timers.
	Conditions []string
	// Timers are the running timed effects ("stunned for 3 more rounds").
	Timers []string
	// Standing, at LevelZero, says the character is still on its feet and
	// acting (hit-protection's Stay Up at 0 HP, hp-mp-wp's disabled, harm's
	// Broken), so that players do not read "Down" of one that keeps taking
	// turns.
	Standing bool
	// Choosing: a choice with buttons is pending (the 0-HP choice, Die
	// Hard), which decides the state: players read "Choosing", not a
	// state the character may never reach.
	Choosing bool
}

// Word is what players see of the character when it is hidden: its
// level's word, "Choosing" while a choice is pending, and "Badly
// wounded" for one at LevelZero still Standing.
func (v CharacterView) Word() string {
	if v.Choosing && v.Level != LevelDead {
		return "Choosing"
	}
	if v.Level == LevelZero && v.Standing {
		return "Badly wounded"
	}
	return v.Level.Word()
}

// ViewOf returns c's view under sys, or a plain view when sys has none.
func ViewOf(sys System, c *storage.Character, now int64) (CharacterView, error) {
	if v, ok := sys.(Viewer); ok {
		return v.View(c, now)
	}
	return CharacterView{}, nil
}

// SplitTimers splits a system's conditions into the conditions proper and
// the timers: those that name a time of the clock ("… until day 3, 00:00")
// or the rounds they have left ("stunned for 3 more rounds", "dies in 2
// rounds"); "down (fate hidden until attended)" is a condition.
func SplitTimers(all []string) (conds, timers []string) {
	for _, s := range all {
		if strings.Contains(s, " until day ") || strings.Contains(s, "dies in ") || strings.Contains(s, " more round") || strings.HasSuffix(s, "bleeding out") {
			timers = append(timers, s)
		} else {
			conds = append(conds, s)
		}
	}
	return conds, timers
}

// barLines renders the bars one per line, in code spans so they line up.
func barLines(bars []Bar) string {
	w := 0
	for _, b := range bars {
		w = max(w, len([]rune(b.Label)))
	}
	var lines []string
	for _, b := range bars {
		pad := strings.Repeat(" ", w-len([]rune(b.Label)))
		lines = append(lines, "`"+Bar{Label: b.Label + pad, Current: b.Current, Max: b.Max}.Text()+"`")
	}
	return strings.Join(lines, "\n")
}

// viewEmbed is the embed of a character, its card: the name, the bars
// (the status line for a system without them: the bars and the fields
// below say all it says, once), the colour of its level, its conditions
// and timers, then the system's fields, and the owner.
func viewEmbed(c *storage.Character, v CharacterView, status string, fields []Field) Embed {
	desc := status
	if len(v.Bars) > 0 {
		desc = barLines(v.Bars)
	}
	var fs []Field
	if len(v.Conditions) > 0 {
		fs = append(fs, Field{Name: "Conditions", Value: Escape(strings.Join(v.Conditions, ", "))})
	}
	if len(v.Timers) > 0 {
		fs = append(fs, Field{Name: "Timers", Value: Escape(strings.Join(v.Timers, "\n"))})
	}
	fs = append(fs, fields...)
	return Embed{
		Title:       Escape(c.Name),
		Description: desc,
		Color:       v.Level.Color(),
		Fields:      fs,
		Footer:      "owner: " + c.OwnerName,
	}
}

// NameButton is the disabled button that leads a row of choice buttons with
// the name of its character, when one message offers several characters a
// choice; its label is plain text (not markdown), cut to Discord's 80
// characters. customID must still be unique in the message.
func NameButton(name, customID string) Button {
	return Button{Label: Clip(name, layout.MaxLabel), CustomID: customID, Style: StyleSecondary, Disabled: true}
}

// hiddenEmbed is the embed players see of a hidden character: its name and
// its word only.
func hiddenEmbed(c *storage.Character, v CharacterView) Embed {
	return Embed{
		Title:       Escape(c.Name),
		Description: "**" + v.Word() + "**",
		Color:       v.Level.Color(),
		Footer:      "hidden by the GM",
	}
}
