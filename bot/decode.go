package bot

import (
	"encoding/json"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// This file decodes the body of an HTTP interaction request. discordgo's own
// decoding (Interaction.UnmarshalJSON) decodes the whole body twice and every
// field Discord sends, including the full message a button press was made on;
// the Endpoint reads a dozen fields, so it decodes only those, in one pass
// over the body plus one over "data", into the small wire structs below, and
// builds the *discordgo.Interaction that dispatch, RequestFrom, sendLater and
// interactionLogger consume. The gateway decodes the raw data of its
// INTERACTION_CREATE events with it too (gateway.go, onEvent).
//
// Every wire field has the name and Go type of the discordgo field it stands
// for, so a body discordgo decodes is decoded here too, to the same values
// (decode_test.go checks this against discordgo, on fixtures and by fuzzing);
// a field that is not read here is skipped, so a body discordgo refuses only
// for such a field (an unknown component type in "message", say) is accepted.
//
// Two shapes Discord sends today are decoded here ahead of discordgo v0.29,
// which does not know them:
//   - "channel" (a partial channel object) without "channel_id", as some
//     libraries' fixtures carry it: ChannelID is then channel.id;
//   - a Label (component type 18) in a modal submit, holding one component
//     in "component": a text input (decoded as in an action row) or a select
//     menu (types 3 and 5 to 8, whose "values" become a submittedSelect).
//     Discord documents Label as the way to put inputs in a modal, and
//     action rows there as deprecated; both are decoded. discordgo refuses
//     a Label outright, so decode_test.go holds these bodies to discordgo's
//     decoding of the same submit in the action-row shape.

// wireInteraction is the part of an interaction object the Endpoint reads.
// Data stays raw until Type is known, as discordgo does: which fields it has
// depends on the type, and "data" may come before "type".
type wireInteraction struct {
	ID        string                    `json:"id"`
	AppID     string                    `json:"application_id"`
	Type      discordgo.InteractionType `json:"type"`
	Token     string                    `json:"token"`
	GuildID   string                    `json:"guild_id"`
	ChannelID string                    `json:"channel_id"`
	Channel   json.RawMessage           `json:"channel"` // read when channel_id is missing
	Member    *wireMember               `json:"member"`  // nil in a DM
	User      *wireUser                 `json:"user"`    // nil in a guild
	Data      json.RawMessage           `json:"data"`
}

// channelID returns the id of raw, a partial channel object, or "" when raw
// is missing or not an object with a string id: discordgo does not read
// "channel", so no shape of it may make a body undecodable.
func channelID(raw json.RawMessage) string {
	var c struct {
		ID string `json:"id"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
		return ""
	}
	return c.ID
}

// wireUser is the part of a user object the Endpoint reads.
type wireUser struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name"`
}

// wireMember is the part of a guild member object the Endpoint reads.
// Permissions is Discord's bitfield, sent as a decimal string.
type wireMember struct {
	User        *wireUser `json:"user"`
	Nick        string    `json:"nick"`
	Permissions int64     `json:"permissions,string"`
}

// wireCommandData is the data of an application command or autocomplete
// interaction (types 2 and 4). Options are discordgo's own type, which has
// no custom decoding: a subcommand's options nest in its Options, and Value is
// a string, float64 or bool as encoding/json decodes it into an interface.
type wireCommandData struct {
	Name     string                                               `json:"name"`
	Options  []*discordgo.ApplicationCommandInteractionDataOption `json:"options"`
	Resolved *wireResolved                                        `json:"resolved"`
}

// wireResolved is the part of a command's resolved data the Endpoint reads:
// the users, members and attachments that options refer to, by id. A null
// entry stays a nil pointer, as in discordgo.
type wireResolved struct {
	Users       map[string]*wireUser       `json:"users"`
	Members     map[string]*wireMember     `json:"members"`
	Attachments map[string]*wireAttachment `json:"attachments"`
}

// wireAttachment is the part of an attachment object files.go reads; Size is
// in bytes.
type wireAttachment struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
}

// wireComponentData is the data of a message component interaction (type
// 3).
type wireComponentData struct {
	CustomID      string                  `json:"custom_id"`
	ComponentType discordgo.ComponentType `json:"component_type"`
}

// wireModalData is the data of a modal submit interaction (type 5).
type wireModalData struct {
	CustomID   string          `json:"custom_id"`
	Components []wireComponent `json:"components"`
}

// wireComponent is one component of a submitted modal, decoded by its type
// as discordgo does: an action row (type 1) becomes a *discordgo.ActionsRow
// holding its components, a text input (type 4) a *discordgo.TextInput with
// its custom_id and value. A Label (type 18) becomes a *Label holding its
// "component" when that is a text input or a select menu; a select menu
// inside a Label becomes a *submittedSelect with its values. Any other
// type, and a select menu outside a Label (where discordgo keeps no
// values), is left nil and dropped: text displays, file uploads, radio
// groups and checkboxes carry nothing hpkeeper's modals ask for.
type wireComponent struct {
	c discordgo.MessageComponent
}

// UnmarshalJSON decodes one modal component from b, a JSON object; it returns
// encoding/json's error when b or a field it reads is malformed.
func (w *wireComponent) UnmarshalJSON(b []byte) error {
	var head struct {
		Type discordgo.ComponentType `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	switch head.Type {
	case discordgo.ActionsRowComponent:
		var row struct {
			Components []wireComponent `json:"components"`
		}
		if err := json.Unmarshal(b, &row); err != nil {
			return err
		}
		w.c = &discordgo.ActionsRow{Components: components(row.Components)}
	case discordgo.TextInputComponent:
		var in struct {
			CustomID string `json:"custom_id"`
			Value    string `json:"value"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			return err
		}
		w.c = &discordgo.TextInput{CustomID: in.CustomID, Value: in.Value}
	case LabelComponent:
		var l struct {
			Component json.RawMessage `json:"component"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		c, err := labelled(l.Component)
		if err != nil {
			return err
		}
		w.c = nil
		if c != nil {
			w.c = &Label{Component: c}
		}
	default:
		w.c = nil
	}
	return nil
}

// labelled decodes b, the "component" of a submitted Label: a text input
// (type 4) with its custom_id and value, or a select menu (types 3, 5 to 8)
// with its custom_id and values. It returns nil for a missing component and
// for other types, whose fields are not looked at (a checkbox's value is a
// boolean, say), and encoding/json's error when b, or a field it reads, is
// malformed.
func labelled(b json.RawMessage) (discordgo.MessageComponent, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var head struct {
		Type discordgo.ComponentType `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, err
	}
	switch head.Type {
	case discordgo.TextInputComponent:
		var in struct {
			CustomID string `json:"custom_id"`
			Value    string `json:"value"`
		}
		if err := json.Unmarshal(b, &in); err != nil {
			return nil, err
		}
		return &discordgo.TextInput{CustomID: in.CustomID, Value: in.Value}, nil
	case discordgo.SelectMenuComponent, discordgo.UserSelectMenuComponent, discordgo.RoleSelectMenuComponent,
		discordgo.MentionableSelectMenuComponent, discordgo.ChannelSelectMenuComponent:
		var sel struct {
			CustomID string   `json:"custom_id"`
			Values   []string `json:"values"`
		}
		if err := json.Unmarshal(b, &sel); err != nil {
			return nil, err
		}
		return &submittedSelect{MenuType: head.Type, CustomID: sel.CustomID, Values: sel.Values}, nil
	}
	return nil, nil
}

// components returns the decoded components of ws in order, without the
// ones of types dropped by wireComponent; never nil.
func components(ws []wireComponent) []discordgo.MessageComponent {
	out := make([]discordgo.MessageComponent, 0, len(ws))
	for _, w := range ws {
		if w.c != nil {
			out = append(out, w.c)
		}
	}
	return out
}

// decodeInteraction decodes body, the JSON interaction object of an HTTP
// interactions request, into a *discordgo.Interaction carrying ID, AppID,
// Type, Token, GuildID, ChannelID (channel.id when channel_id is missing or
// empty), Member (User, Nick, Permissions) or User
// (ID, Username, GlobalName), and Data typed as discordgo's
// Interaction.UnmarshalJSON types it: ApplicationCommandInteractionData
// (Name, Options, Resolved users, members and attachments) for types 2 and 4,
// MessageComponentInteractionData (CustomID, ComponentType) for 3,
// ModalSubmitInteractionData (CustomID; action rows of text inputs, and
// Labels of text inputs or select menus) for 5, and
// nil for any other type, whose "data" is not looked at. Other fields,
// "message" among them, are skipped.
//
// It returns an error wrapping encoding/json's when body is not JSON, is not
// an object, has a read field of the wrong type, or is an interaction of type
// 2 to 5 without "data" (discordgo refuses those as well).
func decodeInteraction(body []byte) (*discordgo.Interaction, error) {
	var w wireInteraction
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("decode interaction: %w", err)
	}
	i := &discordgo.Interaction{
		ID:        w.ID,
		AppID:     w.AppID,
		Type:      w.Type,
		Token:     w.Token,
		GuildID:   w.GuildID,
		ChannelID: w.ChannelID,
		Member:    w.Member.member(),
		User:      w.User.user(),
	}
	if i.ChannelID == "" {
		i.ChannelID = channelID(w.Channel)
	}
	switch w.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		var d wireCommandData
		if err := json.Unmarshal(w.Data, &d); err != nil {
			return nil, fmt.Errorf("decode interaction data: %w", err)
		}
		i.Data = discordgo.ApplicationCommandInteractionData{Name: d.Name, Options: d.Options, Resolved: d.Resolved.resolved()}
	case discordgo.InteractionMessageComponent:
		var d wireComponentData
		if err := json.Unmarshal(w.Data, &d); err != nil {
			return nil, fmt.Errorf("decode interaction data: %w", err)
		}
		i.Data = discordgo.MessageComponentInteractionData{CustomID: d.CustomID, ComponentType: d.ComponentType}
	case discordgo.InteractionModalSubmit:
		var d wireModalData
		if err := json.Unmarshal(w.Data, &d); err != nil {
			return nil, fmt.Errorf("decode interaction data: %w", err)
		}
		i.Data = discordgo.ModalSubmitInteractionData{CustomID: d.CustomID, Components: components(d.Components)}
	}
	return i, nil
}

// user returns u as a *discordgo.User, nil when u is nil.
func (u *wireUser) user() *discordgo.User {
	if u == nil {
		return nil
	}
	return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName}
}

// member returns m as a *discordgo.Member, nil when m is nil.
func (m *wireMember) member() *discordgo.Member {
	if m == nil {
		return nil
	}
	return &discordgo.Member{User: m.User.user(), Nick: m.Nick, Permissions: m.Permissions}
}

// resolved returns r as discordgo's resolved data, nil when r is nil; each
// map is nil when r's is, and a nil entry stays nil.
func (r *wireResolved) resolved() *discordgo.ApplicationCommandInteractionDataResolved {
	if r == nil {
		return nil
	}
	out := &discordgo.ApplicationCommandInteractionDataResolved{}
	if r.Users != nil {
		out.Users = make(map[string]*discordgo.User, len(r.Users))
		for id, u := range r.Users {
			out.Users[id] = u.user()
		}
	}
	if r.Members != nil {
		out.Members = make(map[string]*discordgo.Member, len(r.Members))
		for id, m := range r.Members {
			out.Members[id] = m.member()
		}
	}
	if r.Attachments != nil {
		out.Attachments = make(map[string]*discordgo.MessageAttachment, len(r.Attachments))
		for id, a := range r.Attachments {
			if a == nil {
				out.Attachments[id] = nil
				continue
			}
			out.Attachments[id] = &discordgo.MessageAttachment{ID: a.ID, URL: a.URL, Filename: a.Filename, ContentType: a.ContentType, Size: a.Size}
		}
	}
	return out
}
