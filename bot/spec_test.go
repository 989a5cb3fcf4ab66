package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/console"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// specFile is the vendored subset of Discord's OpenAPI specification
// (testdata/discord-api-spec/README.md says which version).
var specFile = filepath.Join("testdata", "discord-api-spec", "openapi-subset.json")

// discordSpec compiles the request body schemas of specFile, by the names
// of its "bodies".
func discordSpec(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020) // OpenAPI 3.1's schema dialect
	if err := c.AddResource("discord.json", doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Schema{}
	for _, name := range []string{"application-commands-bulk-overwrite", "interaction-callback", "webhook-execute",
		"webhook-message-edit", "channel-message-create", "channel-message-edit"} {
		s, err := c.Compile("discord.json#/bodies/" + name)
		if err != nil {
			t.Fatalf("compile %s: %v", name, err)
		}
		out[name] = s
	}
	return out
}

// specCheck validates JSON bodies against a schema of the spec, counting
// them per schema.
type specCheck struct {
	t       *testing.T
	schemas map[string]*jsonschema.Schema
	counts  map[string]int
}

// check reports whether body is valid for the schema named schema; when it
// is not, it fails the test with what (where the body came from) unless
// wantInvalid.
func (c *specCheck) check(schema, what string, body []byte) error {
	c.t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		c.t.Fatalf("%s: not JSON: %v\n%s", what, err, body)
	}
	c.counts[schema]++
	return c.schemas[schema].Validate(inst)
}

func (c *specCheck) valid(schema, what string, body []byte) {
	c.t.Helper()
	if err := c.check(schema, what, body); err != nil {
		c.t.Errorf("%s does not fit Discord's %s schema: %v\nbody: %s", what, schema, err, body)
	}
}

// recordingService answers with a real service and keeps every request's
// kind and response, for the console to drive.
type recordingService struct {
	*commands.Service
	answers []recordedAnswer
}

type recordedAnswer struct {
	kind commands.Kind
	what string
	resp *commands.Response
}

func (r *recordingService) Handle(ctx context.Context, req *commands.Request) *commands.Response {
	resp := r.Service.Handle(ctx, req)
	r.answers = append(r.answers, recordedAnswer{req.Kind, strings.TrimSpace(req.Command + " " + req.Subcommand + " " + req.CustomID), resp})
	return resp
}

// TestBodiesFitDiscordSpec validates what hpkeeper sends Discord against
// Discord's own OpenAPI specification: the command registration (bulk
// overwrite) body, and every reply the registry gives to the console
// scripts of cmd/hpkeeper/console/testdata (every system, every command,
// buttons, modals, embeds, refusals) as an interaction callback, as the
// edit of a deferred response and as a follow-up, plus the bodies only the
// transports make (PONG, deferrals, the apology, the tracker's messages).
func TestBodiesFitDiscordSpec(t *testing.T) {
	c := &specCheck{t: t, schemas: discordSpec(t), counts: map[string]int{}}

	reg, err := json.Marshal(CommandDefinitions(commands.NewRegistry(systems, features()...)))
	if err != nil {
		t.Fatal(err)
	}
	c.valid("application-commands-bulk-overwrite", "the command registration", reg)

	consoleDir, err := filepath.Abs(filepath.Join("..", "cmd", "hpkeeper", "console"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join(consoleDir, "testdata", "*.txt"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no console scripts: %v", err)
	}
	// The scripts name local files (file:testdata/…) from the console's
	// package directory, as its golden test runs them; a refusal they do
	// not mark with ! fails the script.
	t.Chdir(consoleDir)
	var answers []recordedAnswer
	for _, script := range scripts {
		in, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		_, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
		queue := dice.NewQueue(dice.NewRandom(1))
		rec := &recordingService{Service: commands.New(db, queue, systems, features()...)}
		if err := console.New(rec, queue, &bytes.Buffer{}, console.Options{}).Run(context.Background(), bytes.NewReader(in)); err != nil {
			t.Errorf("console script %s: %v", script, err)
		}
		db.Close()
		for _, a := range rec.answers {
			a.what = filepath.Base(script) + ": " + a.what
			answers = append(answers, a)
		}
	}
	kinds := map[discordgo.InteractionResponseType]int{}
	for _, a := range answers {
		resp := ResponseFrom(a.kind, a.resp)
		kinds[resp.Type]++
		body, err := EncodeResponse(resp)
		if err != nil {
			t.Fatalf("%s: %v", a.what, err)
		}
		c.valid("interaction-callback", a.what, body)
		if resp.Type != discordgo.InteractionResponseChannelMessageWithSource && resp.Type != discordgo.InteractionResponseUpdateMessage {
			continue
		}
		// After a deferral: the edit of the original response, or a
		// follow-up (deferred.go); files go as a follow-up of their own.
		edit, err := webhookPayload(resp, 0)
		if err != nil {
			t.Fatal(err)
		}
		c.valid("webhook-message-edit", a.what+" (as an edit)", edit)
		follow, err := webhookPayload(resp, resp.Data.Flags&discordgo.MessageFlagsEphemeral)
		if err != nil {
			t.Fatal(err)
		}
		c.valid("webhook-execute", a.what+" (as a follow-up)", follow)
	}
	for _, tp := range []discordgo.InteractionResponseType{4, 7, 8, 9} {
		if kinds[tp] == 0 {
			t.Errorf("the console scripts gave no reply of type %d; the sample must cover it", tp)
		}
	}

	// Bodies only the transports make.
	files, _ := json.Marshal(webhookMessage{Embeds: []*discordgo.MessageEmbed{}, Components: []discordgo.MessageComponent{}, Flags: discordgo.MessageFlagsEphemeral})
	c.valid("webhook-execute", "the files follow-up", files)
	for what, resp := range map[string]*discordgo.InteractionResponse{
		"PONG":                   {Type: discordgo.InteractionResponsePong},
		"the apology":            apology(),
		"a command's deferral":   deferral(commands.KindCommand),
		"a button's deferral":    deferral(commands.KindComponent),
		"a modal's deferral":     deferral(commands.KindModal),
		"autocomplete too late":  deferral(commands.KindAutocomplete),
		"too slow for the modal": ResponseFrom(commands.KindCommand, &commands.Response{Content: TooSlowForModal, Ephemeral: true}),
	} {
		body, err := EncodeResponse(resp)
		if err != nil {
			t.Fatal(err)
		}
		c.valid("interaction-callback", what, body)
	}
	tracker := ResponseFrom(commands.KindCommand, answers[0].resp).Data
	post, _ := json.Marshal(&discordgo.MessageSend{Content: tracker.Content, Embeds: tracker.Embeds, AllowedMentions: tracker.AllowedMentions})
	c.valid("channel-message-create", "the tracker's post", post)
	patch, _ := json.Marshal(editOf("1", "2", tracker))
	c.valid("channel-message-edit", "the tracker's edit", patch)

	t.Logf("validated %d bodies: %v (replies by type: %v)", sum(c.counts), c.counts, kinds)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestDiscordSpecRefusesBadBodies shows that the validation can fail: bodies
// Discord would refuse do not fit the schemas.
func TestDiscordSpecRefusesBadBodies(t *testing.T) {
	c := &specCheck{t: t, schemas: discordSpec(t), counts: map[string]int{}}
	long := strings.Repeat("x", 2001)
	for _, tt := range []struct{ schema, what, body string }{
		{"interaction-callback", "content over 2,000 characters", fmt.Sprintf(`{"type":4,"data":{"content":%q}}`, long)},
		{"interaction-callback", "an unknown callback type", `{"type":42}`},
		{"interaction-callback", "a Label without its label", `{"type":9,"data":{"custom_id":"m","title":"T","components":[{"type":18,"component":{"type":4,"custom_id":"x","style":1}}]}}`},
		{"interaction-callback", "a label of 46 characters", `{"type":9,"data":{"custom_id":"m","title":"T","components":[{"type":18,"label":"` + strings.Repeat("l", 46) + `","component":{"type":4,"custom_id":"x","style":1}}]}}`},
		{"interaction-callback", "a button of style 9", `{"type":4,"data":{"content":"x","components":[{"type":1,"components":[{"type":2,"style":9,"label":"B","custom_id":"b"}]}]}}`},
		{"interaction-callback", "26 autocomplete choices", `{"type":8,"data":{"choices":[` + strings.TrimSuffix(strings.Repeat(`{"name":"a","value":"a"},`, 26), ",") + `]}}`},
		{"application-commands-bulk-overwrite", "an option of type 99", `[{"name":"roll","description":"Roll","options":[{"type":99,"name":"x","description":"x"}]}]`},
		{"webhook-message-edit", "an embed title over 256 characters", `{"embeds":[{"title":"` + strings.Repeat("t", 257) + `"}]}`},
	} {
		if err := c.check(tt.schema, tt.what, []byte(tt.body)); err == nil {
			t.Errorf("%s fits Discord's %s schema; want it refused", tt.what, tt.schema)
		}
	}
}
