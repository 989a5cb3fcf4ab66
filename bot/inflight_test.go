package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// gatedHandler answers each request once its interaction's gate opens
// (requests whose id has no gate are answered at once), and records the
// interaction ids it was asked to answer.
type gatedHandler struct {
	mu    sync.Mutex
	gates map[string]chan struct{}
	asked []string
}

func (h *gatedHandler) gate(id string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gates == nil {
		h.gates = map[string]chan struct{}{}
	}
	g := make(chan struct{})
	h.gates[id] = g
	return g
}

func (h *gatedHandler) Handle(_ context.Context, r *commands.Request) *commands.Response {
	h.mu.Lock()
	h.asked = append(h.asked, r.InteractionID)
	g := h.gates[r.InteractionID]
	h.mu.Unlock()
	if g != nil {
		<-g
	}
	return &commands.Response{Content: "answered " + r.InteractionID}
}

func (h *gatedHandler) askedFor() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.asked...)
}

// variant returns fixture body as interaction id (its token follows), from
// user in channel.
func variant(body []byte, id, user, channel string) []byte {
	b := bytes.ReplaceAll(body, []byte("1311000000000010004"), []byte(id))
	b = bytes.ReplaceAll(b, []byte(`"1311000000000001001"`), []byte(`"`+user+`"`))
	return bytes.ReplaceAll(b, []byte(`"1311000000000000200"`), []byte(`"`+channel+`"`))
}

// TestADeferredCommandHoldsTheNext is issue 26's "the client sends the next
// while it runs": while a user's deferred command runs at a table, their
// next command there is not started, and is answered at once, ephemeral,
// saying which one still runs; the same user at another table, and
// another user at the same table, are served; once the first has answered,
// the user's next command runs.
func TestADeferredCommandHoldsTheNext(t *testing.T) {
	fake := newFakeWebhooks(t)
	kp := newKeyPair(t)
	h := &gatedHandler{}
	ep, err := NewEndpoint(h, kp.pub, zerolog.New(zerolog.NewTestWriter(t)), WithDeferAfter(20*time.Millisecond),
		WithFilesClient(loopbackClient(t, fake.srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	damage := fixture(t, "damage.json")
	const ann, bob, here, there = "1311000000000001001", "1311000000000001002", "1311000000000000200", "1311000000000000201"
	send := func(id, user, channel string) wireResponse {
		t.Helper()
		rec := httptest.NewRecorder()
		ep.ServeHTTP(rec, signed(kp, variant(damage, id, user, channel), time.Now()))
		if rec.Code != 200 {
			t.Fatalf("interaction %s: %d %s", id, rec.Code, rec.Body)
		}
		return decodeWire(t, rec.Body.Bytes())
	}
	first := h.gate("1311000000000010101")
	if w := send("1311000000000010101", ann, here); w.Type != 5 {
		t.Fatalf("ann's first command: type %d; want it deferred (5)", w.Type)
	}
	w := send("1311000000000010102", ann, here)
	if w.Type != 4 || w.Data == nil || w.Data.Flags&64 == 0 || w.Data.Content != "Your /damage here is still running; its answer will come in a moment. Nothing was done with this one: send it again once that answer has come." {
		t.Errorf("ann's second command at the same table: %+v; want an ephemeral StillRunning at once", w)
	}
	if got := h.askedFor(); len(got) != 1 {
		t.Errorf("the handler was asked for %v; want only ann's first command", got)
	}
	for _, c := range []struct{ id, user, channel string }{{"1311000000000010103", ann, there}, {"1311000000000010104", bob, here}} {
		if w := send(c.id, c.user, c.channel); w.Type != 4 || !strings.Contains(w.text(), "answered "+c.id) {
			t.Errorf("user %s at table %s: %+v; want it answered", c.user, c.channel, w)
		}
	}
	close(first)
	ep.Wait()
	if w := send("1311000000000010105", ann, here); w.Type != 4 || !strings.Contains(w.text(), "answered 1311000000000010105") {
		t.Errorf("ann's command once the first answered: %+v; want it answered", w)
	}
}

// fakeSettler is a store that says interaction applied was saved as event
// 7 and every other was not; StopWrites blocks until unblock is closed
// (nil: it returns at once), and records the order of the calls.
type fakeSettler struct {
	applied string
	unblock chan struct{}
	mu      sync.Mutex
	calls   []string
}

func (f *fakeSettler) StopWrites() {
	f.mu.Lock()
	f.calls = append(f.calls, "StopWrites")
	f.mu.Unlock()
	if f.unblock != nil {
		<-f.unblock
	}
}

func (f *fakeSettler) InteractionApplied(channelID, id string) (storage.Interaction, bool, error) {
	f.mu.Lock()
	f.calls = append(f.calls, "InteractionApplied "+id)
	f.mu.Unlock()
	if id == f.applied {
		return storage.Interaction{ID: id, ChannelID: channelID, EventSeq: 7}, true, nil
	}
	return storage.Interaction{}, false, nil
}

// TestCloseSettlesDeferredCommands is issue 26's "none of 74 deferred undos
// was answered 20 s after SIGTERM": Close waits StopGrace for the deferred
// commands still running, then stops the store's writes and tells each,
// through its webhook, whether it was applied (its change saved) or
// cancelled; a command that answers within the grace is answered; and
// when the writes cannot be stopped in time, each is told it may or may
// not have been applied. Their own answers, coming later, are not sent.
func TestCloseSettlesDeferredCommands(t *testing.T) {
	damage := fixture(t, "damage.json")
	for _, c := range []struct {
		name    string
		blocked bool // StopWrites does not return in time
		want    map[string]string
	}{
		{"told whether applied", false, map[string]string{
			"1311000000000010201": "answered 1311000000000010201",
			"1311000000000010202": "This was applied (#7 in /history), but the bot was restarting and stopped before it could show the result.",
			"1311000000000010203": CancelledAtStop,
		}},
		{"writes not stopped in time", true, map[string]string{
			"1311000000000010202": UnknownAtStop,
			"1311000000000010203": UnknownAtStop,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fake := newFakeWebhooks(t)
			kp := newKeyPair(t)
			h := &gatedHandler{}
			st := &fakeSettler{applied: "1311000000000010202"}
			if c.blocked {
				st.unblock = make(chan struct{})
				defer close(st.unblock)
			}
			ep, err := NewEndpoint(h, kp.pub, zerolog.New(zerolog.NewTestWriter(t)), WithDeferAfter(20*time.Millisecond),
				WithFilesClient(loopbackClient(t, fake.srv.URL)), WithSettler(st))
			if err != nil {
				t.Fatal(err)
			}
			gates := map[string]chan struct{}{}
			users := []string{"1311000000000001001", "1311000000000001002", "1311000000000001003"}
			i := 0
			for id := range c.want {
				gates[id] = h.gate(id)
				rec := httptest.NewRecorder()
				ep.ServeHTTP(rec, signed(kp, variant(damage, id, users[i], "1311000000000000200"), time.Now()))
				i++
				if w := decodeWire(t, rec.Body.Bytes()); w.Type != 5 {
					t.Fatalf("%s: type %d; want it deferred", id, w.Type)
				}
			}
			closed := make(chan error, 1)
			go func() { closed <- ep.Close() }()
			if g := gates["1311000000000010201"]; g != nil {
				close(g) // answers within the grace
			}
			select {
			case err := <-closed:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("Close did not return within a minute with commands still running")
			}
			for _, g := range gates {
				select {
				case <-g:
				default:
					close(g) // their answers come too late: not sent
				}
			}
			time.Sleep(50 * time.Millisecond)
			told := map[string]string{}
			for _, call := range fake.recorded() {
				if call.method == "DELETE" {
					continue
				}
				var msg struct {
					Content string `json:"content"`
				}
				if err := json.Unmarshal(call.payload, &msg); err != nil {
					t.Fatal(err)
				}
				id, _, _ := strings.Cut(strings.TrimPrefix(call.path, webhookPath+"aW50ZXJhY3Rpb246"), ":")
				if prev, ok := told[id]; ok {
					t.Errorf("interaction %s told twice: %q, then %q", id, prev, msg.Content)
				}
				told[id] = msg.Content
			}
			for id, want := range c.want {
				if told[id] != want {
					t.Errorf("interaction %s was told %q; want %q", id, told[id], want)
				}
			}
			st.mu.Lock()
			calls := st.calls
			st.mu.Unlock()
			if len(calls) == 0 || calls[0] != "StopWrites" {
				t.Errorf("the store was asked %v; want its writes stopped first", calls)
			}
		})
	}
}
