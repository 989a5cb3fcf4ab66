package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// TableOption is a table setting a system offers (/table option).
type TableOption struct {
	Name    string
	Help    string
	Default string
	// Values are the accepted values, the first being the default.
	Values []string
}

// The table option sheet-edit: who may change a character's sheet values
// with /char set.
const (
	// SheetEditOption is the platform table option that every system offers.
	SheetEditOption = "sheet-edit"
	// SheetEditOwner (the default) lets a character's owner or a GM set its
	// values (RULES.md §0.1).
	SheetEditOwner = "owner"
	// SheetEditGM lets only GMs set values: players still act (damage,
	// heal, rest …) but cannot set their own HP, for gritty tables.
	SheetEditGM = "gm"
)

// PlatformOptions are the table options of every system, in addition to the
// system's own TableOptions: dice (manualdice.go) and sheet-edit.
func PlatformOptions() []TableOption {
	return []TableOption{
		{Name: DiceOption, Help: "who rolls: the bot, or the players with physical dice (manual)", Default: DiceBot, Values: []string{DiceBot, DiceManual}},
		{Name: SheetEditOption, Help: "who changes sheet values with /char set: a character's owner or a GM (owner), or GMs only (gm)", Default: SheetEditOwner, Values: []string{SheetEditOwner, SheetEditGM}},
	}
}

// tableOptions are the table options of a table of sys, in the order /table
// show lists them: PlatformOptions, the turn order's when sys has
// initiative (initiative.go), then the system's own.
func tableOptions(sys System) []TableOption {
	opts := PlatformOptions()
	if _, ok := sys.(Initiator); ok {
		opts = append(opts, initiativeOptions()...)
	}
	return append(opts, sys.TableOptions()...)
}

// option returns the value of the table option name, its default when the
// table has none set (a table set up before the option existed, or a turn
// order option left at its default).
func option(t *storage.Table, name string, sys System) string {
	if v := t.Options[name]; v != "" {
		return v
	}
	for _, o := range tableOptions(sys) {
		if o.Name == name {
			return o.Values[0]
		}
	}
	return ""
}

// tableSetup creates the channel's table or changes its system (RULES.md
// §0.1): anyone may set up a new table and becomes its GM; changing the system
// is GM-only and refused while characters exist.
func tableSetup(ctx context.Context, s *Service, r *Request) (*Response, error) {
	system := r.Options["system"]
	sys, err := s.system(system)
	if err != nil {
		return nil, Errorf(CodeInvalid, "Unknown system %q; choose one of %s.", Clip(system, 40), strings.Join(s.registry.systemNames(), ", "))
	}
	var resp *Response
	err = s.update(r, func(tx *storage.Tx) error {
		before, err := tx.Table(r.ChannelID)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			t := &storage.Table{
				ChannelID: r.ChannelID, GuildID: r.GuildID, System: system,
				SetupBy: r.UserID, GMs: []string{r.UserID}, Options: defaultOptions(sys),
				CreatedAt: r.Now.UTC(),
			}
			if err := tx.PutTable(t); err != nil {
				return err
			}
			resp = &Response{Content: fmt.Sprintf("This channel's table now plays **%s**. %s is its GM.\n%s", system, mention(r.UserID), sys.Help())}
			return tx.AppendEvent(&storage.Event{
				ChannelID: r.ChannelID, At: r.Now.UTC(), UserID: r.UserID, UserName: r.UserName,
				Command: r.Line(), Summary: fmt.Sprintf("Set up the table for %s.", system), TableAfter: t,
			})
		case err != nil:
			return err
		}
		if err := requireGM(r, before, "change the table's system"); err != nil {
			return err
		}
		if before.System == system {
			return Errorf(CodeConflict, "This table already plays %s.", system)
		}
		chars, err := tx.Characters(r.ChannelID)
		if err != nil {
			return err
		}
		if len(chars) > 0 {
			them := "them"
			if len(chars) == 1 {
				them = "it"
			}
			return Errorf(CodeConflict, "This table has %s; delete %s before changing the system from %s to %s.", count(len(chars), "character"), them, before.System, system)
		}
		after := *before
		after.System = system
		after.Options = defaultOptions(sys)
		after.Initiative = nil
		if err := tx.PutTable(&after); err != nil {
			return err
		}
		resp = &Response{Content: fmt.Sprintf("This channel's table now plays **%s** (was %s).\n%s", system, before.System, sys.Help())}
		return tx.AppendEvent(&storage.Event{
			ChannelID: r.ChannelID, At: r.Now.UTC(), UserID: r.UserID, UserName: r.UserName,
			Command: r.Line(), Summary: fmt.Sprintf("Changed the system from %s to %s.", before.System, system),
			TableBefore: before, TableAfter: &after,
		})
	})
	return resp, err
}

func defaultOptions(sys System) map[string]string {
	opts := map[string]string{}
	for _, o := range sys.TableOptions() {
		opts[o.Name] = o.Values[0]
	}
	return opts
}

// mention renders a user id as a Discord user mention; replies never ping
// (allowed_mentions parses nothing), so this only shows the name.
func mention(userID string) string { return "<@" + userID + ">" }

func tableShow(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var resp *Response
	err := s.view(r, func(tx *storage.Tx, t *storage.Table) error {
		sys, err := s.system(t.System)
		if err != nil {
			return err
		}
		chars, err := tx.Characters(r.ChannelID)
		if err != nil {
			return err
		}
		gms := make([]string, len(t.GMs))
		for i, id := range t.GMs {
			gms[i] = mention(id)
		}
		var opts []string
		for _, o := range tableOptions(sys) {
			opts = append(opts, fmt.Sprintf("%s=%s", o.Name, option(t, o.Name, sys)))
		}
		lines := []string{}
		var hidden []string
		for _, c := range chars {
			status, err := playerStatus(t, sys, c)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("**%s** (%s): %s", Escape(c.Name), Escape(c.OwnerName), status))
			if c.Hidden {
				full, _, err := sys.Describe(c)
				if err != nil {
					return err
				}
				hidden = append(hidden, fmt.Sprintf("**%s** (%s): %s", Escape(c.Name), Escape(c.OwnerName), full))
			}
		}
		if len(lines) == 0 {
			lines = []string{"none yet: /char create"}
		}
		resp = &Response{Embeds: []Embed{{
			Title: "Table: " + t.System,
			Fields: []Field{
				{Name: "GMs", Value: strings.Join(gms, ", ") + " and anyone with Manage Channels"},
				{Name: "Options", Value: strings.Join(opts, ", ")},
				{Name: "Clock", Value: clock.Time(t.Clock).String()},
				{Name: "Characters", Value: joinWithin(lines, maxFieldValue, " (/char list)")},
			},
		}}}
		if len(hidden) > 0 {
			resp = forGM(r, t, resp, &Response{Content: joinWithin(hidden, maxContent-len(hiddenFollowUp)-1, " (/char list)")})
		}
		return nil
	})
	return resp, err
}

func tableGM(ctx context.Context, s *Service, r *Request) (*Response, error) {
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		if err := m.RequireGM("add or remove GMs"); err != nil {
			return nil, err
		}
		user := r.Options["user"]
		name := r.Users[user]
		if name == "" {
			name = user
		}
		idx := -1
		for i, id := range m.Table.GMs {
			if id == user {
				idx = i
			}
		}
		switch r.Options["action"] {
		case "add":
			if idx >= 0 {
				return nil, Errorf(CodeConflict, "%s is already a GM here.", mention(user))
			}
			m.Table.GMs = append(append([]string(nil), m.Table.GMs...), user)
			m.Note("Added %s as a GM.", name)
			return &Response{Content: fmt.Sprintf("%s is now a GM at this table.", mention(user))}, nil
		default:
			if idx < 0 {
				return nil, Errorf(CodeConflict, "%s is not an added GM here (Manage Channels members are GMs by permission).", mention(user))
			}
			gms := append([]string(nil), m.Table.GMs[:idx]...)
			m.Table.GMs = append(gms, m.Table.GMs[idx+1:]...)
			if len(m.Table.GMs) == 0 && !r.hasManageChannels() {
				return nil, Errorf(CodeConflict, "That would leave the table without a GM; add another GM first.")
			}
			m.Note("Removed %s as a GM.", name)
			if user == r.UserID && r.hasManageChannels() {
				// RULES.md §0.1: Manage Channels makes a GM whatever the list says.
				return &Response{Content: fmt.Sprintf("%s is no longer one of this table's added GMs, but stays a GM through Discord's Manage Channels permission in this channel; only taking that permission away (channel or role settings) ends it.", mention(user))}, nil
			}
			return &Response{Content: fmt.Sprintf("%s is no longer one of this table's added GMs (a member with Discord's Manage Channels permission in this channel stays a GM through it).", mention(user))}, nil
		}
	})

}

// tableOption answers /table option (GM only): the options of every table
// (PlatformOptions), the turn order's (setInitiativeOption) and the system's
// own (System.TableOptions), each taking one of its values. An unknown name
// is refused with the options that exist at this table.
func tableOption(ctx context.Context, s *Service, r *Request) (*Response, error) {
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		if err := m.RequireGM("change table options"); err != nil {
			return nil, err
		}
		name := strings.ToLower(r.Options["name"])
		value := strings.ToLower(r.Options["value"])
		opts := tableOptions(m.System)
		i := slices.IndexFunc(opts, func(o TableOption) bool { return o.Name == name })
		if i < 0 {
			names := make([]string, len(opts))
			for j, o := range opts {
				names[j] = o.Name
			}
			return nil, Errorf(CodeInvalid, "Unknown table option %q; this %s table has %s (/help topic:table says what each does).", Clip(name, 40), m.Table.System, strings.Join(names, ", "))
		}
		if isInitiativeOption(name) {
			return setInitiativeOption(m, name, value)
		}
		o := opts[i]
		if !slices.Contains(o.Values, value) {
			return nil, Errorf(CodeInvalid, "Option %s takes %s (got %q).", name, strings.Join(o.Values, " or "), Clip(value, 40))
		}
		old := option(m.Table, name, m.System)
		newOpts := map[string]string{}
		for k, v := range m.Table.Options {
			newOpts[k] = v
		}
		newOpts[name] = value
		m.Table.Options = newOpts
		m.ForTable().Note("Set %s from %s to %s.", name, old, value)
		text := fmt.Sprintf("Table option %s: %s → %s.", name, old, value)
		if name == DiceOption {
			text = diceOptionText(old, value)
		}
		m.ForTable().Say("%s", text)
		return &Response{}, nil
	})
}
