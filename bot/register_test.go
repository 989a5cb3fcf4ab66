package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

func TestCommandDefinitions(t *testing.T) {
	reg := commands.NewRegistry(systems, features()...)
	defs := CommandDefinitions(reg)
	if err := ValidateDefinitions(defs); err != nil {
		t.Fatalf("ValidateDefinitions(CommandDefinitions) = %v", err)
	}
	if len(defs) != len(reg.Commands()) {
		t.Fatalf("%d definitions for %d commands", len(defs), len(reg.Commands()))
	}
	byName := map[string]*discordgo.ApplicationCommand{}
	for i, d := range defs {
		byName[d.Name] = d
		c := reg.Commands()[i]
		if d.Name != c.Name || d.Name != strings.ToLower(d.Name) || d.Type != discordgo.ChatApplicationCommand {
			t.Errorf("definition %d = %q (type %d); want chat command %q in lower case", i, d.Name, d.Type, c.Name)
		}
		if d.Contexts == nil || !slices.Equal(*d.Contexts, []discordgo.InteractionContextType{0, 1, 2}) {
			t.Errorf("/%s contexts = %v; want guild, bot DM and private channel", d.Name, d.Contexts)
		}
		if d.IntegrationTypes == nil || !slices.Equal(*d.IntegrationTypes, []discordgo.ApplicationIntegrationType{0, 1}) {
			t.Errorf("/%s integration types = %v; want guild and user install", d.Name, d.IntegrationTypes)
		}
		var walk func(where string, opts []*discordgo.ApplicationCommandOption)
		walk = func(where string, opts []*discordgo.ApplicationCommandOption) {
			if len(opts) > 25 {
				t.Errorf("%s has %d options; want at most 25", where, len(opts))
			}
			optional := false
			for _, o := range opts {
				if o.Name != strings.ToLower(o.Name) {
					t.Errorf("%s option %q not lower case", where, o.Name)
				}
				if o.Required && optional {
					t.Errorf("%s: required option %s after an optional one", where, o.Name)
				}
				optional = optional || !o.Required
				walk(where+" "+o.Name, o.Options)
			}
		}
		walk("/"+d.Name, d.Options)
	}
	for _, name := range []string{"table", "char", "damage", "heal", "roll", "save", "rest", "attend", "treat",
		"strain", "spend", "activity", "wake", "clock", "init", "history", "undo", "help"} {
		if byName[name] == nil {
			t.Errorf("no definition for /%s (COMMANDS.md)", name)
		}
	}

	b, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	var wire []struct {
		Name             string `json:"name"`
		Contexts         []int  `json:"contexts"`
		IntegrationTypes []int  `json:"integration_types"`
		Options          []struct {
			Type         int    `json:"type"`
			Name         string `json:"name"`
			Required     bool   `json:"required"`
			Autocomplete bool   `json:"autocomplete"`
			MinValue     *int   `json:"min_value"`
			MaxValue     *int   `json:"max_value"`
			MaxLength    int    `json:"max_length"`
			Choices      []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"choices"`
			Options []struct {
				Type     int    `json:"type"`
				Name     string `json:"name"`
				Required bool   `json:"required"`
				Choices  []struct {
					Name  string `json:"name"`
					Value any    `json:"value"`
				} `json:"choices"`
			} `json:"options"`
		} `json:"options"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, c := range wire {
		for _, o := range c.Options {
			switch {
			case c.Name == "table" && o.Name == "setup":
				found["table setup"] = true
				if o.Type != 1 || len(o.Options) != 1 || o.Options[0].Name != "system" || !o.Options[0].Required ||
					len(o.Options[0].Choices) != 3 || o.Options[0].Choices[0].Value != "hit-protection" {
					t.Errorf("/table setup = %+v; want a subcommand with a required system option of 3 choices", o)
				}
			case c.Name == "roll" && o.Name == "hd":
				found["roll hd"] = true
				if o.Type != 4 || o.MinValue == nil || *o.MinValue != 0 || o.MaxValue == nil || *o.MaxValue != 100 {
					t.Errorf("/roll hd = %+v; want an integer from 0 to 100", o)
				}
				if !slices.Contains(c.Contexts, 1) || !slices.Contains(c.IntegrationTypes, 1) {
					t.Errorf("/roll contexts %v integration types %v; want bot DMs and user installs", c.Contexts, c.IntegrationTypes)
				}
			case c.Name == "damage" && o.Name == "target":
				found["damage target"] = true
				if !o.Autocomplete || !o.Required || o.MaxLength != 200 || len(o.Choices) != 0 {
					t.Errorf("/damage target = %+v; want required, autocomplete, max_length 200", o)
				}
			case c.Name == "save" && o.Name == "bonus":
				found["save bonus"] = true
				if o.MinValue == nil || *o.MinValue != -100 || o.MaxValue == nil || *o.MaxValue != 100 {
					t.Errorf("/save bonus = %+v; want -100 to 100", o)
				}
			case c.Name == "init" && o.Name == "join":
				found["init join"] = true
				if o.Type != 1 || len(o.Options) != 2 || o.Options[0].Name != "target" || !o.Options[0].Required ||
					o.Options[1].Name != "roll" || o.Options[1].Type != 4 || o.Options[1].Required {
					t.Errorf("/init join = %+v; want a subcommand with a required target and an optional integer roll", o)
				}
			case c.Name == "damage" && o.Name == "soak":
				found["damage soak"] = true
				if o.Type != 5 || o.Required {
					t.Errorf("/damage soak = %+v; want an optional boolean", o)
				}
			}
		}
	}
	for _, k := range []string{"table setup", "roll hd", "damage target", "save bonus", "damage soak", "init join"} {
		if !found[k] {
			t.Errorf("no option %s in the definitions", k)
		}
	}
}

func TestOptionsRequiredFirst(t *testing.T) {
	got := options([]commands.Option{
		{Name: "a", Description: "a", Type: commands.OptionString},
		{Name: "b", Description: "b", Type: commands.OptionString, Required: true},
		{Name: "c", Description: "c", Type: commands.OptionInteger, MinValue: 1, MaxValue: 3},
		{Name: "d", Description: "d", Type: commands.OptionUser, Required: true},
		{Name: "e", Description: "e", Type: commands.OptionInteger, Choices: []string{"2", "3"}},
	})
	var names []string
	for _, o := range got {
		names = append(names, o.Name)
	}
	if want := []string{"b", "d", "a", "c", "e"}; !slices.Equal(names, want) {
		t.Errorf("options order = %v; want %v (required first, stable)", names, want)
	}
	if c := got[4].Choices; len(c) != 2 || c[0].Value != int64(2) {
		t.Errorf("integer choices = %+v; want integer values", c)
	}
	if o := got[3]; o.MinValue == nil || *o.MinValue != 1 || o.MaxValue != 3 {
		t.Errorf("bounded integer = %+v; want 1..3", o)
	}
	if o := got[2]; o.MaxLength != 0 || o.MinValue != nil {
		t.Errorf("plain string = %+v; want no bounds", o)
	}
}

func TestValidateDefinitionsRefuses(t *testing.T) {
	str := func(name string, req bool) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: name, Description: "d", Required: req}
	}
	cmd := func(name string, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommand {
		return &discordgo.ApplicationCommand{Name: name, Description: "d", Options: opts}
	}
	many := func(n int) []*discordgo.ApplicationCommandOption {
		var o []*discordgo.ApplicationCommandOption
		for i := range n {
			o = append(o, str(fmt.Sprintf("o%d", i), false))
		}
		return o
	}
	one := 1.0
	tests := []struct {
		name string
		cmds []*discordgo.ApplicationCommand
	}{
		{"upper-case command", []*discordgo.ApplicationCommand{cmd("Roll")}},
		{"space in name", []*discordgo.ApplicationCommand{cmd("ro ll")}},
		{"name too long", []*discordgo.ApplicationCommand{cmd(strings.Repeat("a", 33))}},
		{"duplicate command", []*discordgo.ApplicationCommand{cmd("a"), cmd("a")}},
		{"empty description", []*discordgo.ApplicationCommand{{Name: "a"}}},
		{"description too long", []*discordgo.ApplicationCommand{{Name: "a", Description: strings.Repeat("x", 101)}}},
		{"26 options", []*discordgo.ApplicationCommand{cmd("a", many(26)...)}},
		{"required after optional", []*discordgo.ApplicationCommand{cmd("a", str("x", false), str("y", true))}},
		{"duplicate option", []*discordgo.ApplicationCommand{cmd("a", str("x", true), str("x", false))}},
		{"upper-case option", []*discordgo.ApplicationCommand{cmd("a", str("X", true))}},
		{"choices with autocomplete", []*discordgo.ApplicationCommand{cmd("a", &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionString, Name: "x", Description: "d", Autocomplete: true,
			Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "a", Value: "a"}}})}},
		{"26 choices", []*discordgo.ApplicationCommand{cmd("a", &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionString, Name: "x", Description: "d",
			Choices: slices.Repeat([]*discordgo.ApplicationCommandOptionChoice{{Name: "a", Value: "a"}}, 26)})}},
		{"text choice on integer", []*discordgo.ApplicationCommand{cmd("a", &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionInteger, Name: "x", Description: "d",
			Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: "a", Value: "a"}}})}},
		{"min value on string", []*discordgo.ApplicationCommand{cmd("a", &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionString, Name: "x", Description: "d", MinValue: &one})}},
		{"max length on integer", []*discordgo.ApplicationCommand{cmd("a", &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionInteger, Name: "x", Description: "d", MaxLength: 5})}},
		{"max length over 6000", []*discordgo.ApplicationCommand{cmd("a", &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionString, Name: "x", Description: "d", MaxLength: 6001})}},
		{"subcommands mixed with options", []*discordgo.ApplicationCommand{cmd("a", str("x", false),
			&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "s", Description: "d"})}},
		{"nested subcommand", []*discordgo.ApplicationCommand{cmd("a",
			&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "s", Description: "d",
				Options: []*discordgo.ApplicationCommandOption{{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "t", Description: "d"}}})}},
		{"subcommand required option order", []*discordgo.ApplicationCommand{cmd("a",
			&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: "s", Description: "d",
				Options: []*discordgo.ApplicationCommandOption{str("x", false), str("y", true)}})}},
		{"too many characters", []*discordgo.ApplicationCommand{cmd("a", slices.Repeat([]*discordgo.ApplicationCommandOption{{
			Type: discordgo.ApplicationCommandOptionString, Name: "x", Description: strings.Repeat("d", 100),
			Choices: slices.Repeat([]*discordgo.ApplicationCommandOptionChoice{{Name: strings.Repeat("n", 100), Value: strings.Repeat("v", 100)}}, 25)}}, 1)...)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := ValidateDefinitions(tt.cmds); err == nil {
				t.Errorf("ValidateDefinitions = nil; want an error")
			}
		})
	}
	if err := ValidateDefinitions([]*discordgo.ApplicationCommand{cmd("ok", str("x", true), str("y", false))}); err != nil {
		t.Errorf("ValidateDefinitions(valid) = %v; want nil", err)
	}
}

// fakeREST records requests and answers a bulk overwrite with what it got.
type fakeREST struct {
	mu       sync.Mutex
	requests []string
	bodies   [][]byte
	status   int
}

func (f *fakeREST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
	f.bodies = append(f.bodies, b)
	status := f.status
	f.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		w.Write([]byte(`{"message":"Invalid Form Body","code":50035}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/oauth2/applications/@me") {
		w.Write([]byte(`{"id":"777","name":"hpkeeper"}`))
		return
	}
	w.Write(b)
}

func TestRegister(t *testing.T) {
	reg := commands.NewRegistry(systems, features()...)
	tests := []struct {
		name, appID, guildID string
		want                 []string
	}{
		{"global", "123", "", []string{"PUT /api/v9/applications/123/commands Bot tok"}},
		{"guild", "123", "456", []string{"PUT /api/v9/applications/123/guilds/456/commands Bot tok"}},
		{"application looked up", "", "", []string{"GET /api/v9/oauth2/applications/@me Bot tok", "PUT /api/v9/applications/777/commands Bot tok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeREST{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			s, err := NewSession("tok", zerolog.Nop(), WithHTTPClient(loopbackClient(t, srv.URL)))
			if err != nil {
				t.Fatal(err)
			}
			created, err := Register(context.Background(), s, tt.appID, tt.guildID, reg)
			if err != nil {
				t.Fatalf("Register = %v", err)
			}
			if len(created) != len(reg.Commands()) {
				t.Errorf("Register returned %d commands; want %d", len(created), len(reg.Commands()))
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if !slices.Equal(fake.requests, tt.want) {
				t.Fatalf("requests = %q; want %q", fake.requests, tt.want)
			}
			var sent []map[string]any
			if err := json.Unmarshal(fake.bodies[len(fake.bodies)-1], &sent); err != nil {
				t.Fatalf("PUT body: %v", err)
			}
			var names []string
			for _, c := range sent {
				names = append(names, fmt.Sprint(c["name"]))
			}
			var want []string
			for _, c := range reg.Commands() {
				want = append(want, c.Name)
			}
			if !slices.Equal(names, want) {
				t.Errorf("PUT commands %v; want %v", names, want)
			}
		})
	}
}

func TestRegisterRefused(t *testing.T) {
	fake := &fakeREST{status: http.StatusBadRequest}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s, err := NewSession("tok", zerolog.Nop(), WithHTTPClient(loopbackClient(t, srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Register(context.Background(), s, "123", "", commands.NewRegistry(systems, features()...)); err == nil || !strings.Contains(err.Error(), "50035") {
		t.Errorf("Register against a refusing server = %v; want Discord's error", err)
	}
	if _, err := Register(context.Background(), nil, "123", "", commands.NewRegistry(systems, features()...)); err == nil {
		t.Error("Register(nil session) = nil; want an error")
	}
}
