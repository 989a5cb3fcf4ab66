// Package tracker is the tracker feature of the commands kernel (/table
// tracker): a channel message the bot posts once and edits after every
// change at its table, listing every character as players see them, the
// clock, and the other features' parts of the table's summary
// (commands.Summarizer: the open turn order). The bot posts and edits the
// message through a Poster (package bot, with the bot token; the console
// prints it) and renders it with Tracker.
package tracker

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/layout"
	"github.com/hpkeeper/hpkeeper/commands/view"
	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Poster posts a table's tracker message as the bot (package bot does it
// with the bot token through Discord's REST API; the console prints it).
type Poster interface {
	// PostTracker posts resp as a new channel message and returns its id.
	PostTracker(ctx context.Context, channelID string, resp *commands.Response) (messageID string, err error)
}

// Feature is the tracker: /table tracker, and the rendering of every
// table's tracker message. It serves one Service (commands.Starter).
type Feature struct {
	svc *commands.Service

	mu       sync.Mutex
	poster   Poster
	noPoster string
}

var (
	_ commands.Feature = (*Feature)(nil)
	_ commands.Starter = (*Feature)(nil)
)

// New returns a tracker that posts nothing until SetPoster gives it a
// poster.
func New() *Feature { return &Feature{} }

// Of returns the tracker among the features of g, or nil when it has none.
func Of(g *commands.Registry) *Feature {
	for _, f := range g.Features() {
		if t, ok := f.(*Feature); ok {
			return t
		}
	}
	return nil
}

// Register adds /table tracker, after /table show, and the buttons of
// its pages.
func (f *Feature) Register(g *commands.Registry) {
	g.AddSubcommand("table", "show", &commands.Subcommand{Name: "tracker", Description: "Post a message the bot keeps up to date (GM; a player sees it privately)", Handler: f.post})
	g.Component(pagePrefix, page)
}

// Start keeps the service the tracker renders from.
func (f *Feature) Start(s *commands.Service) { f.svc = s }

// SetPoster makes /table tracker post through p. Without one, /table
// tracker answers with why (unavailable, e.g. "the tracker needs
// DISCORD_TOKEN").
func (f *Feature) SetPoster(p Poster, unavailable string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.poster, f.noPoster = p, unavailable
}

// Tracker renders the tracker of the channel's table as players see it
// (hidden characters by their word) and returns it with the id of the
// tracker message to edit; messageID is "" when the table has no tracker
// (or no table is there, or the tracker serves no service yet). It runs
// outside Handle (the bot's tracker updater calls it from a goroutine of
// its own), so like Handle it never panics: a panic in a system's code
// becomes the error.
func (f *Feature) Tracker(channelID string) (messageID string, resp *commands.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			messageID, resp, err = "", nil, fmt.Errorf("render the tracker of %s: panic: %v\n%s", channelID, p, debug.Stack())
		}
	}()
	if f.svc == nil {
		return "", nil, nil
	}
	err = f.svc.DB().View(func(tx *storage.Tx) error {
		t, err := tx.Table(channelID)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if t.TrackerMessageID == "" {
			return nil
		}
		pages, err := render(f.svc, tx, t)
		if err != nil {
			return err
		}
		resp, messageID = pageOf(pages, 1, false), t.TrackerMessageID
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return messageID, resp, nil
}

// render renders one line per character (its bars, conditions and timers;
// a hidden one by its word), the features' parts of the table's summary
// (the open turn order with a marker on the current turn), and the clock,
// and when the table last changed, coloured by the worst level players
// read at the table, laid out over as many pages (messages) as Discord's
// limits need, every character on one of them.
func render(s *commands.Service, tx *storage.Tx, t *storage.Table) ([]layout.Message, error) {
	sys, err := s.System(t.System)
	if err != nil {
		return nil, err
	}
	chars, err := tx.Characters(t.ChannelID)
	if err != nil {
		return nil, err
	}
	worst := view.LevelFine
	var lines []string
	for _, c := range chars {
		v, err := commands.ViewOf(sys, c, t.Clock)
		if err != nil {
			return nil, err
		}
		// The channel's view: a hidden character's word, whose level
		// alone counts for the colour.
		v = view.Channel.For(c, v)
		worst = max(worst, v.Level)
		if !view.Channel.Sees(c) {
			lines = append(lines, fmt.Sprintf("**%s**: %s", commands.Escape(c.Name), v.Word.Text))
			continue
		}
		var bars []string
		for _, b := range v.Bars {
			bars = append(bars, "`"+b.Text()+"`")
		}
		line := fmt.Sprintf("**%s** %s", commands.Escape(c.Name), strings.Join(bars, " "))
		if extra := append(append([]string{}, v.Conditions...), v.Timers...); len(extra) > 0 {
			line += "\n  " + commands.Escape(strings.Join(extra, " · "))
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		lines = []string{"No characters yet: /char create"}
	}
	stamp, err := lastChange(tx, t.ChannelID)
	if err != nil {
		return nil, err
	}
	e := commands.Embed{
		Title:       "Tracker · " + t.System,
		Description: strings.TrimSpace(strings.Join(lines, "\n") + "\n" + stamp),
		Color:       worst.Color(),
		Footer:      "Clock: " + clock.Time(t.Clock).String() + " · updated after every change",
	}
	fields, err := s.Registry().Summary(tx, t, sys)
	if err != nil {
		return nil, err
	}
	e.Fields = append(e.Fields, fields...)
	return layout.Split(nil, []commands.Embed{e}, nil), nil
}

// pagePrefix starts the custom_id of a button that shows a page of the
// tracker: "trk:<page>", and "trk:<page>:edit" on a page shown by one.
const pagePrefix = "trk"

// pageOf is page n (1 for the first) of pages as a message: with more than
// one, a row of buttons for the others (edit: on a page a button showed,
// whose buttons show the others in its place).
func pageOf(pages []layout.Message, n int, edit bool) *commands.Response {
	p := pages[n-1]
	resp := &commands.Response{Content: p.Content, Embeds: p.Embeds}
	if len(pages) == 1 {
		return resp
	}
	var row []commands.Button
	for i := range pages {
		if i+1 == n && !edit {
			continue
		}
		id := fmt.Sprintf("%s:%d", pagePrefix, i+1)
		if edit {
			id += ":edit"
		}
		row = append(row, commands.Button{Label: fmt.Sprintf("Page %d of %d", i+1, len(pages)), CustomID: id,
			Style: commands.StyleSecondary, Disabled: i+1 == n})
	}
	resp.Components = [][]commands.Button{row}
	return resp
}

// page answers a press of a page button of the tracker: the page, as the
// tracker renders it now, to the caller alone; on a page a button showed,
// in its place.
func page(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	parts := strings.Split(r.CustomID, ":")
	n, err := strconv.Atoi(parts[min(1, len(parts)-1)])
	if err != nil || n < 1 || len(parts) > 3 {
		return nil, commands.Errorf(commands.CodeInvalid, "This button is not one of ours.")
	}
	var resp *commands.Response
	err = s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		pages, err := render(s, tx, t)
		if err != nil {
			return err
		}
		resp = pageOf(pages, min(n, len(pages)), true)
		return nil
	})
	if err != nil {
		return nil, err
	}
	resp.Ephemeral, resp.UpdateMessage = true, len(parts) == 3
	return resp, nil
}

// lastChange says when the table last changed, "Last change <t:…:f>" (a
// Discord timestamp: each reader's own time zone), from its newest event.
func lastChange(tx *storage.Tx, channelID string) (string, error) {
	seq, err := tx.LastEventSeq(channelID)
	if err != nil || seq == 0 {
		return "", err
	}
	e, err := tx.Event(channelID, seq)
	if err != nil {
		return "", err
	}
	return "Last change " + commands.Timestamp(e.At), nil
}

// post answers /table tracker: a GM's posts the tracker message through
// the bot and remembers it with the table, so every later change edits
// it; a player's shows the tracker to them alone, and leaves the table's
// where the GM put it.
func (f *Feature) post(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
	var resp *commands.Response
	gm := false
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		gm = commands.IsGM(r, t)
		pages, err := render(s, tx, t)
		if err != nil {
			return err
		}
		resp = pageOf(pages, 1, false)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !gm {
		resp.Content, resp.Ephemeral = "Only a GM posts the table's tracker; here it is as it stands, for you alone.", true
		return resp, nil
	}
	f.mu.Lock()
	poster, why := f.poster, f.noPoster
	f.mu.Unlock()
	if poster == nil {
		if why == "" {
			why = "The tracker needs the bot token (DISCORD_TOKEN): the bot posts and edits it as a channel message."
		}
		return nil, commands.Errorf(commands.CodeUnavailable, "%s", why)
	}
	id, err := poster.PostTracker(ctx, r.ChannelID, resp)
	if err != nil {
		return nil, fmt.Errorf("post tracker: %w", err)
	}
	// Stored as an event that changes the table, so that /undo of an older
	// table change still finds the table as that event left it.
	return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
		m.Table.TrackerMessageID = id
		m.Note("Posted the tracker.")
		return &commands.Response{Content: "Posted the tracker: it is edited after every change at this table.", Ephemeral: true}, nil
	})
}
