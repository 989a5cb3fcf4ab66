package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/hpkeeper/hpkeeper/commands"
)

// withFollowUp answers every request with a public word and, for the GM
// alone, an ephemeral follow-up carrying the numbers and a button, as the
// core does for a hidden character.
var withFollowUp = handlerFunc(func(ctx context.Context, r *commands.Request) *commands.Response {
	return &commands.Response{Content: "**Goblin**: Wounded", FollowUps: []*commands.Response{{
		Content:    "Hidden from players: **Goblin** takes 3 damage: HP 7 → 4",
		Components: [][]commands.Button{{{Label: "Stay Up", CustomID: "hp0:1:2:up", Style: commands.StylePrimary}}},
		Ephemeral:  true,
	}}}
})

// checkFollowUp fails t unless body is the JSON of withFollowUp's
// follow-up: ephemeral (flag 64), its text and button, no mentions.
func checkFollowUp(t *testing.T, contentType string, body []byte) {
	t.Helper()
	if contentType != "application/json" {
		t.Fatalf("follow-up content type %q; want application/json", contentType)
	}
	var msg struct {
		Content    string            `json:"content"`
		Flags      int               `json:"flags"`
		Components []json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("follow-up %s: %v", body, err)
	}
	if msg.Flags != 64 || !strings.Contains(msg.Content, "HP 7 → 4") || len(msg.Components) != 1 ||
		!bytes.Contains(body, []byte(`"custom_id":"hp0:1:2:up"`)) || !bytes.Contains(body, []byte(`"allowed_mentions":{"parse":[]}`)) {
		t.Errorf("follow-up %s; want an ephemeral message with the numbers, the button and no mentions", body)
	}
}

// TestEndpointFollowUps: over HTTP, the inline answer carries the public
// text only; the follow-up is posted after it through the interaction's
// webhook, ephemeral.
func TestEndpointFollowUps(t *testing.T) {
	fake := newFakeWebhook(t)
	ep, srv, kp, now := webhookEndpoint(t, withFollowUp, fake)
	status, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, fixture(t, "damage.json"), now))
	ep.Wait()
	if w := decodeWire(t, b); status != 200 || w.Data.Content != "**Goblin**: Wounded" || w.Data.Flags != 0 {
		t.Fatalf("inline answer %d %s; want the public word only", status, b)
	}
	if len(fake.followUps) != 1 {
		t.Fatalf("%d follow-ups; want 1", len(fake.followUps))
	}
	fu := fake.followUps[0]
	if fu.app == "" || fu.token == "" || fu.auth != "" {
		t.Errorf("follow-up to app %q token %q auth %q; want the interaction's webhook without the bot token", fu.app, fu.token, fu.auth)
	}
	checkFollowUp(t, fu.contentType, fu.body)
}

// TestGatewayFollowUps: over the gateway, the follow-up is posted through
// the interaction's webhook after the callback.
func TestGatewayFollowUps(t *testing.T) {
	var mu sync.Mutex
	var order []string
	var body []byte
	var contentType string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{version}/interactions/{id}/{token}/callback", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, "callback")
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /api/{version}/webhooks/{app}/{token}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		order = append(order, "webhook")
		body, contentType = b, r.Header.Get("Content-Type")
		w.Write([]byte(`{"id":"1"}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	s, err := discordgo.New("Bot test-token")
	if err != nil {
		t.Fatal(err)
	}
	s.Client = loopbackClient(t, srv.URL)
	g := &answerer{h: withFollowUp, log: testLogger(t), base: context.Background()}
	g.onInteraction(s, decodeFixture(t, "damage.json"))
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, " ") != "callback webhook" {
		t.Fatalf("requests %v; want the callback, then the follow-up", order)
	}
	checkFollowUp(t, contentType, body)
}
