package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// callback is one interaction callback the fake Discord received.
type callback struct {
	id, token, auth string
	body            []byte
}

// fakeDiscord is a loopback stand-in for Discord's REST API and gateway (any
// API version: discordgo v0.29.0 speaks v9): GET /api/v*/gateway names its own websocket, which says HELLO, answers
// IDENTIFY with READY and then dispatches each interaction as
// INTERACTION_CREATE; interaction callbacks are recorded.
type fakeDiscord struct {
	t            *testing.T
	srv          *httptest.Server
	interactions [][]byte
	callbacks    chan callback
	identify     chan json.RawMessage

	mu         sync.Mutex
	unexpected []string

	// dropFirst makes the first websocket close right after its dispatches,
	// so the session reconnects (and resumes: op 6 is answered RESUMED).
	dropFirst bool
	conns     atomic.Int32
}

func newFakeDiscord(t *testing.T, interactions ...[]byte) *fakeDiscord {
	f := &fakeDiscord{t: t, interactions: interactions, callbacks: make(chan callback, 16), identify: make(chan json.RawMessage, 4)}
	mux := http.NewServeMux()
	gatewayURL := func() string { return "ws" + strings.TrimPrefix(f.srv.URL, "http") + "/gw" }
	mux.HandleFunc("GET /api/{version}/gateway", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"url":%q}`, gatewayURL())
	})
	mux.HandleFunc("GET /api/{version}/gateway/bot", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"url":%q,"shards":1,"session_start_limit":{"total":1000,"remaining":999,"reset_after":0,"max_concurrency":1}}`, gatewayURL())
	})
	mux.HandleFunc("POST /api/{version}/interactions/{id}/{token}/callback", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.callbacks <- callback{id: r.PathValue("id"), token: r.PathValue("token"), auth: r.Header.Get("Authorization"), body: b}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/gw/", f.gateway)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.unexpected = append(f.unexpected, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		http.NotFound(w, r)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeDiscord) gateway(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		f.t.Errorf("fake gateway upgrade: %v", err)
		return
	}
	defer c.Close()
	var wmu sync.Mutex
	send := func(v string) error {
		wmu.Lock()
		defer wmu.Unlock()
		return c.WriteMessage(websocket.TextMessage, []byte(v))
	}
	if err := send(`{"op":10,"d":{"heartbeat_interval":45000}}`); err != nil {
		return
	}
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		var p struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if err := json.Unmarshal(msg, &p); err != nil {
			f.t.Errorf("fake gateway: undecodable message %s", msg)
			return
		}
		switch p.Op {
		case 1: // heartbeat
			send(`{"op":11}`)
		case 2: // identify
			f.identify <- p.D
			send(`{"op":0,"s":1,"t":"READY","d":{"v":10,"session_id":"fake-session","resume_gateway_url":"ws://127.0.0.1:1",` +
				`"user":{"id":"1311000000000000001","username":"hpkeeper","bot":true},"guilds":[],"private_channels":[],` +
				`"application":{"id":"1311000000000000001","flags":0}}}`)
			for n, i := range f.interactions {
				send(fmt.Sprintf(`{"op":0,"s":%d,"t":"INTERACTION_CREATE","d":%s}`, n+2, i))
			}
			if f.dropFirst && f.conns.Add(1) == 1 {
				return
			}
		case 6: // resume
			send(`{"op":0,"s":100,"t":"RESUMED","d":{}}`)
		}
	}
}

// collect returns the first n interaction callbacks by interaction id,
// failing the test when RunGateway returns (done) first or 5 s pass.
func (f *fakeDiscord) collect(n int, done <-chan error) map[string]callback {
	f.t.Helper()
	got := map[string]callback{}
	for len(got) < n {
		select {
		case c := <-f.callbacks:
			got[c.id] = c
		case err := <-done:
			f.t.Fatalf("RunGateway returned %v before answering", err)
		case <-time.After(5 * time.Second):
			f.t.Fatalf("got %d interaction callbacks within 5 s; want %d", len(got), n)
		}
	}
	return got
}

// dialer dials only the fake server, whatever address it is asked for.
func (f *fakeDiscord) dialer() *websocket.Dialer {
	addr := f.srv.Listener.Addr().String()
	return &websocket.Dialer{
		HandshakeTimeout: 5 * time.Second,
		NetDialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}
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
	fake := newFakeDiscord(t, fixture(t, "dm_roll.json"), fixture(t, "char_create.json"))
	var logs syncBuffer
	log := zerolog.New(&logs).Level(zerolog.TraceLevel)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- RunGateway(ctx, token, h, log, WithHTTPClient(loopbackClient(t, fake.srv.URL)), WithDialer(fake.dialer()))
	}()

	select {
	case d := <-fake.identify:
		var id struct {
			Token   string `json:"token"`
			Intents int    `json:"intents"`
		}
		if err := json.Unmarshal(d, &id); err != nil {
			t.Fatal(err)
		}
		if id.Token != "Bot "+token || id.Intents != 1 {
			t.Errorf("IDENTIFY token %q intents %d; want %q and 1 (IntentsGuilds only)", id.Token, id.Intents, "Bot "+token)
		}
	case err := <-done:
		t.Fatalf("RunGateway returned %v before identifying", err)
	case <-time.After(5 * time.Second):
		t.Fatal("no IDENTIFY within 5 s")
	}

	got := fake.collect(2, done)

	roll, ok := got["1311000000000010008"]
	if !ok {
		t.Fatalf("no callback for the /roll interaction; got %v", got)
	}
	// The interaction token in the URL authorises the callback; the bot
	// token is not sent where it is not needed.
	if roll.token != "aW50ZXJhY3Rpb246ZG0" || roll.auth != "" {
		t.Errorf("roll callback token %q auth %q; want the interaction token and no Authorization header", roll.token, roll.auth)
	}
	wantNoMentions(t, roll.body)
	w := decodeWire(t, roll.body)
	if w.Type != 4 || !regexp.MustCompile(`\[[^\]]*5[^\]]*2[^\]]*1[^\]]*\]`).MatchString(w.text()) {
		t.Errorf("roll callback %s; want a type 4 reply showing the dice 5, 2, 1", roll.body)
	}

	char, ok := got["1311000000000010003"]
	if !ok {
		t.Fatalf("no callback for the /char interaction; got %v", got)
	}
	wantNoMentions(t, char.body)
	if w := decodeWire(t, char.body); w.Type != 4 || w.Data.Flags != 64 || !strings.Contains(w.Data.Content, "Sorry") {
		t.Errorf("callback after a panic %s; want an ephemeral apology", char.body)
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
	fake.mu.Lock()
	if len(fake.unexpected) > 0 {
		t.Errorf("unexpected requests to the fake Discord: %v", fake.unexpected)
	}
	fake.mu.Unlock()
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
		if s.Token != "Bot abc" || s.Identify.Intents != 1 {
			t.Errorf("NewSession(%q): token %q intents %d; want \"Bot abc\" and 1", tok, s.Token, s.Identify.Intents)
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
	fake := newFakeDiscord(t, submit, fixture(t, "autocomplete_channel_only.json"))
	var logs syncBuffer
	gctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- RunGateway(gctx, "test-token", svc, zerolog.New(&logs).Level(zerolog.InfoLevel),
			WithHTTPClient(loopbackClient(t, fake.srv.URL)), WithDialer(fake.dialer()))
	}()
	got := fake.collect(2, done)
	cancel()
	<-done
	if w := decodeWire(t, got["1311000000000010009"].body); w.Type != 7 || !strings.Contains(w.text(), "**Lister** is dead") {
		t.Errorf("Label modal submit over the gateway: %s; want the message updated with Lister dead", got["1311000000000010009"].body)
	}
	if w := decodeWire(t, got["1311000000000010010"].body); w.Type != 8 || len(w.Data.Choices) != 1 || w.Data.Choices[0].Name != "Lister" {
		t.Errorf("autocomplete without channel_id over the gateway: %s; want the choice Lister", got["1311000000000010010"].body)
	}
	if l := logs.String(); strings.Contains(l, `"level":"error"`) {
		t.Errorf("an error was logged (discordgo's own decoding of the Label submit should not be):\n%s", l)
	}
}
