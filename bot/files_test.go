package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
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

	"github.com/bwmarrin/discordgo"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/odds"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// interaction returns the table_setup fixture (a guild channel; the member
// has Manage Channels) turned into the command name with options, the given
// resolved data, and its own id.
func interaction(t *testing.T, id, name string, options []map[string]any, resolved map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(fixture(t, "table_setup.json"), &m); err != nil {
		t.Fatal(err)
	}
	m["id"] = id
	data := map[string]any{"id": "1311000000000020001", "name": name, "type": 1, "options": options}
	if resolved != nil {
		data["resolved"] = resolved
	}
	m["data"] = data
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sub(name string, opts ...map[string]any) []map[string]any {
	return []map[string]any{{"name": name, "type": 1, "options": opts}}
}

// multipartParts splits a multipart body into payload_json and the files.
func multipartParts(t *testing.T, contentType string, body []byte) (payload []byte, files map[string][]byte) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("content type %q; want multipart/form-data", contentType)
	}
	files = map[string][]byte{}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		if p.FormName() == "payload_json" {
			payload = b
		} else {
			files[p.FileName()] = b
		}
	}
	return payload, files
}

// fakeWebhook is Discord's webhook endpoint and CDN on loopback.
type fakeWebhook struct {
	srv       *httptest.Server
	mu        sync.Mutex
	followUps []followUp
	notYet    int // answer 404 this many times first
	cdn       map[string][]byte
}

type followUp struct {
	app, token, auth, contentType string
	body                          []byte
}

func newFakeWebhook(t *testing.T) *fakeWebhook {
	f := &fakeWebhook{cdn: map[string][]byte{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{version}/webhooks/{app}/{token}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.notYet > 0 {
			f.notYet--
			http.Error(w, `{"message":"Unknown Webhook"}`, http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		f.followUps = append(f.followUps, followUp{r.PathValue("app"), r.PathValue("token"), r.Header.Get("Authorization"), r.Header.Get("Content-Type"), b})
		w.Write([]byte(`{"id":"1"}`))
	})
	mux.HandleFunc("GET /attachments/", func(w http.ResponseWriter, r *http.Request) {
		b, ok := f.cdn[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// webhookEndpoint serves an Endpoint for h whose follow-ups and downloads
// go to fake, with a fixed clock, never deferring (the tests read inline
// answers); it returns the endpoint, its server (closed when the test ends),
// the key pair requests are signed with and the time.
func webhookEndpoint(t *testing.T, h Handler, fake *fakeWebhook) (*Endpoint, *httptest.Server, keyPair, time.Time) {
	t.Helper()
	kp := newKeyPair(t)
	now := time.Now()
	ep, err := NewEndpoint(h, kp.pub, testLogger(t), WithClock(func() time.Time { return now }),
		WithFilesClient(loopbackClient(t, fake.srv.URL)), WithDeferAfter(0))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ep)
	t.Cleanup(srv.Close)
	return ep, srv, kp, now
}

// TestEndpointFiles: over HTTP, /odds answers inline with the text and
// posts the chart as a follow-up through the interaction's webhook
// (retrying while Discord does not know the interaction yet); /table export
// sends its JSON file ephemerally the same way, and /table import downloads
// the attachment from the CDN.
func TestEndpointFiles(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewScripted())
	defer db.Close()
	fake := newFakeWebhook(t)
	fake.notYet = 1
	ep, srv, kp, now := webhookEndpoint(t, svc, fake)
	post := func(body []byte) wireResponse {
		t.Helper()
		status, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, body, now))
		if status != 200 {
			t.Fatalf("status %d: %s", status, b)
		}
		ep.Wait()
		return decodeWire(t, b)
	}

	w := post(interaction(t, "1311000000000090001", "odds", []map[string]any{{"name": "expr", "type": 3, "value": "2d6"}}, nil))
	if w.Type != 4 || !strings.Contains(w.Data.Content, "7: 16.7%") {
		t.Fatalf("inline answer %+v", w)
	}
	if len(fake.followUps) != 1 {
		t.Fatalf("%d follow-ups; want 1", len(fake.followUps))
	}
	fu := fake.followUps[0]
	if fu.app != "1311000000000000001" || fu.token == "" || fu.auth != "" {
		t.Errorf("follow-up to app %q token %q auth %q; want the application id, the interaction token and no bot token", fu.app, fu.token, fu.auth)
	}
	payload, files := multipartParts(t, fu.contentType, fu.body)
	if !bytes.Contains(payload, []byte(`"allowed_mentions":{"parse":[]}`)) || bytes.Contains(payload, []byte(`"flags"`)) {
		t.Errorf("follow-up payload %s", payload)
	}
	if _, err := png.Decode(bytes.NewReader(files[odds.DiceOddsFile])); err != nil {
		t.Fatalf("follow-up chart: %v (files %v)", err, len(files))
	}

	// Export, then import the file into another channel from the CDN.
	post(interaction(t, "1311000000000090002", "table", sub("setup", map[string]any{"name": "system", "type": 3, "value": "harm"}), nil))
	post(interaction(t, "1311000000000090003", "table", sub("export"), nil))
	if len(fake.followUps) != 2 {
		t.Fatalf("%d follow-ups; want 2", len(fake.followUps))
	}
	payload, files = multipartParts(t, fake.followUps[1].contentType, fake.followUps[1].body)
	export := files["hpkeeper-table.json"]
	if !bytes.Contains(payload, []byte(`"flags":64`)) || !bytes.Contains(export, []byte(`"format": "hpkeeper-table"`)) {
		t.Fatalf("export follow-up payload %s file %.80s; want an ephemeral JSON export", payload, export)
	}
	fake.cdn["/attachments/1/2/table.json"] = export
	att := func(url string) map[string]any {
		return map[string]any{"attachments": map[string]any{"900": map[string]any{"id": "900", "filename": "table.json", "url": url, "size": len(export)}}}
	}
	imp := func(id, url string) []byte {
		b := interaction(t, id, "table", sub("import", map[string]any{"name": "file", "type": 11, "value": "900"}), att(url))
		return bytes.ReplaceAll(b, []byte("1311000000000000200"), []byte("1311000000000000299")) // another channel
	}
	// Never fetched: a host that is not Discord's CDN.
	w = post(imp("1311000000000090004", fake.srv.URL+"/attachments/1/2/table.json"))
	if !strings.Contains(w.Data.Content, "Could not download the file") || !strings.Contains(w.Data.Content, "not on Discord") {
		t.Fatalf("import from a foreign host: %+v", w)
	}
	w = post(imp("1311000000000090005", "https://cdn.discordapp.com/attachments/1/2/table.json"))
	if !strings.Contains(w.Data.Content, "Imported a **harm** table") {
		t.Fatalf("import: %+v", w)
	}
}

// TestCallbackMultipart: the gateway's callback carries files as a
// multipart body whose payload_json is the usual JSON.
func TestCallbackMultipart(t *testing.T) {
	resp := ResponseFrom(commands.KindCommand, &commands.Response{Content: "chart", Files: []commands.File{{Name: "a.png", ContentType: "image/png", Data: []byte("PNG")}}})
	want, err := EncodeResponse(ResponseFrom(commands.KindCommand, &commands.Response{Content: "chart"}))
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		payload, files := multipartParts(t, r.Header.Get("Content-Type"), got)
		if !bytes.Equal(payload, want) || string(files["a.png"]) != "PNG" {
			t.Errorf("payload %s files %q; want %s and a.png", payload, files, want)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	s := &discordgo.Session{Client: loopbackClient(t, srv.URL), UserAgent: "test"}
	if err := respond(context.Background(), s, &discordgo.Interaction{ID: "1", Token: "tok"}, resp); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("no callback")
	}
	// Without files the callback stays JSON.
	ct, body, err := callbackBody(ResponseFrom(commands.KindCommand, &commands.Response{Content: "chart"}))
	if err != nil || ct != "application/json" || !bytes.Equal(body, want) {
		t.Errorf("callbackBody = %q %s %v", ct, body, err)
	}
}

func TestDownloadOnlyFromCDN(t *testing.T) {
	for _, u := range []string{"http://cdn.discordapp.com/a", "https://evil.example/a", "https://cdn.discordapp.com:8443/a", "https://user@cdn.discordapp.com/a", "file:///etc/passwd", "https://cdn.discordapp.com.evil.example/a"} {
		if _, err := download(context.Background(), http.DefaultClient, u); !errors.Is(err, errAttachmentHost) {
			t.Errorf("download(%q) = %v; want errAttachmentHost", u, err)
		}
	}
}

// gmInteraction is the table_setup fixture (the GM, in a guild channel) as
// an interaction of type typ with data.
func gmInteraction(t *testing.T, id string, typ int, data map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(fixture(t, "table_setup.json"), &m); err != nil {
		t.Fatal(err)
	}
	m["id"], m["type"], m["data"] = id, typ, data
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEndpointManualDice: physical dice over HTTP: the prompt's button, the
// modal, the refusal of a player who does not own the character, and the
// submit that applies the roll.
func TestEndpointManualDice(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewScripted())
	defer db.Close()
	kp := newKeyPair(t)
	now := time.Now()
	srv := endpointServer(t, svc, kp, now, testLogger(t))
	post := func(body []byte) wireResponse {
		t.Helper()
		status, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, body, now))
		if status != 200 {
			t.Fatalf("status %d: %s", status, b)
		}
		return decodeWire(t, b)
	}
	opt := func(name, value string) map[string]any {
		return map[string]any{"name": name, "type": 3, "value": value}
	}
	post(interaction(t, "1311000000000091001", "table", sub("setup", opt("system", "hit-protection")), nil))
	post(interaction(t, "1311000000000091002", "char", sub("create", opt("name", "Lister"), opt("stats", "class=fighter hp=5")), nil))
	post(interaction(t, "1311000000000091003", "table", sub("option", opt("name", "dice"), opt("value", "manual")), nil))
	w := post(interaction(t, "1311000000000091004", "damage", []map[string]any{opt("target", "Lister"), opt("amount", "1d6")}, nil))
	if w.Type != 4 || !strings.Contains(w.Data.Content, "roll **1d6**") || len(w.Data.Components) != 1 {
		t.Fatalf("prompt %+v", w)
	}
	if len(w.Data.Components[0].Components) != 1 {
		t.Fatalf("prompt components %+v", w.Data.Components)
	}
	customID := w.Data.Components[0].Components[0].CustomID

	// A player who does not own Lister may not enter the dice.
	player := bytes.ReplaceAll(fixture(t, "component_button.json"), []byte("{{custom_id}}"), []byte(customID))
	if w := post(player); w.Data.Flags != 64 || !strings.Contains(w.Data.Content, "enters these dice") {
		t.Errorf("player press %+v", w)
	}
	w = post(gmInteraction(t, "1311000000000091005", 3, map[string]any{"component_type": 2, "custom_id": customID}))
	if w.Type != 9 {
		t.Fatalf("press: type %d; want a modal (9)", w.Type)
	}
	submit := func(id, faces string) wireResponse {
		return post(gmInteraction(t, id, 5, map[string]any{"custom_id": customID, "components": []map[string]any{
			{"type": 1, "components": []map[string]any{{"type": 4, "custom_id": "faces", "value": faces}}}}}))
	}
	if w := submit("1311000000000091006", "7"); w.Data.Flags != 64 || !strings.Contains(w.Data.Content, "cannot come up on a d6") {
		t.Errorf("bad face %+v", w)
	}
	w = submit("1311000000000091007", "4")
	if w.Type != 7 || !strings.Contains(w.text(), "1d6 [4] = 4") || !strings.Contains(w.text(), "5 → 1") {
		t.Errorf("submit %+v: %s", w, w.text())
	}
}
