package bot

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/harm"
	"github.com/hpkeeper/hpkeeper/commands/hitprot"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// fixtureDir holds the Discord interaction payloads the tests replay, owned
// by this repository (testdata/interactions/README.md says what each is).
var fixtureDir = filepath.Join("testdata", "interactions")

// fixture returns the bytes of an interaction fixture; a missing file fails
// the test.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("read fixture %s: %v", name, err)
	}
	return b
}

// decodeFixture decodes a fixture as discordgo does.
func decodeFixture(t *testing.T, name string) *discordgo.Interaction {
	t.Helper()
	var i discordgo.Interaction
	if err := json.Unmarshal(fixture(t, name), &i); err != nil {
		t.Fatalf("decode fixture %s: %v", name, err)
	}
	return &i
}

// systems are the rule systems the bot's tests play, as cmd/hpkeeper wires
// them.
var systems = []commands.System{hitprot.System{}, hpmpwp.System{}, harm.System{}}

// features returns a fresh set of the features the bot's tests play, as
// cmd/hpkeeper wires them.
func features() []commands.Feature { return commandstest.Features() }

// testLogger logs through t.
func testLogger(t *testing.T) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Timestamp().Logger()
}

// openService opens (or reopens) the bbolt file at path and returns a service
// rolling with src (seeded random dice when nil). The caller closes the db.
func openService(t testing.TB, path string, src dice.Source) (*commands.Service, *storage.DB) {
	t.Helper()
	db, err := storage.Open(path, storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("storage.Open(%s) = %v", path, err)
	}
	if src == nil {
		src = dice.NewRandom(1)
	}
	return commands.New(db, src, systems, features()...), db
}

// keyPair is a generated application key pair.
type keyPair struct {
	pub  ed25519.PublicKey
	priv ed25519.PrivateKey
}

func newKeyPair(t testing.TB) keyPair {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	return keyPair{pub, priv}
}

// signedRequest builds a POST to target signed as Discord signs: Ed25519 over
// timestamp + body, hex in X-Signature-Ed25519.
func (k keyPair) signedRequest(t *testing.T, target string, body []byte, ts time.Time) *http.Request {
	t.Helper()
	stamp := strconv.FormatInt(ts.Unix(), 10)
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sig := ed25519.Sign(k.priv, append([]byte(stamp), body...))
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
	req.Header.Set("X-Signature-Timestamp", stamp)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// do sends req and returns the status and body.
func do(t *testing.T, c *http.Client, req *http.Request) (int, []byte) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	return resp.StatusCode, b
}

// wireResponse is an interaction response as Discord reads it.
type wireResponse struct {
	Type int `json:"type"`
	Data *struct {
		Content         string           `json:"content"`
		Flags           int              `json:"flags"`
		Embeds          []map[string]any `json:"embeds"`
		AllowedMentions *struct {
			Parse []string `json:"parse"`
		} `json:"allowed_mentions"`
		Components []struct {
			Type int `json:"type"`
			// Label and Component are a Label's (type 18, in a modal).
			Label     string `json:"label"`
			Component *struct {
				Type     int     `json:"type"`
				CustomID string  `json:"custom_id"`
				Label    *string `json:"label"`
				Style    int     `json:"style"`
			} `json:"component"`
			Components []struct {
				Type     int    `json:"type"`
				Label    string `json:"label"`
				CustomID string `json:"custom_id"`
				Style    int    `json:"style"`
				Disabled bool   `json:"disabled"`
			} `json:"components"`
		} `json:"components"`
		Choices []struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
		} `json:"choices"`
		CustomID string `json:"custom_id"`
		Title    string `json:"title"`
	} `json:"data"`
}

// modalInputs returns the custom_ids of a modal's text inputs, each of
// which must sit alone in a Label without a label of its own (as Discord
// documents modals now); nil for a modal of another shape.
func (w wireResponse) modalInputs() []string {
	if w.Type != 9 || w.Data == nil {
		return nil
	}
	var ids []string
	for _, c := range w.Data.Components {
		if c.Type != 18 || c.Label == "" || c.Component == nil || c.Component.Type != 4 || c.Component.Label != nil {
			return nil
		}
		ids = append(ids, c.Component.CustomID)
	}
	return ids
}

func decodeWire(t *testing.T, b []byte) wireResponse {
	t.Helper()
	var w wireResponse
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatalf("decode response %s: %v", b, err)
	}
	return w
}

// text is everything a reader sees in a message response.
func (w wireResponse) text() string {
	if w.Data == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(w.Data.Content)
	for _, e := range w.Data.Embeds {
		for _, k := range []string{"title", "description"} {
			if s, ok := e[k].(string); ok {
				b.WriteString("\n" + s)
			}
		}
		if fs, ok := e["fields"].([]any); ok {
			for _, f := range fs {
				if m, ok := f.(map[string]any); ok {
					b.WriteString("\n" + fmtAny(m["name"]) + ": " + fmtAny(m["value"]))
				}
			}
		}
		if f, ok := e["footer"].(map[string]any); ok {
			b.WriteString("\n" + fmtAny(f["text"]))
		}
	}
	return b.String()
}

func fmtAny(v any) string {
	s, _ := v.(string)
	return s
}

// wantNoMentions fails unless the response bytes carry allowed mentions that
// parse nothing.
func wantNoMentions(t *testing.T, b []byte) {
	t.Helper()
	if !bytes.Contains(b, []byte(`"allowed_mentions":{"parse":[]}`)) {
		t.Errorf("response %s lacks \"allowed_mentions\":{\"parse\":[]}", b)
	}
}

// offline is the HTTP client of test endpoints that fake no Discord: every
// request fails at once, so a follow-up or a deferred answer never leaves
// the machine.
var offline = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
	return nil, errors.New("tests reach no host beyond loopback")
})}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// loopbackClient returns a client whose requests all go to serverURL.
func loopbackClient(t *testing.T, serverURL string) *http.Client {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: loopbackTransport{host: u.Host, next: http.DefaultTransport}, Timeout: 10 * time.Second}
}

// restSession returns a session with the bot token whose REST calls go
// to a loopback server run by rest, closed when the test ends.
func restSession(t *testing.T, rest http.Handler) *discordgo.Session {
	t.Helper()
	srv := httptest.NewServer(rest)
	t.Cleanup(srv.Close)
	session, err := NewSession("test-token", zerolog.Nop(), WithHTTPClient(loopbackClient(t, srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	return session
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
