package hpmpwp

import (
	"github.com/hpkeeper/hpkeeper/commands"
	rules "github.com/hpkeeper/hpkeeper/rules/hpmpwp"
	"github.com/hpkeeper/hpkeeper/storage"
)

// sheet is the stored form of an hp-mp-wp character (RULES.md §2.1).
type sheet struct {
	Class     string `json:"class"`
	Level     int    `json:"level"`
	Str       int    `json:"str"`
	Dex       int    `json:"dex"`
	Con       int    `json:"con"`
	Int       int    `json:"int"`
	Wis       int    `json:"wis"`
	Cha       int    `json:"cha"`
	HPMax     int    `json:"hp_max"`
	HP        int    `json:"hp"`
	MPMax     int    `json:"mp_max"`
	MP        int    `json:"mp"`
	WP        int    `json:"wp"`
	TempWP    int    `json:"temp_wp,omitempty"`
	Fort      int    `json:"fort,omitempty"`
	Will      int    `json:"will,omitempty"`
	Endurance bool   `json:"endurance,omitempty"`
	DieHard   bool   `json:"die_hard,omitempty"`
	Init      int    `json:"init,omitempty"`
	// State is the §2.4 state as its name; "" is fine.
	State      string `json:"state,omitempty"`
	DyingSince int64  `json:"dying_since,omitempty"`
	// ChoiceSeq is the event seq of the pending Die Hard choice (0: none);
	// its buttons carry it.
	ChoiceSeq        uint64 `json:"choice_seq,omitempty"`
	Effect           string `json:"effect,omitempty"`
	Activity         string `json:"activity,omitempty"`
	HoursWorked      int    `json:"hours_worked,omitempty"`
	HoursAwake       int    `json:"hours_awake,omitempty"`
	ExertionSaves    int    `json:"exertion_saves,omitempty"`
	ExertionFailures int    `json:"exertion_failures,omitempty"`
	// SleepUntil is the clock value (rounds) a night's rest sleeps to.
	SleepUntil int64 `json:"sleep_until,omitempty"`
}

func (s sheet) state() rules.Character {
	c := rules.Character{
		Class: s.Class, Level: s.Level,
		Str: s.Str, Dex: s.Dex, Con: s.Con, Int: s.Int, Wis: s.Wis, Cha: s.Cha,
		HPMax: s.HPMax, HP: s.HP, MPMax: s.MPMax, MP: s.MP, WP: s.WP, TempWP: s.TempWP,
		Fort: s.Fort, Will: s.Will, Endurance: s.Endurance, DieHard: s.DieHard, Init: s.Init,
		DyingSince: s.DyingSince, ChoicePending: s.ChoiceSeq != 0,
		HoursWorked: s.HoursWorked, HoursAwake: s.HoursAwake,
		ExertionSaves: s.ExertionSaves, ExertionFailures: s.ExertionFailures,
		SleepUntil: s.SleepUntil,
	}
	if s.State != "" {
		c.State, _ = rules.ParseState(s.State)
	}
	if s.Effect != "" {
		c.Effect, _ = rules.ParseEffect(s.Effect)
	}
	if s.Activity != "" {
		c.Activity, _ = rules.ParseActivity(s.Activity)
	}
	return c
}

// sheetOf returns the stored form of c; seq is the event seq of a
// pending Die Hard choice (ignored when none is pending).
func sheetOf(c rules.Character, seq ...uint64) sheet {
	s := sheet{
		Class: c.Class, Level: c.Level,
		Str: c.Str, Dex: c.Dex, Con: c.Con, Int: c.Int, Wis: c.Wis, Cha: c.Cha,
		HPMax: c.HPMax, HP: c.HP, MPMax: c.MPMax, MP: c.MP, WP: c.WP, TempWP: c.TempWP,
		Fort: c.Fort, Will: c.Will, Endurance: c.Endurance, DieHard: c.DieHard, Init: c.Init,
		DyingSince:  c.DyingSince,
		HoursWorked: c.HoursWorked, HoursAwake: c.HoursAwake,
		ExertionSaves: c.ExertionSaves, ExertionFailures: c.ExertionFailures,
		SleepUntil: c.SleepUntil,
	}
	if c.State != rules.Fine {
		s.State = c.State.String()
	}
	if c.Effect != rules.NoEffect {
		s.Effect = c.Effect.String()
	}
	if c.Activity != rules.Awake {
		s.Activity = c.Activity.String()
	}
	if c.ChoicePending && len(seq) > 0 {
		s.ChoiceSeq = seq[0]
	}
	return s
}

// character is one hp-mp-wp character loaded in a mutation: its record,
// its stored sheet and its state in the rules.
type character struct {
	ch    *storage.Character
	sheet sheet
	c     rules.Character
}

// load decodes a stored character's sheet.
func load(ch *storage.Character) (*character, error) {
	var s sheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return nil, err
	}
	return &character{ch: ch, sheet: s, c: s.state()}, nil
}

// store saves c as the character's new state, keeping the event of a
// pending Die Hard choice (sheet.ChoiceSeq) while c's choice is pending.
func (h *character) store(m *commands.Mutation, c rules.Character) error {
	h.c, h.sheet = c, sheetOf(c, h.sheet.ChoiceSeq)
	return m.SaveSheet(h.ch, h.sheet)
}
