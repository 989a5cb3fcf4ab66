// Package view is what each audience at a table reads of a character
// (RULES.md §0.1, hidden=true). Every rule system shows its characters in
// one uniform view, Character: a level, gauges, conditions and timers. Each
// audience (the channel, a GM, a character's owner) gets its own
// projection of that view before anything is rendered (Audience.For): a GM
// and the owner the whole view; everyone else, for a hidden character, its
// public view alone: its word in its system's terms and that word's colour,
// nothing derived from its numbers. The kernel (package commands) renders
// replies, lists, the tracker and the history from these projections; this
// package knows nothing of it.
package view

import (
	"fmt"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// Level is how hurt a character is, the same scale for every system: it sets
// the colour of the character's embed and, unless the system has words of
// its own (Character.Word), the word a hidden character shows to players.
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

// Character is a character as every display shows it, whatever the
// system: its level, its gauges, its conditions and its running timers.
// The public view of a hidden character (Audience.For) holds its Word and
// the Level of that word alone.
type Character struct {
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
	// Standing, at LevelZero or LevelDying, says the character is still
	// on its feet and takes its turns (hit-protection's Stay Up, its 0-HP
	// choice still to make, or a wound bleeding while it fights on;
	// hp-mp-wp's disabled; harm's Broken), so that players never read
	// "Down" of one that keeps acting.
	Standing bool
	// Word, when its Text is set, is the system's own word for the
	// character as players read it when it is hidden (harm: Healthy,
	// Bloody, Broken, Taken out); unset, the level's word (Public).
	Word Word
}

// Word is what players read of a hidden character: a word and the level
// it stands for, whose colour is the only colour they see of it, so that
// one word always has one colour.
type Word struct {
	Text  string
	Level Level
}

// Color is the embed colour of the word: its level's.
func (w Word) Color() int { return w.Level.Color() }

// Public is the character's word as players read it when it is hidden:
// the system's own (Word), else the level's: Unhurt, Wounded, Badly
// wounded (at 0 or dying, still Standing), Down or Dead. Badly wounded
// and Down stand for LevelZero whether the character is at 0 or dying,
// so that their colour says no more than the word.
func (v Character) Public() Word {
	if v.Word.Text != "" {
		return v.Word
	}
	switch v.Level {
	case LevelWounded:
		return Word{"Wounded", LevelWounded}
	case LevelZero, LevelDying:
		if v.Standing {
			return Word{"Badly wounded", LevelZero}
		}
		return Word{"Down", LevelZero}
	case LevelDead:
		return Word{"Dead", LevelDead}
	}
	return Word{"Unhurt", LevelFine}
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

// Audience is who reads a message at a table: the channel (the zero value,
// Channel: every player there), or one user (UserID), who may be a GM.
type Audience struct {
	UserID string
	GM     bool
}

// Channel is the audience of a message everyone at the table reads.
var Channel = Audience{}

// Sees reports whether a reads c's numbers (RULES.md §0.1): everyone reads
// a visible character's; a hidden one's, every GM and its owner alone.
func (a Audience) Sees(c *storage.Character) bool {
	return !c.Hidden || a.GM || a.UserID != "" && a.UserID == c.OwnerID
}

// For is what a reads of c, whose full view is v: v itself when a sees c;
// else c's public view, its word and that word's level and nothing else,
// so that a renderer given it has no number, condition, timer or colour
// of c's to show.
func (a Audience) For(c *storage.Character, v Character) Character {
	if a.Sees(c) {
		return v
	}
	w := v.Public()
	return Character{Level: w.Level, Word: w}
}
