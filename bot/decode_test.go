package bot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// decodeCases are interactions beyond the shared fixtures, each decoded by
// discordgo as well, for TestDecodeInteractionMatchesDiscordgo and as seeds
// of FuzzDecodeInteraction.
var decodeCases = []struct{ name, body string }{
	{"dm with only user", `{"id":"11","application_id":"7","type":2,"token":"tok","channel_id":"c1",
		"user":{"id":"u1","username":"ann","global_name":null},"data":{"name":"roll","options":[{"name":"expr","type":3,"value":"1d6"}]}}`},
	{"member without nick", `{"id":"12","application_id":"7","type":2,"token":"tok","guild_id":"g","channel_id":"c1",
		"member":{"permissions":"16","user":{"id":"u2","username":"bob","global_name":"Bobby"}},"data":{"name":"char","options":[]}}`},
	{"member with null nick and no user", `{"id":"13","type":2,"guild_id":"g","channel_id":"c1",
		"member":{"nick":null,"permissions":null},"user":{"id":"u3","username":"cy"},"data":{"name":"undo"}}`},
	{"autocomplete focused in subcommand", `{"id":"14","type":4,"channel_id":"c1","user":{"id":"u1"},
		"data":{"name":"char","type":1,"options":[{"name":"show","type":1,"options":[{"name":"name","type":3,"value":"Li","focused":true},{"name":"full","type":5,"value":true}]}]}}`},
	{"subcommand group", `{"id":"15","type":2,"channel_id":"c1","member":{"nick":"GM","permissions":"2147601488","user":{"id":"u1"}},
		"data":{"name":"table","options":[{"name":"gm","type":2,"options":[{"name":"add","type":1,"options":[{"name":"user","type":6,"value":"u9"},{"name":"n","type":4,"value":12},{"name":"x","type":10,"value":1.5}]}]}]}}`},
	{"empty subcommand group", `{"id":"16","type":2,"channel_id":"c1","user":{"id":"u1"},"data":{"name":"table","options":[{"name":"gm","type":2}]}}`},
	{"resolved users, members and attachments", `{"id":"17","application_id":"7","type":2,"token":"t","guild_id":"g","channel_id":"c1",
		"member":{"nick":"GM","permissions":"16","user":{"id":"u1","username":"gm"}},
		"data":{"id":"99","name":"import","type":1,"options":[{"name":"who","type":6,"value":"u5"},{"name":"other","type":6,"value":"u6"},{"name":"file","type":11,"value":"a1"},{"name":"gone","type":11,"value":"a2"}],
		"resolved":{"users":{"u5":{"id":"u5","username":"eve","global_name":"Eve","avatar":null,"public_flags":0},"u6":{"id":"u6","username":"fay"},"u7":null},
		"members":{"u5":{"nick":"Evie","permissions":"0","joined_at":"2025-06-01T18:00:00.000000+00:00","roles":[]},"u6":{"nick":null}},
		"roles":{"r1":{"id":"r1","name":"GM"}},
		"attachments":{"a1":{"id":"a1","filename":"sheet.json","url":"https://cdn.discordapp.com/attachments/1/2/sheet.json","proxy_url":"https://media.discordapp.net/x","size":1234,"content_type":"application/json","width":null},"a2":null}}}}`},
	{"modal with several inputs", `{"id":"18","type":5,"channel_id":"c1","user":{"id":"u1"},
		"data":{"custom_id":"hp0:1:3:heroic","components":[
			{"type":1,"id":1,"components":[{"type":4,"id":2,"custom_id":"heroic-action","value":"Charge!"}]},
			{"type":1,"id":3,"components":[{"type":4,"id":4,"custom_id":"note","value":""},{"type":4,"custom_id":"extra","value":"two in a row"}]},
			{"type":4,"custom_id":"loose","value":"outside a row"}]}}`},
	{"modal in labels", `{"id":"31","type":5,"channel_id":"c1","user":{"id":"u1"},
		"data":{"custom_id":"hp0:1:3:heroic","components":[
			{"type":10,"id":1},
			{"type":18,"id":2,"component":{"type":4,"id":3,"custom_id":"heroic-action","value":"Charge!"}},
			{"type":18,"id":4,"component":{"type":3,"id":5,"custom_id":"pick","values":["a","b"]}},
			{"type":18,"id":6,"component":{"type":5,"id":7,"custom_id":"who","values":["u9"]}},
			{"type":18,"id":8,"component":{"type":3,"custom_id":"none","values":[]}},
			{"type":18,"id":9,"component":{"type":19,"custom_id":"upload","values":["a1"]}},
			{"type":18,"id":10,"component":{"type":23,"custom_id":"tick","value":true}},
			{"type":18,"id":11},
			{"type":1,"components":[{"type":4,"custom_id":"old","value":"row"}]}]}}`},
	{"channel object only", `{"id":"32","type":2,"channel":{"id":"c7","name":"crawl","type":0},"user":{"id":"u1"},"data":{"name":"roll"}}`},
	{"channel object and empty channel_id", `{"id":"33","type":2,"channel_id":"","channel":{"id":"c8"},"user":{"id":"u1"},"data":{"name":"roll"}}`},
	{"channel id wins over channel object", `{"id":"34","type":2,"channel_id":"c1","channel":{"id":"c9"},"user":{"id":"u1"},"data":{"name":"roll"}}`},
	{"channel of another shape", `{"id":"35","type":2,"channel":"c1","user":{"id":"u1"},"data":{"name":"roll"}}`},
	{"channel with a numeric id", `{"id":"36","type":2,"channel":{"id":5},"user":{"id":"u1"},"data":{"name":"roll"}}`},
	{"modal without components", `{"id":"19","type":5,"channel_id":"c1","user":{"id":"u1"},"data":{"custom_id":"m"}}`},
	{"component with null data", `{"id":"20","type":3,"channel_id":"c1","user":{"id":"u1"},"data":null}`},
	{"select menu", `{"id":"21","type":3,"channel_id":"c1","user":{"id":"u1"},"data":{"custom_id":"pick","component_type":3,"values":["a","b"],"resolved":{}}}`},
	{"unknown extra fields", `{"id":"22","type":2,"channel_id":"c1","user":{"id":"u1","clan":{"tag":"X"},"collectibles":{"nameplate":{}}},
		"brand_new_field":{"deep":[1,2,{"x":null}]},"attachment_size_limit":10485760,"app_permissions":"8",
		"data":{"name":"roll","whatever":[true],"options":[{"name":"expr","type":3,"value":"2d6","extra":1}]}}`},
	{"ping", `{"id":"23","type":1,"application_id":"7","token":"t"}`},
	{"ping with odd data", `{"id":"24","type":1,"data":[5]}`},
	{"unknown type", `{"id":"25","type":42,"user":{"id":"u1"},"data":"anything"}`},
	{"data before type", `{"data":{"custom_id":"x:1","component_type":2},"id":"26","user":{"id":"u1"},"channel_id":"c1","type":3}`},
	{"repeated data key", `{"id":"27","type":2,"user":{"id":"u1"},"data":{"name":"a","options":[{"name":"o","type":3,"value":"1"}]},"data":{"name":"b"}}`},
	{"repeated member key", `{"id":"28","type":2,"member":{"nick":"A","user":{"id":"u1"}},"member":{"permissions":"4"},"data":{"name":"b"}}`},
	{"keys in other case", `{"ID":"29","Type":2,"USER":{"Id":"u1"},"Data":{"Name":"roll"}}`},
	{"null body", `null`},
	{"empty object", `{}`},
}

// messageWithUnknownComponent is a button press whose "message" holds a
// component type discordgo v0.29.0 does not know, which makes discordgo refuse
// the whole interaction.
const messageWithUnknownComponent = `{"id":"30","application_id":"7","type":3,"token":"t","channel_id":"c1","user":{"id":"u1"},
	"message":{"id":"m1","content":"","components":[{"type":99,"id":50},{"type":1,"components":[{"type":2,"custom_id":"del:1:2","label":"Yes","style":4}]}]},
	"data":{"custom_id":"del:1:2","component_type":2}}`

// fixtureBodies returns every JSON file of testdata/interactions by
// name, with the {{custom_id}} placeholders filled.
func fixtureBodies(t testing.TB) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(fixtureDir, "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no interaction fixtures in %s: %v", fixtureDir, err)
	}
	out := map[string][]byte{}
	for _, p := range names {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = bytes.ReplaceAll(b, []byte("{{custom_id}}"), []byte("hp0:1:3:heroic"))
	}
	return out
}

// decodeCase returns the body of the decodeCases entry named name.
func decodeCase(t *testing.T, name string) string {
	t.Helper()
	for _, c := range decodeCases {
		if c.name == name {
			return c.body
		}
	}
	t.Fatalf("no decode case %q", name)
	return ""
}

// oracleDecode decodes body as discordgo does, with the one field
// decodeInteraction reads ahead of discordgo v0.29 (decode.go): when
// channel_id is missing or empty, ChannelID is the id of the (last)
// "channel" object, when that is an object with a string id.
func oracleDecode(body []byte) (*discordgo.Interaction, error) {
	var i discordgo.Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		return nil, err
	}
	if i.ChannelID == "" {
		// The last "channel", as decoders read a repeated key.
		var raw struct {
			Channel json.RawMessage `json:"channel"`
		}
		var c struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(body, &raw) == nil && json.Unmarshal(raw.Channel, &c) == nil {
			i.ChannelID = c.ID
		}
	}
	return &i, nil
}

// actionRowShape rewrites a modal submit's Labels (type 18) into the older
// shape discordgo v0.29 decodes, which decodeInteraction must read the same:
// a Label of a text input becomes an action row holding it; a Label of a
// select menu (types 3, 5 to 8) an action row holding a text input of the
// same custom_id whose value is the chosen values joined by newlines (how
// collectInputs hands them on); a Label of anything else, or of nothing,
// is dropped. Keys are read in any case, as the decoders read them. It
// returns body unchanged when it has no Label, and an error when it is not a
// JSON object, a Label's select values are not strings, or a key it reads is
// there in two cases. It re-encodes the body, which hides oddities a fuzzer
// writes (repeated keys): FuzzDecodeInteraction uses it only where
// re-encoding does not change decodeInteraction's reading.
func actionRowShape(body []byte) ([]byte, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	// Keys are read as the decoders read them: in any case (foldedKey).
	dataKey, err := foldedKey(m, "data")
	if err != nil {
		return nil, err
	}
	data, _ := m[dataKey].(map[string]any)
	compsKey, err := foldedKey(data, "components")
	if err != nil {
		return nil, err
	}
	comps, _ := data[compsKey].([]any)
	if typ, err := folded(m, "type"); err != nil || typ != json.Number("5") || comps == nil {
		return body, err
	}
	out := make([]any, 0, len(comps))
	changed := false
	for _, c := range comps {
		cm, _ := c.(map[string]any)
		if typ, err := folded(cm, "type"); err != nil || typ != json.Number("18") {
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			continue
		}
		changed = true
		inner, err := folded(cm, "component")
		if err != nil {
			return nil, err
		}
		in, _ := inner.(map[string]any)
		typ, err := folded(in, "type")
		if err != nil {
			return nil, err
		}
		switch typ {
		case json.Number("4"):
			out = append(out, map[string]any{"type": 1, "components": []any{in}})
		case json.Number("3"), json.Number("5"), json.Number("6"), json.Number("7"), json.Number("8"):
			values, err := folded(in, "values")
			if err != nil {
				return nil, err
			}
			customID, err := folded(in, "custom_id")
			if err != nil {
				return nil, err
			}
			raw, _ := values.([]any)
			var vals []string
			for _, v := range raw {
				sv, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("select value %v is not a string", v)
				}
				vals = append(vals, sv)
			}
			out = append(out, map[string]any{"type": 1, "components": []any{map[string]any{
				"type": 4, "custom_id": customID, "value": strings.Join(vals, "\n")}}})
		}
	}
	if !changed {
		return body, nil
	}
	data[compsKey] = out
	return json.Marshal(m)
}

// foldedKey returns the key of m that encoding/json would decode into a
// field named name: the one equal to it under case folding, name when there
// is none, and an error when there are several (which of them a decoder
// reads depends on their order, which m has lost).
func foldedKey(m map[string]any, name string) (string, error) {
	key := ""
	for k := range m {
		if strings.EqualFold(k, name) {
			if key != "" {
				return "", fmt.Errorf("keys %q and %q both name %s", key, k, name)
			}
			key = k
		}
	}
	if key == "" {
		return name, nil
	}
	return key, nil
}

// folded returns the value of m under foldedKey(m, name).
func folded(m map[string]any, name string) (any, error) {
	k, err := foldedKey(m, name)
	if err != nil {
		return nil, err
	}
	return m[k], nil
}

// loggedUser is the user id interactionLogger logs for i.
func loggedUser(i *discordgo.Interaction) string {
	switch {
	case i.Member != nil && i.Member.User != nil:
		return i.Member.User.ID
	case i.User != nil:
		return i.User.ID
	}
	return ""
}

// decodeDiff compares decodeInteraction(body) with want, discordgo's
// decoding of the same interaction: the identifying fields, the logged user
// and RequestFrom's result (request or error) must be identical. It returns
// "" when they are.
func decodeDiff(body []byte, want *discordgo.Interaction) string {
	got, err := decodeInteraction(body)
	if err != nil {
		return fmt.Sprintf("decodeInteraction = %v; discordgo decodes it", err)
	}
	type ids struct{ ID, AppID, Token, GuildID, ChannelID, User string }
	g := ids{got.ID, got.AppID, got.Token, got.GuildID, got.ChannelID, loggedUser(got)}
	w := ids{want.ID, want.AppID, want.Token, want.GuildID, want.ChannelID, loggedUser(want)}
	if g != w || got.Type != want.Type {
		return fmt.Sprintf("decoded %+v type %d; discordgo %+v type %d", g, got.Type, w, want.Type)
	}
	now := time.Unix(1_800_000_000, 0)
	rg, eg := RequestFrom(got, now)
	rw, ew := RequestFrom(want, now)
	if fmt.Sprint(eg) != fmt.Sprint(ew) {
		return fmt.Sprintf("RequestFrom error = %v; discordgo's gives %v", eg, ew)
	}
	if !reflect.DeepEqual(rg, rw) {
		return fmt.Sprintf("RequestFrom = %+v; discordgo's gives %+v", rg, rw)
	}
	return ""
}

func TestDecodeInteractionMatchesDiscordgo(t *testing.T) {
	bodies := fixtureBodies(t)
	for _, c := range decodeCases {
		bodies["case "+c.name] = []byte(c.body)
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			legacy, err := actionRowShape(body)
			if err != nil {
				t.Fatalf("test setup: %v", err)
			}
			want, err := oracleDecode(legacy)
			if err != nil {
				t.Fatalf("test setup: discordgo cannot decode it: %v", err)
			}
			if d := decodeDiff(body, want); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestDecodeInteractionIgnoresMessage checks that a component type discordgo
// does not know, in the message that carried a button, changes nothing: the
// interaction decodes as discordgo decodes it without the message.
func TestDecodeInteractionIgnoresMessage(t *testing.T) {
	body := []byte(messageWithUnknownComponent)
	if _, err := oracleDecode(body); err == nil {
		t.Fatal("test setup: discordgo decoded the unknown component")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "message")
	stripped, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want, err := oracleDecode(stripped)
	if err != nil {
		t.Fatalf("test setup: discordgo cannot decode it without the message: %v", err)
	}
	if d := decodeDiff(body, want); d != "" {
		t.Error(d)
	}
}

func TestDecodeInteractionTypedData(t *testing.T) {
	tests := []struct {
		body string
		want any // the dynamic type of Data
	}{
		{`{"type":1}`, nil},
		{`{"type":2,"data":{}}`, discordgo.ApplicationCommandInteractionData{}},
		{`{"type":3,"data":{}}`, discordgo.MessageComponentInteractionData{}},
		{`{"type":4,"data":{}}`, discordgo.ApplicationCommandInteractionData{}},
		{`{"type":5,"data":{}}`, discordgo.ModalSubmitInteractionData{}},
		{`{"type":42,"data":{}}`, nil},
	}
	for _, tt := range tests {
		i, err := decodeInteraction([]byte(tt.body))
		if err != nil {
			t.Errorf("decodeInteraction(%s) = %v", tt.body, err)
			continue
		}
		if reflect.TypeOf(i.Data) != reflect.TypeOf(tt.want) {
			t.Errorf("decodeInteraction(%s).Data is a %T; want %T", tt.body, i.Data, tt.want)
		}
	}
	i, err := decodeInteraction([]byte(decodeCase(t, "resolved users, members and attachments")))
	if err != nil {
		t.Fatal(err)
	}
	res := i.Data.(discordgo.ApplicationCommandInteractionData).Resolved
	a := res.Attachments["a1"]
	if a == nil || a.ID != "a1" || a.Filename != "sheet.json" || a.Size != 1234 || a.ContentType != "application/json" ||
		!strings.HasPrefix(a.URL, "https://cdn.discordapp.com/") {
		t.Errorf("attachment a1 = %+v; want its id, file name, URL, size and content type", a)
	}
	if _, ok := res.Attachments["a2"]; !ok || res.Attachments["a2"] != nil {
		t.Errorf("attachment a2 = %v; want a nil entry", res.Attachments["a2"])
	}
	if u, ok := res.Users["u7"]; !ok || u != nil {
		t.Errorf("user u7 = %v; want a nil entry", u)
	}
}

func TestDecodeInteractionRefusesMalformed(t *testing.T) {
	for _, body := range []string{
		``, `{"type":2,`, `[]`, `"x"`, `{"type":"2"}`, `{"type":300}`, `{"id":5}`,
		`{"type":2}`, `{"type":3}`, `{"type":5}`, // no data
		`{"type":2,"data":{"options":5}}`,
		`{"type":2,"data":{"options":[{"name":"x","type":3,"focused":"yes"}]}}`,
		`{"type":2,"data":{"resolved":{"users":{"1":5}}}}`,
		`{"type":3,"data":{"custom_id":7}}`,
		`{"type":5,"data":{"components":[{"type":1,"components":[{"type":4,"value":1}]}]}}`,
		`{"type":5,"data":{"components":[5]}}`,
		`{"type":2,"member":{"permissions":"lots"},"data":{}}`,
		`{"type":2,"member":{"permissions":16},"data":{}}`,
		`{"type":2,"user":{"id":1},"data":{}}`,
	} {
		if i, err := decodeInteraction([]byte(body)); err == nil {
			t.Errorf("decodeInteraction(%s) = %+v, nil; want an error", body, i)
		}
		if _, err := oracleDecode([]byte(body)); err == nil {
			t.Errorf("test setup: discordgo decodes %s", body)
		}
	}
}

// TestDecodeModalShapes reads the same Heroic Death answer from a modal
// submitted in Labels (as Discord documents modals now) and in action rows
// (the older shape), and the values of select menus in Labels.
func TestDecodeModalShapes(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, name := range []string{"modal_submit.json", "modal_submit_label.json"} {
		i, err := decodeInteraction(fixtureBodies(t)[name])
		if err != nil {
			t.Fatalf("decodeInteraction(%s) = %v", name, err)
		}
		r, err := RequestFrom(i, now)
		if err != nil {
			t.Fatalf("RequestFrom(%s) = %v", name, err)
		}
		if got := r.Values["heroic-action"]; got != "Pulls the pin on the Curry Monster's grenade." || len(r.Values) != 1 {
			t.Errorf("%s: Values = %q; want only heroic-action with the typed action", name, r.Values)
		}
	}
	i, err := decodeInteraction([]byte(decodeCase(t, "modal in labels")))
	if err != nil {
		t.Fatal(err)
	}
	r, err := RequestFrom(i, now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"heroic-action": "Charge!", "pick": "a\nb", "who": "u9", "none": "", "old": "row"}
	if !reflect.DeepEqual(r.Values, want) {
		t.Errorf("Values = %q; want %q", r.Values, want)
	}
}
