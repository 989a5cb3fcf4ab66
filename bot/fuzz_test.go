package bot

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// FuzzInteraction posts arbitrary bodies to the Endpoint in front of a real
// Service over a real bbolt file, signed (so they reach decoding and routing)
// or not. Whatever the body: no panic escapes and none is logged, the status
// is 200, 400, 401 or 413, an unsigned body is always 401, and a 200 reply is
// JSON of a known response type whose messages parse no mentions and keep to
// Discord's 2,000-character content limit.
func FuzzInteraction(f *testing.F) {
	for _, name := range []string{"ping.json", "table_setup.json", "char_create.json", "damage.json",
		"autocomplete_target.json", "component_button.json", "modal_submit.json", "dm_roll.json",
		"modal_submit_label.json", "autocomplete_channel_only.json", "damage_channel_only.json"} {
		b := fixture(f, name)
		f.Add(b, true)
		if name == "component_button.json" || strings.HasPrefix(name, "modal_submit") {
			for _, id := range []string{"hp0:1:3:up", "hp0:1:3:heroic", "hmw:1:2:act", "del:1:abc:yes", "del:99999999999999999999:x:yes", "nope", ":::", "hp0:-1:-1:x"} {
				f.Add(bytes.ReplaceAll(b, []byte("{{custom_id}}"), []byte(id)), true)
			}
		}
	}
	f.Add([]byte(`{"type":2,"id":"1","channel_id":"c","user":{"id":"u"},"data":{"name":"roll","options":[{"name":"expr","type":3,"value":"100d1000"}]}}`), true)
	f.Add([]byte(`{"type":2,"id":"1","channel_id":"c","user":{"id":"u"},"data":{"name":"nope","options":[{"name":"x","type":99,"value":{}}]}}`), true)
	f.Add([]byte(`{"type":3,"id":"1","channel_id":"c","user":{"id":"u"},"data":{"component_type":99,"custom_id":"hp0:1:1:up"}}`), true)
	f.Add([]byte(`{"type":5,"id":"1","channel_id":"c","user":{"id":"u"},"data":{"custom_id":"hp0:1:1:heroic","components":[{"type":1,"components":[{"type":42}]}]}}`), true)
	f.Add([]byte(`{"type":42,"id":"1","user":{"id":"u"},"data":{"name":"roll"}}`), true)
	f.Add([]byte(`{"type":1}`), false)
	f.Add([]byte(`null`), true)
	f.Add([]byte(``), true)

	ep, kp, clock, logs := fuzzEndpoint(f, 1)
	// A table with a character, so commands reach the rules.
	for _, name := range []string{"table_setup.json", "char_create.json"} {
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, signed(kp, fixture(f, name), time.Unix(clock.Add(1), 0)))
		if rec.Code != http.StatusOK {
			f.Fatalf("setup %s: %d %s", name, rec.Code, rec.Body)
		}
	}

	f.Fuzz(func(t *testing.T, body []byte, sign bool) {
		now := time.Unix(clock.Add(1), 0)
		var req *http.Request
		if sign {
			req = signed(kp, body, now)
		} else {
			req = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
			req.Header.Set("X-Signature-Ed25519", strings.Repeat("00", 64))
			req.Header.Set("X-Signature-Timestamp", strconv.FormatInt(now.Unix(), 10))
		}
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, req)
		if l := logs.String(); strings.Contains(l, "panicked") {
			t.Fatalf("a handler panicked on %q: %s", body, l)
		}
		switch rec.Code {
		case http.StatusOK:
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			if !sign {
				t.Fatalf("unsigned body answered %d; want 401", rec.Code)
			}
			return
		case http.StatusUnauthorized:
			if sign {
				t.Fatalf("signed body answered 401")
			}
			return
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if !sign {
			t.Fatalf("unsigned body answered 200: %s", rec.Body)
		}
		var out struct {
			Type int `json:"type"`
			Data *struct {
				Content string `json:"content"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("reply %s is not JSON: %v", rec.Body, err)
		}
		switch out.Type {
		case 1, 5, 6, 8, 9: // 5, 6: deferred, the answer follows by webhook
		case 4, 7:
			if !bytes.Contains(rec.Body.Bytes(), []byte(`"allowed_mentions":{"parse":[]}`)) {
				t.Fatalf("reply %s may ping", rec.Body)
			}
			if out.Data == nil || len([]rune(out.Data.Content)) > 2000 {
				t.Fatalf("reply %s: no data or content over 2,000 characters", rec.Body)
			}
		default:
			t.Fatalf("reply type %d: %s", out.Type, rec.Body)
		}
	})
}

// fuzzEndpoint returns an Endpoint in front of a real Service over a new
// bbolt file, rolling with seed, with a generated key pair, a clock the
// fuzz function moves a second per input (so no two signatures repeat: a
// repeated one is refused as a replay) and the buffer its error log goes to.
func fuzzEndpoint(f *testing.F, seed uint64) (*Endpoint, keyPair, *atomic.Int64, *syncBuffer) {
	db, err := storage.Open(filepath.Join(f.TempDir(), "fuzz.db"), storage.Options{Timeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	kp := newKeyPair(f)
	clock := new(atomic.Int64)
	clock.Store(1_800_000_000)
	logs := new(syncBuffer)
	ep, err := NewEndpoint(commands.New(db, dice.NewRandom(seed), systems, features()...), kp.pub, zerolog.New(logs).Level(zerolog.ErrorLevel),
		WithClock(func() time.Time { return time.Unix(clock.Load(), 0) }), WithFilesClient(offline), WithDeferAfter(0))
	if err != nil {
		f.Fatal(err)
	}
	return ep, kp, clock, logs
}

// signed returns a POST of body signed by kp at ts, for ServeHTTP.
func signed(kp keyPair, body []byte, ts time.Time) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	stamp := strconv.FormatInt(ts.Unix(), 10)
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(ed25519.Sign(kp.priv, append([]byte(stamp), body...))))
	req.Header.Set("X-Signature-Timestamp", stamp)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// FuzzRoute builds well-formed interactions from fuzzed parts (kind, command,
// subcommand, options "name=value;…", custom_id, modal text, caller) and
// posts them, signed, to the Endpoint before a real Service, so the fuzzer
// reaches option validation, every handler and the rule engines rather than
// the JSON decoder. Properties: no panic is logged, every reply is 200 JSON
// of a known type that pings nobody, and no message exceeds 2,000 characters.
func FuzzRoute(f *testing.F) {
	type seed struct {
		kind                               uint8
		command, sub, opts, customID, text string
		user                               uint8
	}
	for _, s := range []seed{
		{0, "damage", "", "target=Lister;amount=4", "", "", 0},
		{0, "damage", "", "target=Lister;amount=2d6+1;soak=true;type=fire", "", "", 1},
		{0, "roll", "", "expr=3d6dl1", "", "", 2},
		{0, "roll", "", "as=Lister;hd=2;expr=1d20", "", "", 0},
		{0, "char", "create", "name=Kryten;stats=class=cleric level=3 hp=2", "", "", 1},
		{0, "char", "set", "name=Lister;stats=hd=0 level=20", "", "", 0},
		{0, "char", "delete", "name=Lister", "", "", 0},
		{0, "table", "setup", "system=harm", "", "", 2},
		{0, "table", "option", "name=catch-breath;value=on", "", "", 2},
		{0, "clock", "", "action=advance;amount=30;unit=days", "", "", 2},
		{0, "rest", "", "kind=night", "", "", 2},
		{0, "save", "", "target=Lister;type=death;bonus=-3", "", "", 0},
		{0, "spend", "", "target=Lister;resource=hd;amount=1", "", "", 0},
		{0, "attend", "", "target=Lister", "", "", 1},
		{0, "treat", "", "target=Lister", "", "", 1},
		{0, "history", "", "target=Lister", "", "", 1},
		{0, "undo", "", "", "", "", 0},
		{0, "help", "", "topic=harm", "", "", 3},
		{1, "", "", "", "hp0:1:3:up", "", 0},
		{1, "", "", "", "hp0:1:3:down", "", 2},
		{1, "", "", "", "del:1:0000:yes", "", 0},
		{2, "", "", "", "hp0:1:3:action", "I hold the door", 0},
		{3, "damage", "", "target=li;amount=", "", "", 0},
	} {
		f.Add(s.kind, s.command, s.sub, s.opts, s.customID, s.text, s.user)
	}
	ep, kp, clock, logs := fuzzEndpoint(f, 3)
	users := []map[string]any{
		{"member": map[string]any{"user": map[string]any{"id": "1311000000000001002", "username": "dave"}, "permissions": "0"}},
		{"member": map[string]any{"user": map[string]any{"id": "1311000000000001003", "username": "kat"}, "permissions": "0"}},
		{"member": map[string]any{"user": map[string]any{"id": "1311000000000001001", "username": "gm"}, "permissions": "16"}},
		{"user": map[string]any{"id": "1311000000000001004", "username": "dm"}},
	}
	post := func(body []byte) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, signed(kp, body, time.Unix(clock.Add(1), 0)))
		return rec
	}
	build := func(kind uint8, command, sub, opts, customID, text string, user uint8) []byte {
		var options []any
		for _, kv := range strings.Split(opts, ";") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				continue
			}
			o := map[string]any{"name": k, "type": 3, "value": v}
			if kind%4 == 3 && len(options) == 0 {
				o["focused"] = true
			}
			options = append(options, o)
		}
		i := map[string]any{"id": strconv.FormatInt(clock.Load(), 10), "application_id": "1", "token": "t", "version": 1,
			"channel_id": "1311000000000000200", "guild_id": "1311000000000000100"}
		for k, v := range users[int(user)%len(users)] {
			i[k] = v
		}
		if _, dm := i["user"]; dm {
			delete(i, "guild_id")
			i["channel_id"] = "1311000000000000300"
		}
		switch kind % 4 {
		case 0, 3:
			i["type"] = 2
			if kind%4 == 3 {
				i["type"] = 4
			}
			data := map[string]any{"id": "9", "name": command, "type": 1, "options": options}
			if sub != "" {
				data["options"] = []any{map[string]any{"name": sub, "type": 1, "options": options}}
			}
			i["data"] = data
		case 1:
			i["type"] = 3
			i["data"] = map[string]any{"component_type": 2, "custom_id": customID}
		case 2:
			i["type"] = 5
			i["data"] = map[string]any{"custom_id": customID, "components": []any{map[string]any{"type": 1,
				"components": []any{map[string]any{"type": 4, "custom_id": "heroic-action", "value": text}}}}}
		}
		b, err := json.Marshal(i)
		if err != nil {
			panic(err)
		}
		return b
	}
	// A table with a character at 0 HP, so buttons and rules are reachable.
	for _, b := range [][]byte{
		build(0, "table", "setup", "system=hit-protection", "", "", 2),
		build(0, "char", "create", "name=Lister;stats=hit-die=d6 hp=4", "", "", 0),
	} {
		if rec := post(b); rec.Code != http.StatusOK {
			f.Fatalf("setup: %d %s", rec.Code, rec.Body)
		}
	}

	f.Fuzz(func(t *testing.T, kind uint8, command, sub, opts, customID, text string, user uint8) {
		body := build(kind, command, sub, opts, customID, text, user)
		rec := post(body)
		if l := logs.String(); strings.Contains(l, "panicked") {
			t.Fatalf("a handler panicked on %s: %s", body, l)
		}
		if rec.Code == http.StatusRequestEntityTooLarge {
			return
		}
		if rec.Code != http.StatusOK {
			// Only an interaction RequestFrom cannot read is a 400.
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d for %s: %s", rec.Code, body, rec.Body)
			}
			return
		}
		var out struct {
			Type int `json:"type"`
			Data *struct {
				Content string `json:"content"`
			} `json:"data"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("reply %s is not JSON: %v", rec.Body, err)
		}
		switch out.Type {
		case 5, 6, 8, 9: // 5, 6: deferred, the answer follows by webhook
		case 4, 7:
			if !bytes.Contains(rec.Body.Bytes(), []byte(`"allowed_mentions":{"parse":[]}`)) {
				t.Fatalf("reply %s may ping", rec.Body)
			}
			if out.Data == nil || len([]rune(out.Data.Content)) > 2000 {
				t.Fatalf("reply %s: no data or content over 2,000 characters", rec.Body)
			}
		default:
			t.Fatalf("reply type %d to %s: %s", out.Type, body, rec.Body)
		}
	})
}

// FuzzDecodeInteraction compares decodeInteraction with discordgo's own
// decoding on arbitrary bodies: whenever discordgo decodes a body,
// decodeInteraction must decode it too, with the same identifying fields,
// logged user and RequestFrom result (see decodeDiff). A modal submit in
// Labels, which discordgo refuses, is compared with discordgo's reading of
// its action-row shape (actionRowShape). It is seeded with the interaction
// fixtures and the cases of decode_test.go.
func FuzzDecodeInteraction(f *testing.F) {
	for _, b := range fixtureBodies(f) {
		f.Add(b)
	}
	for _, c := range decodeCases {
		f.Add([]byte(c.body))
	}
	f.Add([]byte(messageWithUnknownComponent))
	f.Fuzz(func(t *testing.T, body []byte) {
		want, err := oracleDecode(body)
		if err != nil {
			got, err := decodeInteraction(body)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "decode interaction") {
					t.Fatalf("decodeInteraction error %q lacks its prefix", err)
				}
				return
			}
			// discordgo refuses a Label: compare with its reading of the
			// action-row shape, where re-encoding changes nothing of ours.
			legacy, err := actionRowShape(body)
			if err != nil || bytes.Equal(legacy, body) {
				return
			}
			if want, err = oracleDecode(legacy); err != nil || !sameReading(got, reencode(body)) {
				return
			}
		}
		if d := decodeDiff(body, want); d != "" {
			t.Fatalf("%s\nbody: %q", d, body)
		}
	})
}

// reencode returns body decoded into generic JSON and encoded again, or body
// when it is not a JSON object.
func reencode(body []byte) []byte {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return body
	}
	b, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return b
}

// sameReading reports whether decodeInteraction reads body as it read got:
// the same identifying fields and RequestFrom result.
func sameReading(got *discordgo.Interaction, body []byte) bool {
	again, err := decodeInteraction(body)
	if err != nil {
		return false
	}
	now := time.Unix(1_800_000_000, 0)
	r1, e1 := RequestFrom(got, now)
	r2, e2 := RequestFrom(again, now)
	return got.ID == again.ID && got.Type == again.Type && got.ChannelID == again.ChannelID && got.GuildID == again.GuildID &&
		got.Token == again.Token && got.AppID == again.AppID && loggedUser(got) == loggedUser(again) &&
		fmt.Sprint(e1) == fmt.Sprint(e2) && reflect.DeepEqual(r1, r2)
}
