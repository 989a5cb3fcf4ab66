package commands

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/storage"
)

// charCreate creates a character owned by the caller, or by `owner` when a GM
// creates it for someone (RULES.md §0.1).
func charCreate(ctx context.Context, s *Service, r *Request) (*Response, error) {
	name := strings.TrimSpace(r.Options["name"])
	if err := CheckName(name); err != nil {
		return nil, err
	}
	stats, err := ParseStats(r.Options["stats"])
	if err != nil {
		return nil, err
	}
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		ownerID, ownerName := r.UserID, r.UserName
		if o, ok := r.Options["owner"]; ok && o != r.UserID {
			if err := m.RequireGM("create a character for another user"); err != nil {
				return nil, err
			}
			ownerID, ownerName = o, r.Users[o]
			if ownerName == "" {
				ownerName = o
			}
		}
		stats, hidden, err := takeHidden(m, stats)
		if err != nil {
			return nil, err
		}
		if hidden != nil && *hidden {
			m.HideDice()
		}
		if err := m.roomForCharacter(); err != nil {
			return nil, err
		}
		sheet, err := m.System.NewSheet(m, stats)
		if err != nil {
			return nil, err
		}
		c := &storage.Character{ChannelID: r.ChannelID, Name: name, OwnerID: ownerID, OwnerName: ownerName, CreatedAt: r.Now.UTC(), Sheet: sheet}
		if hidden != nil {
			c.Hidden = *hidden
		}
		if err := m.Create(c); err != nil {
			return nil, err
		}
		status, err := StatusOf(m.System, c)
		if err != nil {
			return nil, err
		}
		embed, err := embedFor(gmReader, m.Table, m.System, c)
		if err != nil {
			return nil, err
		}
		rolled := m.RollsLine() // the dice of the sheet, rolled before c had an id
		mc := m.For(c)
		mc.Note("Created %s for %s: %s", c.Name, ownerName, status)
		// The card says the status: the line names who and whose.
		mc.Post(Part{Text: fmt.Sprintf("Created **%s** for %s.%s", Escape(c.Name), Escape(ownerName), rolled), Embeds: []Embed{embed}})
		// A hidden NPC comes in unannounced: its creation is the GM's alone.
		return &Response{Ephemeral: c.Hidden}, nil
	})

}

// fieldsChange renders the fields of a character's card that changed
// (System.Describe), e.g. "Instinct abilities: React 0 (Unskilled), Climb
// 3 (Master)", each on one line with its new value; "" when none did.
func fieldsChange(before, after []Field) string {
	was := map[string]string{}
	for _, f := range before {
		was[f.Name] = f.Value
	}
	var out []string
	for _, f := range after {
		if v, ok := was[f.Name]; !ok || v != f.Value {
			out = append(out, f.Name+": "+strings.ReplaceAll(f.Value, "\n", ", "))
		}
		delete(was, f.Name)
	}
	for _, f := range before {
		if _, gone := was[f.Name]; gone {
			out = append(out, "no "+f.Name)
		}
	}
	return strings.Join(out, " · ")
}

// statusChange renders what changed between two status lines of a
// character (System.Describe: parts joined by " · "), e.g. "HP 4/6 → 1/6"
// or "HP 0/6 → 3/6 · no longer staying up": each part that changed, by its
// first word where both have one, and "" when nothing did.
func statusChange(before, after string) string {
	b, a := strings.Split(before, " · "), strings.Split(after, " · ")
	key := func(p string) string { k, _, _ := strings.Cut(p, " "); return k }
	var out []string
	for _, p := range a {
		if slices.Contains(b, p) {
			continue
		}
		i := slices.IndexFunc(b, func(q string) bool { return key(q) == key(p) && !slices.Contains(a, q) })
		if i < 0 {
			out = append(out, p)
			continue
		}
		out = append(out, b[i]+" → "+strings.TrimSpace(strings.TrimPrefix(p, key(p))))
		b[i] = ""
	}
	for _, q := range b {
		if q != "" && !slices.Contains(a, q) {
			out = append(out, "no longer "+q)
		}
	}
	return strings.Join(out, " · ")
}

func charSet(ctx context.Context, s *Service, r *Request) (*Response, error) {
	stats, err := ParseStats(r.Options["stats"])
	if err != nil {
		return nil, err
	}
	if len(stats) == 0 {
		return nil, Errorf(CodeInvalid, "Give at least one key=value pair in stats.")
	}
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		c, err := m.Character(r.Options["name"])
		if err != nil {
			return nil, err
		}
		if err := m.CanChange(c); err != nil {
			return nil, err
		}
		if m.Option(SheetEditOption) == SheetEditGM && !m.IsGM() {
			var acts []string // the system's own: hit-protection has no /heal
			for _, name := range []string{"damage", "heal", "rest"} {
				if m.System.Action(name) != nil {
					acts = append(acts, "/"+name)
				}
			}
			with := "its commands"
			if len(acts) > 0 {
				with = strings.Join(acts, ", ") + " and the others"
			}
			return nil, Errorf(CodeForbidden, "Only a GM can change sheet values at this table (table option sheet-edit=gm); %s still acts with %s.", Escape(c.Name), with)
		}
		before, beforeFields, err := m.System.Describe(c)
		if err != nil {
			return nil, err
		}
		stats, hidden, err := takeHidden(m, stats)
		if err != nil {
			return nil, err
		}
		wasHidden := c.Hidden
		if hidden != nil {
			c.Hidden = *hidden
		}
		if len(stats) > 0 {
			sheet, err := m.System.SetSheet(m, c.Sheet, stats)
			if err != nil {
				return nil, err
			}
			c.Sheet = sheet
		}
		if err := m.Save(c); err != nil {
			return nil, err
		}
		after, afterFields, err := m.System.Describe(c)
		if err != nil {
			return nil, err
		}
		what := Changes(statusChange(before, after), fieldsChange(beforeFields, afterFields))
		switch {
		case hidden != nil && *hidden != wasHidden:
			what = strings.TrimPrefix(what+"; ", "; ") + map[bool]string{true: "now hidden from players", false: "now shown to players"}[*hidden]
		case what == "":
			what = "nothing changes"
		}
		mc := m.For(c)
		mc.Note("Set %s on %s: %s.", r.Options["stats"], c.Name, what)
		mc.Say("**%s**: set %s: %s.%s", Escape(c.Name), Escape(r.Options["stats"]), what, m.RollsLine())
		return &Response{}, nil
	})

}

func charShow(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var resp *Response
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		sys, err := s.System(t.System)
		if err != nil {
			return err
		}
		var c *storage.Character
		if name, ok := r.Options["name"]; ok {
			if c, err = CharacterByName(tx, r.ChannelID, name); err != nil {
				return err
			}
		} else {
			all, err := tx.Characters(r.ChannelID)
			if err != nil {
				return err
			}
			for _, ch := range all {
				if ch.OwnerID == r.UserID {
					c = ch
					break
				}
			}
			if c == nil {
				return Errorf(CodeNotFound, "You have no character at this table; name one, or create yours with /char create.")
			}
		}
		// Players see a hidden character's word; a GM or its owner gets
		// its numbers (and its pending choice) privately. The reply is c's
		// as the caller reads it: whether they see its numbers, and change
		// it (its choice's buttons).
		sees := Audience(r, t).Sees(c)
		change := sees && CanChange(r, t, c) == nil
		what := "char show " + strconv.FormatUint(c.ID, 10) + " " + strconv.FormatBool(sees) + " " + strconv.FormatBool(change)
		resp, err = s.Memoized(ctx, tx, r, what, func() (Ready, error) {
			resp, err := charCard(t, sys, c, sees, change)
			return Ready{Response: resp}, err
		})
		return err
	})
	return resp, err
}

// charCard is /char show's reply: c's card as the channel reads it, and
// when c is hidden and the caller sees its numbers (sees), their card
// privately; a pending choice, to a caller who sees and may change c.
func charCard(t *storage.Table, sys System, c *storage.Character, sees, change bool) (*Response, error) {
	embed, err := embedFor(view.Channel, t, sys, c)
	if err != nil {
		return nil, err
	}
	resp := &Response{Embeds: []Embed{embed}}
	mine := resp
	if c.Hidden && sees {
		full, err := embedFor(gmReader, t, sys, c)
		if err != nil {
			return nil, err
		}
		mine = &Response{Embeds: []Embed{full}}
		resp = Privately(resp, mine)
	}
	if ch, ok := sys.(Chooser); ok && change {
		text, buttons, err := ch.PendingChoice(c)
		if err != nil {
			return nil, err
		}
		if buttons != nil {
			mine.Content, mine.Components = strings.TrimSpace(mine.Content+"\n"+text), buttons
		}
	}
	return resp, nil
}

func charList(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var resp *Response
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		sys, err := s.System(t.System)
		if err != nil {
			return err
		}
		all, err := tx.Characters(r.ChannelID)
		if err != nil {
			return err
		}
		a := Audience(r, t)
		resp, err = s.Memoized(ctx, tx, r, "char list"+seenHidden(a, all), func() (Ready, error) {
			if len(all) == 0 {
				return Ready{Response: &Response{Content: "No characters at this table yet: /char create makes one."}}, nil
			}
			lines, hidden, err := roster(a, t, sys, all, "• ")
			if err != nil {
				return Ready{}, err
			}
			lines = append([]string{fmt.Sprintf("%s (%s):", Count(len(all), "character"), t.System)}, lines...)
			resp := &Response{Content: strings.Join(lines, "\n")}
			if len(hidden) > 0 {
				resp = Privately(resp, &Response{Content: strings.Join(hidden, "\n")})
			}
			return Ready{Response: resp}, nil
		})
		return err
	})
	return resp, err
}

// deletePrefix starts the custom_id of the Delete and Cancel buttons:
// "del:<character id>:<event seq>:yes|no", the seq being the table's latest
// event when deletion was asked, so a press after an event changed the
// character is refused. Both are numbers every player reads (/history), so
// the custom_id tells nothing of a hidden character's state.
const deletePrefix = "del"

// maxDeleteAge is how many events may follow a deletion's question before
// its buttons are refused as too old, so a press walks few events.
const maxDeleteAge = 50

// changedSince returns the CodeConflict refusal of a deletion asked at
// event seq when an event since has changed c, or more than maxDeleteAge
// events have passed.
func changedSince(m *Mutation, c *storage.Character, seq uint64) error {
	again := "; nothing was changed. Run " + CodeSpan("/char delete name:"+c.Name) + " again."
	n, err := 0, error(nil)
	walk := m.tx.EachEventBefore(m.Req.ChannelID, 0, func(e *storage.Event) (bool, error) {
		if e.Seq <= seq {
			return false, nil
		}
		if n++; n > maxDeleteAge {
			err = Errorf(CodeConflict, "That question is %d events old%s", maxDeleteAge, again)
			return false, nil
		}
		if slices.ContainsFunc(e.Changes, func(ch storage.Change) bool { return ch.CharacterID == c.ID }) {
			err = Errorf(CodeConflict, "%s has changed since deletion was asked%s", Escape(c.Name), again)
			return false, nil
		}
		return true, nil
	})
	return cmp.Or(walk, err)
}

func charDelete(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var resp *Response
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		c, err := CharacterByName(tx, r.ChannelID, r.Options["name"])
		if err != nil {
			return err
		}
		if err := CanChange(r, t, c); err != nil {
			return err
		}
		seq, err := tx.LastEventSeq(r.ChannelID)
		if err != nil {
			return err
		}
		id := fmt.Sprintf("%s:%d:%d:", deletePrefix, c.ID, seq)
		resp = &Response{
			Content: fmt.Sprintf("Delete **%s**? Its sheet leaves the table; /undo brings it back.", Escape(c.Name)),
			Components: [][]Button{{
				{Label: "Delete", CustomID: id + "yes", Style: StyleDanger},
				{Label: "Cancel", CustomID: id + "no", Style: StyleSecondary},
			}},
		}
		return nil
	})
	return resp, err
}

// deleteButton handles a press of Delete or Cancel.
func deleteButton(ctx context.Context, s *Service, r *Request) (*Response, error) {
	parts := strings.Split(r.CustomID, ":")
	if len(parts) != 4 || (parts[3] != "yes" && parts[3] != "no") {
		return nil, Errorf(CodeInvalid, "This button is not one of ours.")
	}
	id, err := strconv.ParseUint(parts[1], 10, 64)
	seq, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err != nil || err2 != nil {
		return nil, Errorf(CodeInvalid, "This button is not one of ours.")
	}
	r.Command, r.Subcommand, r.Options = "char", "delete", map[string]string{}
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		c, err := m.CharacterByID(id)
		if err != nil {
			return nil, err
		}
		if err := m.CanChange(c); err != nil {
			return nil, err
		}
		if err := changedSince(m, c, seq); err != nil {
			return nil, err
		}
		r.Options["name"] = c.Name
		base := strings.Join(parts[:3], ":") + ":"
		// A name and its deletion are no hidden character's numbers: the
		// message is the table's.
		done := func(text string) (*Response, error) {
			m.ForTable().Post(Part{Text: text, Buttons: [][]Button{{
				{Label: "Delete", CustomID: base + "yes", Style: StyleDanger, Disabled: true},
				{Label: "Cancel", CustomID: base + "no", Style: StyleSecondary, Disabled: true},
			}}})
			return &Response{UpdateMessage: true}, nil
		}
		if parts[3] == "no" {
			return done(fmt.Sprintf("Kept **%s**.", Escape(c.Name)))
		}
		if err := m.Delete(c); err != nil {
			return nil, err
		}
		m.ForTable().Note("Deleted %s.", c.Name)
		var left []string // what the features say of it (DeleteFollower)
		for _, f := range s.registry.features {
			if df, ok := f.(DeleteFollower); ok {
				lines, err := df.CharacterDeleted(m, c)
				if err != nil {
					return nil, err
				}
				left = append(left, lines...)
			}
		}
		return done(strings.Join(append([]string{fmt.Sprintf("Deleted **%s** (%s pressed Delete).", Escape(c.Name), Escape(r.UserName))}, left...), "\n"))
	})

}

// roomForCharacter refuses a new character at a table that already holds
// MaxCharacters.
func (m *Mutation) roomForCharacter() error {
	chars, err := m.tx.Characters(m.Req.ChannelID)
	if err != nil {
		return err
	}
	if len(chars) >= MaxCharacters {
		return Errorf(CodeInvalid, "This table holds %d characters, the most a table may hold. Delete one first (/char delete).", len(chars))
	}
	return nil
}
