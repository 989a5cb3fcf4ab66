package bot

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// This file decodes the body of an HTTP interaction request. discordgo's own
// decoding (Interaction.UnmarshalJSON) decodes the whole body twice and every
// field Discord sends, including the full message a button press was made on;
// the Endpoint reads a dozen fields. So the body is read here by hand, once:
// each value is checked as encoding/json's scanner checks it, the fields the
// Endpoint reads are decoded straight into the *discordgo.Interaction that
// dispatch, RequestFrom, sendLater and interactionLogger consume, and every
// other value is skipped. The gateway decodes the raw data of its
// INTERACTION_CREATE events with it too (gateway.go, onEvent).
//
// The result, and whether a body is refused, is what encoding/json gives
// when it decodes the body into structs with the name and Go type of each
// discordgo field read (decodetwopass_test.go keeps that decoder, and
// FuzzDecodeOnePass holds the two to equal results): keys match their field
// exactly or, failing that, case-insensitively as encoding/json folds them;
// a repeated key decodes again into what the earlier one left (objects
// merge, arrays reuse their elements, a null leaves a string or number as it
// was); strings are unescaped with invalid UTF-8 and lone surrogates turned
// into U+FFFD; a number must fit its field; nesting deeper than 10,000 is
// refused. A field that is not read here is only checked for syntax, so a
// body discordgo refuses only for such a field (an unknown component type in
// "message", say) is accepted; decode_test.go checks the result against
// discordgo's on fixtures and by fuzzing.
//
// "data" is decoded by the interaction's type, as discordgo does, and that
// type may come after it: its bytes are kept when first checked, and decoded
// once the whole body has been read. So are "channel" (read only when
// "channel_id" is missing) and each component of a submitted modal (whose
// fields depend on the component's type).
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
// It returns an error when body is not JSON, is not an object, has a read
// field of the wrong type, or is an interaction of type 2 to 5 without
// "data" (discordgo refuses those as well).
func decodeInteraction(body []byte) (*discordgo.Interaction, error) {
	d := decoder{b: body}
	i, data, err := d.envelope()
	if err != nil {
		return nil, fmt.Errorf("decode interaction: %w", err)
	}
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete,
		discordgo.InteractionMessageComponent, discordgo.InteractionModalSubmit:
		if data == nil {
			return nil, errors.New("decode interaction data: unexpected end of JSON input")
		}
		dd := decoder{b: data}
		if i.Data, err = dd.data(i.Type); err != nil {
			return nil, fmt.Errorf("decode interaction data: %w", err)
		}
	}
	return i, nil
}

// maxDepth is how deep objects and arrays may nest, as in encoding/json.
const maxDepth = 10000

// decoder reads one JSON value from b, from off on. depth is how many
// objects and arrays it is inside.
type decoder struct {
	b     []byte
	off   int
	depth int
}

// decodeError is a body decodeInteraction refuses: what was wrong, and
// where (a byte offset in the body, or in the "data" decoded after it).
type decodeError struct {
	what string
	off  int
}

func (e *decodeError) Error() string {
	return fmt.Sprintf("%s at offset %d", e.what, e.off)
}

func (d *decoder) fail(what string) error { return &decodeError{what, d.off} }

// typeErr is the error for a value that is not of the type of the field
// named by what.
func (d *decoder) typeErr(what string) error {
	return &decodeError{"cannot decode this value into " + what, d.off}
}

// peek skips white space and returns the byte the next value starts with.
func (d *decoder) peek() (byte, error) {
	for d.off < len(d.b) {
		switch c := d.b[d.off]; c {
		case ' ', '\t', '\n', '\r':
			d.off++
		default:
			return c, nil
		}
	}
	return 0, d.fail("unexpected end of JSON input")
}

// ws skips white space.
func (d *decoder) ws() {
	for d.off < len(d.b) {
		switch d.b[d.off] {
		case ' ', '\t', '\n', '\r':
			d.off++
		default:
			return
		}
	}
}

// envelope reads the whole body: the interaction without its Data, and the
// bytes of its last "data" (nil when there is none).
func (d *decoder) envelope() (*discordgo.Interaction, []byte, error) {
	c, err := d.peek()
	if err != nil {
		return nil, nil, err
	}
	i := &discordgo.Interaction{}
	var channel, data []byte
	switch c {
	case '{':
		err = d.object(func(key []byte) error {
			switch {
			case is(key, "id"):
				return d.str(&i.ID)
			case is(key, "application_id"):
				return d.str(&i.AppID)
			case is(key, "type"):
				return d.interactionType(&i.Type)
			case is(key, "token"):
				return d.str(&i.Token)
			case is(key, "guild_id"):
				return d.str(&i.GuildID)
			case is(key, "channel_id"):
				return d.str(&i.ChannelID)
			case is(key, "channel"):
				start := d.off
				err := d.skip()
				channel = d.b[start:d.off]
				return err
			case is(key, "member"):
				return d.member(&i.Member)
			case is(key, "user"):
				return d.user(&i.User)
			case is(key, "data"):
				start := d.off
				err := d.skip()
				data = d.b[start:d.off]
				return err
			}
			return d.skip()
		})
	case 'n':
		err = d.lit("null")
	default:
		err = d.typeErr("an interaction")
	}
	if err != nil {
		return nil, nil, err
	}
	d.ws()
	if d.off != len(d.b) {
		return nil, nil, d.fail("invalid character after top-level value")
	}
	if i.ChannelID == "" && channel != nil {
		i.ChannelID = channelID(channel)
	}
	return i, data, nil
}

// channelID returns the id of raw, a partial channel object, or "" when raw
// is not an object or has an id that is neither a string nor null:
// discordgo does not read "channel", so no shape of it may make a body
// undecodable. raw has been checked for syntax.
func channelID(raw []byte) string {
	d := decoder{b: raw}
	if c, _ := d.peek(); c != '{' {
		return ""
	}
	var id string
	if d.object(func(key []byte) error {
		if is(key, "id") {
			return d.str(&id)
		}
		return d.skip()
	}) != nil {
		return ""
	}
	return id
}

// data reads the data of an interaction of type t (2 to 5).
func (d *decoder) data(t discordgo.InteractionType) (discordgo.InteractionData, error) {
	c, err := d.peek()
	if err != nil {
		return nil, err
	}
	if c != '{' && c != 'n' {
		return nil, d.typeErr("interaction data")
	}
	null := c == 'n'
	switch t {
	case discordgo.InteractionMessageComponent:
		var out discordgo.MessageComponentInteractionData
		if null {
			return out, d.lit("null")
		}
		err := d.object(func(key []byte) error {
			switch {
			case is(key, "custom_id"):
				return d.str(&out.CustomID)
			case is(key, "component_type"):
				return d.componentType(&out.ComponentType)
			}
			return d.skip()
		})
		return out, err
	case discordgo.InteractionModalSubmit:
		var (
			customID string
			comps    []discordgo.MessageComponent
		)
		if null {
			return discordgo.ModalSubmitInteractionData{Components: []discordgo.MessageComponent{}}, d.lit("null")
		}
		err := d.object(func(key []byte) error {
			switch {
			case is(key, "custom_id"):
				return d.str(&customID)
			case is(key, "components"):
				var err error
				comps, err = d.components()
				return err
			}
			return d.skip()
		})
		if comps == nil {
			comps = []discordgo.MessageComponent{}
		}
		return discordgo.ModalSubmitInteractionData{CustomID: customID, Components: comps}, err
	}
	var out discordgo.ApplicationCommandInteractionData
	if null {
		return out, d.lit("null")
	}
	err = d.object(func(key []byte) error {
		switch {
		case is(key, "name"):
			return d.str(&out.Name)
		case is(key, "options"):
			return d.options(&out.Options)
		case is(key, "resolved"):
			return d.resolved(&out.Resolved)
		}
		return d.skip()
	})
	return out, err
}

// pointerObject reads an object into *p as encoding/json decodes into a
// pointer to a struct: allocated if nil (else its fields are kept and
// overwritten member by member), and null sets it nil. field reads the
// member named key into v (d.skip for one not read); what names the value
// in a type error.
func pointerObject[T any](d *decoder, p **T, what string, field func(v *T, key []byte) error) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case 'n':
		*p = nil
		return d.lit("null")
	case '{':
		if *p == nil {
			*p = new(T)
		}
		v := *p
		return d.object(func(key []byte) error { return field(v, key) })
	}
	return d.typeErr(what)
}

// user reads a user object into *u (allocated if nil; null sets it nil).
func (d *decoder) user(u **discordgo.User) error {
	return pointerObject(d, u, "a user", func(v *discordgo.User, key []byte) error {
		switch {
		case is(key, "id"):
			return d.str(&v.ID)
		case is(key, "username"):
			return d.str(&v.Username)
		case is(key, "global_name"):
			return d.str(&v.GlobalName)
		}
		return d.skip()
	})
}

// member reads a guild member object into *m (allocated if nil; null sets
// it nil). Permissions is Discord's bitfield, a decimal number in a string.
func (d *decoder) member(m **discordgo.Member) error {
	return pointerObject(d, m, "a member", func(v *discordgo.Member, key []byte) error {
		switch {
		case is(key, "user"):
			return d.user(&v.User)
		case is(key, "nick"):
			return d.str(&v.Nick)
		case is(key, "permissions"):
			return d.quotedInt64(&v.Permissions)
		}
		return d.skip()
	})
}

// options reads a command's options into *s, reusing its elements as
// encoding/json does: a subcommand's options nest in its Options, and Value
// is a string, float64, bool, []any or map[string]any.
func (d *decoder) options(s *[]*discordgo.ApplicationCommandInteractionDataOption) error {
	return decodeSlice(d, s, "options", d.option)
}

// option reads one option into *o (allocated if nil; null sets it nil).
func (d *decoder) option(o **discordgo.ApplicationCommandInteractionDataOption) error {
	return pointerObject(d, o, "an option", func(v *discordgo.ApplicationCommandInteractionDataOption, key []byte) error {
		switch {
		case is(key, "name"):
			return d.str(&v.Name)
		case is(key, "type"):
			t := uint64(v.Type)
			err := d.uintN(&t, 1<<8-1, "an option type")
			v.Type = discordgo.ApplicationCommandOptionType(t)
			return err
		case is(key, "value"):
			var err error
			v.Value, err = d.anyValue()
			return err
		case is(key, "options"):
			return d.options(&v.Options)
		case is(key, "focused"):
			return d.boolean(&v.Focused)
		}
		return d.skip()
	})
}

// resolved reads a command's resolved data into *r (allocated if nil; null
// sets it nil): its users, members and attachments by id. A null entry
// stays a nil pointer.
func (d *decoder) resolved(r **discordgo.ApplicationCommandInteractionDataResolved) error {
	return pointerObject(d, r, "resolved data", func(v *discordgo.ApplicationCommandInteractionDataResolved, key []byte) error {
		switch {
		case is(key, "users"):
			return decodeMap(d, &v.Users, "resolved users", d.user)
		case is(key, "members"):
			return decodeMap(d, &v.Members, "resolved members", d.member)
		case is(key, "attachments"):
			return decodeMap(d, &v.Attachments, "resolved attachments", d.attachment)
		}
		return d.skip()
	})
}

// attachment reads the part of an attachment object files.go reads into *a
// (allocated if nil; null sets it nil); Size is in bytes.
func (d *decoder) attachment(a **discordgo.MessageAttachment) error {
	return pointerObject(d, a, "an attachment", func(v *discordgo.MessageAttachment, key []byte) error {
		switch {
		case is(key, "id"):
			return d.str(&v.ID)
		case is(key, "url"):
			return d.str(&v.URL)
		case is(key, "filename"):
			return d.str(&v.Filename)
		case is(key, "content_type"):
			return d.str(&v.ContentType)
		case is(key, "size"):
			return d.integer(&v.Size)
		}
		return d.skip()
	})
}

// components reads the components of a submitted modal, each by its type:
// an action row (type 1) becomes a *discordgo.ActionsRow holding its
// components, a text input (type 4) a *discordgo.TextInput with its
// custom_id and value. A Label (type 18) becomes a *Label holding its
// "component" when that is a text input or a select menu; a select menu
// inside a Label becomes a *submittedSelect with its values. Any other
// type, and a select menu outside a Label (where discordgo keeps no
// values), is dropped: text displays, file uploads, radio groups and
// checkboxes carry nothing hpkeeper's modals ask for. It returns nil for
// null, and never nil for an array.
func (d *decoder) components() ([]discordgo.MessageComponent, error) {
	c, err := d.peek()
	if err != nil {
		return nil, err
	}
	switch c {
	case 'n':
		return nil, d.lit("null")
	case '[':
		out := []discordgo.MessageComponent{}
		err := d.array(func() error {
			start := d.off
			if err := d.skip(); err != nil {
				return err
			}
			c, err := component(d.b[start:d.off])
			if c != nil {
				out = append(out, c)
			}
			return err
		})
		return out, err
	}
	return nil, d.typeErr("components")
}

// component decodes raw, one component of a submitted modal, checked for
// syntax; see components. It returns nil for a component it drops.
func component(raw []byte) (discordgo.MessageComponent, error) {
	t, err := componentTypeOf(raw)
	if err != nil {
		return nil, err
	}
	d := decoder{b: raw}
	switch t {
	case discordgo.ActionsRowComponent:
		var comps []discordgo.MessageComponent
		err := d.object(func(key []byte) error {
			if is(key, "components") {
				var err error
				comps, err = d.components()
				return err
			}
			return d.skip()
		})
		if comps == nil {
			comps = []discordgo.MessageComponent{}
		}
		return &discordgo.ActionsRow{Components: comps}, err
	case discordgo.TextInputComponent:
		return textInput(&d)
	case LabelComponent:
		var inner []byte
		err := d.object(func(key []byte) error {
			start := d.off
			err := d.skip()
			if is(key, "component") {
				inner = d.b[start:d.off]
			}
			return err
		})
		if err != nil || inner == nil {
			return nil, err
		}
		c, err := labelled(inner)
		if c == nil || err != nil {
			return nil, err
		}
		return &Label{Component: c}, nil
	}
	return nil, nil
}

// labelled decodes raw, the "component" of a submitted Label: a text input
// (type 4) with its custom_id and value, or a select menu (types 3, 5 to 8)
// with its custom_id and values. It returns nil for other types, whose
// fields are not looked at (a checkbox's value is a boolean, say).
func labelled(raw []byte) (discordgo.MessageComponent, error) {
	t, err := componentTypeOf(raw)
	if err != nil {
		return nil, err
	}
	d := decoder{b: raw}
	switch t {
	case discordgo.TextInputComponent:
		return textInput(&d)
	case discordgo.SelectMenuComponent, discordgo.UserSelectMenuComponent, discordgo.RoleSelectMenuComponent,
		discordgo.MentionableSelectMenuComponent, discordgo.ChannelSelectMenuComponent:
		sel := &submittedSelect{MenuType: t}
		err := d.object(func(key []byte) error {
			switch {
			case is(key, "custom_id"):
				return d.str(&sel.CustomID)
			case is(key, "values"):
				return decodeSlice(&d, &sel.Values, "select values", d.str)
			}
			return d.skip()
		})
		if err != nil {
			return nil, err
		}
		return sel, nil
	}
	return nil, nil
}

// textInput reads a text input's custom_id and value; d is at the object
// (componentTypeOf has read its type, so it is one).
func textInput(d *decoder) (discordgo.MessageComponent, error) {
	in := &discordgo.TextInput{}
	err := d.object(func(key []byte) error {
		switch {
		case is(key, "custom_id"):
			return d.str(&in.CustomID)
		case is(key, "value"):
			return d.str(&in.Value)
		}
		return d.skip()
	})
	if err != nil {
		return nil, err
	}
	return in, nil
}

// componentTypeOf returns the "type" of raw, a component checked for
// syntax: 0 when raw is null or an object without one, an error when raw is
// not an object or null, or its type not a number that fits.
func componentTypeOf(raw []byte) (discordgo.ComponentType, error) {
	d := decoder{b: raw}
	c, err := d.peek()
	if err != nil {
		return 0, err
	}
	switch c {
	case 'n':
		return 0, nil
	case '{':
		var t discordgo.ComponentType
		err := d.object(func(key []byte) error {
			if is(key, "type") {
				return d.componentType(&t)
			}
			return d.skip()
		})
		return t, err
	}
	return 0, d.typeErr("a component")
}

// decodeSlice reads an array into *s as encoding/json does: null sets it
// nil, an empty array makes it empty, and otherwise element i is read into
// the i-th element of *s's backing array, whatever an earlier array left
// there, and *s is cut to the elements read. what names the field in an
// error.
func decodeSlice[T any](d *decoder, s *[]T, what string, elem func(*T) error) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case 'n':
		*s = nil
		return d.lit("null")
	case '[':
		v, i := *s, 0
		err := d.array(func() error {
			if i >= cap(v) {
				v = slices.Grow(v, 1)
			}
			if i >= len(v) {
				v = v[:i+1]
			}
			i++
			return elem(&v[i-1])
		})
		if i < len(v) {
			v = v[:i]
		}
		if i == 0 {
			v = make([]T, 0)
		}
		*s = v
		return err
	}
	return d.typeErr(what)
}

// decodeMap reads an object into *m by key, as encoding/json does: null
// sets it nil, and otherwise each entry is read afresh by elem and added to
// *m (made when nil).
func decodeMap[T any](d *decoder, m *map[string]*T, what string, elem func(**T) error) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case 'n':
		*m = nil
		return d.lit("null")
	case '{':
		if *m == nil {
			*m = map[string]*T{}
		}
		v := *m
		return d.object(func(key []byte) error {
			var e *T
			if err := elem(&e); err != nil {
				return err
			}
			v[string(key)] = e
			return nil
		})
	}
	return d.typeErr(what)
}

// anyValue reads any value as encoding/json decodes it into an interface:
// nil, bool, float64, string, []any or map[string]any. A number that does
// not fit a float64 is an error.
func (d *decoder) anyValue() (any, error) {
	c, err := d.peek()
	if err != nil {
		return nil, err
	}
	switch c {
	case '{':
		m := map[string]any{}
		err := d.object(func(key []byte) error {
			v, err := d.anyValue()
			m[string(key)] = v
			return err
		})
		return m, err
	case '[':
		a := make([]any, 0)
		err := d.array(func() error {
			v, err := d.anyValue()
			a = append(a, v)
			return err
		})
		return a, err
	case '"':
		raw, plain, err := d.scanString()
		if err != nil {
			return nil, err
		}
		return unquote(raw, plain), nil
	case 't':
		return true, d.lit("true")
	case 'f':
		return false, d.lit("false")
	case 'n':
		return nil, d.lit("null")
	}
	num, err := d.number()
	if err != nil {
		return nil, err
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return nil, d.typeErr("a float64")
	}
	return f, nil
}

// object reads the object at d.off (after white space) and calls member
// with each key, unescaped, and d at its value, which member must read.
func (d *decoder) object(member func(key []byte) error) error {
	if err := d.push(); err != nil {
		return err
	}
	d.off++ // {
	c, err := d.peek()
	if err != nil {
		return err
	}
	if c == '}' {
		d.off++
		d.depth--
		return nil
	}
	for {
		if c != '"' {
			return d.fail("invalid character looking for beginning of object key string")
		}
		raw, plain, err := d.scanString()
		if err != nil {
			return err
		}
		key := raw
		if !plain {
			key = unquoteBytes(raw)
		}
		if c, err = d.peek(); err != nil {
			return err
		}
		if c != ':' {
			return d.fail("invalid character after object key")
		}
		d.off++
		if _, err := d.peek(); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		if c, err = d.peek(); err != nil {
			return err
		}
		switch c {
		case ',':
			d.off++
			if c, err = d.peek(); err != nil {
				return err
			}
		case '}':
			d.off++
			d.depth--
			return nil
		default:
			return d.fail("invalid character after object key:value pair")
		}
	}
}

// array reads the array at d.off (after white space) and calls elem with d
// at each element, which elem must read.
func (d *decoder) array(elem func() error) error {
	if err := d.push(); err != nil {
		return err
	}
	d.off++ // [
	c, err := d.peek()
	if err != nil {
		return err
	}
	if c == ']' {
		d.off++
		d.depth--
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if c, err = d.peek(); err != nil {
			return err
		}
		switch c {
		case ',':
			d.off++
			if _, err := d.peek(); err != nil {
				return err
			}
		case ']':
			d.off++
			d.depth--
			return nil
		default:
			return d.fail("invalid character after array element")
		}
	}
}

// push enters an object or an array.
func (d *decoder) push() error {
	if d.depth++; d.depth > maxDepth {
		return d.fail("exceeded max depth")
	}
	return nil
}

// skip checks the syntax of the value at d.off and moves past it.
func (d *decoder) skip() error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch c {
	case '{':
		if err := d.push(); err != nil {
			return err
		}
		d.off++
		if c, err = d.peek(); err != nil {
			return err
		}
		if c == '}' {
			d.off++
			d.depth--
			return nil
		}
		for {
			if c != '"' {
				return d.fail("invalid character looking for beginning of object key string")
			}
			if _, _, err := d.scanString(); err != nil {
				return err
			}
			if c, err = d.peek(); err != nil {
				return err
			}
			if c != ':' {
				return d.fail("invalid character after object key")
			}
			d.off++
			if err := d.skip(); err != nil {
				return err
			}
			if c, err = d.peek(); err != nil {
				return err
			}
			switch c {
			case ',':
				d.off++
				if c, err = d.peek(); err != nil {
					return err
				}
			case '}':
				d.off++
				d.depth--
				return nil
			default:
				return d.fail("invalid character after object key:value pair")
			}
		}
	case '[':
		if err := d.push(); err != nil {
			return err
		}
		d.off++
		if c, err = d.peek(); err != nil {
			return err
		}
		if c == ']' {
			d.off++
			d.depth--
			return nil
		}
		for {
			if err := d.skip(); err != nil {
				return err
			}
			if c, err = d.peek(); err != nil {
				return err
			}
			switch c {
			case ',':
				d.off++
			case ']':
				d.off++
				d.depth--
				return nil
			default:
				return d.fail("invalid character after array element")
			}
		}
	case '"':
		_, _, err := d.scanString()
		return err
	case 't':
		return d.lit("true")
	case 'f':
		return d.lit("false")
	case 'n':
		return d.lit("null")
	}
	_, err = d.number()
	return err
}

// lit reads the literal s (true, false or null).
func (d *decoder) lit(s string) error {
	if len(d.b)-d.off < len(s) || string(d.b[d.off:d.off+len(s)]) != s {
		if len(d.b)-d.off < len(s) && string(d.b[d.off:]) == s[:len(d.b)-d.off] {
			return d.fail("unexpected end of JSON input")
		}
		return d.fail("invalid literal")
	}
	d.off += len(s)
	return nil
}

// number reads a JSON number and returns its bytes.
func (d *decoder) number() ([]byte, error) {
	b, i := d.b, d.off
	digit := func() bool { return i < len(b) && '0' <= b[i] && b[i] <= '9' }
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digit():
		for i++; digit(); i++ {
		}
	default:
		d.off = i
		return nil, d.fail("invalid character looking for beginning of value")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digit() {
			d.off = i
			return nil, d.fail("invalid character after decimal point in numeric literal")
		}
		for i++; digit(); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digit() {
			d.off = i
			return nil, d.fail("invalid character in exponent of numeric literal")
		}
		for i++; digit(); i++ {
		}
	}
	start := d.off
	d.off = i
	return b[start:i], nil
}

// scanString reads the string at d.off, checking it as encoding/json's
// scanner does, and returns its raw bytes between the quotes; plain
// reports that they need no unescaping (no escape, valid UTF-8).
func (d *decoder) scanString() (raw []byte, plain bool, err error) {
	b := d.b
	start := d.off + 1
	ascii, escaped := true, false
	for i := start; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			d.off = i + 1
			raw = b[start:i]
			return raw, !escaped && (ascii || utf8.Valid(raw)), nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(b) {
						break
					}
					if !isHex(b[i]) {
						d.off = i
						return nil, false, d.fail("invalid character in \\u hexadecimal character escape")
					}
					i++
				}
			default:
				d.off = i
				return nil, false, d.fail("invalid character in string escape code")
			}
		case c < 0x20:
			d.off = i
			return nil, false, d.fail("invalid character in string literal")
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			i++
		}
	}
	d.off = len(b)
	return nil, false, d.fail("unexpected end of JSON input")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str reads a string into *s; null leaves *s as it was.
func (d *decoder) str(s *string) error {
	switch d.b[d.off] {
	case '"':
		raw, plain, err := d.scanString()
		if err != nil {
			return err
		}
		*s = unquote(raw, plain)
		return nil
	case 'n':
		return d.lit("null")
	}
	return d.typeErr("a string")
}

// boolean reads true or false into *v; null leaves *v as it was.
func (d *decoder) boolean(v *bool) error {
	switch d.b[d.off] {
	case 't':
		*v = true
		return d.lit("true")
	case 'f':
		*v = false
		return d.lit("false")
	case 'n':
		return d.lit("null")
	}
	return d.typeErr("a bool")
}

// interactionType reads an interaction type; null leaves *t as it was.
func (d *decoder) interactionType(t *discordgo.InteractionType) error {
	n := uint64(*t)
	err := d.uintN(&n, 1<<8-1, "an interaction type")
	*t = discordgo.InteractionType(n)
	return err
}

// componentType reads a component type; null leaves *t as it was.
func (d *decoder) componentType(t *discordgo.ComponentType) error {
	n := uint64(*t)
	err := d.uintN(&n, uint64(^uint(0)), "a component type")
	*t = discordgo.ComponentType(n)
	return err
}

// uintN reads an unsigned integer of at most max into *n, what names its
// field in an error; null leaves *n as it was.
func (d *decoder) uintN(n *uint64, max uint64, what string) error {
	c := d.b[d.off]
	if c == 'n' {
		return d.lit("null")
	}
	if c != '-' && (c < '0' || c > '9') {
		return d.typeErr(what)
	}
	num, err := d.number()
	if err != nil {
		return err
	}
	v, ok := parseUint(num)
	if !ok || v > max {
		return d.typeErr(what)
	}
	*n = v
	return nil
}

// integer reads a signed integer into *n; null leaves *n as it was.
func (d *decoder) integer(n *int) error {
	c := d.b[d.off]
	if c == 'n' {
		return d.lit("null")
	}
	if c != '-' && (c < '0' || c > '9') {
		return d.typeErr("an int")
	}
	num, err := d.number()
	if err != nil {
		return err
	}
	v, err := strconv.ParseInt(string(num), 10, strconv.IntSize)
	if err != nil {
		return d.typeErr("an int")
	}
	*n = int(v)
	return nil
}

// quotedInt64 reads an int64 written in a string, as encoding/json's
// ",string" option does: null, or the string "null", leave *n as it was.
func (d *decoder) quotedInt64(n *int64) error {
	switch d.b[d.off] {
	case 'n':
		return d.lit("null")
	case '"':
	default:
		return d.typeErr("a number in a string")
	}
	raw, plain, err := d.scanString()
	if err != nil {
		return err
	}
	s := raw
	if !plain {
		s = unquoteBytes(raw)
	}
	if string(s) == "null" {
		return nil
	}
	if len(s) == 0 || s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return d.typeErr("a number in a string")
	}
	v, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil {
		return d.typeErr("a number in a string")
	}
	*n = v
	return nil
}

// parseUint parses num, a JSON number, as strconv.ParseUint(num, 10, 64)
// does.
func parseUint(num []byte) (uint64, bool) {
	if len(num) == 0 || len(num) > 19 {
		v, err := strconv.ParseUint(string(num), 10, 64)
		return v, err == nil
	}
	var v uint64
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// is reports whether key names the field name (lower case ASCII): the
// same bytes or, as encoding/json matches them, the same under Unicode
// simple case folding.
func is(key []byte, name string) bool {
	if string(key) == name {
		return true
	}
	j := 0
	for i := 0; i < len(key); j++ {
		if j >= len(name) {
			return false
		}
		want := name[j]
		if 'a' <= want && want <= 'z' {
			want -= 'a' - 'A'
		}
		if c := key[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c != want {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(key[i:])
		if foldRune(r) != rune(want) {
			return false
		}
		i += n
	}
	return j == len(name)
}

// foldRune returns the smallest rune of r's case folding orbit, as
// encoding/json folds a key.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// unquote returns raw, a string's bytes between its quotes, unescaped.
func unquote(raw []byte, plain bool) string {
	if plain {
		return string(raw)
	}
	return string(unquoteBytes(raw))
}

// unquoteBytes unescapes s, the bytes of a string between its quotes that
// scanString has checked, as encoding/json does: invalid UTF-8 and lone
// surrogates become U+FFFD.
func unquoteBytes(s []byte) []byte {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \ /
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value,
// or -1 when s does not begin with one.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
