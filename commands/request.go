// Package commands turns Discord-shaped requests into rule calls and responses.
//
// It knows nothing of transports: the HTTP interactions endpoint, the gateway
// (both in package bot) and the console (cmd/hpkeeper) each build a Request,
// call Service.Handle and render the Response they get back. One Registry
// lists every application command; it serves both routing and registration.
//
// This package is the kernel: the Service and its chain of steps, the
// registry, the Mutation (one write transaction and its event), errors,
// permissions, limits (each user's work: ratelimit.go, spent from a
// commands/worklimit allowance), privacy (who reads what), the reply
// renderer, the clock's one way to move (clock.go, Mutation.MoveClock,
// which /clock, a feature, asks for), and the commands of the table and
// its characters that every table shares (/table, /char). Each rule system
// is a package of its own that implements System (commands/hitprot,
// commands/hpmpwp, commands/harm; and commands/initiative for the turn
// order), and each feature is one that implements Feature and the hooks of
// feature.go (commands/actions, with /roll, gameclock, autocomplete,
// manualdice, turnorder, history, export, odds, tracker, gmscreen, help);
// main passes both lists to New, and the kernel imports neither.
// docs/architecture.md maps the rooms. commands/commandstest runs the
// kernel for tests.
package commands

import (
	"context"
	"time"

	"github.com/hpkeeper/hpkeeper/commands/layout"
)

// Kind says what sort of interaction a Request is.
type Kind int

// The kinds of interaction, named as Discord names them.
const (
	// KindCommand is an application command (a slash command).
	KindCommand Kind = iota + 1
	// KindComponent is a message component interaction (a button press).
	KindComponent
	// KindModal is a modal submit.
	KindModal
	// KindAutocomplete is an application command autocomplete request.
	KindAutocomplete
)

// ManageChannels is Discord's Manage Channels permission bit (1 << 4). A member
// who has it in a channel is a GM at that channel's table (RULES.md §0.1).
const ManageChannels int64 = 1 << 4

// Request is one interaction as the handlers see it, whatever its transport.
type Request struct {
	// Kind is the interaction kind.
	Kind Kind
	// InteractionID is Discord's id of the interaction ("" in the console).
	InteractionID string
	// GuildID is the guild ("server") id, "" in a DM.
	GuildID string
	// ChannelID identifies the table: one table per channel (a thread is a channel).
	ChannelID string
	// UserID and UserName identify the caller; UserName is the name shown in replies
	// (guild nickname, else global name, else user name).
	UserID, UserName string
	// Permissions is the caller's permission bitfield in the channel (0 in a DM).
	Permissions int64
	// Command is the top-level application command name, e.g. "table".
	Command string
	// Subcommand is the subcommand name, e.g. "setup"; "" for a command without one.
	Subcommand string
	// Options holds each given option by name, as text: integers in decimal,
	// booleans as "true" or "false", users as their user id.
	Options map[string]string
	// Focused names the option being typed, for KindAutocomplete.
	Focused string
	// Users maps user ids given in user options to display names, when known.
	Users map[string]string
	// CustomID is the custom_id of the pressed button (KindComponent) or of the
	// submitted modal (KindModal).
	CustomID string
	// Pressed is the label of the pressed button (e.g. "Stay Up"), set by
	// the component's handler so that the history names the press as the
	// player saw it (Line: `pressed [Stay Up] for Lister`); "" for a command.
	Pressed string
	// Values holds a submitted modal's text inputs by their custom_id.
	Values map[string]string
	// Attachments holds the files given in attachment options, by option
	// name (the option's text in Options is the file name). The console fills
	// Data from a local file; the bot sets Fetch, which downloads it from
	// Discord's CDN.
	Attachments map[string]*Attachment
	// Now is when the interaction arrived; the zero value means time.Now().
	Now time.Time
}

// HasManageChannels reports whether the Manage Channels permission bit is
// in the request's permissions. GMs added with /table gm and the table's
// set-up user are GMs too; IsGM checks them against the table.
func (r *Request) HasManageChannels() bool { return r.Permissions&ManageChannels != 0 }

// Response is what a handler answers: a message, a modal or autocomplete
// choices. Text is Discord markdown; names given by users are escaped (see
// Escape) so they show literally.
type Response struct {
	// Content is the message text. A reply past Discord's limits on a
	// message (2,000 characters of content, 10 embeds, 6,000 characters of
	// embeds, 5 rows of 5 buttons) continues in follow-ups (layOut).
	Content string
	// Embeds are rich blocks shown under the content.
	Embeds []Embed
	// Components are rows of buttons.
	Components [][]Button
	// Modal, when set, opens a modal instead of posting a message.
	Modal *Modal
	// Choices answers a KindAutocomplete request (at most 25).
	Choices []Choice
	// Ephemeral makes the message visible only to the caller.
	Ephemeral bool
	// UpdateMessage, for a KindComponent or KindModal request, replaces the
	// message that carried the component instead of posting a new one.
	UpdateMessage bool
	// Files are attachments sent with the message (a PNG chart, a JSON
	// export). The gateway sends them with the reply, the HTTP endpoint as a
	// follow-up message, the console writes them to a directory.
	Files []File
	// Outcome is how the request ended, set by Service.Handle (for metrics;
	// never shown to the user).
	Outcome Outcome
	// Mentions are the user ids the message may ping (Discord's
	// allowed_mentions users); nil, the default, pings nobody. A mutation
	// sets it (Mutation.SetMentions): the turn order's init-ping names the
	// owner whose turn starts.
	Mentions []string
	// FollowUps are further messages sent after this one, in order (the
	// bot posts them through the interaction's webhook): an ephemeral one
	// shows only to the caller, e.g. a hidden character's numbers for the
	// GM who acted on it (hidden.go), or the rest of a reply past
	// Discord's limits (Continues). A follow-up's own Modal, Choices,
	// UpdateMessage and FollowUps are ignored.
	FollowUps []*Response
	// Continues is set on a follow-up that carries on the message before
	// it: the rest of a reply past Discord's limits on one message
	// (layOut), ephemeral when that one is.
	Continues bool

	// blocks are the parts of Content, one per result, that layOut keeps
	// whole in one message where they fit (render sets them).
	blocks []string
}

// Outcome says how Service.Handle ended a request.
type Outcome int

// The outcomes of a request.
const (
	// OutcomeOK: the request was answered as asked (including a prompt for
	// physical dice and an autocomplete that found nothing).
	OutcomeOK Outcome = iota
	// OutcomeUserError: the request was refused with a message the user can
	// act on (any error Code but CodeInternal: a bad option, not found, not
	// allowed, too much work at once).
	OutcomeUserError
	// OutcomeInternal: a fault of ours (CodeInternal, or a panic), answered
	// with Apology and logged.
	OutcomeInternal
)

// Attachment is a file a user gave in an attachment option.
type Attachment struct {
	// Filename is the file's name as uploaded.
	Filename string
	// URL is where Discord serves it ("" in the console).
	URL string
	// Size is its size in bytes as Discord reports it.
	Size int
	// Data is its content when the transport has it (the console).
	Data []byte
	// Fetch, when set, downloads the content (the bot: from Discord's CDN);
	// handlers call it only once the caller may use the file.
	Fetch func(ctx context.Context) ([]byte, error)
}

// File is one attachment of a Response.
type File struct {
	// Name is the file name shown in Discord, e.g. "odds.png".
	Name string
	// ContentType is the MIME type, e.g. "image/png".
	ContentType string
	Data        []byte
	// Chart, when set and Data is nil, is the chart Data is drawn from
	// once the handler has answered, outside any write transaction
	// (ChartFile; commands/odds draws it).
	Chart *Chart
}

// Embed, Field, Button and ButtonStyle are the message parts of package
// layout, which lays a reply out over Discord's messages (layOut).
type (
	// Embed is a rich block of a message.
	Embed = layout.Embed
	// Field is one name/value pair of an Embed.
	Field = layout.Field
	// Button is a message button. CustomID carries everything needed to
	// handle a press after a restart (COMMANDS.md "Buttons and modals"); at
	// most 100 bytes.
	Button = layout.Button
	// ButtonStyle is Discord's button style.
	ButtonStyle = layout.ButtonStyle
)

// Button styles as Discord numbers them.
const (
	StylePrimary   = layout.StylePrimary
	StyleSecondary = layout.StyleSecondary
	StyleSuccess   = layout.StyleSuccess
	StyleDanger    = layout.StyleDanger
)

// Modal is a pop-up form with text inputs.
type Modal struct {
	CustomID string
	Title    string
	Inputs   []TextInput
}

// TextInput is one text field of a Modal.
type TextInput struct {
	CustomID    string
	Label       string
	Placeholder string
	// Paragraph selects a multi-line input.
	Paragraph bool
	Required  bool
	// MinLength and MaxLength bound the text in characters (0: Discord's default).
	MinLength, MaxLength int
}

// Choice is one autocomplete suggestion.
type Choice struct {
	Name, Value string
}

// Chart is a grouped bar chart of percentages: one group per category, one
// bar per series.
type Chart struct {
	Title      string
	Categories []string
	Series     []ChartSeries
}

// ChartSeries is one group of bars of a chart: one bar per category, values
// in percent.
type ChartSeries struct {
	Name   string
	Values []float64
}
