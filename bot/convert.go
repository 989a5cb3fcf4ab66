package bot

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/hpkeeper/hpkeeper/commands"
)

// ErrUnsupportedInteraction is wrapped by the error RequestFrom returns for an
// interaction it cannot turn into a commands.Request: a PING (answered by the
// transport itself), an interaction type Discord added after this code was
// written, data that does not match the interaction type, or an interaction
// without a user.
var ErrUnsupportedInteraction = errors.New("unsupported interaction")

// RequestFrom translates a Discord interaction into the transport-agnostic
// request of package commands. now becomes Request.Now.
//
// It checks i.Type before touching i.Data (discordgo's typed accessors panic on
// the wrong type), takes the caller from i.Member in a guild and from i.User in
// a DM, flattens a subcommand's nested options (a subcommand group becomes
// "group sub"), renders every option value as text (integers in decimal,
// booleans as "true"/"false", users as their id), names the focused option of
// an autocomplete request and collects a modal's inputs from its action rows
// and Labels (see collectInputs). It returns an error wrapping ErrUnsupportedInteraction when i is not a
// command, autocomplete, component or modal interaction, or lacks a user.
func RequestFrom(i *discordgo.Interaction, now time.Time) (*commands.Request, error) {
	if i == nil {
		return nil, fmt.Errorf("%w: no interaction", ErrUnsupportedInteraction)
	}
	r := &commands.Request{
		InteractionID: i.ID,
		GuildID:       i.GuildID,
		ChannelID:     i.ChannelID,
		Options:       map[string]string{},
		Now:           now,
	}
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		d, ok := i.Data.(discordgo.ApplicationCommandInteractionData)
		if !ok {
			return nil, fmt.Errorf("%w: %s interaction without command data", ErrUnsupportedInteraction, typeName(i.Type))
		}
		r.Kind = commands.KindCommand
		if i.Type == discordgo.InteractionApplicationCommandAutocomplete {
			r.Kind = commands.KindAutocomplete
		}
		commandRequest(r, d)
	case discordgo.InteractionMessageComponent:
		d, ok := i.Data.(discordgo.MessageComponentInteractionData)
		if !ok {
			return nil, fmt.Errorf("%w: component interaction without component data", ErrUnsupportedInteraction)
		}
		r.Kind = commands.KindComponent
		r.CustomID = d.CustomID
	case discordgo.InteractionModalSubmit:
		d, ok := i.Data.(discordgo.ModalSubmitInteractionData)
		if !ok {
			return nil, fmt.Errorf("%w: modal interaction without modal data", ErrUnsupportedInteraction)
		}
		r.Kind = commands.KindModal
		r.CustomID = d.CustomID
		r.Values = map[string]string{}
		collectInputs(r.Values, d.Components)
	default:
		return nil, fmt.Errorf("%w: %s", ErrUnsupportedInteraction, typeName(i.Type))
	}
	u := i.User
	if i.Member != nil {
		if i.Member.User != nil {
			u = i.Member.User
		}
		r.UserName = i.Member.Nick
		r.Permissions = i.Member.Permissions
	}
	if u == nil || u.ID == "" {
		return nil, fmt.Errorf("%w: interaction %s has no user", ErrUnsupportedInteraction, i.ID)
	}
	r.UserID = u.ID
	if r.UserName == "" {
		r.UserName = displayName(u)
	}
	return r, nil
}

// typeName names an interaction type for errors; discordgo's String has no
// name for autocomplete.
func typeName(t discordgo.InteractionType) string {
	if t == discordgo.InteractionApplicationCommandAutocomplete {
		return "ApplicationCommandAutocomplete"
	}
	return t.String()
}

// displayName is a user's global display name, else their user name.
func displayName(u *discordgo.User) string {
	if u.GlobalName != "" {
		return u.GlobalName
	}
	return u.Username
}

// commandRequest fills the command, subcommand, options, focused option and
// resolved user names of r from an application command's data.
func commandRequest(r *commands.Request, d discordgo.ApplicationCommandInteractionData) {
	r.Command = d.Name
	opts := d.Options
	if len(opts) == 1 && opts[0] != nil {
		switch opts[0].Type {
		case discordgo.ApplicationCommandOptionSubCommandGroup:
			g := opts[0]
			r.Subcommand = g.Name
			opts = nil
			if len(g.Options) == 1 && g.Options[0] != nil {
				r.Subcommand = g.Name + " " + g.Options[0].Name
				opts = g.Options[0].Options
			}
		case discordgo.ApplicationCommandOptionSubCommand:
			r.Subcommand = opts[0].Name
			opts = opts[0].Options
		}
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		r.Options[o.Name] = optionValue(o)
		attachmentOption(r, o, d.Resolved) // files.go
		if o.Focused {
			r.Focused = o.Name
		}
	}
	if d.Resolved == nil || (len(d.Resolved.Users) == 0 && len(d.Resolved.Members) == 0) {
		return
	}
	r.Users = map[string]string{}
	for id, u := range d.Resolved.Users {
		if u != nil {
			r.Users[id] = displayName(u)
		}
	}
	for id, m := range d.Resolved.Members {
		if m != nil && m.Nick != "" {
			r.Users[id] = m.Nick
		}
	}
}

// optionValue renders an option's value as text. Discord sends integers as
// JSON numbers, which decode to float64; an autocomplete request sends the
// focused option as the text typed so far, whatever its type.
func optionValue(o *discordgo.ApplicationCommandInteractionDataOption) string {
	switch v := o.Value.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	default:
		return fmt.Sprint(v)
	}
}

// collectInputs stores the value of every input in components by its
// custom_id: text inputs nested in action rows (the older shape of a
// modal's fields) or in Labels (the shape Discord documents now), and the
// select menus in Labels, whose chosen values are joined by a newline
// (option values are the bot's own, without newlines).
func collectInputs(values map[string]string, components []discordgo.MessageComponent) {
	for _, c := range components {
		switch c := c.(type) {
		case *discordgo.ActionsRow:
			if c != nil {
				collectInputs(values, c.Components)
			}
		case *Label:
			if c != nil && c.Component != nil {
				collectInputs(values, []discordgo.MessageComponent{c.Component})
			}
		case *submittedSelect:
			if c != nil {
				values[c.CustomID] = strings.Join(c.Values, "\n")
			}
		case discordgo.ActionsRow:
			collectInputs(values, c.Components)
		case *discordgo.TextInput:
			if c != nil {
				values[c.CustomID] = c.Value
			}
		case discordgo.TextInput:
			values[c.CustomID] = c.Value
		}
	}
}

// ResponseFrom translates a commands.Response to the request of kind into
// Discord's interaction response:
//   - an autocomplete request gets type 8 (its Choices, at most 25);
//   - a Modal gets type 9, each text input in its own Label (see
//     modalData);
//   - UpdateMessage on a component or modal request gets type 7, replacing
//     the message that carried the component;
//   - anything else gets type 4, a new message.
//
// Messages carry the content, embeds, button rows, the ephemeral flag (64) when
// asked, and allowed mentions that parse nothing, so no text in a reply ever
// pings; the users in resp.Mentions (the turn order's init-ping: one owner)
// are the only ones it may ping, listed by id (see allowedUsers). A nil
// resp becomes an ephemeral apology. A Modal answering a modal submit (which
// Discord refuses) becomes an ephemeral apology as well. Encode the result
// with EncodeResponse.
func ResponseFrom(kind commands.Kind, resp *commands.Response) *discordgo.InteractionResponse {
	if resp == nil {
		return apology()
	}
	if kind == commands.KindAutocomplete {
		choices := make([]*discordgo.ApplicationCommandOptionChoice, 0, min(len(resp.Choices), 25))
		for _, c := range resp.Choices {
			if len(choices) == 25 {
				break
			}
			choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: c.Name, Value: c.Value})
		}
		return &discordgo.InteractionResponse{
			Type: discordgo.InteractionApplicationCommandAutocompleteResult,
			Data: &discordgo.InteractionResponseData{Choices: choices},
		}
	}
	if resp.Modal != nil {
		if kind == commands.KindModal {
			return apology()
		}
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: modalData(resp.Modal)}
	}
	t := discordgo.InteractionResponseChannelMessageWithSource
	if resp.UpdateMessage && (kind == commands.KindComponent || kind == commands.KindModal) {
		t = discordgo.InteractionResponseUpdateMessage
	}
	data := &discordgo.InteractionResponseData{
		Content:         resp.Content,
		Embeds:          make([]*discordgo.MessageEmbed, 0, len(resp.Embeds)),
		Components:      make([]discordgo.MessageComponent, 0, len(resp.Components)),
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: allowedUsers(resp.Mentions)},
	}
	for _, e := range resp.Embeds {
		data.Embeds = append(data.Embeds, embed(e))
	}
	for _, row := range resp.Components {
		if len(row) == 0 {
			continue
		}
		buttons := make([]discordgo.MessageComponent, 0, len(row))
		for _, b := range row {
			style := discordgo.ButtonStyle(b.Style)
			if style < discordgo.PrimaryButton || style > discordgo.DangerButton {
				style = discordgo.SecondaryButton
			}
			buttons = append(buttons, discordgo.Button{Label: b.Label, CustomID: b.CustomID, Style: style, Disabled: b.Disabled})
		}
		data.Components = append(data.Components, discordgo.ActionsRow{Components: buttons})
	}
	data.Files = discordFiles(resp.Files) // not JSON: sent by callbackBody or as a follow-up (files.go)
	if resp.Ephemeral {
		data.Flags = discordgo.MessageFlagsEphemeral
	}
	return &discordgo.InteractionResponse{Type: t, Data: data}
}

// maxAllowedUsers is Discord's limit on allowed_mentions.users.
const maxAllowedUsers = 100

// allowedUsers returns the user ids a message may ping: those of mentions
// that are Discord snowflakes (1 to 20 digits), each once, at most
// maxAllowedUsers; nil when none.
func allowedUsers(mentions []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range mentions {
		if len(out) == maxAllowedUsers {
			break
		}
		if seen[id] || !isSnowflake(id) {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	return out
}

// isSnowflake reports whether s is a Discord id: 1 to 20 decimal digits.
func isSnowflake(s string) bool {
	if len(s) == 0 || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// apology is the ephemeral message sent when an interaction could not be
// handled.
func apology() *discordgo.InteractionResponse {
	return ResponseFrom(commands.KindCommand, &commands.Response{Content: commands.Apology, Ephemeral: true})
}

func embed(e commands.Embed) *discordgo.MessageEmbed {
	m := &discordgo.MessageEmbed{
		Type:        discordgo.EmbedTypeRich,
		Title:       e.Title,
		Description: e.Description,
		Color:       e.Color,
	}
	if e.Footer != "" {
		// A footer shows text as is (no markdown), so it is not escaped
		// upstream; only an '@' could still read as a mention there.
		m.Footer = &discordgo.MessageEmbedFooter{Text: noAt(e.Footer)}
	}
	for _, f := range e.Fields {
		m.Fields = append(m.Fields, &discordgo.MessageEmbedField{Name: f.Name, Value: f.Value, Inline: f.Inline})
	}
	return m
}

// noAt puts a zero-width space after every '@' not already followed by one,
// so that no text reads as @everyone, @here or a <@id> mention.
func noAt(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "@\u200b", "@"), "@", "@\u200b")
}

// modalData builds a modal as Discord documents it now: each text input in
// its own Label (type 18) carrying the input's label, the input itself
// without one (style 1 short, 2 paragraph). Submits of it come back in
// Labels too; decodeInteraction reads those and the older action rows.
func modalData(m *commands.Modal) *discordgo.InteractionResponseData {
	rows := make([]discordgo.MessageComponent, 0, len(m.Inputs))
	for _, in := range m.Inputs {
		style := discordgo.TextInputShort
		if in.Paragraph {
			style = discordgo.TextInputParagraph
		}
		rows = append(rows, &Label{
			Label: in.Label,
			Component: labelledTextInput{
				CustomID:    in.CustomID,
				Style:       style,
				Placeholder: in.Placeholder,
				Required:    in.Required,
				MinLength:   in.MinLength,
				MaxLength:   in.MaxLength,
			},
		})
	}
	return &discordgo.InteractionResponseData{CustomID: m.CustomID, Title: m.Title, Components: rows}
}

// Wire shapes of the responses, written by EncodeResponse.
type (
	// noMentions marshals as {"parse":[]}, or {"parse":[],"users":[…]}
	// with the users a message may ping: discordgo's MessageAllowedMentions
	// always adds "replied_user":false.
	noMentions struct {
		// Users are the ids a message may ping (allowedUsers), or nil.
		Users []string
	}
	// messageData overrides discordgo's allowed_mentions (the shallower field
	// wins in encoding/json) so every message parses no mentions.
	messageData struct {
		*discordgo.InteractionResponseData
		AllowedMentions noMentions `json:"allowed_mentions"`
	}
	messageResponse struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data messageData                       `json:"data"`
	}
	choicesData struct {
		Choices []*discordgo.ApplicationCommandOptionChoice `json:"choices"`
	}
	choicesResponse struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data choicesData                       `json:"data"`
	}
	modalWire struct {
		CustomID   string                       `json:"custom_id"`
		Title      string                       `json:"title"`
		Components []discordgo.MessageComponent `json:"components"`
	}
	modalResponse struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data modalWire                         `json:"data"`
	}
)

// MarshalJSON returns {"parse":[]}, allowed mentions that parse nothing, or
// {"parse":[],"users":[…]} when n lists the users the message may ping.
func (n noMentions) MarshalJSON() ([]byte, error) {
	if len(n.Users) == 0 {
		return []byte(`{"parse":[]}`), nil
	}
	users, err := json.Marshal(n.Users)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"parse":[],"users":`), users...), '}'), nil
}

// EncodeResponse returns the JSON body Discord expects for resp, the same
// bytes for the HTTP endpoint and the gateway's callback. A PONG (type 1) is
// exactly {"type":1}. Every message response (types 4 and 7, and the deferred
// types 5 and 6) carries "allowed_mentions":{"parse":[]}, so no text in a
// reply can ping anyone, with "users" added only for the snowflake ids that
// resp's allowed mentions list (ResponseFrom sets them from
// commands.Response.Mentions); an autocomplete result always has a "choices"
// array, empty when there are none; a modal carries only its custom_id, title
// and components. It returns an error only when encoding/json fails.
func EncodeResponse(resp *discordgo.InteractionResponse) ([]byte, error) {
	if resp == nil {
		return nil, errors.New("encode interaction response: nil response")
	}
	data := resp.Data
	if data == nil {
		data = &discordgo.InteractionResponseData{}
	}
	var v any
	switch resp.Type {
	case discordgo.InteractionResponsePong:
		return []byte(`{"type":1}`), nil
	case discordgo.InteractionApplicationCommandAutocompleteResult:
		choices := data.Choices
		if choices == nil {
			choices = []*discordgo.ApplicationCommandOptionChoice{}
		}
		v = choicesResponse{Type: resp.Type, Data: choicesData{Choices: choices}}
	case discordgo.InteractionResponseModal:
		v = modalResponse{Type: resp.Type, Data: modalWire{CustomID: data.CustomID, Title: data.Title, Components: data.Components}}
	default:
		d := *data
		if d.Embeds == nil {
			d.Embeds = []*discordgo.MessageEmbed{}
		}
		if d.Components == nil {
			d.Components = []discordgo.MessageComponent{}
		}
		var users []string
		if d.AllowedMentions != nil {
			users = allowedUsers(d.AllowedMentions.Users)
		}
		v = messageResponse{Type: resp.Type, Data: messageData{InteractionResponseData: &d, AllowedMentions: noMentions{Users: users}}}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode interaction response: %w", err)
	}
	return b, nil
}
