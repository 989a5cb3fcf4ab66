package bot

import (
	"encoding/json"

	"github.com/bwmarrin/discordgo"
)

// Component types discordgo v0.29 does not model. Discord documents Label as
// the way to put an input in a modal (components reference, "Label"); the
// text input's own "label" is deprecated there, and so are action rows.

// LabelComponent is Discord's component type of a Label (18).
const LabelComponent discordgo.ComponentType = 18

// Label is a modal's Label component: Label (1 to 45 characters) and an
// optional Description (up to 100) shown with the one Component it holds, a
// text input or a select menu. In a submitted modal only Component is set
// (Discord sends back the type, the id and the component).
type Label struct {
	Label       string
	Description string
	Component   discordgo.MessageComponent
}

// Type returns LabelComponent.
func (*Label) Type() discordgo.ComponentType { return LabelComponent }

// MarshalJSON encodes l as Discord reads a Label: type 18, label,
// description when not empty, and the component.
func (l *Label) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        discordgo.ComponentType    `json:"type"`
		Label       string                     `json:"label"`
		Description string                     `json:"description,omitempty"`
		Component   discordgo.MessageComponent `json:"component"`
	}{LabelComponent, l.Label, l.Description, l.Component})
}

// labelledTextInput is a text input inside a Label: discordgo.TextInput
// always encodes a "label", which Discord deprecates there.
type labelledTextInput struct {
	CustomID    string
	Style       discordgo.TextInputStyle
	Placeholder string
	Required    bool
	MinLength   int
	MaxLength   int
}

// Type returns discordgo.TextInputComponent.
func (labelledTextInput) Type() discordgo.ComponentType { return discordgo.TextInputComponent }

// MarshalJSON encodes t as a text input without a label: type 4, custom_id,
// style, required, and placeholder, min_length and max_length when set.
func (t labelledTextInput) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        discordgo.ComponentType  `json:"type"`
		CustomID    string                   `json:"custom_id"`
		Style       discordgo.TextInputStyle `json:"style"`
		Placeholder string                   `json:"placeholder,omitempty"`
		Required    bool                     `json:"required"`
		MinLength   int                      `json:"min_length,omitempty"`
		MaxLength   int                      `json:"max_length,omitempty"`
	}{discordgo.TextInputComponent, t.CustomID, t.Style, t.Placeholder, t.Required, t.MinLength, t.MaxLength})
}

// submittedSelect is a select menu of a submitted modal: MenuType is its
// component type (3 for a string select, 5 to 8 for user, role,
// mentionable and channel selects) and Values what the user chose (option
// values, or ids). discordgo.SelectMenu has no field for the values.
type submittedSelect struct {
	MenuType discordgo.ComponentType
	CustomID string
	Values   []string
}

// Type returns the select menu's component type.
func (s *submittedSelect) Type() discordgo.ComponentType { return s.MenuType }

// MarshalJSON encodes s as Discord sends it: type, custom_id and values.
func (s *submittedSelect) MarshalJSON() ([]byte, error) {
	values := s.Values
	if values == nil {
		values = []string{}
	}
	return json.Marshal(struct {
		Type     discordgo.ComponentType `json:"type"`
		CustomID string                  `json:"custom_id"`
		Values   []string                `json:"values"`
	}{s.MenuType, s.CustomID, values})
}
