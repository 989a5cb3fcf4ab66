package bot

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// fakeDiscord starts the loopback fake of Discord (bot/discordtest) with
// one recommended shard dispatching interactions.
func fakeDiscord(t *testing.T, interactions ...[]byte) *discordtest.Server {
	return discordtest.NewServer(t, discordtest.Options{Interactions: interactions})
}

// fakeSession returns the options that point a session at fake.
func fakeSession(t *testing.T, fake *discordtest.Server) []SessionOption {
	t.Helper()
	opts, err := LoopbackDiscord(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	return opts
}

func TestGatewayEndToEnd(t *testing.T) {
	const token = "test-token.ABC_secret"
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewScripted(5, 2, 1))
	defer db.Close()
	// /char panics, to show the recover; everything else reaches the service.
	h := handlerFunc(func(ctx context.Context, r *commands.Request) *commands.Response {
		if r.Command == "char" {
			panic("char exploded")
		}
		return svc.Handle(ctx, r)
	})
	fake := fakeDiscord(t, fixture(t, "dm_roll.json"), fixture(t, "char_create.json"))
	var logs syncBuffer
	log := zerolog.New(&logs).Level(zerolog.TraceLevel)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- RunGateway(ctx, token, h, log, fakeSession(t, fake)...) }()

	got := fake.Collect(2, done, 5*time.Second)
	if ids := fake.Identifies(); len(ids) != 1 || ids[0].Token != "Bot "+token || ids[0].Intents != 1 || ids[0].Count != 1 {
		t.Errorf("IDENTIFYs %+v; want one, with token %q, intents 1 (IntentsGuilds only) and no shard (1 shard recommended)", ids, "Bot "+token)
	}

	roll, ok := got["1311000000000010008"]
	if !ok {
		t.Fatalf("no callback for the /roll interaction; got %v", got)
	}
	// The interaction token in the URL authorises the callback; the bot
	// token is not sent where it is not needed.
	if roll.Token != "aW50ZXJhY3Rpb246ZG0" || roll.Auth != "" {
		t.Errorf("roll callback token %q auth %q; want the interaction token and no Authorization header", roll.Token, roll.Auth)
	}
	wantNoMentions(t, roll.Body)
	w := decodeWire(t, roll.Body)
	if w.Type != 4 || !regexp.MustCompile(`\[[^\]]*5[^\]]*2[^\]]*1[^\]]*\]`).MatchString(w.text()) {
		t.Errorf("roll callback %s; want a type 4 reply showing the dice 5, 2, 1", roll.Body)
	}

	char, ok := got["1311000000000010003"]
	if !ok {
		t.Fatalf("no callback for the /char interaction; got %v", got)
	}
	wantNoMentions(t, char.Body)
	if w := decodeWire(t, char.Body); w.Type != 4 || w.Data.Flags != 64 || !strings.Contains(w.Data.Content, "Sorry") {
		t.Errorf("callback after a panic %s; want an ephemeral apology", char.Body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunGateway = %v; want nil after cancel", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RunGateway did not return within 5 s of cancel")
	}

	defer func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("log:\n%s", logs.String())
		}
	}()
	if u := fake.Unexpected(); len(u) > 0 {
		t.Errorf("unexpected requests to the fake Discord: %v", u)
	}
	l := logs.String()
	if strings.Contains(l, "test-token") || strings.Contains(l, "ABC_secret") {
		t.Errorf("the bot token appears in the log:\n%s", l)
	}
	if strings.Contains(l, "placeholdertoken") || strings.Contains(l, "aW50ZXJhY3Rpb246ZG0") {
		t.Errorf("an interaction token appears in the log:\n%s", l)
	}
	if !strings.Contains(l, `"component":"discordgo"`) {
		t.Errorf("no discordgo log line routed to zerolog:\n%s", l)
	}
	if !strings.Contains(l, "char exploded") || !strings.Contains(l, `"interaction_id":"1311000000000010003"`) {
		t.Errorf("the panic is not logged with its interaction id:\n%s", l)
	}
}

func TestRunGatewayFailsToOpen(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message": "401: Unauthorized", "code": 0}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	err := RunGateway(context.Background(), "bad-token", &stubHandler{}, zerolog.Nop(), WithHTTPClient(loopbackClient(t, srv.URL)))
	if err == nil {
		t.Fatal("RunGateway with a refused token = nil; want an error")
	}
	if strings.Contains(err.Error(), "bad-token") {
		t.Errorf("RunGateway error %q contains the token", err)
	}
}

func TestNewSession(t *testing.T) {
	for _, tok := range []string{"abc", "Bot abc", " abc\n"} {
		s, err := NewSession(tok, zerolog.Nop())
		if err != nil {
			t.Fatalf("NewSession(%q) = %v", tok, err)
		}
		if s.Token != "Bot abc" || s.Identify.Intents != 1 || s.StateEnabled {
			t.Errorf("NewSession(%q): token %q intents %d state %v; want \"Bot abc\", 1 and no state cache", tok, s.Token, s.Identify.Intents, s.StateEnabled)
		}
	}
	for _, tok := range []string{"", "  ", "Bot "} {
		if _, err := NewSession(tok, zerolog.Nop()); err == nil {
			t.Errorf("NewSession(%q) = nil error; want an error", tok)
		}
	}
}

func TestRedact(t *testing.T) {
	routeDiscordgoLog(zerolog.Nop(), "sekrit.Token_1")
	tests := []struct{ in, want string }{
		{`Identify Packet: discordgo.identifyOp{Op:2, Data:discordgo.Identify{Token:"Bot sekrit.Token_1", Intents:1}}`,
			`Identify Packet: discordgo.identifyOp{Op:2, Data:discordgo.Identify{Token:"[redacted]", Intents:1}}`},
		{`Data: {"id":"5","token":"aW50:xyz","type":2}`, `Data: {"id":"5","token":"[redacted]","type":2}`},
		{`https://discord.com/api/v10/interactions/123/aW50:xyz/callback Failed (502)`,
			`https://discord.com/api/v10/interactions/123/[redacted]/callback Failed (502)`},
		{`https://discord.com/api/v10/webhooks/99/tok-en/messages/@original`, `https://discord.com/api/v10/webhooks/99/[redacted]/messages/@original`},
		{`error with sekrit.Token_1 inside`, `error with [redacted] inside`},
		{`nothing secret`, `nothing secret`},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestGatewayDecodesTodaysShapes: over the gateway too, a Heroic Death
// modal submitted in Labels completes the choice, and an autocomplete
// without channel_id reaches the table of channel.id.
func TestGatewayDecodesTodaysShapes(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewQueue(nil))
	defer db.Close()
	ctx := context.Background()
	for _, name := range []string{"table_setup.json", "char_create.json", "damage.json"} {
		i := decodeFixture(t, name)
		r, err := RequestFrom(i, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if resp := svc.Handle(ctx, r); resp.Ephemeral {
			t.Fatalf("setup %s: %+v", name, resp)
		}
	}
	submit := bytes.ReplaceAll(fixture(t, "modal_submit_label.json"), []byte("{{custom_id}}"), []byte("hp0:1:3:action"))
	fake := fakeDiscord(t, submit, fixture(t, "autocomplete_channel_only.json"))
	var logs syncBuffer
	gctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- RunGateway(gctx, "test-token", svc, zerolog.New(&logs).Level(zerolog.InfoLevel), fakeSession(t, fake)...)
	}()
	got := fake.Collect(2, done, 5*time.Second)
	cancel()
	<-done
	if w := decodeWire(t, got["1311000000000010009"].Body); w.Type != 7 || !strings.Contains(w.text(), "**Lister** is dead") {
		t.Errorf("Label modal submit over the gateway: %s; want the message updated with Lister dead", got["1311000000000010009"].Body)
	}
	if w := decodeWire(t, got["1311000000000010010"].Body); w.Type != 8 || len(w.Data.Choices) != 1 || w.Data.Choices[0].Name != "Lister" {
		t.Errorf("autocomplete without channel_id over the gateway: %s; want the choice Lister", got["1311000000000010010"].Body)
	}
	if l := logs.String(); strings.Contains(l, `"level":"error"`) {
		t.Errorf("an error was logged (discordgo's own decoding of the Label submit should not be):\n%s", l)
	}
}
