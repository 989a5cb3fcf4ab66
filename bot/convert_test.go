package bot

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/hpkeeper/hpkeeper/commands"
)

// decodeJSON decodes an interaction written inline in a test.
func decodeJSON(t *testing.T, s string) *discordgo.Interaction {
	t.Helper()
	var i discordgo.Interaction
	if err := json.Unmarshal([]byte(s), &i); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return &i
}

const guildMember = `"guild_id":"10","channel_id":"20","member":{"nick":null,"permissions":"16","user":{"id":"30","username":"rowan_u","global_name":"Rowan"}}`

func TestRequestFrom(t *testing.T) {
	now := time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   func(t *testing.T) *discordgo.Interaction
		want commands.Request
	}{
		{
			name: "fixture table_setup: subcommand, guild member with nick and Manage Channels",
			in:   func(t *testing.T) *discordgo.Interaction { return decodeFixture(t, "table_setup.json") },
			want: commands.Request{
				Kind: commands.KindCommand, InteractionID: "1311000000000010002",
				GuildID: "1311000000000000100", ChannelID: "1311000000000000200",
				UserID: "1311000000000001001", UserName: "GM Rowan", Permissions: 2147601488,
				Command: "table", Subcommand: "setup", Options: map[string]string{"system": "hit-protection"},
			},
		},
		{
			name: "fixture char_create: no nick, global name",
			in:   func(t *testing.T) *discordgo.Interaction { return decodeFixture(t, "char_create.json") },
			want: commands.Request{
				Kind: commands.KindCommand, InteractionID: "1311000000000010003",
				GuildID: "1311000000000000100", ChannelID: "1311000000000000200",
				UserID: "1311000000000001002", UserName: "Dave", Permissions: 2147601472,
				Command: "char", Subcommand: "create",
				Options: map[string]string{"name": "Lister", "stats": "class=fighter level=1 hit-die=d6 hp=4"},
			},
		},
		{
			name: "fixture dm_roll: user without member, no guild, no permissions",
			in:   func(t *testing.T) *discordgo.Interaction { return decodeFixture(t, "dm_roll.json") },
			want: commands.Request{
				Kind: commands.KindCommand, InteractionID: "1311000000000010008",
				ChannelID: "1311000000000000300", UserID: "1311000000000001002", UserName: "Dave",
				Command: "roll", Options: map[string]string{"expr": "3d6dh1"},
			},
		},
		{
			name: "fixture autocomplete_target: focused option",
			in:   func(t *testing.T) *discordgo.Interaction { return decodeFixture(t, "autocomplete_target.json") },
			want: commands.Request{
				Kind: commands.KindAutocomplete, InteractionID: "1311000000000010005",
				GuildID: "1311000000000000100", ChannelID: "1311000000000000200",
				UserID: "1311000000000001001", UserName: "GM Rowan", Permissions: 2147601488,
				Command: "damage", Options: map[string]string{"target": "li"}, Focused: "target",
			},
		},
		{
			name: "fixture component_button: custom_id",
			in: func(t *testing.T) *discordgo.Interaction {
				b := bytes.ReplaceAll(fixture(t, "component_button.json"), []byte("{{custom_id}}"), []byte("hp0:42:7:heroic"))
				var i discordgo.Interaction
				if err := json.Unmarshal(b, &i); err != nil {
					t.Fatal(err)
				}
				return &i
			},
			want: commands.Request{
				Kind: commands.KindComponent, InteractionID: "1311000000000010006",
				GuildID: "1311000000000000100", ChannelID: "1311000000000000200",
				UserID: "1311000000000001002", UserName: "Dave", Permissions: 2147601472,
				Options: map[string]string{}, CustomID: "hp0:42:7:heroic",
			},
		},
		{
			name: "fixture modal_submit: text inputs nested in action rows",
			in:   func(t *testing.T) *discordgo.Interaction { return decodeFixture(t, "modal_submit.json") },
			want: commands.Request{
				Kind: commands.KindModal, InteractionID: "1311000000000010007",
				GuildID: "1311000000000000100", ChannelID: "1311000000000000200",
				UserID: "1311000000000001002", UserName: "Dave", Permissions: 2147601472,
				Options: map[string]string{}, CustomID: "{{custom_id}}",
				Values: map[string]string{"heroic-action": "Pulls the pin on the Curry Monster's grenade."},
			},
		},
		{
			name: "integer and boolean options",
			in: func(t *testing.T) *discordgo.Interaction {
				return decodeJSON(t, `{"id":"1","type":2,`+guildMember+`,"data":{"name":"roll","type":1,"options":[
					{"name":"expr","type":3,"value":"d20"},{"name":"hd","type":4,"value":3},
					{"name":"melee","type":5,"value":true},{"name":"bonus","type":4,"value":-12},
					{"name":"big","type":4,"value":9007199254740991},{"name":"lethal","type":5,"value":false}]}}`)
			},
			want: commands.Request{
				Kind: commands.KindCommand, InteractionID: "1", GuildID: "10", ChannelID: "20",
				UserID: "30", UserName: "Rowan", Permissions: 16, Command: "roll",
				Options: map[string]string{"expr": "d20", "hd": "3", "melee": "true", "bonus": "-12", "big": "9007199254740991", "lethal": "false"},
			},
		},
		{
			name: "user option resolved to member nick, else global name, else user name",
			in: func(t *testing.T) *discordgo.Interaction {
				return decodeJSON(t, `{"id":"2","type":2,`+guildMember+`,"data":{"name":"table","type":1,
					"options":[{"name":"gm","type":1,"options":[{"name":"action","type":3,"value":"add"},{"name":"user","type":6,"value":"40"}]}],
					"resolved":{"users":{"40":{"id":"40","username":"kryten_u","global_name":"Kryten"},
						"41":{"id":"41","username":"cat_u","global_name":null},
						"42":{"id":"42","username":"holly_u","global_name":"Holly"}},
						"members":{"40":{"nick":"Mechanoid","permissions":"0"},"42":{"nick":null,"permissions":"0"}}}}}`)
			},
			want: commands.Request{
				Kind: commands.KindCommand, InteractionID: "2", GuildID: "10", ChannelID: "20",
				UserID: "30", UserName: "Rowan", Permissions: 16, Command: "table", Subcommand: "gm",
				Options: map[string]string{"action": "add", "user": "40"},
				Users:   map[string]string{"40": "Mechanoid", "41": "cat_u", "42": "Holly"},
			},
		},
		{
			name: "subcommand group becomes \"group sub\"",
			in: func(t *testing.T) *discordgo.Interaction {
				return decodeJSON(t, `{"id":"3","type":2,`+guildMember+`,"data":{"name":"x","type":1,
					"options":[{"name":"grp","type":2,"options":[{"name":"sub","type":1,"options":[{"name":"n","type":4,"value":2}]}]}]}}`)
			},
			want: commands.Request{
				Kind: commands.KindCommand, InteractionID: "3", GuildID: "10", ChannelID: "20",
				UserID: "30", UserName: "Rowan", Permissions: 16, Command: "x", Subcommand: "grp sub",
				Options: map[string]string{"n": "2"},
			},
		},
		{
			name: "autocomplete focused inside a subcommand",
			in: func(t *testing.T) *discordgo.Interaction {
				return decodeJSON(t, `{"id":"4","type":4,`+guildMember+`,"data":{"name":"char","type":1,
					"options":[{"name":"show","type":1,"options":[{"name":"name","type":3,"value":"Lis","focused":true}]}]}}`)
			},
			want: commands.Request{
				Kind: commands.KindAutocomplete, InteractionID: "4", GuildID: "10", ChannelID: "20",
				UserID: "30", UserName: "Rowan", Permissions: 16, Command: "char", Subcommand: "show",
				Options: map[string]string{"name": "Lis"}, Focused: "name",
			},
		},
		{
			name: "DM user without global name falls back to user name",
			in: func(t *testing.T) *discordgo.Interaction {
				return decodeJSON(t, `{"id":"5","type":2,"channel_id":"21","user":{"id":"31","username":"cat_u","global_name":null},
					"data":{"name":"help","type":1}}`)
			},
			want: commands.Request{
				Kind: commands.KindCommand, InteractionID: "5", ChannelID: "21",
				UserID: "31", UserName: "cat_u", Command: "help", Options: map[string]string{},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RequestFrom(tt.in(t), now)
			if err != nil {
				t.Fatalf("RequestFrom = %v; want no error", err)
			}
			tt.want.Now = now
			if !requestsEqual(got, &tt.want) {
				t.Errorf("RequestFrom =\n%+v\nwant\n%+v", *got, tt.want)
			}
		})
	}
}

func requestsEqual(a, b *commands.Request) bool {
	return a.Kind == b.Kind && a.InteractionID == b.InteractionID && a.GuildID == b.GuildID &&
		a.ChannelID == b.ChannelID && a.UserID == b.UserID && a.UserName == b.UserName &&
		a.Permissions == b.Permissions && a.Command == b.Command && a.Subcommand == b.Subcommand &&
		maps.Equal(a.Options, b.Options) && a.Focused == b.Focused && maps.Equal(a.Users, b.Users) &&
		a.CustomID == b.CustomID && maps.Equal(a.Values, b.Values) && a.Now.Equal(b.Now)
}

func TestRequestFromRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   *discordgo.Interaction
	}{
		{"nil", nil},
		{"ping", &discordgo.Interaction{ID: "1", Type: discordgo.InteractionPing}},
		{"unknown type", &discordgo.Interaction{ID: "1", Type: 42, User: &discordgo.User{ID: "3"}}},
		{"command without data", &discordgo.Interaction{ID: "1", Type: discordgo.InteractionApplicationCommand, User: &discordgo.User{ID: "3"}}},
		{"component with command data", &discordgo.Interaction{ID: "1", Type: discordgo.InteractionMessageComponent,
			Data: discordgo.ApplicationCommandInteractionData{Name: "x"}, User: &discordgo.User{ID: "3"}}},
		{"modal without data", &discordgo.Interaction{ID: "1", Type: discordgo.InteractionModalSubmit, User: &discordgo.User{ID: "3"}}},
		{"no user", &discordgo.Interaction{ID: "1", Type: discordgo.InteractionApplicationCommand, Data: discordgo.ApplicationCommandInteractionData{Name: "roll"}}},
		{"member without user", &discordgo.Interaction{ID: "1", Type: discordgo.InteractionApplicationCommand,
			Data: discordgo.ApplicationCommandInteractionData{Name: "roll"}, Member: &discordgo.Member{Nick: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := RequestFrom(tt.in, time.Now())
			if !errors.Is(err, ErrUnsupportedInteraction) || r != nil {
				t.Errorf("RequestFrom = %v, %v; want nil, ErrUnsupportedInteraction", r, err)
			}
		})
	}
}

func TestResponseFrom(t *testing.T) {
	type check func(t *testing.T, b []byte, w wireResponse)
	hasMentions := func(t *testing.T, b []byte, _ wireResponse) { wantNoMentions(t, b) }
	noMentions := func(t *testing.T, b []byte, _ wireResponse) {
		if bytes.Contains(b, []byte("allowed_mentions")) {
			t.Errorf("response %s has allowed_mentions; want none outside messages", b)
		}
	}
	contains := func(s string) check {
		return func(t *testing.T, b []byte, _ wireResponse) {
			if !bytes.Contains(b, []byte(s)) {
				t.Errorf("response %s; want it to contain %s", b, s)
			}
		}
	}
	lacks := func(s string) check {
		return func(t *testing.T, b []byte, _ wireResponse) {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("response %s; want it without %s", b, s)
			}
		}
	}
	flags := func(want int) check {
		return func(t *testing.T, _ []byte, w wireResponse) {
			if w.Data.Flags != want {
				t.Errorf("flags = %d; want %d", w.Data.Flags, want)
			}
		}
	}
	buttons := [][]commands.Button{
		{{Label: "Heroic Death", CustomID: "hp0:1:heroic", Style: commands.StyleDanger},
			{Label: "Stay Up", CustomID: "hp0:1:up", Style: commands.StylePrimary, Disabled: true}},
		{{Label: "Go Down", CustomID: "hp0:1:down", Style: commands.StyleSecondary}},
	}
	tests := []struct {
		name     string
		kind     commands.Kind
		resp     *commands.Response
		wantType int
		checks   []check
	}{
		{"command message", commands.KindCommand, &commands.Response{Content: "Lister: HP 4 → 0"}, 4,
			[]check{hasMentions, flags(0), contains(`"content":"Lister: HP 4 → 0"`), contains(`"embeds":[]`), contains(`"components":[]`)}},
		{"ephemeral", commands.KindCommand, &commands.Response{Content: "Only a GM can do that.", Ephemeral: true}, 4,
			[]check{hasMentions, flags(64)}},
		{"mentions in content are not parsed", commands.KindCommand, &commands.Response{Content: "@everyone <@123> <@&456>"}, 4,
			[]check{hasMentions}},
		{"update message on a component", commands.KindComponent, &commands.Response{Content: "Stays up", UpdateMessage: true}, 7,
			[]check{hasMentions}},
		{"update message on a modal submit", commands.KindModal, &commands.Response{Content: "Heroic!", UpdateMessage: true}, 7,
			[]check{hasMentions}},
		{"update message ignored for a command", commands.KindCommand, &commands.Response{Content: "x", UpdateMessage: true}, 4,
			[]check{hasMentions}},
		{"component reply as a new message", commands.KindComponent, &commands.Response{Content: "Stale button", Ephemeral: true}, 4,
			[]check{hasMentions, flags(64)}},
		{"buttons", commands.KindCommand, &commands.Response{Content: "Lister is at 0 HP", Components: buttons}, 4,
			[]check{hasMentions, func(t *testing.T, _ []byte, w wireResponse) {
				rows := w.Data.Components
				if len(rows) != 2 || rows[0].Type != 1 || len(rows[0].Components) != 2 || len(rows[1].Components) != 1 {
					t.Fatalf("components = %+v; want rows of 2 and 1 buttons", rows)
				}
				b := rows[0].Components
				if b[0].Type != 2 || b[0].Label != "Heroic Death" || b[0].CustomID != "hp0:1:heroic" || b[0].Style != 4 || b[0].Disabled {
					t.Errorf("button 0 = %+v", b[0])
				}
				if b[1].Style != 1 || !b[1].Disabled || b[1].CustomID != "hp0:1:up" {
					t.Errorf("button 1 = %+v; want disabled primary", b[1])
				}
				if g := rows[1].Components[0]; g.Style != 2 || g.Label != "Go Down" {
					t.Errorf("button 2 = %+v", g)
				}
			}}},
		{"embeds", commands.KindCommand, &commands.Response{Embeds: []commands.Embed{{
			Title: "Lister", Description: "fighter 1", Color: 0x57F287, Footer: "hit-protection",
			Fields: []commands.Field{{Name: "HP", Value: "4/4", Inline: true}}}}}, 4,
			[]check{hasMentions, contains(`"title":"Lister"`), contains(`"color":5763719`), contains(`"footer":{"text":"hit-protection"}`),
				contains(`"fields":[{"name":"HP","value":"4/4","inline":true}]`)}},
		{"modal", commands.KindComponent, &commands.Response{Modal: &commands.Modal{CustomID: "hd:1", Title: "Heroic Death", Inputs: []commands.TextInput{
			{CustomID: "heroic-action", Label: "What do you do?", Paragraph: true, Required: true, MaxLength: 400},
			{CustomID: "short", Label: "Short", Placeholder: "p", MinLength: 2}}}}, 9,
			[]check{noMentions, lacks(`"content"`),
				contains(`"custom_id":"hd:1"`), contains(`"title":"Heroic Death"`),
				contains(`{"type":18,"label":"What do you do?","component":{"type":4,"custom_id":"heroic-action","style":2,"required":true,"max_length":400}}`),
				contains(`{"type":18,"label":"Short","component":{"type":4,"custom_id":"short","style":1,"placeholder":"p","required":false,"min_length":2}}`),
				lacks(`"type":1,`)}},
		{"autocomplete", commands.KindAutocomplete, &commands.Response{Choices: []commands.Choice{{Name: "Lister", Value: "Lister"}}}, 8,
			[]check{noMentions, contains(`{"type":8,"data":{"choices":[{"name":"Lister","value":"Lister"}]}}`)}},
		{"autocomplete with nothing to offer", commands.KindAutocomplete, &commands.Response{}, 8,
			[]check{contains(`{"type":8,"data":{"choices":[]}}`)}},
		{"nil response", commands.KindCommand, nil, 4, []check{hasMentions, flags(64), contains("Sorry")}},
		{"modal answering a modal", commands.KindModal, &commands.Response{Modal: &commands.Modal{CustomID: "x", Title: "x"}}, 4,
			[]check{hasMentions, flags(64)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := EncodeResponse(ResponseFrom(tt.kind, tt.resp))
			if err != nil {
				t.Fatalf("EncodeResponse = %v", err)
			}
			w := decodeWire(t, b)
			if w.Type != tt.wantType {
				t.Fatalf("type = %d; want %d (%s)", w.Type, tt.wantType, b)
			}
			if w.Data == nil {
				t.Fatalf("response %s has no data", b)
			}
			for _, c := range tt.checks {
				c(t, b, w)
			}
		})
	}
}

func TestResponseFromCapsChoices(t *testing.T) {
	var cs []commands.Choice
	for range 30 {
		cs = append(cs, commands.Choice{Name: "n", Value: "v"})
	}
	r := ResponseFrom(commands.KindAutocomplete, &commands.Response{Choices: cs})
	if got := len(r.Data.Choices); got != 25 {
		t.Errorf("len(Choices) = %d; want 25", got)
	}
}

func TestEncodeResponseExact(t *testing.T) {
	tests := []struct {
		name string
		in   *discordgo.InteractionResponse
		want string
	}{
		{"pong", &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}, `{"type":1}`},
		{"plain message", ResponseFrom(commands.KindCommand, &commands.Response{Content: "hi"}),
			`{"type":4,"data":{"tts":false,"content":"hi","components":[],"embeds":[],"allowed_mentions":{"parse":[]}}}`},
		// Parse is always empty, whatever the data says; users (set from
		// commands.Response.Mentions, the turn order's init-ping) pass as
		// snowflake ids only, each once.
		{"parse given by the caller is overridden, users kept as ids", &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: "hi", AllowedMentions: &discordgo.MessageAllowedMentions{
				Parse: []discordgo.AllowedMentionType{discordgo.AllowedMentionTypeEveryone}, Users: []string{"1", "@everyone", "<@2>", "1"}, Roles: []string{"3"}}}},
			`{"type":4,"data":{"tts":false,"content":"hi","components":[],"embeds":[],"allowed_mentions":{"parse":[],"users":["1"]}}}`},
		{"a mention from the response", ResponseFrom(commands.KindCommand, &commands.Response{Content: "<@1311000000000001002>", Mentions: []string{"1311000000000001002"}}),
			`{"type":4,"data":{"tts":false,"content":"\u003c@1311000000000001002\u003e","components":[],"embeds":[],"allowed_mentions":{"parse":[],"users":["1311000000000001002"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := EncodeResponse(tt.in)
			if err != nil || string(b) != tt.want {
				t.Errorf("EncodeResponse = %s, %v; want %s", b, err, tt.want)
			}
		})
	}
	if _, err := EncodeResponse(nil); err == nil {
		t.Error("EncodeResponse(nil) = nil error; want an error")
	}
}

// TestFixturesDecode checks that every interaction fixture, with the fields
// discordgo does not model, decodes and converts (or is a PING).
func TestFixturesDecode(t *testing.T) {
	for _, name := range []string{"ping.json", "table_setup.json", "char_create.json", "damage.json",
		"autocomplete_target.json", "component_button.json", "modal_submit.json", "dm_roll.json",
		"table_option_init_ping.json", "init_start.json", "init_join.json", "init_next.json"} {
		i := decodeFixture(t, name)
		if i.Type == discordgo.InteractionPing {
			continue
		}
		r, err := RequestFrom(i, time.Now())
		if err != nil {
			t.Errorf("RequestFrom(%s) = %v", name, err)
			continue
		}
		if r.UserID == "" || r.ChannelID == "" || !strings.HasPrefix(r.InteractionID, "1311") {
			t.Errorf("RequestFrom(%s) = %+v; want user, channel and interaction ids", name, r)
		}
	}
}
