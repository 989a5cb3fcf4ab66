package bot

// This file keeps the two-pass decoder that decodeInteraction replaced
// (issue 29): encoding/json over the envelope with "data" raw, then over
// "data" by the interaction's type. It is the oracle of
// FuzzDecodeOnePass and TestDecodeOnePassMatchesTwoPass, which hold the
// one-pass decoder (decode.go) to the same Interaction and the same
// refusals, and the "before" of BenchmarkDecodeOnePass.

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

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

// jsonWireInteraction is the part of an interaction object the Endpoint reads.
// Data stays raw until Type is known, as discordgo does: which fields it has
// depends on the type, and "data" may come before "type".
type jsonWireInteraction struct {
	ID        string                    `json:"id"`
	AppID     string                    `json:"application_id"`
	Type      discordgo.InteractionType `json:"type"`
	Token     string                    `json:"token"`
	GuildID   string                    `json:"guild_id"`
	ChannelID string                    `json:"channel_id"`
	Channel   json.RawMessage           `json:"channel"` // read when channel_id is missing
	Member    *jsonWireMember           `json:"member"`  // nil in a DM
	User      *jsonWireUser             `json:"user"`    // nil in a guild
	Data      json.RawMessage           `json:"data"`
}

// channelID returns the id of raw, a partial channel object, or "" when raw
// is missing or not an object with a string id: discordgo does not read
// "channel", so no shape of it may make a body undecodable.
func jsonChannelID(raw json.RawMessage) string {
	var c struct {
		ID string `json:"id"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
		return ""
	}
	return c.ID
}

// jsonWireUser is the part of a user object the Endpoint reads.
type jsonWireUser struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name"`
}

// jsonWireMember is the part of a guild member object the Endpoint reads.
// Permissions is Discord's bitfield, sent as a decimal string.
type jsonWireMember struct {
	User        *jsonWireUser `json:"user"`
	Nick        string        `json:"nick"`
	Permissions int64         `json:"permissions,string"`
}

// jsonWireCommandData is the data of an application command or autocomplete
// interaction (types 2 and 4). Options are discordgo's own type, which has
// no custom decoding: a subcommand's options nest in its Options, and Value is
// a string, float64 or bool as encoding/json decodes it into an interface.
type jsonWireCommandData struct {
	Name     string                                               `json:"name"`
	Options  []*discordgo.ApplicationCommandInteractionDataOption `json:"options"`
	Resolved *jsonWireResolved                                    `json:"resolved"`
}

// jsonWireResolved is the part of a command's resolved data the Endpoint reads:
// the users, members and attachments that options refer to, by id. A null
// entry stays a nil pointer, as in discordgo.
type jsonWireResolved struct {
	Users       map[string]*jsonWireUser       `json:"users"`
	Members     map[string]*jsonWireMember     `json:"members"`
	Attachments map[string]*jsonWireAttachment `json:"attachments"`
}

// jsonWireAttachment is the part of an attachment object files.go reads; Size is
// in bytes.
type jsonWireAttachment struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
}

// jsonWireComponentData is the data of a message component interaction (type
// 3).
type jsonWireComponentData struct {
	CustomID      string                  `json:"custom_id"`
	ComponentType discordgo.ComponentType `json:"component_type"`
}

// jsonWireModalData is the data of a modal submit interaction (type 5).
type jsonWireModalData struct {
	CustomID   string              `json:"custom_id"`
	Components []jsonWireComponent `json:"components"`
}

// jsonWireComponent is one component of a submitted modal, decoded by its type
// as discordgo does: an action row (type 1) becomes a *discordgo.ActionsRow
// holding its components, a text input (type 4) a *discordgo.TextInput with
// its custom_id and value. A Label (type 18) becomes a *Label holding its
// "component" when that is a text input or a select menu; a select menu
// inside a Label becomes a *submittedSelect with its values. Any other
// type, and a select menu outside a Label (where discordgo keeps no
// values), is left nil and dropped: text displays, file uploads, radio
// groups and checkboxes carry nothing hpkeeper's modals ask for.
type jsonWireComponent struct {
	c discordgo.MessageComponent
}

// UnmarshalJSON decodes one modal component from b, a JSON object; it returns
// encoding/json's error when b or a field it reads is malformed.
func (w *jsonWireComponent) UnmarshalJSON(b []byte) error {
	var head struct {
		Type discordgo.ComponentType `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	switch head.Type {
	case discordgo.ActionsRowComponent:
		var row struct {
			Components []jsonWireComponent `json:"components"`
		}
		if err := json.Unmarshal(b, &row); err != nil {
			return err
		}
		w.c = &discordgo.ActionsRow{Components: jsonComponents(row.Components)}
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
		c, err := jsonLabelled(l.Component)
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
func jsonLabelled(b json.RawMessage) (discordgo.MessageComponent, error) {
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
// ones of types dropped by jsonWireComponent; never nil.
func jsonComponents(ws []jsonWireComponent) []discordgo.MessageComponent {
	out := make([]discordgo.MessageComponent, 0, len(ws))
	for _, w := range ws {
		if w.c != nil {
			out = append(out, w.c)
		}
	}
	return out
}

// decodeTwoPass decodes body, the JSON interaction object of an HTTP
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
func decodeTwoPass(body []byte) (*discordgo.Interaction, error) {
	var w jsonWireInteraction
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
		i.ChannelID = jsonChannelID(w.Channel)
	}
	switch w.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		var d jsonWireCommandData
		if err := json.Unmarshal(w.Data, &d); err != nil {
			return nil, fmt.Errorf("decode interaction data: %w", err)
		}
		i.Data = discordgo.ApplicationCommandInteractionData{Name: d.Name, Options: d.Options, Resolved: d.Resolved.resolved()}
	case discordgo.InteractionMessageComponent:
		var d jsonWireComponentData
		if err := json.Unmarshal(w.Data, &d); err != nil {
			return nil, fmt.Errorf("decode interaction data: %w", err)
		}
		i.Data = discordgo.MessageComponentInteractionData{CustomID: d.CustomID, ComponentType: d.ComponentType}
	case discordgo.InteractionModalSubmit:
		var d jsonWireModalData
		if err := json.Unmarshal(w.Data, &d); err != nil {
			return nil, fmt.Errorf("decode interaction data: %w", err)
		}
		i.Data = discordgo.ModalSubmitInteractionData{CustomID: d.CustomID, Components: jsonComponents(d.Components)}
	}
	return i, nil
}

// user returns u as a *discordgo.User, nil when u is nil.
func (u *jsonWireUser) user() *discordgo.User {
	if u == nil {
		return nil
	}
	return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName}
}

// member returns m as a *discordgo.Member, nil when m is nil.
func (m *jsonWireMember) member() *discordgo.Member {
	if m == nil {
		return nil
	}
	return &discordgo.Member{User: m.User.user(), Nick: m.Nick, Permissions: m.Permissions}
}

// resolved returns r as discordgo's resolved data, nil when r is nil; each
// map is nil when r's is, and a nil entry stays nil.
func (r *jsonWireResolved) resolved() *discordgo.ApplicationCommandInteractionDataResolved {
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

// onePassCases are bodies beyond the fixtures and decodeCases where a
// hand-written decoder could part from encoding/json's: repeated keys that
// merge objects and reuse array elements, keys in another case or folded
// (the Kelvin sign folds to k, the long s to s), escapes, invalid UTF-8 and
// lone surrogates, numbers at and past their field's range, the ",string"
// permissions, and nesting at and past encoding/json's depth limit.
var onePassCases = []string{
	`{"type":2,"data":{"name":"a","options":[{"name":"x","type":3,"value":"1"},{"name":"y","type":4,"value":2}],"options":[{"name":"z"}]}}`,
	`{"type":2,"data":{"options":[{"name":"x","type":3}],"options":[]}}`,
	`{"type":2,"data":{"options":[{"name":"x","type":3},{"name":"y"}],"options":[{"value":1}],"options":[null,{"focused":true}]}}`,
	`{"type":2,"data":{"options":[{"name":"x","options":[{"name":"a","value":{"k":[1,"2",null,true,{"z":-0.5e3}],"k":1}}]}]}}`,
	`{"type":2,"data":{"options":null,"resolved":{"users":{"1":{"id":"1"}},"users":{"2":{"id":"2"},"1":null}},"resolved":{"members":{"1":{"nick":"n","permissions":"null"}}}}}`,
	`{"type":2,"data":{"resolved":{"users":{"1":{"id":"1"}}},"resolved":null}}`,
	`{"type":2,"data":{"resolved":{"attachments":{"a":{"size":-3,"size":null,"url":"u"}},"members":null}}}`,
	`{"type":2,"data":{"resolved":{"attachments":{"a":{"size":9223372036854775808}}}}}`,
	`{"type":2,"data":{"resolved":{"attachments":{"a":{"size":1.0}}}}}`,
	`{"type":2,"data":{"options":[{"value":1e400}]}}`,
	`{"type":2,"data":{"options":[{"value":[1e-400,-0,0.1E+2]}]}}`,
	`{"type":2,"data":{"options":[{"type":255},{"type":256}]}}`,
	`{"type":2,"data":{"options":[{"type":-0}]}}`,
	`{"type":2,"data":{"options":[{"focused":"true"}]}}`,
	`{"type":3,"data":{"component_type":18446744073709551615,"custom_id":null}}`,
	`{"type":3,"data":{"component_type":18446744073709551616}}`,
	`{"type":3,"data":{"component_type":-1}}`,
	`{"type":3,"data":5}`,
	`{"type":3,"data":[]}`,
	`{"type":2,"data":"x"}`,
	`{"type":1,"data":"x","data":{"name":5}}`,
	`{"type":2,"type":null,"data":{}}`,
	`{"type":2,"type":1}`,
	`{"type":1,"type":2,"data":null}`,
	`{"type":255,"data":5}`,
	`{"type":2.0,"data":{}}`,
	`{"type":2e0,"data":{}}`,
	`{"type":02,"data":{}}`,
	`{"TYPE":2,"Data":{"NAME":"x","Options":[{"Name":"a","Value":"b","FOCUSED":true}]},"Member":{"User":{"ID":"u","UserName":"n","Global_Name":"g"},"Nick":"k","Permissions":"8"}}`,
	"{\"type\":2,\"data\":{\"name\":\"x\"},\"to\u212aen\":\"kelvin\",\"member\":{\"nic\u212a\":\"kelvin\",\"permi\u017f\u017fions\":\"4\"}}",
	`{"\u0074ype":2,"d\u0061ta":{"n\u0061me":"esc\"aped\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud83d\u0041\udc00x"}}`,
	"{\"type\":2,\"data\":{\"name\":\"bad \xff utf8 \xed\xa0\x80 and ok \xc3\xa9\"},\"id\":\"\xc0\xaf\"}",
	"{\"type\":2,\"data\":{\"name\":\"ctl \x01\"}}",
	`{"type":2,"data":{"name":"x"},"id":"a","id":null,"token":"t","token":"u"}`,
	`{"type":2,"data":{},"member":{"permissions":""}}`,
	`{"type":2,"data":{},"member":{"permissions":"-16"}}`,
	`{"type":2,"data":{},"member":{"permissions":"+16"}}`,
	`{"type":2,"data":{},"member":{"permissions":"016"}}`,
	`{"type":2,"data":{},"member":{"permissions":"9223372036854775808"}}`,
	`{"type":2,"data":{},"member":{"permissions":"\u0031\u0036"}}`,
	`{"type":2,"data":{},"member":{"permissions":"true"}}`,
	`{"type":2,"data":{},"member":{"permissions":null,"permissions":"16","permissions":null}}`,
	`{"type":2,"data":{},"member":{"permissions":[]}}`,
	`{"type":2,"data":{},"member":{"user":{"id":"a"},"user":{"username":"b"}}}`,
	`{"type":2,"data":{},"member":{"user":{"id":"a"},"user":null}}`,
	`{"type":2,"data":{},"member":5}`,
	`{"type":2,"data":{},"user":[]}`,
	`{"type":2,"data":{},"channel":{"id":"c","id":5}}`,
	`{"type":2,"data":{},"channel":{"id":"c","id":null}}`,
	`{"type":2,"data":{},"channel":{"ID":"c","x":{"id":"d"}}}`,
	`{"type":2,"data":{},"channel":["c"]}`,
	`{"type":2,"data":{},"channel":null}`,
	`{"type":2,"data":{},"channel":{"id":"c"},"channel":{"name":"x"}}`,
	`{"type":2,"data":{},"channel_id":"a","channel_id":"","channel":{"id":"c"}}`,
	`{"type":5,"data":{"components":[{"type":4,"custom_id":"a","value":"1"}],"components":[null,{"type":1},{"components":5}]}}`,
	`{"type":5,"data":{"components":[{"type":1,"components":[{"type":4,"custom_id":"a"}],"components":null}]}}`,
	`{"type":5,"data":{"components":[{"components":[{"type":4,"custom_id":"a"}],"type":1,"type":null}]}}`,
	`{"type":5,"data":{"components":[{"type":4,"components":5,"custom_id":"a","value":null}]}}`,
	`{"type":5,"data":{"components":[{"type":2,"custom_id":5}]}}`,
	`{"type":5,"data":{"components":[{"type":"4"}]}}`,
	`{"type":5,"data":{"components":[{"type":-4}]}}`,
	`{"type":5,"data":{"components":[{"type":18,"component":{"type":3,"values":["a","b"],"values":[null]}}]}}`,
	`{"type":5,"data":{"components":[{"type":18,"component":{"type":3,"values":["a","b"],"values":["x"],"values":[null,null]}}]}}`,
	`{"type":5,"data":{"components":[{"type":18,"component":{"type":6,"values":[1]}}]}}`,
	`{"type":5,"data":{"components":[{"type":18,"component":{"type":4,"value":"v"},"component":null}]}}`,
	`{"type":5,"data":{"components":[{"type":18,"component":5}]}}`,
	`{"type":5,"data":{"components":[{"type":18,"component":{"type":23,"value":true}}]}}`,
	`{"type":5,"data":{"components":[{"type":1,"components":[{"type":1,"components":[{"type":4,"value":"deep"}]}]}]}}`,
	`{"type":5,"data":{"components":{}}}`,
	`{"type":5,"data":null}`,
	`{"type":5,"data":{"custom_id":"m","components":null}}`,
	`{"type":2,"data":{}} `,
	`{"type":2,"data":{}} x`,
	`{"type":2,"data":{}}{}`,
	` null `,
	`nul`,
	`{"type":2,"data":{},}`,
	`{"type":2,"data":{} "x":1}`,
	`{"type":2,"data":{"x":[1,]}}`,
	`{"type":2,"data":{"x":[1 2]}}`,
	`{"type":2,"data":{"x":-}}`,
	`{"type":2,"data":{"x":1.}}`,
	`{"type":2,"data":{"x":1e}}`,
	`{"type":2,"data":{"x":.5}}`,
	`{"type":2,"data":{"x":tru}}`,
	`{"type":2,"data":{"x":"\x"}}`,
	`{"type":2,"data":{"x":"\u12"}}`,
	`{"type":2,"data":{"x":"\u12g4"}}`,
	`{"type":2,"data":{"x":"abc`,
	`{"type":2,"data":{"x":"abc\`,
	`{"type":2,"data":{'x':1}}`,
	"\xef\xbb\xbf{}",
	"{\"type\":2,\"data\":{}}\x00",
	strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
	`{"x":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"type":2,"data":{"options":[{"value":` + strings.Repeat("[", 9997) + strings.Repeat("]", 9997) + `}]}}`,
	`{"type":2,"data":{"options":[{"value":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}]}}`,
}

// decodeSeeds returns every body the one-pass decoder is compared on:
// the interaction fixtures, decodeCases, onePassCases and the corpus of
// FuzzDecodeInteraction.
func decodeSeeds(t testing.TB) map[string][]byte {
	t.Helper()
	seeds := fixtureBodies(t)
	for _, c := range decodeCases {
		seeds["case "+c.name] = []byte(c.body)
	}
	seeds["message with unknown component"] = []byte(messageWithUnknownComponent)
	for n, c := range onePassCases {
		seeds[fmt.Sprintf("one-pass case %d", n)] = []byte(c)
	}
	corpus, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzDecodeInteraction", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range corpus {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// go test fuzz v1, then one []byte("…") line.
		_, arg, ok := strings.Cut(strings.TrimSpace(string(b)), "\n")
		arg, ok2 := strings.CutPrefix(arg, "[]byte(")
		arg, ok3 := strings.CutSuffix(arg, ")")
		body, err := strconv.Unquote(arg)
		if !ok || !ok2 || !ok3 || err != nil {
			t.Fatalf("corpus file %s: not one []byte: %v", p, err)
		}
		seeds["corpus "+filepath.Base(p)] = []byte(body)
	}
	return seeds
}

// onePassDiff returns how decodeInteraction's reading of body differs from
// decodeTwoPass's, "" when it does not: the same Interaction, or both an
// error.
func onePassDiff(body []byte) string {
	got, gerr := decodeInteraction(body)
	want, werr := decodeTwoPass(body)
	switch {
	case gerr != nil && werr != nil:
		if !strings.HasPrefix(gerr.Error(), "decode interaction") {
			return fmt.Sprintf("error %q lacks its prefix", gerr)
		}
		return ""
	case gerr != nil:
		return fmt.Sprintf("decodeInteraction = %v; the two-pass decoder reads %s", gerr, spew(want))
	case werr != nil:
		return fmt.Sprintf("decodeInteraction = %s; the two-pass decoder refuses it: %v", spew(got), werr)
	case !reflect.DeepEqual(got, want):
		return fmt.Sprintf("decodeInteraction = %s\nthe two-pass decoder = %s", spew(got), spew(want))
	}
	return ""
}

// spew prints i with its data and the members it points to.
func spew(i *discordgo.Interaction) string {
	b, _ := json.Marshal(i)
	return fmt.Sprintf("%s data %#v member %+v user %+v", b, i.Data, i.Member, i.User)
}

func TestDecodeOnePassMatchesTwoPass(t *testing.T) {
	for name, body := range decodeSeeds(t) {
		if d := onePassDiff(body); d != "" {
			t.Errorf("%s: %s\nbody: %.300q", name, d, body)
		}
	}
}

// FuzzDecodeOnePass holds decodeInteraction to the two-pass decoder it
// replaced: on any body, the same Interaction, or an error from both. It is
// seeded with decodeSeeds.
func FuzzDecodeOnePass(f *testing.F) {
	for _, b := range decodeSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if d := onePassDiff(body); d != "" {
			t.Fatalf("%s\nbody: %q", d, body)
		}
	})
}

// BenchmarkDecodeOnePass decodes every interaction fixture with the
// one-pass decoder and with the two-pass one it replaced.
func BenchmarkDecodeOnePass(b *testing.B) {
	bodies := fixtureBodies(b)
	names := slices.Sorted(maps.Keys(bodies))
	for _, dec := range []struct {
		name string
		fn   func([]byte) (*discordgo.Interaction, error)
	}{{"one-pass", decodeInteraction}, {"two-pass", decodeTwoPass}} {
		for _, name := range names {
			body := bodies[name]
			b.Run(dec.name+"/"+strings.TrimSuffix(name, ".json"), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := dec.fn(body); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
