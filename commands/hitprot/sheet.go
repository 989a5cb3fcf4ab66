package hitprot

import (
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/rules/hitprot"
	"github.com/hpkeeper/hpkeeper/storage"
)

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

// hpChar is one hit-protection character loaded in a mutation.
type hpChar struct {
	ch    *storage.Character
	sheet hpSheet
	c     hitprot.Character
}

func loadHP(ch *storage.Character) (*hpChar, error) {
	var s hpSheet
	if err := commands.DecodeSheet(ch.Sheet, &s); err != nil {
		return nil, err
	}
	return &hpChar{ch: ch, sheet: s, c: s.character()}, nil
}

// store saves c as the character's new state.
func (h *hpChar) store(m *commands.Mutation, c hitprot.Character) error {
	h.c = c
	h.sheet = h.sheet.with(c)
	raw, err := commands.EncodeSheet(h.sheet)
	if err != nil {
		return err
	}
	h.ch.Sheet = raw
	return m.Save(h.ch)
}

func (h *hpChar) name() string { return "**" + commands.Escape(h.ch.Name) + "**" }

// conditions renders the character's conditions, or "" when none.
func (h *hpChar) conditions(m *commands.Mutation) string {
	cs := h.c.Conditions(clock.Time(m.Table.Clock))
	if len(cs) == 0 {
		return ""
	}
	return "\n  Conditions: " + strings.Join(cs, ", ")
}

// hpTargets resolves `target` into loaded characters.
func hpTargets(m *commands.Mutation, list string, mustChange bool) ([]*hpChar, error) {
	resolve := m.Targets
	if mustChange {
		resolve = m.TargetsToChange
	}
	chs, err := resolve(list)
	if err != nil {
		return nil, err
	}
	out := make([]*hpChar, 0, len(chs))
	for _, ch := range chs {
		h, err := loadHP(ch)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// hpOwnTarget resolves `target`, or the caller's first character when none
// is given.
func hpOwnTarget(m *commands.Mutation) ([]*hpChar, error) {
	if t, ok := m.Req.Options["target"]; ok {
		return hpTargets(m, t, true)
	}
	all, err := m.Characters()
	if err != nil {
		return nil, err
	}
	for _, ch := range all {
		if ch.OwnerID == m.Req.UserID {
			h, err := loadHP(ch)
			if err != nil {
				return nil, err
			}
			return []*hpChar{h}, nil
		}
	}
	return nil, commands.Errorf(commands.CodeNotFound, "You have no character at this table; name one with target.")
}
