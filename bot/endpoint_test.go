package bot

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// Ids of the shared fixtures.
const (
	fixtureChannel = "1311000000000000200"
	fixturePlayer  = "1311000000000001002"
)

// endpointServer starts an Endpoint over h on loopback with a fixed clock.
func endpointServer(t *testing.T, h Handler, kp keyPair, now time.Time, log zerolog.Logger) *httptest.Server {
	t.Helper()
	ep, err := NewEndpoint(h, kp.pub, log, WithClock(func() time.Time { return now }), WithFilesClient(offline), WithDeferAfter(0))
	if err != nil {
		t.Fatalf("NewEndpoint = %v", err)
	}
	srv := httptest.NewServer(ep)
	t.Cleanup(srv.Close)
	// Follow-ups (files) are sent after the answer and log with the
	// test's logger: wait for them before the test ends (cleanups run in
	// reverse order, so this runs before srv.Close).
	t.Cleanup(ep.Wait)
	return srv
}

func TestEndpointEndToEnd(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "hpkeeper.db")
	src := dice.NewQueue(nil) // any roll not scripted below fails
	svc, db := openService(t, dbPath, src)
	kp := newKeyPair(t)
	now := time.Now()
	srv := endpointServer(t, svc, kp, now, testLogger(t))

	post := func(t *testing.T, body []byte) (int, []byte, http.Header) {
		t.Helper()
		body = freshID(t, body) // a fixture posted again is another interaction
		resp, err := srv.Client().Do(kp.signedRequest(t, srv.URL, body, now))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		if _, err := b.ReadFrom(resp.Body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b.Bytes(), resp.Header
	}
	message := func(t *testing.T, name string, body []byte, wantTypes ...int) wireResponse {
		t.Helper()
		status, b, h := post(t, body)
		if status != http.StatusOK {
			t.Fatalf("POST %s: status %d (%s); want 200", name, status, b)
		}
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Errorf("POST %s: Content-Type %q; want application/json", name, ct)
		}
		w := decodeWire(t, b)
		ok := false
		for _, tp := range wantTypes {
			ok = ok || w.Type == tp
		}
		if !ok || w.Data == nil {
			t.Fatalf("POST %s: %s; want type %v with data", name, b, wantTypes)
		}
		if w.Type == 4 || w.Type == 7 {
			wantNoMentions(t, b)
		}
		t.Logf("POST %s: %s", name, b)
		return w
	}

	t.Run("ping", func(t *testing.T) {
		status, b, h := post(t, fixture(t, "ping.json"))
		if status != http.StatusOK || string(b) != `{"type":1}` {
			t.Errorf("ping: %d %s; want 200 {\"type\":1}", status, b)
		}
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Errorf("ping Content-Type %q; want application/json", ct)
		}
	})
	t.Run("table setup", func(t *testing.T) {
		w := message(t, "table_setup", fixture(t, "table_setup.json"), 4)
		if w.Data.Flags&64 != 0 || !strings.Contains(w.text(), "hit-protection") {
			t.Errorf("table setup reply %q (flags %d); want a public reply naming hit-protection", w.text(), w.Data.Flags)
		}
	})
	t.Run("char create", func(t *testing.T) {
		w := message(t, "char_create", fixture(t, "char_create.json"), 4)
		if w.Data.Flags&64 != 0 || !strings.Contains(w.text(), "Lister") {
			t.Errorf("char create reply %q (flags %d); want a public reply naming Lister", w.text(), w.Data.Flags)
		}
	})
	t.Run("autocomplete target", func(t *testing.T) {
		w := message(t, "autocomplete_target", fixture(t, "autocomplete_target.json"), 8)
		found := false
		for _, c := range w.Data.Choices {
			found = found || (c.Name == "Lister" && c.Value == "Lister")
		}
		if !found {
			t.Errorf("autocomplete choices %+v; want Lister", w.Data.Choices)
		}
	})
	t.Run("dm roll", func(t *testing.T) {
		src.Push(5, 2, 1)
		w := message(t, "dm_roll", fixture(t, "dm_roll.json"), 4)
		text := w.text()
		if !regexp.MustCompile(`\[[^\]]*5[^\]]*2[^\]]*1[^\]]*\]`).MatchString(text) {
			t.Errorf("roll reply %q; want the three dice 5, 2, 1 listed", text)
		}
		if !strings.Contains(text, "3d6dh1") || w.Data.Flags&64 != 0 {
			t.Errorf("roll reply %q (flags %d); want a public reply showing 3d6dh1", text, w.Data.Flags)
		}
		if n := src.Remaining(); n != 0 {
			t.Errorf("%d scripted dice left; want all 3 rolled", n)
		}
	})
	// rename puts another character in the fixtures, which name Lister.
	rename := func(b []byte, name string) []byte { return bytes.ReplaceAll(b, []byte("Lister"), []byte(name)) }
	// heroicDeath takes name to 0 HP, presses Heroic Death, checks that the
	// modal is built with Labels, and submits the heroic action with the
	// modal fixture given, in the shape it holds.
	heroicDeath := func(t *testing.T, name, modalFixture string) {
		if name != "Lister" {
			message(t, "char_create "+name, rename(fixture(t, "char_create.json"), name), 4)
		}
		w := message(t, "damage "+name, rename(fixture(t, "damage.json"), name), 4)
		ids := map[string]string{}
		for _, row := range w.Data.Components {
			for _, b := range row.Components {
				ids[b.Label] = b.CustomID
			}
		}
		heroic := ids["Heroic Death"]
		if heroic == "" || ids["Stay Up"] == "" || ids["Go Down"] == "" {
			t.Fatalf("damage reply %q with buttons %v; want Heroic Death, Stay Up, Go Down", w.text(), ids)
		}
		press := fixture(t, "component_button.json")
		press = bytes.ReplaceAll(press, []byte("{{custom_id}}"), []byte(heroic))
		press = bytes.ReplaceAll(press, []byte("{{custom_id_1}}"), []byte(heroic))
		press = bytes.ReplaceAll(press, []byte("{{custom_id_2}}"), []byte(ids["Stay Up"]))
		press = bytes.ReplaceAll(press, []byte("{{custom_id_3}}"), []byte(ids["Go Down"]))
		m := message(t, "component_button", press, 9)
		if m.Data.Title != "Heroic Death" || m.Data.CustomID == "" {
			t.Fatalf("button reply title %q custom_id %q; want the Heroic Death modal", m.Data.Title, m.Data.CustomID)
		}
		if in := m.modalInputs(); len(in) != 1 || in[0] != "heroic-action" {
			t.Errorf("Heroic Death modal inputs %v; want heroic-action alone in a Label", in)
		}
		submit := bytes.ReplaceAll(fixture(t, modalFixture), []byte("{{custom_id}}"), []byte(m.Data.CustomID))
		r := message(t, modalFixture, submit, 4, 7)
		if !strings.Contains(r.text(), name) || !strings.Contains(r.text(), "Curry Monster") {
			t.Errorf("modal reply %q; want %s's heroic action", r.text(), name)
		}
		// Heroic Death: after the action, the character is dead.
		if !strings.Contains(r.text(), name+"** is dead") {
			t.Errorf("modal reply %q; want %s dead after the Heroic Death", r.text(), name)
		}
		// A press on the now stale message is refused, ephemerally.
		stale := message(t, "component_button stale", bytes.ReplaceAll(press, []byte(heroic), []byte(ids["Stay Up"])), 4)
		if stale.Data.Flags&64 == 0 || !strings.Contains(stale.text(), "already chosen") {
			t.Errorf("stale press %q (flags %d); want an ephemeral already chosen", stale.text(), stale.Data.Flags)
		}
	}
	t.Run("zero HP choice with buttons and modal", func(t *testing.T) {
		// Both shapes of a submitted modal complete a Heroic Death: inputs
		// in action rows, and in Labels as Discord documents modals now.
		t.Run("action rows", func(t *testing.T) { heroicDeath(t, "Lister", "modal_submit.json") })
		t.Run("labels", func(t *testing.T) { heroicDeath(t, "Holly", "modal_submit_label.json") })

		// Stay Up, through the same payloads for a third character.
		message(t, "char_create Kryten", rename(fixture(t, "char_create.json"), "Kryten"), 4)
		w := message(t, "damage Kryten", rename(fixture(t, "damage.json"), "Kryten"), 4)
		ids := map[string]string{}
		for _, row := range w.Data.Components {
			for _, b := range row.Components {
				ids[b.Label] = b.CustomID
			}
		}
		fill := func(id string) []byte {
			p := fixture(t, "component_button.json")
			p = bytes.ReplaceAll(p, []byte("{{custom_id}}"), []byte(id))
			p = bytes.ReplaceAll(p, []byte("{{custom_id_1}}"), []byte(ids["Heroic Death"]))
			p = bytes.ReplaceAll(p, []byte("{{custom_id_2}}"), []byte(ids["Stay Up"]))
			return bytes.ReplaceAll(p, []byte("{{custom_id_3}}"), []byte(ids["Go Down"]))
		}
		src.Push(1, 2)
		up := message(t, "component_button Stay Up", fill(ids["Stay Up"]), 7)
		if !strings.Contains(up.text(), "Kryten") || !strings.Contains(up.text(), "2d6 [1, 2] = 3") || !strings.Contains(up.text(), "Flesh Wound") {
			t.Errorf("Stay Up reply %q; want 2d6 [1, 2] = 3 → Flesh Wound", up.text())
		}
		for _, row := range up.Data.Components {
			for _, b := range row.Components {
				if !b.Disabled {
					t.Errorf("after Stay Up, button %q is enabled", b.Label)
				}
			}
		}
		again := message(t, "component_button again", fill(ids["Go Down"]), 4)
		if again.Data.Flags&64 == 0 || !strings.Contains(again.text(), "already chosen") {
			t.Errorf("second press %q (flags %d); want an ephemeral already chosen", again.text(), again.Data.Flags)
		}
		if n := src.Remaining(); n != 0 {
			t.Errorf("%d scripted dice left", n)
		}
	})

	srv.Close()
	if err := db.Close(); err != nil {
		t.Fatalf("close db: %v", err)
	}
	svc2, db2 := openService(t, dbPath, nil)
	defer db2.Close()
	resp := svc2.Handle(context.Background(), &commands.Request{
		Kind: commands.KindCommand, ChannelID: fixtureChannel, UserID: fixturePlayer, UserName: "Dave",
		Command: "char", Subcommand: "show", Options: map[string]string{"name": "Lister"},
	})
	if resp.Ephemeral || !strings.Contains(resp.Content+embedText(resp.Embeds), "Lister") {
		t.Errorf("after reopening, /char show name:Lister = %+v; want Lister's sheet", resp)
	}
}

func embedText(es []commands.Embed) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Title + "\n" + e.Description + "\n")
		for _, f := range e.Fields {
			b.WriteString(f.Name + ": " + f.Value + "\n")
		}
	}
	return b.String()
}

// stubHandler answers every request with a fixed response, or panics.
type stubHandler struct {
	resp  *commands.Response
	panic bool
	calls atomic.Int32
}

func (s *stubHandler) Handle(context.Context, *commands.Request) *commands.Response {
	s.calls.Add(1)
	if s.panic {
		panic("boom")
	}
	return s.resp
}

func TestEndpointRefuses(t *testing.T) {
	kp, other := newKeyPair(t), newKeyPair(t)
	now := time.Unix(1_800_000_000, 0)
	h := &stubHandler{resp: &commands.Response{Content: "ok"}}
	srv := endpointServer(t, h, kp, now, testLogger(t))
	body := fixture(t, "dm_roll.json")
	c := srv.Client()

	big := append([]byte(`{"type":2,"padding":"`), bytes.Repeat([]byte("x"), MaxBodyBytes)...)
	big = append(big, `"}`...)

	tests := []struct {
		name string
		req  func() *http.Request
		want int
	}{
		{"valid", func() *http.Request { return kp.signedRequest(t, srv.URL, body, now) }, http.StatusOK},
		{"timestamp 4 minutes old", func() *http.Request { return kp.signedRequest(t, srv.URL, body, now.Add(-4*time.Minute)) }, http.StatusOK},
		{"wrong key", func() *http.Request { return other.signedRequest(t, srv.URL, body, now) }, http.StatusUnauthorized},
		{"missing signature header", func() *http.Request {
			r := kp.signedRequest(t, srv.URL, body, now)
			r.Header.Del("X-Signature-Ed25519")
			return r
		}, http.StatusUnauthorized},
		{"missing timestamp header", func() *http.Request {
			r := kp.signedRequest(t, srv.URL, body, now)
			r.Header.Del("X-Signature-Timestamp")
			return r
		}, http.StatusUnauthorized},
		{"malformed signature", func() *http.Request {
			r := kp.signedRequest(t, srv.URL, body, now)
			r.Header.Set("X-Signature-Ed25519", "not-hex")
			return r
		}, http.StatusUnauthorized},
		{"short signature", func() *http.Request {
			r := kp.signedRequest(t, srv.URL, body, now)
			r.Header.Set("X-Signature-Ed25519", "abcd")
			return r
		}, http.StatusUnauthorized},
		{"body changed after signing", func() *http.Request {
			r := kp.signedRequest(t, srv.URL, body, now)
			r.Body = http.NoBody
			r.ContentLength = 0
			return r
		}, http.StatusUnauthorized},
		{"timestamp 6 minutes old", func() *http.Request { return kp.signedRequest(t, srv.URL, body, now.Add(-6*time.Minute)) }, http.StatusUnauthorized},
		{"timestamp 6 minutes ahead", func() *http.Request { return kp.signedRequest(t, srv.URL, body, now.Add(6*time.Minute)) }, http.StatusUnauthorized},
		{"timestamp not a number", func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
			sig := ed25519.Sign(kp.priv, append([]byte("soon"), body...))
			r.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
			r.Header.Set("X-Signature-Timestamp", "soon")
			return r
		}, http.StatusUnauthorized},
		{"body over 1 MiB", func() *http.Request { return kp.signedRequest(t, srv.URL, big, now) }, http.StatusRequestEntityTooLarge},
		{"bad JSON", func() *http.Request { return kp.signedRequest(t, srv.URL, []byte(`{"type":2,`), now) }, http.StatusBadRequest},
		{"empty body", func() *http.Request { return kp.signedRequest(t, srv.URL, nil, now) }, http.StatusBadRequest},
		{"unknown interaction type", func() *http.Request {
			return kp.signedRequest(t, srv.URL, []byte(`{"id":"9","type":99,"user":{"id":"1"},"data":{}}`), now)
		}, http.StatusBadRequest},
		{"command without a user", func() *http.Request {
			return kp.signedRequest(t, srv.URL, []byte(`{"id":"9","type":2,"data":{"name":"roll"}}`), now)
		}, http.StatusBadRequest},
		{"GET", func() *http.Request { r, _ := http.NewRequest(http.MethodGet, srv.URL, nil); return r }, http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := h.calls.Load()
			status, b := do(t, c, tt.req())
			if status != tt.want {
				t.Errorf("status = %d (%s); want %d", status, b, tt.want)
			}
			if called := h.calls.Load() != before; called != (tt.want == http.StatusOK) {
				t.Errorf("handler called = %v; want %v", called, tt.want == http.StatusOK)
			}
		})
	}
}

func TestEndpointRecoversFromPanic(t *testing.T) {
	kp := newKeyPair(t)
	now := time.Now()
	var logs syncBuffer
	srv := endpointServer(t, &stubHandler{panic: true}, kp, now, zerolog.New(&logs))
	status, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, fixture(t, "dm_roll.json"), now))
	if status != http.StatusOK {
		t.Fatalf("status = %d (%s); want 200 with an apology", status, b)
	}
	w := decodeWire(t, b)
	if w.Type != 4 || w.Data.Flags != 64 || !strings.Contains(w.Data.Content, "Sorry") {
		t.Errorf("reply %s; want an ephemeral apology", b)
	}
	wantNoMentions(t, b)
	if l := logs.String(); !strings.Contains(l, `"interaction_id":"1311000000000010008"`) || !strings.Contains(l, "boom") {
		t.Errorf("log %s; want the panic with the interaction id", l)
	}
	// The server survived.
	if status, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, fixture(t, "ping.json"), now)); status != 200 || string(b) != `{"type":1}` {
		t.Errorf("ping after panic = %d %s", status, b)
	}
}

func TestEndpointNilResponse(t *testing.T) {
	kp := newKeyPair(t)
	now := time.Now()
	srv := endpointServer(t, &stubHandler{}, kp, now, testLogger(t))
	_, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, fixture(t, "char_create.json"), now))
	if w := decodeWire(t, b); w.Type != 4 || w.Data.Flags != 64 {
		t.Errorf("reply to a nil response %s; want an ephemeral apology", b)
	}
}

// TestEndpointLogsInteractionFields checks the per-interaction logger in the
// handler's context.
func TestEndpointLogsInteractionFields(t *testing.T) {
	kp := newKeyPair(t)
	now := time.Now()
	var logs syncBuffer
	h := handlerFunc(func(ctx context.Context, r *commands.Request) *commands.Response {
		zerolog.Ctx(ctx).Info().Msg("inside handler")
		return &commands.Response{Content: "ok"}
	})
	srv := endpointServer(t, h, kp, now, zerolog.New(&logs))
	do(t, srv.Client(), kp.signedRequest(t, srv.URL, fixture(t, "char_create.json"), now))
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "inside handler") {
			line = l
		}
	}
	for _, want := range []string{`"interaction_id":"1311000000000010003"`, `"guild_id":"1311000000000000100"`,
		`"channel_id":"1311000000000000200"`, `"user_id":"1311000000000001002"`} {
		if !strings.Contains(line, want) {
			t.Errorf("handler log line %q lacks %s", line, want)
		}
	}
	if strings.Contains(logs.String(), "placeholdertoken") {
		t.Errorf("log contains the interaction token: %s", logs.String())
	}
}

type handlerFunc func(ctx context.Context, r *commands.Request) *commands.Response

func (f handlerFunc) Handle(ctx context.Context, r *commands.Request) *commands.Response {
	return f(ctx, r)
}

func TestNewEndpointChecksKey(t *testing.T) {
	if _, err := NewEndpoint(&stubHandler{}, ed25519.PublicKey("short"), zerolog.Nop()); err == nil {
		t.Error("NewEndpoint(short key) = nil error; want an error")
	}
	if _, err := NewEndpoint(nil, newKeyPair(t).pub, zerolog.Nop()); err == nil {
		t.Error("NewEndpoint(nil handler) = nil error; want an error")
	}
	kp := newKeyPair(t)
	for _, tt := range []struct {
		in      string
		wantErr bool
	}{
		{hex.EncodeToString(kp.pub), false},
		{" " + hex.EncodeToString(kp.pub) + "\n", false},
		{"zz", true},
		{"abcd", true},
	} {
		k, err := ParsePublicKey(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && !bytes.Equal(k, kp.pub)) {
			t.Errorf("ParsePublicKey(%q) = %x, %v; want error %v", tt.in, k, err, tt.wantErr)
		}
	}
}

func TestServeGracefulShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		w.Write([]byte("finished"))
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeListener(ctx, ln, h) }()

	url := "http://" + ln.Addr().String()
	type result struct {
		status int
		body   string
		err    error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Post(url, "text/plain", nil)
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		got <- result{status: resp.StatusCode, body: b.String()}
	}()
	<-started
	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	case <-time.After(200 * time.Millisecond):
	}
	// No new connections once the drain window (DrainWindow) has passed.
	refused := false
	for deadline := time.Now().Add(DrainWindow + 30*time.Second); !refused && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
	}
	if !refused {
		t.Error("dials after the shutdown's drain window still succeed; want them refused")
	}
	close(release)
	r := <-got
	if r.err != nil || r.status != 200 || r.body != "finished" {
		t.Errorf("in-flight request = %+v; want 200 finished", r)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v; want nil after a clean shutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the in-flight request finished")
	}
}

func TestServeBadAddress(t *testing.T) {
	err := Serve(context.Background(), "256.0.0.1:bad", http.NotFoundHandler())
	if err == nil {
		t.Fatal("Serve(bad address) = nil; want an error")
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) && !strings.Contains(err.Error(), "listen") {
		t.Errorf("Serve(bad address) = %v; want a listen error", err)
	}
}

// Compile-time check that the conversion helpers stay usable by other
// transports.
var _ = []any{RequestFrom, ResponseFrom, EncodeResponse, discordgo.InteractionPing}

// TestReplayGuardBounded: the guard forgets a request once its timestamp is
// stale and never keeps more than maxReplayEntries, so a flood cannot grow
// memory without bound.
func TestReplayGuardBounded(t *testing.T) {
	var g replayGuard
	now := time.Unix(1_800_000_000, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	sig := func(i int) (key [16]byte) {
		binary.BigEndian.PutUint64(key[8:], uint64(i))
		return key
	}
	if g.record(sig(1), ts, now) != replayNew || g.record(sig(1), ts, now) != replaySeen {
		t.Fatal("a signature must be accepted once, then refused")
	}
	if g.record(sig(1), ts, now.Add(MaxClockSkew+time.Second)) != replayNew {
		t.Error("a signature whose timestamp went stale is forgotten (the freshness check refuses it anyway)")
	}
	for i := 0; i < maxReplayEntries+500; i++ {
		g.record(sig(i+10), ts, now)
	}
	if n := len(g.seen); n > maxReplayEntries {
		t.Errorf("guard holds %d entries; want at most %d", n, maxReplayEntries)
	}
}

// TestEndpointChannelObjectOnly: a payload with "channel" but no
// "channel_id" (as some libraries' fixtures carry it) reaches the table of
// channel.id, for a command and for autocomplete.
func TestEndpointChannelObjectOnly(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewQueue(nil))
	defer db.Close()
	kp := newKeyPair(t)
	now := time.Now()
	var logs syncBuffer
	srv := endpointServer(t, svc, kp, now, zerolog.New(&logs))
	post := func(name string) wireResponse {
		t.Helper()
		status, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, fixture(t, name), now))
		if status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", name, status, b)
		}
		return decodeWire(t, b)
	}
	post("table_setup.json")
	post("char_create.json")
	w := post("autocomplete_channel_only.json")
	if w.Type != 8 || len(w.Data.Choices) != 1 || w.Data.Choices[0].Name != "Lister" {
		t.Errorf("autocomplete without channel_id: %+v; want the choice Lister", w.Data)
	}
	w = post("damage_channel_only.json")
	if w.Type != 4 || w.Data.Flags&64 != 0 || !strings.Contains(w.text(), "**Lister** takes 1 damage") {
		t.Errorf("damage without channel_id: %q (flags %d); want Lister taking 1 damage in public", w.text(), w.Data.Flags)
	}
	if l := logs.String(); strings.Contains(l, "empty channel id") || strings.Contains(l, `"level":"error"`) {
		t.Errorf("log has an error: %s", l)
	}
}

// TestContainLogsGoroutinePanics: a panic in one of the bot's own
// goroutines (a late answer, a follow-up, a gateway event) is logged with
// what it was doing instead of ending the process, which is what an
// unrecovered panic in a goroutine does.
func TestContainLogsGoroutinePanics(t *testing.T) {
	var logs syncBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer contain(zerolog.New(&logs), "follow-up")
		var m map[string]int
		m["boom"]++ // a nil map write panics
	}()
	<-done
	for _, want := range []string{`"during":"follow-up"`, "bot goroutine panicked", "assignment to entry in nil map"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log = %s; want it to contain %q", logs.String(), want)
		}
	}
}

// freshID returns the interaction JSON body with an id of its own: each
// interaction Discord sends has a new one, and a change is applied once per
// id (storage.Tx.RecordInteraction).
func freshID(t *testing.T, body []byte) []byte {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		return body // not an interaction: sent as it is
	}
	if _, ok := v["id"]; !ok {
		return body
	}
	v["id"] = strconv.FormatInt(1311000000000300000+nextInteractionID.Add(1), 10)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
