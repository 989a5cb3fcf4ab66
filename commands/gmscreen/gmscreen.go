// Package gmscreen is the GM screen, a feature of the commands kernel: it
// brings every GM of a table the results only GMs may read (a hidden NPC's
// numbers and dice, RULES.md §0.1), whoever triggered them. A player's
// /init next that ends the round makes the hidden Bandit's dying save; the
// player reads the Bandit's word at most, and the GMs read the save:
//
//   - posted, with the bot token, in the table's GM channel, a channel or
//     private thread that only GMs read, named by the table option
//     gm-channel (a Poster posts it: package bot, or the console);
//   - without one, queued in the table's GM inbox (storage.Table.GMInbox),
//     which every GM gets on their next interaction at the table, in a
//     follow-up only they see, once.
//
// The GM who triggered a result also reads it at once, in the reply's own
// follow-up (commands/hidden.go), and /history keeps every event in full
// for GMs. A result the GM channel cannot take (Discord refuses the post)
// goes to the inbox instead, so none is lost.
package gmscreen

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/layout"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Option is the table option naming the GM channel: "off" (the default)
// or a channel's id, given as its mention (<#123…>), its id or, in the
// console, its name.
const Option = "gm-channel"

// MaxNotes is how many results the GM inbox keeps: past it the oldest
// go, and a GM who had not read them is told so (OlderInHistory) with the
// rest; /history still has them. A result leaves the inbox sooner once
// every GM of the table's list (/table gm) has had it.
const MaxNotes = 10

// MaxInboxText bounds the text the GM inbox keeps, in characters (eight
// messages' worth), since it is stored with the table and written with
// every change of it: past it the oldest results go as past MaxNotes,
// the newest always stays.
const MaxInboxText = 8 * commands.MaxContent

// OlderInHistory tells a GM catching up that the inbox no longer holds
// some results they missed. The inbox keeps it as a note of its own,
// given to those who had every result it stands for.
const OlderInHistory = "Older results only GMs may read are no longer kept here: /history has every one."

// PostTimeout bounds a post in the GM channel: past it the result goes to
// the inbox instead.
const PostTimeout = 5 * time.Second

// Poster posts a message in a channel as the bot (package bot with the bot
// token through Discord's REST API; the console prints it).
type Poster interface {
	PostToGMs(ctx context.Context, channelID string, msg *commands.Response) error
}

// Feature is the GM screen: the table option gm-channel, the delivery of
// every result only GMs may read, and the catching up of each GM. It
// serves one Service.
type Feature struct {
	mu       sync.Mutex
	poster   Poster
	noPoster string
}

var (
	_ commands.Feature       = (*Feature)(nil)
	_ commands.Wrapper       = (*Feature)(nil)
	_ commands.GMDeliverer   = (*Feature)(nil)
	_ commands.TableOptioner = (*Feature)(nil)
)

// New returns a GM screen that posts nothing until SetPoster gives it a
// poster: until then every result goes to the GM inbox.
func New() *Feature { return &Feature{} }

// Of returns the GM screen among the features of g, or nil.
func Of(g *commands.Registry) *Feature {
	for _, f := range g.Features() {
		if s, ok := f.(*Feature); ok {
			return s
		}
	}
	return nil
}

// SetPoster makes results posted in GM channels through p. Without one
// (p nil), /table option gm-channel is refused with why unavailable
// ("needs the bot token").
func (f *Feature) SetPoster(p Poster, unavailable string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.poster, f.noPoster = p, unavailable
}

// posterOr returns the poster, or nil and why there is none.
func (f *Feature) posterOr() (Poster, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	why := f.noPoster
	if why == "" {
		why = "A GM channel needs the bot token (DISCORD_TOKEN): the bot posts there as itself."
	}
	return f.poster, why
}

// Register adds nothing: the GM screen has no command of its own.
func (f *Feature) Register(*commands.Registry) {}

// channelValue is what gm-channel takes: a mention, an id, or (the
// console's channels) a name.
var channelValue = regexp.MustCompile(`^(?:<#|#)?([a-z0-9_-]{1,100})>?$`)

// TableOptions offers gm-channel at every table.
func (f *Feature) TableOptions(commands.System) (string, []commands.TableOption) {
	return "", []commands.TableOption{{
		Name: Option, Default: "off", Values: []string{"off"}, Sparse: true,
		Help: "where results only GMs may read are posted for every GM: a channel or private thread only GMs read (#gm-room); off: each GM gets those they missed on their next command at the table",
		Parse: func(m *commands.Mutation, value string) (string, error) {
			if value == "off" || value == "none" {
				return "off", nil
			}
			id := channelValue.FindStringSubmatch(value)
			switch {
			case id == nil:
				return "", commands.Errorf(commands.CodeInvalid, "gm-channel takes a channel or private thread only GMs read, as #name (Discord makes it a mention), or off.")
			case id[1] == m.Req.ChannelID:
				return "", commands.Errorf(commands.CodeInvalid, "gm-channel must be another channel than the table's, one players do not read.")
			}
			if p, why := f.posterOr(); p == nil {
				return "", commands.Errorf(commands.CodeUnavailable, "%s Until then every GM gets what they missed on their next command here.", why)
			}
			return id[1], nil
		},
		Said: func(old, value string) string {
			mention := func(v string) string {
				if v == "off" {
					return v
				}
				return "<#" + v + ">"
			}
			return fmt.Sprintf("Table option gm-channel: %s → %s. %s", mention(old), mention(value), Where(value))
		},
	}}
}

// Where says where a table whose gm-channel is value brings its GMs the
// results only they may read, for /help and /table option.
func Where(value string) string {
	if value == "" || value == "off" {
		return "Results only GMs may read (a hidden NPC's numbers and dice) reach each GM on their next command at this table, in a message only they see, and /history keeps them; `/table option name:gm-channel value:#gm-room` posts them in a GM channel instead."
	}
	return fmt.Sprintf("Results only GMs may read (a hidden NPC's numbers and dice) are posted in <#%s> for every GM, and /history keeps them.", value)
}

// HelpAt says in /help at table t where the results only GMs may read go.
func (f *Feature) HelpAt(t *storage.Table) string {
	return Where(t.Options[Option])
}

// delivery is one request's part in the GM screen, which the request's
// context carries from the wrapper (Wrap) to the change (DeliverToGMs).
type delivery struct {
	// changed is set once a change of the table ran, with what the caller
	// may have missed then (the table's inbox) and whether they are a GM.
	changed bool
	gm      bool
	inbox   []storage.GMNote
	// posts are the results to post in the GM channel once the change is
	// saved.
	posts []post
}

type post struct {
	channelID string
	note      storage.GMNote
	// msgs are the messages that carry the note whole (messages).
	msgs []*commands.Response
}

type deliveryKey struct{}

// DeliverToGMs takes gm, what a change kept from players: to the GM
// channel when the table names one (posted once the change is saved), else
// to the GM inbox, as given already to the caller when a GM (they read it
// in the reply).
func (f *Feature) DeliverToGMs(m *commands.Mutation, gm *commands.Response) error {
	d, _ := m.Context().Value(deliveryKey{}).(*delivery)
	if gm != nil && (gm.Content != "" || len(gm.Embeds) > 0) {
		note := storage.GMNote{Text: noteText(m.Req, gm)}
		if m.IsGM() {
			note.Given = []string{m.Req.UserID}
		}
		p, _ := f.posterOr()
		if ch := m.Table.Options[Option]; ch != "" && ch != "off" && p != nil && d != nil {
			msgs := messages(noteText(m.Req, &commands.Response{Content: gm.Content}), gm.Embeds)
			d.posts = append(d.posts, post{channelID: ch, note: note, msgs: msgs})
		} else {
			m.Table.GMInbox = queue(m.Table, note)
		}
	}
	if d != nil {
		d.changed, d.gm, d.inbox = true, m.IsGM(), m.Table.GMInbox
	}
	return nil
}

// noteText is a result as the inbox keeps it: who did what, then what
// players did not read, in text (a card's title and description when the
// result has no text).
func noteText(r *commands.Request, gm *commands.Response) string {
	body := gm.Content
	if body == "" {
		for _, e := range gm.Embeds {
			body = strings.TrimSpace(body + "\n**" + e.Title + "**\n" + e.Description)
		}
	}
	return fmt.Sprintf("From %s's %s:\n%s", commands.Escape(r.UserName), commands.Escape(r.Line()), body)
}

// queue returns t's inbox with notes added, without the results every
// listed GM has had, at most MaxNotes results and MaxInboxText characters,
// the newest: those older go, and a note OlderInHistory, first, stands for
// them, given to those who had every one of them.
func queue(t *storage.Table, notes ...storage.GMNote) []storage.GMNote {
	var older *storage.GMNote
	var out []storage.GMNote
	for _, n := range append(t.Clone().GMInbox, notes...) {
		switch {
		case len(t.GMs) > 0 && !slices.ContainsFunc(t.GMs, func(id string) bool { return !slices.Contains(n.Given, id) }):
			// Every listed GM has had it: it goes.
		case n.Text == OlderInHistory:
			older = &n
		default:
			out = append(out, n)
		}
	}
	gone, size := max(0, len(out)-MaxNotes), 0
	for _, n := range out[gone:] {
		size += runes(n.Text)
	}
	for ; size > MaxInboxText && gone < len(out)-1; gone++ {
		size -= runes(out[gone].Text)
	}
	if gone > 0 {
		if older == nil {
			older = &storage.GMNote{Text: OlderInHistory, Given: slices.Clone(out[0].Given)}
		}
		for _, n := range out[:gone] {
			older.Given = slices.DeleteFunc(older.Given, func(id string) bool { return !slices.Contains(n.Given, id) })
		}
		out = out[gone:]
	}
	if older != nil {
		out = append([]storage.GMNote{*older}, out...)
	}
	return out
}

// messages lays a result out over messages Discord takes (layout.Split),
// so that none is cut.
func messages(text string, embeds []commands.Embed) []*commands.Response {
	var out []*commands.Response
	for _, m := range layout.Split([]string{text}, embeds, nil) {
		out = append(out, &commands.Response{Content: m.Content, Embeds: m.Embeds})
	}
	return out
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// Wrap is the GM screen's step of every request: once the request is
// answered, it posts the results its change had in the GM channel, and
// gives a GM the results they missed (catchUp).
func (f *Feature) Wrap(next commands.HandlerFunc) commands.HandlerFunc {
	return func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
		d := &delivery{}
		resp, err := next(context.WithValue(ctx, deliveryKey{}, d), s, r)
		if err != nil || resp == nil {
			return resp, err
		}
		f.post(ctx, s, r, d)
		return f.catchUp(ctx, s, r, d, resp), nil
	}
}

// post posts d's results in the GM channel; one Discord refuses goes to
// the inbox.
func (f *Feature) post(ctx context.Context, s *commands.Service, r *commands.Request, d *delivery) {
	p, _ := f.posterOr()
	var failed []storage.GMNote
	for _, pt := range d.posts {
		for _, msg := range pt.msgs {
			pctx, cancel := context.WithTimeout(ctx, PostTimeout)
			err := p.PostToGMs(pctx, pt.channelID, msg)
			cancel()
			if err != nil {
				zerolog.Ctx(ctx).Warn().Err(err).Str("channel_id", pt.channelID).Msg("GM channel post failed; the result waits in the GM inbox")
				failed = append(failed, pt.note)
				break
			}
		}
	}
	if len(failed) == 0 {
		return
	}
	err := s.DB().Update(func(tx *storage.Tx) error {
		t, err := commands.LoadTable(tx, r.ChannelID)
		if err != nil {
			return err
		}
		t.GMInbox = queue(t, failed...)
		d.inbox = t.GMInbox
		return tx.PutTable(t)
	})
	if err != nil {
		zerolog.Ctx(ctx).Error().Err(err).Msg("GM inbox: results lost to the GM channel and the inbox (/history keeps them)")
	}
}

// missed returns the results of inbox the user has not had.
func missed(inbox []storage.GMNote, user string) []string {
	var out []string
	for _, n := range inbox {
		if !slices.Contains(n.Given, user) {
			out = append(out, n.Text)
		}
	}
	return out
}

// CatchUpHeader heads the follow-up that gives a GM the results they
// missed.
const CatchUpHeader = "While you were away, only GMs read (/history has every event in full):"

// catchUp adds to resp, answering a GM, the results of the GM inbox they
// have not had, in one follow-up only they see, and marks them had.
func (f *Feature) catchUp(ctx context.Context, s *commands.Service, r *commands.Request, d *delivery, resp *commands.Response) *commands.Response {
	if resp.Modal != nil || resp.Choices != nil || r.ChannelID == "" {
		return resp
	}
	if !d.changed {
		// Nothing changed the table: read its inbox.
		if err := s.View(r, func(tx *storage.Tx, t *storage.Table) error {
			d.gm, d.inbox = commands.IsGM(r, t), t.GMInbox
			return nil
		}); err != nil {
			return resp
		}
	}
	if !d.gm || len(missed(d.inbox, r.UserID)) == 0 {
		return resp
	}
	var notes []string
	err := s.DB().Update(func(tx *storage.Tx) error {
		t, err := commands.LoadTable(tx, r.ChannelID)
		if err != nil {
			return err
		}
		notes = missed(t.GMInbox, r.UserID)
		for i := range t.GMInbox {
			t.GMInbox[i].Given = append(t.GMInbox[i].Given, r.UserID)
		}
		t.GMInbox = queue(t)
		return tx.PutTable(t)
	})
	if err != nil || len(notes) == 0 {
		if err != nil {
			zerolog.Ctx(ctx).Error().Err(err).Msg("GM inbox: could not mark results given")
		}
		return resp
	}
	// The results, each whole in one message where it fits: the kernel
	// lays the follow-up out over as many as it needs.
	caught := commands.Blocks(append([]string{CatchUpHeader}, notes...))
	caught.Ephemeral = true
	resp.FollowUps = append(resp.FollowUps, caught)
	return resp
}
