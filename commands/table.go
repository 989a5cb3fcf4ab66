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

// The table option sheet-edit: who may change a character's sheet values
// with /char set.
const (
	// SheetEditOption is the kernel's table option that every table has.
	SheetEditOption = "sheet-edit"
	// SheetEditOwner (the default) lets a character's owner or a GM set its
	// values (RULES.md §0.1).
	SheetEditOwner = "owner"
	// SheetEditGM lets only GMs set values: players still act (damage,
	// heal, rest …) but cannot set their own HP, for gritty tables.
	SheetEditGM = "gm"
)

// KernelOptions are the kernel's own table options, which every table has:
// sheet-edit.
func KernelOptions() []TableOption {
	return []TableOption{
		{Name: SheetEditOption, Help: "who changes sheet values with /char set: a character's owner or a GM (owner), or GMs only (gm)", Default: SheetEditOwner, Values: []string{SheetEditOwner, SheetEditGM}},
	}
}

// OptionGroup is a group of the features' table options (TableOptioner).
type OptionGroup struct {
	// Name is the group's name, e.g. "Turn order options"; "" for the
	// options of every table.
	Name    string
	Options []TableOption
}

// OptionGroups returns the features' groups of table options at a table
// of sys, in the features' order: group "" (the features' options of every
// table, which come before the kernel's own, KernelOptions) first, merged,
// then the named ones.
func (g *Registry) OptionGroups(sys System) []OptionGroup {
	every := OptionGroup{}
	var named []OptionGroup
	for _, f := range g.features {
		to, ok := f.(TableOptioner)
		if !ok {
			continue
		}
		name, opts := to.TableOptions(sys)
		switch {
		case len(opts) == 0:
		case name == "":
			every.Options = append(every.Options, opts...)
		default:
			named = append(named, OptionGroup{name, opts})
		}
	}
	return append([]OptionGroup{every}, named...)
}

// TableOptions returns the table options of a table of sys, in the order
// /table show lists them: those of every table (the features', then the
// kernel's own, KernelOptions), the features' named groups (the turn
// order's, at a system with initiative), then the system's own.
func (g *Registry) TableOptions(sys System) []TableOption {
	groups := g.OptionGroups(sys)
	opts := append(append([]TableOption(nil), groups[0].Options...), KernelOptions()...)
	for _, og := range groups[1:] {
		opts = append(opts, og.Options...)
	}
	return append(opts, sys.TableOptions()...)
}

// option returns the value of the table option name at table t of sys, its
// default when the table has none set (a table set up before the option
// existed, or a sparse option at its default).
func (g *Registry) option(t *storage.Table, name string, sys System) string {
	if v := t.Options[name]; v != "" {
		return v
	}
	for _, o := range g.TableOptions(sys) {
		if o.Name == name {
			return o.Values[0]
		}
	}
	return ""
}

// Option returns the value of the table option name at the mutation's
// table, its default when the table has none set.
func (m *Mutation) Option(name string) string { return m.s.registry.option(m.Table, name, m.System) }

// tableSetup creates the channel's table or changes its system (RULES.md
// §0.1): anyone may set up a new table and becomes its GM; changing the system
// is GM-only and refused while characters exist.
func tableSetup(ctx context.Context, s *Service, r *Request) (*Response, error) {
	system := r.Options["system"]
	sys, err := s.System(system)
	if err != nil {
		return nil, Errorf(CodeInvalid, "Unknown system %q; choose one of %s.", Clip(system, 40), strings.Join(s.registry.systemNames(), ", "))
	}
	var resp *Response
	err = s.Update(r, func(tx *storage.Tx) error {
		before, err := tx.Table(r.ChannelID)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			t := &storage.Table{
				ChannelID: r.ChannelID, GuildID: r.GuildID, System: system,
				SetupBy: r.UserID, GMs: []string{r.UserID}, Options: DefaultOptions(sys),
				CreatedAt: r.Now.UTC(),
			}
			if err := tx.PutTable(t); err != nil {
				return err
			}
			resp = &Response{Content: fmt.Sprintf("This channel's table now plays **%s**. %s is its GM.\n%s", system, Mention(r.UserID), sys.Help())}
			return tx.AppendEvent(&storage.Event{
				ChannelID: r.ChannelID, At: r.Now.UTC(), UserID: r.UserID, UserName: r.UserName,
				Command: r.Line(), Summary: fmt.Sprintf("Set up the table for %s.", system), TableAfter: t,
			})
		case err != nil:
			return err
		}
		if err := RequireGM(r, before, "change the table's system"); err != nil {
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
			return Errorf(CodeConflict, "This table has %s; delete %s before changing the system from %s to %s.", Count(len(chars), "character"), them, before.System, system)
		}
		after := *before
		after.System = system
		after.Options = DefaultOptions(sys)
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

// DefaultOptions are the options a new table of sys stores: each of the
// system's own at its default (Values[0]).
func DefaultOptions(sys System) map[string]string {
	opts := map[string]string{}
	for _, o := range sys.TableOptions() {
		opts[o.Name] = o.Values[0]
	}
	return opts
}

func tableShow(ctx context.Context, s *Service, r *Request) (*Response, error) {
	var resp *Response
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		sys, err := s.System(t.System)
		if err != nil {
			return err
		}
		chars, err := tx.Characters(r.ChannelID)
		if err != nil {
			return err
		}
		a := Audience(r, t)
		resp, err = s.Memoized(ctx, tx, r, "table show"+seenHidden(a, chars), func() (Ready, error) {
			gms := make([]string, len(t.GMs))
			for i, id := range t.GMs {
				gms[i] = Mention(id)
			}
			var opts []string
			for _, o := range s.registry.TableOptions(sys) {
				opts = append(opts, fmt.Sprintf("%s=%s", o.Name, s.registry.option(t, o.Name, sys)))
			}
			lines, hidden, err := roster(a, t, sys, chars, "")
			if err != nil {
				return Ready{}, err
			}
			if len(lines) == 0 {
				lines = []string{"none yet: /char create"}
			}
			resp := &Response{Embeds: []Embed{{
				Title: "Table: " + t.System,
				Fields: []Field{
					{Name: "GMs", Value: strings.Join(gms, ", ") + " and anyone with Manage Channels"},
					{Name: "Options", Value: strings.Join(opts, ", ")},
					{Name: "Clock", Value: clock.Time(t.Clock).String()},
					{Name: "Characters", Value: strings.Join(lines, "\n")},
				},
			}}}
			if len(hidden) > 0 {
				resp = Privately(resp, &Response{Content: strings.Join(hidden, "\n")})
			}
			return Ready{Response: resp}, nil
		})
		return err
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
				return nil, Errorf(CodeConflict, "%s is already a GM here.", Mention(user))
			}
			m.Table.GMs = append(append([]string(nil), m.Table.GMs...), user)
			m.Note("Added %s as a GM.", name)
			return &Response{Content: fmt.Sprintf("%s is now a GM at this table.", Mention(user))}, nil
		default:
			if idx < 0 {
				return nil, Errorf(CodeConflict, "%s is not an added GM here (Manage Channels members are GMs by permission).", Mention(user))
			}
			gms := append([]string(nil), m.Table.GMs[:idx]...)
			m.Table.GMs = append(gms, m.Table.GMs[idx+1:]...)
			if len(m.Table.GMs) == 0 && !r.HasManageChannels() {
				return nil, Errorf(CodeConflict, "That would leave the table without a GM; add another GM first.")
			}
			m.Note("Removed %s as a GM.", name)
			if user == r.UserID && r.HasManageChannels() {
				// RULES.md §0.1: Manage Channels makes a GM whatever the list says.
				return &Response{Content: fmt.Sprintf("%s is no longer one of this table's added GMs, but stays a GM through Discord's Manage Channels permission in this channel; only taking that permission away (channel or role settings) ends it.", Mention(user))}, nil
			}
			return &Response{Content: fmt.Sprintf("%s is no longer one of this table's added GMs (a member with Discord's Manage Channels permission in this channel stays a GM through it).", Mention(user))}, nil
		}
	})

}

// tableOption answers /table option (GM only): the options of the table
// (Registry.TableOptions: the kernel's, the features' and the system's),
// each taking one of its values or what its Parse accepts. An unknown name
// is refused with the options that exist at this table.
func tableOption(ctx context.Context, s *Service, r *Request) (*Response, error) {
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		if err := m.RequireGM("change table options"); err != nil {
			return nil, err
		}
		name := strings.ToLower(r.Options["name"])
		value := strings.ToLower(r.Options["value"])
		opts := s.registry.TableOptions(m.System)
		i := slices.IndexFunc(opts, func(o TableOption) bool { return o.Name == name })
		if i < 0 {
			names := make([]string, len(opts))
			for j, o := range opts {
				names[j] = o.Name
			}
			return nil, Errorf(CodeInvalid, "Unknown table option %q; this %s table has %s (/help topic:table says what each does).", Clip(name, 40), m.Table.System, strings.Join(names, ", "))
		}
		o := opts[i]
		stored := value
		switch {
		case o.Parse != nil:
			var err error
			if stored, err = o.Parse(m, value); err != nil {
				return nil, err
			}
		case !slices.Contains(o.Values, value):
			return nil, Errorf(CodeInvalid, "Option %s takes %s (got %q).", name, strings.Join(o.Values, " or "), Clip(value, 40))
		}
		old := m.Option(name)
		newOpts := make(map[string]string, len(m.Table.Options)+1)
		for k, v := range m.Table.Options {
			newOpts[k] = v
		}
		if o.Sparse && stored == o.Values[0] {
			delete(newOpts, name)
		} else {
			newOpts[name] = stored
		}
		m.Table.Options = newOpts
		m.ForTable().Note("Set %s from %s to %s.", name, old, stored)
		text := fmt.Sprintf("Table option %s: %s → %s.", name, old, stored)
		if o.Said != nil {
			text = o.Said(old, stored)
		}
		m.ForTable().Say("%s", text)
		return &Response{}, nil
	})
}
