package bot

// Tests of SECURITY.md's promises through the HTTP endpoint: loopback,
// signed requests, a real Service over a real bbolt file.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

const (
	secChannel = "1311000000000000200"
	secGuild   = "1311000000000000100"
	secGM      = "1311000000000001001" // sets the table up: its GM
	secPlayer  = "1311000000000001002"
)

// secServer is an Endpoint over a real service and bbolt file, on loopback.
type secServer struct {
	t      *testing.T
	path   string
	db     *storage.DB
	srv    *httptest.Server
	kp     keyPair
	now    atomic.Int64 // the endpoint's clock, Unix seconds
	logs   *syncBuffer
	client *http.Client
}

// nextInteractionID numbers the interactions of every secServer of the
// test binary: as Discord's, an interaction's id is never reused, also not
// after a restart (a change is applied once per interaction).
var nextInteractionID atomic.Int64

func newSecServer(t *testing.T, path string, kp keyPair) *secServer {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "hpkeeper.db")
	}
	s := &secServer{t: t, path: path, kp: kp, logs: &syncBuffer{}}
	s.now.Store(time.Now().Unix())
	svc, db := openService(t, path, dice.NewRandom(uint64(time.Now().UnixNano())))
	s.db = db
	// These tests read inline replies, also from a thousand requests at
	// once (seconds under -race): no deferral (deferred_test.go tests it).
	ep, err := NewEndpoint(svc, kp.pub, zerolog.New(s.logs), WithClock(func() time.Time { return time.Unix(s.now.Load(), 0) }),
		WithFilesClient(offline), WithDeferAfter(0))
	if err != nil {
		t.Fatal(err)
	}
	s.srv = httptest.NewServer(ep)
	s.client = &http.Client{Transport: &http.Transport{MaxConnsPerHost: 128, MaxIdleConnsPerHost: 128}, Timeout: 60 * time.Second}
	t.Cleanup(s.close)
	return s
}

// close stops the server and closes the database (idempotent).
func (s *secServer) close() {
	if s.srv == nil {
		return
	}
	s.srv.Close()
	s.client.CloseIdleConnections()
	if err := s.db.Close(); err != nil {
		s.t.Errorf("close db: %v", err)
	}
	if l := s.logs.String(); strings.Contains(l, "panicked") {
		s.t.Errorf("a handler panicked:\n%s", l)
	}
	s.srv = nil
}

// user is who sends an interaction: a guild member (with permissions) or,
// when dm, a user in a DM.
type user struct {
	id, name string
	perms    int64
	dm       bool
}

var (
	gmUser     = user{id: secGM, name: "Rowan"}
	playerUser = user{id: secPlayer, name: "Dave"}
)

// command returns the interaction JSON of a slash command; opts are
// name/value pairs sent as string options.
func (s *secServer) command(u user, command, sub string, opts ...string) []byte {
	var o []map[string]any
	for i := 0; i+1 < len(opts); i += 2 {
		o = append(o, map[string]any{"name": opts[i], "type": 3, "value": opts[i+1]})
	}
	data := map[string]any{"id": "9", "name": command, "type": 1, "options": o}
	if sub != "" {
		data["options"] = []map[string]any{{"name": sub, "type": 1, "options": o}}
	}
	return s.interaction(u, 2, data)
}

// press returns the interaction JSON of a button press.
func (s *secServer) press(u user, customID string) []byte {
	return s.interaction(u, 3, map[string]any{"component_type": 2, "custom_id": customID})
}

// submit returns the interaction JSON of a modal submit with one text input.
func (s *secServer) submit(u user, customID, inputID, text string) []byte {
	return s.interaction(u, 5, map[string]any{"custom_id": customID, "components": []any{
		map[string]any{"type": 1, "components": []any{map[string]any{"type": 4, "custom_id": inputID, "value": text}}},
	}})
}

func (s *secServer) interaction(u user, typ int, data map[string]any) []byte {
	i := map[string]any{
		"id": strconv.FormatInt(1311000000000100000+nextInteractionID.Add(1), 10), "application_id": "1311000000000000001",
		"type": typ, "token": "tok", "version": 1, "channel_id": secChannel, "data": data,
	}
	who := map[string]any{"id": u.id, "username": u.name, "global_name": u.name}
	if u.dm {
		i["user"] = who
		i["channel_id"] = "dm-" + u.id
	} else {
		i["guild_id"] = secGuild
		i["member"] = map[string]any{"user": who, "permissions": strconv.FormatInt(u.perms, 10), "nick": nil}
	}
	b, err := json.Marshal(i)
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

// post signs body (at the endpoint's clock) and posts it.
func (s *secServer) post(body []byte) (int, []byte) {
	s.t.Helper()
	return do(s.t, s.client, s.kp.signedRequest(s.t, s.srv.URL, body, time.Unix(s.now.Load(), 0)))
}

// ok posts body and fails unless the reply is a public message (type 4 or 7).
func (s *secServer) ok(body []byte) wireResponse {
	s.t.Helper()
	status, b := s.post(body)
	w := decodeWire(s.t, b)
	if status != 200 || (w.Type != 4 && w.Type != 7) || w.Data == nil || w.Data.Flags&64 != 0 {
		s.t.Fatalf("POST %.300s: %d %s; want a public message", body, status, b)
	}
	wantNoMentions(s.t, b)
	return w
}

// refused posts body and fails unless the reply is an ephemeral message
// containing want.
func (s *secServer) refused(body []byte, want string) wireResponse {
	s.t.Helper()
	status, b := s.post(body)
	w := decodeWire(s.t, b)
	if status != 200 || w.Type != 4 || w.Data == nil || w.Data.Flags&64 == 0 || !strings.Contains(w.text(), want) {
		s.t.Fatalf("POST %.300s: %d %s; want an ephemeral reply containing %q", body, status, b, want)
	}
	wantNoMentions(s.t, b)
	return w
}

// buttons maps the labels of a reply's buttons to their custom_ids.
func buttons(w wireResponse) map[string]string {
	ids := map[string]string{}
	for _, row := range w.Data.Components {
		for _, b := range row.Components {
			ids[b.Label] = b.CustomID
		}
	}
	return ids
}

// snapshot is the stored state of the test channel: every character's
// record and the number of events.
func (s *secServer) snapshot() string {
	s.t.Helper()
	var b strings.Builder
	err := s.db.View(func(tx *storage.Tx) error {
		cs, err := tx.Characters(secChannel)
		if err != nil {
			return err
		}
		for _, c := range cs {
			fmt.Fprintf(&b, "%d %s %s %s\n", c.ID, c.Name, c.OwnerID, c.Sheet)
		}
		seq, err := tx.LastEventSeq(secChannel)
		fmt.Fprintf(&b, "events %d\n", seq)
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return b.String()
}

// events returns the test channel's events, oldest first.
func (s *secServer) events() []*storage.Event {
	s.t.Helper()
	var out []*storage.Event
	err := s.db.View(func(tx *storage.Tx) error {
		return tx.EachEventBackward(secChannel, func(e *storage.Event) (bool, error) {
			out = append(out, e)
			return true, nil
		})
	})
	if err != nil {
		s.t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

func sheetInt(t *testing.T, c *storage.Character, key string) int {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Sheet, &m); err != nil {
		t.Fatal(err)
	}
	f, ok := m[key].(float64)
	if !ok {
		t.Fatalf("sheet %s has no number %q", c.Sheet, key)
	}
	return int(f)
}

// TestConcurrentDamageLosesNothing sends 1,000 concurrent signed
// `/damage amount:1` to one character over loopback: HP, the history and
// the event count must be exact (SECURITY.md promise 1).
func TestConcurrentDamageLosesNothing(t *testing.T) {
	const n = 1000
	s := newSecServer(t, "", newKeyPair(t))
	s.ok(s.command(gmUser, "table", "setup", "system", "hp-mp-wp"))
	s.ok(s.command(playerUser, "char", "create", "name", "Rimmer", "stats", "hp-max=5000 mp-max=0"))
	start := time.Now()
	var wg sync.WaitGroup
	var bad atomic.Int32
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		req := s.kp.signedRequest(t, s.srv.URL, s.command(playerUser, "damage", "", "target", "Rimmer", "amount", "1"), time.Unix(s.now.Load(), 0))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			resp, err := s.client.Do(req)
			if err != nil {
				t.Errorf("POST: %v", err)
				bad.Add(1)
				return
			}
			defer resp.Body.Close()
			var w wireResponse
			if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&w) != nil || w.Type != 4 || w.Data.Flags&64 != 0 || !strings.Contains(w.Data.Content, "Rimmer") {
				bad.Add(1)
			}
		}()
	}
	close(gate)
	wg.Wait()
	took := time.Since(start)
	if b := bad.Load(); b != 0 {
		t.Fatalf("%d of %d damage requests did not get a public reply", b, n)
	}
	evs := s.events()
	if len(evs) != n+2 {
		t.Fatalf("%d events; want %d (setup, create and %d damages)", len(evs), n+2, n)
	}
	hpBefore := map[int]bool{}
	for i, e := range evs {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d; want %d", i, e.Seq, i+1)
		}
		if i < 2 {
			continue
		}
		if len(e.Changes) != 1 || e.Changes[0].Before == nil || e.Changes[0].After == nil {
			t.Fatalf("event %d: changes %+v; want Rimmer's before and after", e.Seq, e.Changes)
		}
		b, a := sheetInt(t, e.Changes[0].Before, "hp"), sheetInt(t, e.Changes[0].After, "hp")
		if a != b-1 || hpBefore[b] {
			t.Fatalf("event %d: HP %d → %d (seen before: %v); want each HP once, down by 1", e.Seq, b, a, hpBefore[b])
		}
		hpBefore[b] = true
	}
	err := s.db.View(func(tx *storage.Tx) error {
		c, err := tx.CharacterByName(secChannel, "Rimmer")
		if err != nil {
			return err
		}
		if hp := sheetInt(t, c, "hp"); hp != 5000-n {
			t.Errorf("Rimmer has HP %d; want %d", hp, 5000-n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w := s.ok(s.command(playerUser, "history", ""))
	if !strings.Contains(w.text(), fmt.Sprintf("#%d", n+2)) || !strings.Contains(w.text(), fmt.Sprintf("HP %d → %d", 5000-n+1, 5000-n)) {
		t.Errorf("/history %q; want event #%d with HP %d → %d", w.text(), n+2, 5000-n+1, 5000-n)
	}
	t.Logf("%d concurrent signed /damage over loopback in %v (%.0f/s); HP 5000 → %d, %d events, each HP step once",
		n, took.Round(time.Millisecond), float64(n)/took.Seconds(), 5000-n, len(evs))
}

// zeroHP sets up a hit-protection table with the player's Lister at 0 HP and
// returns the 0-HP choice's buttons.
func zeroHP(s *secServer, name string) map[string]string {
	s.t.Helper()
	s.ok(s.command(playerUser, "char", "create", "name", name, "stats", "class=fighter hit-die=d6 hp=2"))
	w := s.ok(s.command(gmUser, "damage", "", "target", name, "amount", "2"))
	ids := buttons(w)
	if ids["Stay Up"] == "" || ids["Go Down"] == "" || ids["Heroic Death"] == "" {
		s.t.Fatalf("damage to 0 HP gave buttons %v; want the 0-HP choice", ids)
	}
	return ids
}

// TestConcurrentPressesOneWins presses Stay Up and Go Down 100 times at once
// on one 0-HP choice: exactly one press updates the message and records an
// event; every other gets an ephemeral "already chosen" (promise 1).
func TestConcurrentPressesOneWins(t *testing.T) {
	s := newSecServer(t, "", newKeyPair(t))
	s.ok(s.command(gmUser, "table", "setup", "system", "hit-protection"))
	ids := zeroHP(s, "Lister")
	before := len(s.events())
	const n = 100
	var wins, refusals atomic.Int32
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		label := "Stay Up"
		if i%2 == 1 {
			label = "Go Down"
		}
		who := playerUser
		if i%3 == 0 {
			who = gmUser
		}
		req := s.kp.signedRequest(t, s.srv.URL, s.press(who, ids[label]), time.Unix(s.now.Load(), 0))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			resp, err := s.client.Do(req)
			if err != nil {
				t.Errorf("press: %v", err)
				return
			}
			defer resp.Body.Close()
			var w wireResponse
			if err := json.NewDecoder(resp.Body).Decode(&w); err != nil || w.Data == nil {
				t.Errorf("press reply: %v", err)
				return
			}
			switch {
			case w.Type == 7 && w.Data.Flags&64 == 0:
				wins.Add(1)
			case w.Type == 4 && w.Data.Flags&64 != 0 && strings.Contains(w.Data.Content, "already chosen"):
				refusals.Add(1)
			default:
				t.Errorf("press reply type %d flags %d %q", w.Type, w.Data.Flags, w.Data.Content)
			}
		}()
	}
	close(gate)
	wg.Wait()
	if wins.Load() != 1 || refusals.Load() != n-1 {
		t.Errorf("%d presses won and %d were refused; want 1 and %d", wins.Load(), refusals.Load(), n-1)
	}
	if got := len(s.events()); got != before+1 {
		t.Errorf("%d events after the presses; want %d (one choice)", got, before+1)
	}
}

// TestButtonsAfterRestart presses buttons after the process restarted (a new
// service and endpoint on the same file): a live choice works; presses on a
// choice already made, on a deleted character and on a choice whose damage
// was undone get an ephemeral notice and change nothing (promise 4).
func TestButtonsAfterRestart(t *testing.T) {
	kp := newKeyPair(t)
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	s := newSecServer(t, path, kp)
	s.ok(s.command(gmUser, "table", "setup", "system", "hit-protection"))
	lister := zeroHP(s, "Lister")
	kryten := zeroHP(s, "Kryten")
	cat := zeroHP(s, "Cat")
	s.ok(s.command(gmUser, "undo", "")) // reverts the damage to Cat: its choice is gone
	del := buttons(s.ok(s.command(gmUser, "char", "delete", "name", "Kryten")))
	if del["Delete"] == "" {
		t.Fatalf("/char delete gave buttons %v; want Delete", del)
	}
	s.ok(s.press(gmUser, del["Delete"]))
	s.close()

	s = newSecServer(t, path, kp) // the restart
	state := s.snapshot()
	w := s.ok(s.press(playerUser, lister["Go Down"]))
	if w.Type != 7 || !strings.Contains(w.text(), "Lister") {
		t.Errorf("Go Down after a restart: type %d %q; want Lister's message updated", w.Type, w.text())
	}
	for _, row := range w.Data.Components {
		for _, b := range row.Components {
			if !b.Disabled {
				t.Errorf("after the press, button %q is still enabled", b.Label)
			}
		}
	}
	if s.snapshot() == state {
		t.Errorf("Go Down after a restart changed nothing")
	}
	for _, tc := range []struct {
		name, customID, want string
	}{
		{"choice already made", lister["Stay Up"], "already chosen"},
		{"character deleted", kryten["Stay Up"], "gone"},
		{"damage undone", cat["Stay Up"], "out of date: the damage it answers (#7) was undone"},
		{"delete pressed twice", del["Delete"], "gone"},
	} {
		t.Run(tc.name, func(st *testing.T) {
			s.t = st
			defer func() { s.t = t }()
			state := s.snapshot()
			s.refused(s.press(playerUser, tc.customID), tc.want)
			s.refused(s.press(gmUser, tc.customID), tc.want)
			if after := s.snapshot(); after != state {
				st.Errorf("a stale press changed the state:\n%s\nbecame\n%s", state, after)
			}
		})
	}
}

// TestSignaturesAndReplays checks the signature rules with a real service:
// a request replayed once its timestamp is over 5 minutes old is refused
// with 401, and so is the exact same signed request sent twice; refused
// requests change nothing (promise 5).
func TestSignaturesAndReplays(t *testing.T) {
	s := newSecServer(t, "", newKeyPair(t))
	s.ok(s.command(gmUser, "table", "setup", "system", "hp-mp-wp"))
	s.ok(s.command(playerUser, "char", "create", "name", "Rimmer", "stats", "hp-max=50 mp-max=0"))
	body := s.command(playerUser, "damage", "", "target", "Rimmer", "amount", "1")
	at := time.Unix(s.now.Load(), 0)
	first := s.kp.signedRequest(t, s.srv.URL, body, at)
	replay := s.kp.signedRequest(t, s.srv.URL, body, at) // the same bytes and headers
	if status, b := do(t, s.client, first); status != 200 {
		t.Fatalf("first request: %d %s", status, b)
	}
	state := s.snapshot()
	if status, b := do(t, s.client, replay); status != http.StatusUnauthorized {
		t.Errorf("the same signed request again: %d %s; want 401", status, b)
	}
	s.now.Add(5*60 + 1)
	old := s.kp.signedRequest(t, s.srv.URL, s.command(playerUser, "damage", "", "target", "Rimmer", "amount", "1"), at)
	if status, b := do(t, s.client, old); status != http.StatusUnauthorized {
		t.Errorf("a request signed 5 min 1 s ago: %d %s; want 401", status, b)
	}
	wrong := newKeyPair(t).signedRequest(t, s.srv.URL, body, time.Unix(s.now.Load(), 0))
	if status, _ := do(t, s.client, wrong); status != http.StatusUnauthorized {
		t.Errorf("wrong key: %d; want 401", status)
	}
	if s.snapshot() != state {
		t.Errorf("a refused request changed the state")
	}
}

// TestHostileInteractions posts interactions the bot does not know or that
// are malformed: each gets a clear ephemeral reply or a 400, and nothing
// panics (promise 5).
func TestHostileInteractions(t *testing.T) {
	s := newSecServer(t, "", newKeyPair(t))
	s.ok(s.command(gmUser, "table", "setup", "system", "hit-protection"))
	s.ok(s.command(playerUser, "char", "create", "name", "Lister", "stats", "hit-die=d6 hp=4"))
	raw := func(v map[string]any) []byte {
		v["id"] = strconv.FormatInt(1311000000000200000+nextInteractionID.Add(1), 10)
		if _, ok := v["member"]; !ok {
			v["member"] = map[string]any{"user": map[string]any{"id": secPlayer, "username": "dave"}, "permissions": "0"}
		}
		v["channel_id"], v["guild_id"] = secChannel, secGuild
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	replies := []struct {
		name string
		body []byte
		want string
	}{
		{"unknown command", s.command(playerUser, "frobnicate", ""), "Unknown command"},
		{"unknown subcommand", s.command(playerUser, "char", "eat"), "no subcommand"},
		{"unknown option", s.command(playerUser, "roll", "", "expr", "d6", "colour", "red"), "no option"},
		{"option value out of choices", s.command(playerUser, "damage", "", "target", "Lister", "amount", "1", "type", "psychic"), "must be one of"},
		{"unknown button prefix", s.press(playerUser, "zzz:1:2:3"), "no longer handled"},
		{"button of ours, mangled", s.press(playerUser, "hp0:x:y"), ""},
		{"button for a character of another channel", s.press(playerUser, "hp0:999999:1:up"), ""},
		{"unknown component type", raw(map[string]any{"type": 3, "data": map[string]any{"component_type": 99, "custom_id": "del:1:x:yes"}}), ""},
		{"modal with an unknown component", raw(map[string]any{"type": 5, "data": map[string]any{"custom_id": "hp0:1:2:heroic",
			"components": []any{map[string]any{"type": 1, "components": []any{map[string]any{"type": 42, "custom_id": "x"}}}}}}), ""},
		{"option of an unknown type", raw(map[string]any{"type": 2, "data": map[string]any{"name": "roll",
			"options": []any{map[string]any{"name": "expr", "type": 99, "value": map[string]any{"a": 1}}}}}), ""},
		{"integer option with a fraction", raw(map[string]any{"type": 2, "data": map[string]any{"name": "save",
			"options": []any{map[string]any{"name": "target", "type": 3, "value": "Lister"}, map[string]any{"name": "type", "type": 3, "value": "death"}, map[string]any{"name": "bonus", "type": 4, "value": 1.5}}}}), "whole number"},
	}
	for _, tc := range replies {
		state := s.snapshot()
		status, b := s.post(tc.body)
		switch w := decodeWireOrNil(b); {
		case status == http.StatusBadRequest && tc.want == "":
			t.Logf("%s: 400 %s", tc.name, bytes.TrimSpace(b))
		case status != 200 || w == nil || w.Type != 4 || w.Data == nil || w.Data.Flags&64 == 0 || !strings.Contains(w.text(), tc.want):
			t.Errorf("%s: %d %s; want an ephemeral reply containing %q", tc.name, status, b, tc.want)
		case w.Data.Content == commands.Apology:
			t.Errorf("%s: answered with the internal-error apology", tc.name)
		default:
			wantNoMentions(t, b)
			t.Logf("%s: %q", tc.name, w.Data.Content)
		}
		if s.snapshot() != state {
			t.Errorf("%s changed the state", tc.name)
		}
	}
	// Fields discordgo does not know are ignored.
	unknown := raw(map[string]any{"type": 2, "brand_new_field": []any{1, "x", nil}, "member": map[string]any{
		"user": map[string]any{"id": secPlayer, "username": "dave", "future": true}, "permissions": "0", "avatar_frame": map[string]any{}},
		"data": map[string]any{"name": "roll", "type": 1, "new_thing": 7, "options": []any{map[string]any{"name": "expr", "type": 3, "value": "2d6", "extra": "y"}}}})
	if w := s.ok(unknown); !strings.Contains(w.text(), "2d6") {
		t.Errorf("roll with unknown fields: %q; want the 2d6 roll", w.text())
	}
	for _, tc := range []struct {
		name string
		body string
	}{
		{"null", `null`},
		{"empty object", `{}`},
		{"type as a string", `{"id":"1","type":"2","channel_id":"c","user":{"id":"u"},"data":{"name":"roll"}}`},
		{"data not an object", `{"id":"1","type":2,"channel_id":"c","user":{"id":"u"},"data":[1,2]}`},
		{"command without data", `{"id":"1","type":2,"channel_id":"c","user":{"id":"u"}}`},
		{"a JSON array", `[{"type":2}]`},
		{"unknown interaction type", `{"id":"1","type":77,"channel_id":"c","user":{"id":"u"},"data":{}}`},
		{"options not a list", `{"id":"1","type":2,"channel_id":"c","user":{"id":"u"},"data":{"name":"roll","options":{"expr":"d6"}}}`},
		{"truncated", `{"id":"1","type":2,"data":{"name":"ro`},
	} {
		status, b := s.post([]byte(tc.body))
		if status != http.StatusBadRequest {
			w := decodeWireOrNil(b)
			if status != 200 || w == nil || w.Type != 4 || w.Data == nil || w.Data.Flags&64 == 0 {
				t.Errorf("%s: %d %s; want 400 or an ephemeral reply", tc.name, status, b)
			}
		}
	}
}

// mentionRe matches, as Discord parses them, the mentions the test's user
// text contains (the bot's own <@GM> in /table show is not user text).
var mentionRe = regexp.MustCompile(`<@!?1311000000000001002>|<@&1311000000000000101>|@everyone|@here`)

// TestNoPingsFromUserText creates characters whose names are mentions and
// markdown, acts as a user whose nickname is @here, and checks every reply's
// JSON as Discord would receive it: allowed_mentions parses nothing, and the
// user text shows literally (escaped), never as a mention or formatting
// (promise 7).
func TestNoPingsFromUserText(t *testing.T) {
	s := newSecServer(t, "", newKeyPair(t))
	s.ok(s.command(gmUser, "table", "setup", "system", "hit-protection"))
	names := []string{"@everyone", "<@1311000000000001002>", "<@&1311000000000000101>", "**Bold** _it_", "`tick` ~~s~~ ||x||", "@here [l](http://x)"}
	nick := user{id: "1311000000000001009", name: "@here"}
	var bodies [][]byte
	for _, n := range names {
		bodies = append(bodies, s.command(nick, "char", "create", "name", n, "stats", "hit-die=d6 hp=5"))
	}
	bodies = append(bodies,
		s.command(nick, "char", "list", ""),
		s.command(nick, "char", "show", "name", names[1]),
		s.command(nick, "damage", "", "target", strings.Join(names[:3], ","), "amount", "1"),
		s.command(nick, "roll", "", "expr", "2d6"),
		s.command(nick, "roll", "", "as", names[0], "expr", "1d4"),
		s.command(nick, "history", ""),
		s.command(nick, "table", "show", ""),
		// Refusals that quote what the user typed.
		s.command(nick, "char", "show", "name", "<@&1311000000000000101>x"),
		s.command(nick, "roll", "", "expr", "<@1311000000000001002>"),
		s.command(nick, "char", "create", "name", "@everyone"),
		s.command(nick, "char", "create", "name", "x", "stats", "<@1311000000000001002>=1"),
		s.command(nick, "damage", "", "target", "@everyone @here", "amount", "1"),
	)
	for _, body := range bodies {
		status, b := s.post(body)
		if status != 200 {
			t.Fatalf("POST %s: %d %s", body, status, b)
		}
		wantNoMentions(t, b)
		w := decodeWire(t, b)
		text := w.text()
		if m := mentionRe.FindString(text); m != "" {
			t.Errorf("reply to %.200s shows %q as a mention:\n%s", body, m, text)
		}
		for _, md := range []string{"**Bold**", "`tick`", "~~s~~", "||x||", "[l](http"} {
			if strings.Contains(text, md) {
				t.Errorf("reply to %.200s shows %q as markdown:\n%s", body, md, text)
			}
		}
	}
	// A heroic action typed into the modal is shown literally too.
	ids := zeroHP(s, "Lister")
	status, b := s.post(s.press(playerUser, ids["Heroic Death"]))
	m := decodeWire(t, b)
	inputs := m.modalInputs()
	if status != 200 || len(inputs) != 1 {
		t.Fatalf("Heroic Death: %d %s; want a modal with one input in a Label", status, b)
	}
	input := inputs[0]
	w := s.ok(s.submit(playerUser, m.Data.CustomID, input, "I yell @everyone and <@&1311000000000000101>, **then** charge"))
	if text := w.text(); mentionRe.MatchString(text) || strings.Contains(text, "**then**") || !strings.Contains(text, "charge") {
		t.Errorf("heroic action reply %q; want the action shown literally", text)
	}
}

// decodeWireOrNil decodes a response body, or returns nil when it is not
// JSON (a plain-text 400).
func decodeWireOrNil(b []byte) *wireResponse {
	var w wireResponse
	if json.Unmarshal(b, &w) != nil {
		return nil
	}
	return &w
}

// panicky is a real service that panics on /roll expr:panic.
type panicky struct{ svc *commands.Service }

func (p panicky) Handle(ctx context.Context, r *commands.Request) *commands.Response {
	if r.Command == "roll" && r.Options["expr"] == "panic" {
		var m map[string]int
		m["boom"]++ // a nil-map write: a runtime panic, not a call to panic
	}
	return p.svc.Handle(ctx, r)
}

// TestPanicKeepsServing sends a request whose handler panics (a runtime
// error) through the endpoint in front of a real service: the caller gets
// an ephemeral apology, the log has the panic with the interaction id, and
// the same server goes on storing writes (promise 10).
func TestPanicKeepsServing(t *testing.T) {
	kp := newKeyPair(t)
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), nil)
	defer db.Close()
	var logs syncBuffer
	now := time.Now()
	ep, err := NewEndpoint(panicky{svc}, kp.pub, zerolog.New(&logs), WithClock(func() time.Time { return now }), WithFilesClient(offline), WithDeferAfter(0))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ep)
	defer srv.Close()
	s := &secServer{t: t, kp: kp, srv: srv, client: srv.Client(), logs: &logs}
	s.now.Store(now.Unix())
	s.ok(s.command(gmUser, "table", "setup", "system", "hp-mp-wp"))
	body := s.command(playerUser, "roll", "", "expr", "panic")
	var id struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &id); err != nil {
		t.Fatal(err)
	}
	w := s.refused(body, "Sorry")
	if w.Data.Content != commands.Apology {
		t.Errorf("reply %q; want the apology", w.Data.Content)
	}
	if l := logs.String(); !strings.Contains(l, `"interaction_id":"`+id.ID+`"`) || !strings.Contains(l, "assignment to entry in nil map") || !strings.Contains(l, `"level":"error"`) {
		t.Errorf("log %s; want an error with interaction id %s and the panic", l, id.ID)
	}
	s.ok(s.command(playerUser, "char", "create", "name", "Rimmer", "stats", "hp-max=9 mp-max=0"))
	if w := s.ok(s.command(playerUser, "damage", "", "target", "Rimmer", "amount", "2")); !strings.Contains(w.text(), "HP 9 → 7") {
		t.Errorf("damage after the panic: %q; want HP 9 → 7", w.text())
	}
}
