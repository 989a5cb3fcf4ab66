package hitprot

import (
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	rules "github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

// sheet is the stored form of a hit-protection character (RULES.md §1.1,
// with the 0-HP and injury state of §1.3 and §1.4). ChoiceSeq and Chose are
// the adapter's own: the event whose 0-HP message carries the buttons, and
// the choice made there.
type sheet struct {
	Class          string         `json:"class"`
	Level          int            `json:"level"`
	HitDie         int            `json:"hit_die"`
	HP             int            `json:"hp"`
	HD             int            `json:"hd"`
	Saves          map[string]int `json:"saves,omitempty"`
	Init           int            `json:"init,omitempty"`
	Status         string         `json:"status,omitempty"`
	ZeroType       string         `json:"zero_type,omitempty"`
	FateRevealed   bool           `json:"fate_revealed,omitempty"`
	Untreated      int            `json:"untreated,omitempty"`
	Mobility       bool           `json:"mobility,omitempty"`
	Scars          int            `json:"scars,omitempty"`
	StunnedUntil   int64          `json:"stunned_until,omitempty"`
	NoRestoreUntil int64          `json:"no_restore_until,omitempty"`
	Bleeds         []sheetBleed   `json:"bleeds,omitempty"`
	Limbs          []sheetLimb    `json:"limbs,omitempty"`
	DownHits       int            `json:"down_hits,omitempty"`
	DeathCause     string         `json:"death_cause,omitempty"`
	HeroicAction   string         `json:"heroic_action,omitempty"`
	ChoiceSeq      uint64         `json:"choice_seq,omitempty"`
	Chose          string         `json:"chose,omitempty"`
}

// sheetBleed is the stored form of a rules.Bleed.
type sheetBleed struct {
	Wound  string `json:"wound"`
	DiesAt int64  `json:"dies_at"`
}

// sheetLimb is the stored form of a rules.Limb.
type sheetLimb struct {
	Name  string `json:"name"`
	Lost  bool   `json:"lost,omitempty"`
	Until int64  `json:"until,omitempty"`
}

func (s sheet) state() rules.Character {
	c := rules.Character{Class: s.Class, Level: s.Level, HitDie: s.HitDie, HP: s.HP, HD: s.HD, Saves: s.Saves, Init: s.Init,
		Status: rules.ParseStatus(s.Status), ZeroType: s.ZeroType, FateRevealed: s.FateRevealed,
		Untreated: s.Untreated, Mobility: s.Mobility, Scars: s.Scars,
		StunnedUntil: clock.Time(s.StunnedUntil), NoRestoreUntil: clock.Time(s.NoRestoreUntil),
		DownHits: s.DownHits, DeathCause: s.DeathCause, HeroicAction: s.HeroicAction}
	for _, b := range s.Bleeds {
		c.Bleeds = append(c.Bleeds, rules.Bleed{Wound: rules.ParseBand(b.Wound), DiesAt: clock.Time(b.DiesAt)})
	}
	for _, l := range s.Limbs {
		c.Limbs = append(c.Limbs, rules.Limb{Name: l.Name, Lost: l.Lost, Until: clock.Time(l.Until)})
	}
	return c
}

// with returns s holding c, keeping the adapter's own fields.
func (s sheet) with(c rules.Character) sheet {
	n := sheetOf(c)
	n.ChoiceSeq, n.Chose = s.ChoiceSeq, s.Chose
	return n
}

func sheetOf(c rules.Character) sheet {
	s := sheet{Class: c.Class, Level: c.Level, HitDie: c.HitDie, HP: c.HP, HD: c.HD, Saves: c.Saves, Init: c.Init,
		ZeroType: c.ZeroType, FateRevealed: c.FateRevealed, Untreated: c.Untreated, Mobility: c.Mobility,
		Scars: c.Scars, StunnedUntil: int64(c.StunnedUntil), NoRestoreUntil: int64(c.NoRestoreUntil),
		DownHits: c.DownHits, DeathCause: c.DeathCause, HeroicAction: c.HeroicAction}
	if c.Status != rules.Up {
		s.Status = c.Status.String()
	}
	for _, b := range c.Bleeds {
		s.Bleeds = append(s.Bleeds, sheetBleed{Wound: b.Wound.String(), DiesAt: int64(b.DiesAt)})
	}
	for _, l := range c.Limbs {
		s.Limbs = append(s.Limbs, sheetLimb{Name: l.Name, Lost: l.Lost, Until: int64(l.Until)})
	}
	return s
}

// character is one hit-protection character loaded in a mutation.
type character struct {
	ch    *storage.Character
	sheet sheet
	c     rules.Character
}

func load(ch *storage.Character) (*character, error) {
	var s sheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return nil, err
	}
	return &character{ch: ch, sheet: s, c: s.state()}, nil
}

// store saves c as the character's new state.
func (h *character) store(m *commands.Mutation, c rules.Character) error {
	h.c = c
	h.sheet = h.sheet.with(c)
	return m.SaveSheet(h.ch, h.sheet)
}

func (h *character) name() string { return "**" + commands.Escape(h.ch.Name) + "**" }

// loadTargets resolves `target` into loaded characters.
func loadTargets(m *commands.Mutation, list string, mustChange bool) ([]*character, error) {
	resolve := m.Targets
	if mustChange {
		resolve = m.TargetsToChange
	}
	chs, err := resolve(list)
	if err != nil {
		return nil, err
	}
	out := make([]*character, 0, len(chs))
	for _, ch := range chs {
		h, err := load(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// loadOwnTarget resolves `target`, or the caller's first character when none
// is given.
func loadOwnTarget(m *commands.Mutation) ([]*character, error) {
	if t, ok := m.Req.Options["target"]; ok {
		return loadTargets(m, t, true)
	}
	all, err := m.Characters()
	if err != nil {
		return nil, err
	}
	for _, ch := range all {
		if ch.OwnerID == m.Req.UserID {
			h, err := load(ch)
			if err != nil {
				return nil, err
			}
			return []*character{h}, nil
		}
	}
	return nil, commands.Errorf(commands.CodeNotFound, "You have no character at this table; name one with target.")
}
