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

// trackerHooks is the Service's tracker wiring; its zero value has none.
type trackerHooks struct {
	mu       sync.Mutex
	poster   TrackerPoster
	noPoster string
	onChange []func(channelID string)
}

// SetTrackerPoster makes /table tracker post through p. Without one,
// /table tracker answers with why (unavailable, e.g. "the tracker needs
// DISCORD_TOKEN").
func (s *Service) SetTrackerPoster(p TrackerPoster, unavailable string) {
	s.tracking.mu.Lock()
	defer s.tracking.mu.Unlock()
	s.tracking.poster, s.tracking.noPoster = p, unavailable
}

// OnChange registers fn to be called, after every request that succeeded,
// with the request's channel id; fn must not block (the bot's tracker
// updater only schedules an edit). Requests that changed nothing call it
// too: the listener compares what it renders.
func (s *Service) OnChange(fn func(channelID string)) {
	s.tracking.mu.Lock()
	defer s.tracking.mu.Unlock()
	s.tracking.onChange = append(s.tracking.onChange, fn)
}

// changed tells the change listeners about a handled request.
func (s *Service) changed(r *Request) {
	if r.Kind == KindAutocomplete || r.ChannelID == "" {
		return
	}
	s.tracking.mu.Lock()
	fns := append([]func(string){}, s.tracking.onChange...)
	s.tracking.mu.Unlock()
	for _, fn := range fns {
		fn(r.ChannelID)
	}
}

// Tracker renders the tracker of the channel's table as players see it
// (hidden characters by their word) and returns it with the id of the
// tracker message to edit; messageID is "" when the table has no tracker
// (or no table is there). It runs outside Handle (the bot's tracker
// updater calls it from a goroutine of its own), so like Handle it never
// panics: a panic in a system's code becomes the error.
func (s *Service) Tracker(channelID string) (messageID string, resp *Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			messageID, resp, err = "", nil, fmt.Errorf("render the tracker of %s: panic: %v\n%s", channelID, p, debug.Stack())
		}
	}()
	err = s.db.View(func(tx *storage.Tx) error {
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
		resp, err = s.renderTracker(tx, t)
		messageID = t.TrackerMessageID
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return messageID, resp, nil
}

// renderTracker renders one line per character (its bars, conditions and
// timers; a hidden one by its word), the open turn order with a marker on
// the current turn, and the clock, coloured by the worst level at the
// table.
func (s *Service) renderTracker(tx *storage.Tx, t *storage.Table) (*Response, error) {
	sys, err := s.system(t.System)
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
		v, err := viewOf(sys, c, t.Clock)
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
		Description: joinWithin(lines, maxEmbedDescription, " (/char list)"),
		Color:       worst.Color(),
		Footer:      "Clock: " + clock.Time(t.Clock).String() + " · updated after every change",
	}
	if f, ok, err := orderField(tx, t, sys); err != nil {
		return nil, err
	} else if ok {
		e.Fields = append(e.Fields, f) // the turn order (initiative.go)
	}
	return &Response{Embeds: []Embed{e}}, nil
}

// maxEmbedDescription is Discord's limit on an embed description.
const maxEmbedDescription = 4096

// tableTracker answers /table tracker: it posts the tracker message through
// the bot and remembers it with the table, so every later change edits it.
func tableTracker(ctx context.Context, s *Service, r *Request) (*Response, error) {
	s.tracking.mu.Lock()
	poster, why := s.tracking.poster, s.tracking.noPoster
	s.tracking.mu.Unlock()
	if poster == nil {
		if why == "" {
			why = "The tracker needs the bot token (DISCORD_TOKEN): the bot posts and edits it as a channel message."
		}
		return nil, Errorf(CodeUnavailable, "%s", why)
	}
	var resp *Response
	err := s.view(r, func(tx *storage.Tx, t *storage.Table) error {
		var err error
		resp, err = s.renderTracker(tx, t)
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
