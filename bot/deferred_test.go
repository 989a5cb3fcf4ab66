package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// recordedCall is one request the fake Discord REST received on an
// interaction's webhook.
type recordedCall struct {
	method, path string
	payload      []byte   // the JSON body, or payload_json of a multipart one
	files        []string // file names of a multipart body
}

// fakeWebhooks is a loopback stand-in for Discord's interaction webhook
// endpoints: edit and delete of the original response and follow-ups. It
// records every call in order.
type fakeWebhooks struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	calls []recordedCall
}

func newFakeWebhooks(t *testing.T) *fakeWebhooks {
	f := &fakeWebhooks{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := recordedCall{method: r.Method, path: r.URL.Path}
		ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		switch ct {
		case "multipart/form-data":
			mr := multipart.NewReader(r.Body, params["boundary"])
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				b, _ := io.ReadAll(p)
				if p.FormName() == "payload_json" {
					c.payload = b
				} else {
					c.files = append(c.files, p.FileName())
				}
			}
		default:
			c.payload, _ = io.ReadAll(r.Body)
		}
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1311000000000099999"}`)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeWebhooks) recorded() []recordedCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedCall(nil), f.calls...)
}

// blockingHandler answers with resp once release is closed, so that it
// takes longer than any deferral delay.
type blockingHandler struct {
	resp    *commands.Response
	panic   bool
	release chan struct{}
}

func (h *blockingHandler) Handle(context.Context, *commands.Request) *commands.Response {
	<-h.release
	if h.panic {
		panic("slow and broken")
	}
	return h.resp
}

const (
	webhookPath  = "/api/v9/webhooks/1311000000000000001/"
	originalPath = "/messages/@original"
)

func TestDeferredAnswers(t *testing.T) {
	damage := fixture(t, "damage.json")
	press := bytes.ReplaceAll(fixture(t, "component_button.json"), []byte("{{custom_id}}"), []byte("hp0:1:3:up"))
	modal := bytes.ReplaceAll(fixture(t, "modal_submit_label.json"), []byte("{{custom_id}}"), []byte("hp0:1:3:action"))
	chart := commands.File{Name: "dice-odds.png", ContentType: "image/png", Data: []byte("\x89PNG fake")}
	tests := []struct {
		name     string
		body     []byte
		resp     *commands.Response
		panic    bool
		first    int      // type of the inline (deferred) answer
		calls    []string // "METHOD suffix" of each webhook call, in order
		flags    int      // flags of the last call's payload
		content  string   // content of the last call's payload
		files    []string // files of the last call
		noFollow bool
		mentions string // allowed_mentions of the last call (default: parse nothing)
	}{
		{name: "public command answer edits the deferral", body: damage, resp: &commands.Response{Content: "**Lister** takes 4 damage"},
			first: 5, calls: []string{"PATCH " + originalPath}, content: "**Lister** takes 4 damage"},
		{name: "ephemeral command answer replaces the public deferral", body: damage, resp: &commands.Response{Content: "Only you", Ephemeral: true},
			first: 5, calls: []string{"DELETE " + originalPath, "POST "}, flags: 64, content: "Only you"},
		{name: "panic after the deadline is an ephemeral apology", body: damage, panic: true,
			first: 5, calls: []string{"DELETE " + originalPath, "POST "}, flags: 64, content: commands.Apology},
		{name: "files go with the edit", body: damage, resp: &commands.Response{Content: "Odds", Files: []commands.File{chart}},
			first: 5, calls: []string{"PATCH " + originalPath}, content: "Odds", files: []string{"dice-odds.png"}},
		{name: "follow-ups go after the deferred answer", body: damage, resp: &commands.Response{Content: "**Goblin**: Wounded",
			FollowUps: []*commands.Response{{Content: "Hidden from players: **Goblin** HP 7 → 4", Ephemeral: true}}},
			first: 5, calls: []string{"PATCH " + originalPath, "POST "}, flags: 64, content: "Hidden from players: **Goblin** HP 7 → 4"},
		{name: "follow-ups go after an ephemeral deferred answer", body: press, resp: &commands.Response{Content: "Already chosen", Ephemeral: true,
			FollowUps: []*commands.Response{{Content: "Hidden from players: **Goblin** HP 7 → 4", Ephemeral: true}}},
			first: 6, calls: []string{"POST ", "POST "}, flags: 64, content: "Hidden from players: **Goblin** HP 7 → 4"},
		{name: "a late turn start pings its owner alone", body: damage, resp: &commands.Response{Content: "It is **Lister**'s turn (round 2). <@1311000000000001002>",
			Mentions: []string{"1311000000000001002"}},
			first: 5, calls: []string{"PATCH " + originalPath}, content: "It is **Lister**'s turn (round 2). <@1311000000000001002>",
			mentions: `{"parse":[],"users":["1311000000000001002"]}`},
		{name: "button update edits the message", body: press, resp: &commands.Response{Content: "Stays up", UpdateMessage: true},
			first: 6, calls: []string{"PATCH " + originalPath}, content: "Stays up"},
		{name: "button answer as a new message is a follow-up", body: press, resp: &commands.Response{Content: "Already chosen", Ephemeral: true},
			first: 6, calls: []string{"POST "}, flags: 64, content: "Already chosen"},
		{name: "modal submit update edits the message", body: modal, resp: &commands.Response{Content: "Heroic", UpdateMessage: true},
			first: 6, calls: []string{"PATCH " + originalPath}, content: "Heroic"},
		{name: "a modal cannot follow a deferral", body: press, resp: &commands.Response{Modal: &commands.Modal{CustomID: "m", Title: "T",
			Inputs: []commands.TextInput{{CustomID: "x", Label: "X"}}}},
			first: 6, calls: []string{"POST "}, flags: 64, content: TooSlowForModal},
		{name: "autocomplete gets no choices and nothing later", body: fixture(t, "autocomplete_target.json"),
			resp: &commands.Response{Choices: []commands.Choice{{Name: "Lister", Value: "Lister"}}}, first: 8, noFollow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeWebhooks(t)
			kp := newKeyPair(t)
			h := &blockingHandler{resp: tt.resp, panic: tt.panic, release: make(chan struct{})}
			ep, err := NewEndpoint(h, kp.pub, zerolog.New(zerolog.NewTestWriter(t)), WithDeferAfter(20*time.Millisecond),
				WithFilesClient(loopbackClient(t, fake.srv.URL)))
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			// The handler is blocked until release: ServeHTTP returning at
			// all shows the first answer did not wait for it.
			ep.ServeHTTP(rec, signed(kp, tt.body, time.Now()))
			w := decodeWire(t, rec.Body.Bytes())
			if rec.Code != 200 || w.Type != tt.first {
				t.Fatalf("first answer %d %s; want type %d", rec.Code, rec.Body, tt.first)
			}
			if w.Type == 5 {
				wantNoMentions(t, rec.Body.Bytes())
				if w.Data != nil && w.Data.Flags&64 != 0 {
					t.Errorf("deferral %s is ephemeral; want a public one", rec.Body)
				}
			}
			if w.Type == 8 && (w.Data == nil || len(w.Data.Choices) != 0) {
				t.Errorf("late autocomplete %s; want an empty choices list", rec.Body)
			}
			if n := len(fake.recorded()); n != 0 {
				t.Errorf("%d webhook calls before the handler answered", n)
			}
			close(h.release)
			ep.Wait()
			calls := fake.recorded()
			if tt.noFollow {
				if len(calls) != 0 {
					t.Errorf("webhook calls %+v; want none", calls)
				}
				return
			}
			var got []string
			for _, c := range calls {
				_, suffix, _ := strings.Cut(c.path, ":placeholdertoken") // the fixtures' interaction token
				got = append(got, c.method+" "+suffix)
				if !strings.HasPrefix(c.path, webhookPath) {
					t.Errorf("%s %s; want a call on the interaction's webhook %s…", c.method, c.path, webhookPath)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.calls, ",") {
				t.Fatalf("webhook calls %q; want %q", got, tt.calls)
			}
			last := calls[len(calls)-1]
			var msg struct {
				Content string `json:"content"`
				Flags   int    `json:"flags"`
			}
			if err := json.Unmarshal(last.payload, &msg); err != nil {
				t.Fatalf("payload %s: %v", last.payload, err)
			}
			if msg.Content != tt.content || msg.Flags != tt.flags {
				t.Errorf("last call %s payload %s; want content %q flags %d", last.method, last.payload, tt.content, tt.flags)
			}
			if tt.mentions == "" {
				wantNoMentions(t, last.payload)
			} else if !bytes.Contains(last.payload, []byte(`"allowed_mentions":`+tt.mentions)) {
				t.Errorf("last call payload %s; want allowed_mentions %s", last.payload, tt.mentions)
			}
			if strings.Join(last.files, ",") != strings.Join(tt.files, ",") {
				t.Errorf("files %v; want %v", last.files, tt.files)
			}
		})
	}
}

// TestFastAnswersAreNotDeferred: a handler that answers within the delay
// is answered inline, with no webhook call.
func TestFastAnswersAreNotDeferred(t *testing.T) {
	fake := newFakeWebhooks(t)
	kp := newKeyPair(t)
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewRandom(1))
	defer db.Close()
	ep, err := NewEndpoint(svc, kp.pub, zerolog.Nop(), WithDeferAfter(5*time.Second), WithFilesClient(loopbackClient(t, fake.srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	ep.ServeHTTP(rec, signed(kp, fixture(t, "dm_roll.json"), time.Now()))
	ep.Wait()
	if w := decodeWire(t, rec.Body.Bytes()); w.Type != 4 || !strings.Contains(w.text(), "3d6dh1") {
		t.Errorf("reply %s; want the roll inline", rec.Body)
	}
	if calls := fake.recorded(); len(calls) != 0 {
		t.Errorf("webhook calls %+v; want none", calls)
	}
}

// TestGatewayDefers: over the gateway, a slow answer is deferred through
// the REST callback and then edits the original response.
func TestGatewayDefers(t *testing.T) {
	fake := fakeDiscord(t)
	webhooks := newFakeWebhooks(t)
	// One loopback client for both: callbacks to the fake gateway server,
	// webhook calls to the fake webhooks.
	mux := http.NewServeMux()
	mux.Handle("/api/{version}/interactions/", fake.Handler())
	mux.Handle("/api/{version}/webhooks/", webhooks.srv.Config.Handler)
	both := httptest.NewServer(mux)
	defer both.Close()
	s, err := NewSession("test-token", zerolog.Nop(), WithHTTPClient(loopbackClient(t, both.URL)))
	if err != nil {
		t.Fatal(err)
	}
	h := &blockingHandler{resp: &commands.Response{Content: "**Lister** takes 4 damage"}, release: make(chan struct{})}
	g := &answerer{h: h, log: zerolog.New(zerolog.NewTestWriter(t)), base: context.Background(), deferAfter: 20 * time.Millisecond}
	done := make(chan struct{})
	go func() {
		g.onInteraction(s, decodeFixture(t, "damage.json"))
		close(done)
	}()
	select {
	case c := <-fake.Callbacks:
		if w := decodeWire(t, c.Body); w.Type != 5 {
			t.Errorf("callback %s; want the deferral (type 5)", c.Body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no callback within 5 s")
	}
	close(h.release)
	<-done
	calls := webhooks.recorded()
	if len(calls) != 1 || calls[0].method != http.MethodPatch || !strings.HasSuffix(calls[0].path, originalPath) ||
		!bytes.Contains(calls[0].payload, []byte(`"content":"**Lister** takes 4 damage"`)) {
		t.Errorf("webhook calls %+v; want one PATCH of @original with the answer", calls)
	}
}

// TestLongAdvanceThroughEndpoint is issue 14's stall script through the
// endpoint, before a real service: /clock action:advance amount:10000
// unit:days is refused inline at once, and the longest advance allowed (90
// days) at the largest hp-mp-wp table (50 characters), sent with a deferral
// delay shorter than any handler, is deferred (type 5) and its summary then
// edits @original through the webhook and continues in public follow-ups,
// each within Discord's limits, every character's result in one of them
// (issue 24: it was cut at 2,000 characters).
func TestLongAdvanceThroughEndpoint(t *testing.T) {
	fake := newFakeWebhooks(t)
	kp := newKeyPair(t)
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewRandom(14))
	defer db.Close()
	const channel, gm = "1311000000000000200", "1311000000000001001" // the fixtures'
	handle := func(command, sub string, opts map[string]string) {
		t.Helper()
		r := &commands.Request{Kind: commands.KindCommand, ChannelID: channel, GuildID: "1311000000000000100", UserID: gm,
			UserName: "gm_rowan", Permissions: commands.ManageChannels, Command: command, Subcommand: sub, Options: opts}
		if resp := svc.Handle(context.Background(), r); resp.Ephemeral {
			t.Fatalf("/%s %s: %s", command, sub, resp.Content)
		}
	}
	handle("table", "setup", map[string]string{"system": "hp-mp-wp"})
	for i := range commands.MaxCharacters {
		handle("char", "create", map[string]string{"name": fmt.Sprintf("W%02d", i),
			"stats": "hp-max=9999 str=50 dex=50 con=50 int=50 wis=50 cha=50 fort=40"})
	}
	advance := func(days int) []byte {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(fixture(t, "table_setup.json"), &m); err != nil {
			t.Fatal(err)
		}
		m["data"] = json.RawMessage(fmt.Sprintf(`{"id":"1311000000000020009","name":"clock","type":1,"options":[`+
			`{"name":"action","type":3,"value":"advance"},{"name":"amount","type":4,"value":%d},{"name":"unit","type":3,"value":"days"},{"name":"awake","type":5,"value":true}]}`, days))
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	inline, err := NewEndpoint(svc, kp.pub, zerolog.Nop(), WithFilesClient(loopbackClient(t, fake.srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	inline.ServeHTTP(rec, signed(kp, advance(10000), time.Now()))
	inline.Wait()
	if w := decodeWire(t, rec.Body.Bytes()); w.Type != 4 || w.Data.Flags&64 == 0 || !strings.Contains(w.Data.Content, "The clock moves at most 90 days in one command") {
		t.Fatalf("10,000 days: %s; want an ephemeral refusal inline", rec.Body)
	}

	ep, err := NewEndpoint(svc, kp.pub, zerolog.New(zerolog.NewTestWriter(t)), WithDeferAfter(time.Nanosecond),
		WithFilesClient(loopbackClient(t, fake.srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	rec = httptest.NewRecorder()
	ep.ServeHTTP(rec, signed(kp, advance(commands.MaxAdvanceDays), time.Now()))
	ep.Wait()
	if w := decodeWire(t, rec.Body.Bytes()); w.Type != 5 {
		t.Fatalf("90 days: first answer %s; want the deferral (type 5)", rec.Body)
	}
	calls := fake.recorded()
	if len(calls) < 2 || calls[0].method != http.MethodPatch || !strings.HasSuffix(calls[0].path, originalPath) {
		t.Fatalf("webhook calls %+v; want a PATCH of @original, then follow-ups", calls)
	}
	var all strings.Builder
	for i, c := range calls {
		var msg struct {
			Content string `json:"content"`
			Flags   int    `json:"flags"`
		}
		if err := json.Unmarshal(c.payload, &msg); err != nil {
			t.Fatal(err)
		}
		if i > 0 && (c.method != http.MethodPost || msg.Flags&64 != 0) {
			t.Errorf("call %d: %s, flags %d; want a public follow-up (POST) continuing the answer", i, c.method, msg.Flags)
		}
		if n := utf8.RuneCountInString(msg.Content); n > 2000 {
			t.Errorf("call %d: %d characters; Discord takes 2,000", i, n)
		}
		all.WriteString(msg.Content)
	}
	if !strings.Contains(all.String(), "The clock moves 90 days") {
		t.Errorf("the messages do not say the clock moved: %.200q", all.String())
	}
	for i := range commands.MaxCharacters {
		if name := fmt.Sprintf("**W%02d**", i); !strings.Contains(all.String(), name) {
			t.Errorf("no message gives %s's result", name)
		}
	}
}
