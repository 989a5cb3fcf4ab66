package turnorder

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// How the turn order reads: /init show and the tracker's field (players see
// a hidden combatant's word only), and which events /history treats as
// about a hidden combatant.

// initiativeHidden reports whether event e changed the entry of a hidden
// combatant in the turn order (joined, rerolled, left): its numbers are
// the GM's, so /history shows players the event as for a hidden character.
// An event written now says the same through its parts (the join and the
// reroll are noted about the combatant); one written before events had
// parts keeps the roll in its summary, and this keeps it from players.
func initiativeHidden(e *storage.Event) bool {
	var before, after []storage.Combatant
	if e.TableBefore != nil && e.TableBefore.Initiative != nil {
		before = e.TableBefore.Initiative.Combatants
	}
	if e.TableAfter != nil && e.TableAfter.Initiative != nil {
		after = e.TableAfter.Initiative.Combatants
	}
	had := make(map[uint64]storage.Combatant, len(before))
	for _, c := range before {
		had[c.CharacterID] = c
	}
	for _, c := range after {
		b, ok := had[c.CharacterID]
		if (c.Hidden || b.Hidden) && (!ok || b != c) {
			return true
		}
		delete(had, c.CharacterID)
	}
	for _, c := range had {
		if c.Hidden {
			return true
		}
	}
	return false
}

// orderView is the turn order as players see it, with what only a GM
// reads apart.
type orderView struct {
	// head is "Turn order · round 2 · day 1, 00:01".
	head string
	// lines are one per combatant, the current turn marked ▶; a hidden
	// combatant shows its word only.
	lines []string
	// turn says whose turn it is.
	turn string
	// hidden are the hidden combatants' numbers, one line each, for a GM
	// alone.
	hidden []string
}

// viewOrder renders t's open turn order: each combatant with its
// initiative, the current one marked, who cannot act and why; a hidden
// combatant shows its word only, and its initiative and roll go to
// v.hidden.
func viewOrder(tx *storage.Tx, t *storage.Table, sys commands.System) (orderView, error) {
	o := t.Initiative
	v := orderView{head: fmt.Sprintf("Turn order · round %d · %s", t.Clock-o.Start+1, clock.Time(t.Clock))}
	for i, cb := range o.Combatants {
		ch, err := tx.Character(t.ChannelID, cb.CharacterID)
		if errors.Is(err, storage.ErrNotFound) {
			ch, err = nil, nil
		}
		if err != nil {
			return v, err
		}
		mark := "▫"
		if i == o.Turn && o.Underway {
			mark = "▶"
		}
		line := fmt.Sprintf("%s %s", mark, combatantName(ch))
		hidden := ch != nil && ch.Hidden
		if hidden {
			w, err := commands.ViewOf(sys, ch, t.Clock)
			if err != nil {
				return v, err
			}
			line += " (" + w.Public().Text + ")"
			roll := cb.Roll
			if roll == "" {
				roll = strconv.Itoa(cb.Initiative)
			}
			secret := fmt.Sprintf("%s initiative %s", combatantName(ch), roll)
			if ok, why, err := actorCanAct(sys, ch, t.Clock); err != nil {
				return v, err
			} else if !ok {
				secret += " · cannot act: " + commands.Escape(why)
			}
			v.hidden = append(v.hidden, secret)
		} else {
			line += fmt.Sprintf(" %d", cb.Initiative)
		}
		if ch != nil && !hidden {
			if ok, why, err := actorCanAct(sys, ch, t.Clock); err != nil {
				return v, err
			} else if !ok {
				line += " · cannot act: " + commands.Escape(why)
			}
		}
		v.lines = append(v.lines, line)
		if i == o.Turn {
			v.turn = fmt.Sprintf("It is %s's turn.", combatantName(ch))
		}
	}
	switch {
	case len(o.Combatants) == 0:
		v.turn = "Nobody is in the turn order yet: `/init join target:NAME`."
	case !o.Underway:
		v.turn = "Round 1 has not begun: the GM begins it with `/init next` once everyone has joined."
	case o.Turn >= len(o.Combatants):
		v.turn = "Nobody left in the turn order can act this round: `/init next` ends it."
	}
	return v, nil
}

// orderField is the tracker's field for t's open turn order, as players
// see it; ok is false when no order is open.
func orderField(tx *storage.Tx, t *storage.Table, sys commands.System) (commands.Field, bool, error) {
	if t.Initiative == nil {
		return commands.Field{}, false, nil
	}
	v, err := viewOrder(tx, t, sys)
	if err != nil {
		return commands.Field{}, false, err
	}
	lines := v.lines
	if len(lines) == 0 {
		lines = []string{v.turn}
	}
	return commands.Field{Name: v.head, Value: strings.Join(lines, "\n")}, true, nil
}
