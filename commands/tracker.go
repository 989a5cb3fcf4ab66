package commands

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/hpkeeper/hpkeeper/rules/clock"
	"github.com/hpkeeper/hpkeeper/storage"
)

// TrackerPoster posts a table's tracker message as the bot (package bot does
// it with the bot token through Discord's REST API; the console prints it).
type TrackerPoster interface {
	// PostTracker posts resp as a new channel message and returns its id.
	PostTracker(ctx context.Context, channelID string, resp *Response) (messageID string, err error)
}

// trackerFeature is the tracker (/table tracker): a channel message the
// bot posts and edits after every change at its table, with every
// character, the clock and the features' parts of the table's summary
// (Summarizer: the open turn order). It serves one Service (Starter).
type trackerFeature struct {
	svc *Service

	mu       sync.Mutex
	poster   TrackerPoster
	noPoster string
}

// Register adds /table tracker, after /table show.
func (f *trackerFeature) Register(g *Registry) {
	g.AddSubcommand("table", "show", &Subcommand{Name: "tracker", Description: "Post a message the bot keeps up to date with every character and the clock", Handler: f.post})
}

// Start keeps the service the tracker renders from.
func (f *trackerFeature) Start(s *Service) { f.svc = s }

// SetTrackerPoster makes /table tracker post through p. Without one,
// /table tracker answers with why (unavailable, e.g. "the tracker needs
// DISCORD_TOKEN").
func (f *trackerFeature) SetTrackerPoster(p TrackerPoster, unavailable string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.poster, f.noPoster = p, unavailable
}

// Tracker renders the tracker of the channel's table as players see it
// (hidden characters by their word) and returns it with the id of the
// tracker message to edit; messageID is "" when the table has no tracker
// (or no table is there). It runs outside Handle (the bot's tracker
// updater calls it from a goroutine of its own), so like Handle it never
// panics: a panic in a system's code becomes the error.
func (f *trackerFeature) Tracker(channelID string) (messageID string, resp *Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			messageID, resp, err = "", nil, fmt.Errorf("render the tracker of %s: panic: %v\n%s", channelID, p, debug.Stack())
		}
	}()
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
		resp, err = render(f.svc, tx, t)
		messageID = t.TrackerMessageID
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return messageID, resp, nil
}

// render renders one line per character (its bars, conditions and timers;
// a hidden one by its word), the features' parts of the table's summary
// (the open turn order with a marker on the current turn), and the clock,
// coloured by the worst level at the table.
func render(s *Service, tx *storage.Tx, t *storage.Table) (*Response, error) {
	sys, err := s.System(t.System)
	if err != nil {
		return nil, err
	}
	chars, err := tx.Characters(t.ChannelID)
	if err != nil {
		return nil, err
	}
	worst := LevelFine
	var lines []string
	for _, c := range chars {
		v, err := ViewOf(sys, c, t.Clock)
		if err != nil {
			return nil, err
		}
		worst = max(worst, v.Level)
		if c.Hidden {
			lines = append(lines, fmt.Sprintf("**%s**: %s", Escape(c.Name), v.Word()))
			continue
		}
		var bars []string
		for _, b := range v.Bars {
			bars = append(bars, "`"+b.Text()+"`")
		}
		line := fmt.Sprintf("**%s** %s", Escape(c.Name), strings.Join(bars, " "))
		if extra := append(append([]string{}, v.Conditions...), v.Timers...); len(extra) > 0 {
			line += "\n  " + Escape(strings.Join(extra, " · "))
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		lines = []string{"No characters yet: /char create"}
	}
	e := Embed{
		Title:       "Tracker · " + t.System,
		Description: JoinWithin(lines, MaxEmbedDescription, " (/char list)"),
		Color:       worst.Color(),
		Footer:      "Clock: " + clock.Time(t.Clock).String() + " · updated after every change",
	}
	fields, err := s.Registry().Summary(tx, t, sys)
	if err != nil {
		return nil, err
	}
	e.Fields = append(e.Fields, fields...)
	return &Response{Embeds: []Embed{e}}, nil
}

// post answers /table tracker: it posts the tracker message through the
// bot and remembers it with the table, so every later change edits it.
func (f *trackerFeature) post(ctx context.Context, s *Service, r *Request) (*Response, error) {
	f.mu.Lock()
	poster, why := f.poster, f.noPoster
	f.mu.Unlock()
	if poster == nil {
		if why == "" {
			why = "The tracker needs the bot token (DISCORD_TOKEN): the bot posts and edits it as a channel message."
		}
		return nil, Errorf(CodeUnavailable, "%s", why)
	}
	var resp *Response
	err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
		var err error
		resp, err = render(s, tx, t)
		return err
	})
	if err != nil {
		return nil, err
	}
	id, err := poster.PostTracker(ctx, r.ChannelID, resp)
	if err != nil {
		return nil, fmt.Errorf("post tracker: %w", err)
	}
	// Stored as an event that changes the table, so that /undo of an older
	// table change still finds the table as that event left it.
	return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
		m.Table.TrackerMessageID = id
		m.Note("Posted the tracker.")
		return &Response{Content: "Posted the tracker: it is edited after every change at this table.", Ephemeral: true}, nil
	})
}

// SetTrackerPoster sets the poster of the service's tracker (while the
// tracker is in this package).
func (s *Service) SetTrackerPoster(p TrackerPoster, unavailable string) {
	for _, f := range s.registry.features {
		if t, ok := f.(*trackerFeature); ok {
			t.SetTrackerPoster(p, unavailable)
		}
	}
}

// Tracker renders the service's tracker (while the tracker is in this
// package).
func (s *Service) Tracker(channelID string) (string, *Response, error) {
	for _, f := range s.registry.features {
		if t, ok := f.(*trackerFeature); ok {
			return t.Tracker(channelID)
		}
	}
	return "", nil, nil
}
