package bot

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

// TrackerSource renders a channel's tracker and names its message; the
// tracker feature (*tracker.Feature of commands/tracker) implements it.
type TrackerSource interface {
	Tracker(channelID string) (messageID string, resp *commands.Response, err error)
}

// Tracker posts tracker messages with the bot token and edits them after
// every change at their table (/table tracker): at most one edit is in
// flight per message, and changes that arrive during an edit are coalesced
// into one more edit with the newest state, so the latest state wins. It
// implements the tracker feature's Poster; pass its Changed to
// Service.OnChange.
type Tracker struct {
	src     TrackerSource
	session *discordgo.Session
	log     zerolog.Logger

	mu    sync.Mutex
	chans map[string]*trackerState
	wg    sync.WaitGroup
	// edited, when set, is told the result of every edit sent (metrics).
	edited func(err error)
	// recheck: other processes edit the same messages (replicas over a
	// shared database; WithReplicas).
	recheck bool
}

// maxRechecks bounds the edits one update sends again because the tracker
// changed while it edited (WithReplicas): a table that keeps changing is
// caught up by the edits its next changes start.
const maxRechecks = 4

// WithReplicas makes the Tracker keep the latest state last when other
// processes (serve replicas over a shared database) edit the same tracker
// messages, whose edits this process cannot order: after each edit it
// renders the tracker again, and edits again when that differs from what
// it sent. Whichever edit reaches Discord last, its sender then sees the
// newest state (committed before its render) and sends it if it is not
// what it sent.
func WithReplicas() TrackerOption { return func(t *Tracker) { t.recheck = true } }

// TrackerOption configures a Tracker (WithReplicas, ReportEdits).
type TrackerOption func(*Tracker)

// ReportEdits makes the Tracker call fn after every edit it sends, with the
// edit's error (nil: Discord took it): the metrics count them
// (operator.Metrics.TrackerEdited).
func ReportEdits(fn func(err error)) TrackerOption { return func(t *Tracker) { t.edited = fn } }

// trackerState is one channel's updater: running while an update loop
// runs, dirty when a change came in since the loop last rendered; last is
// the content last sent, to skip edits that would change nothing.
type trackerState struct {
	running, dirty bool
	lastID         string
	last           *discordgo.MessageEdit
}

// NewTracker returns a tracker updater rendering with src and calling
// Discord's REST API through session (made with NewSession; it need not be
// connected to the gateway).
func NewTracker(src TrackerSource, session *discordgo.Session, log zerolog.Logger, opts ...TrackerOption) *Tracker {
	t := &Tracker{src: src, session: session, log: log, chans: map[string]*trackerState{}}
	for _, o := range opts {
		o(t)
	}
	return t
}

// PostTracker posts resp as a new message in the channel (with the bot
// token) and returns its id.
func (t *Tracker) PostTracker(ctx context.Context, channelID string, resp *commands.Response) (string, error) {
	d := trackerData(resp)
	msg, err := t.session.ChannelMessageSendComplex(channelID, &discordgo.MessageSend{
		Content: d.Content, Embeds: d.Embeds, Components: d.Components, AllowedMentions: d.AllowedMentions,
	}, discordgo.WithContext(ctx))
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	st := t.state(channelID)
	st.lastID, st.last = msg.ID, editOf(channelID, msg.ID, d)
	t.mu.Unlock()
	return msg.ID, nil
}

// Changed schedules an update of the channel's tracker; it never blocks.
func (t *Tracker) Changed(channelID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.state(channelID)
	if st.running {
		st.dirty = true
		return
	}
	st.running = true
	t.wg.Add(1)
	go t.loop(channelID, st)
}

// Wait waits for the updates in flight (tests, shutdown).
func (t *Tracker) Wait() { t.wg.Wait() }

func (t *Tracker) state(channelID string) *trackerState {
	st := t.chans[channelID]
	if st == nil {
		st = &trackerState{}
		t.chans[channelID] = st
	}
	return st
}

// loop renders and edits the channel's tracker until no change came in
// during the last edit.
func (t *Tracker) loop(channelID string, st *trackerState) {
	defer t.wg.Done()
	for {
		if err := t.update(channelID, st); err != nil {
			t.log.Warn().Err(err).Str("channel_id", channelID).Msg("tracker update failed")
		}
		t.mu.Lock()
		if !st.dirty {
			st.running = false
			t.mu.Unlock()
			return
		}
		st.dirty = false
		t.mu.Unlock()
	}
}

// update renders the tracker now and edits its message when the rendering
// changed (and, WithReplicas, again while the tracker changed meanwhile).
func (t *Tracker) update(channelID string, st *trackerState) error {
	for i := 0; ; i++ {
		sent, err := t.edit(channelID, st)
		if err != nil || !sent || !t.recheck || i >= maxRechecks {
			return err
		}
	}
}

// edit renders the tracker and edits its message when the rendering is
// not what was last sent; it reports whether it sent an edit.
func (t *Tracker) edit(channelID string, st *trackerState) (bool, error) {
	id, resp, err := t.src.Tracker(channelID)
	if err != nil || id == "" {
		return false, err
	}
	edit := editOf(channelID, id, trackerData(resp))
	t.mu.Lock()
	same := st.lastID == id && reflect.DeepEqual(st.last, edit)
	t.mu.Unlock()
	if same {
		return false, nil
	}
	_, err = t.session.ChannelMessageEditComplex(edit)
	if t.edited != nil {
		t.edited(err)
	}
	if err != nil {
		return false, fmt.Errorf("edit tracker message %s: %w", id, err)
	}
	t.mu.Lock()
	st.lastID, st.last = id, edit
	t.mu.Unlock()
	return true, nil
}

// trackerData converts a response to message data as replies are.
func trackerData(resp *commands.Response) *discordgo.InteractionResponseData {
	return ResponseFrom(commands.KindCommand, resp).Data
}

// editOf is the edit that makes message messageID of the channel show d:
// its content, embeds and buttons (the tracker's pages).
func editOf(channelID, messageID string, d *discordgo.InteractionResponseData) *discordgo.MessageEdit {
	content, embeds, components := d.Content, d.Embeds, d.Components
	if components == nil {
		components = []discordgo.MessageComponent{}
	}
	return &discordgo.MessageEdit{Channel: channelID, ID: messageID, Content: &content, Embeds: &embeds, Components: &components, AllowedMentions: d.AllowedMentions}
}
