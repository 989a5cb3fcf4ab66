package bot

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// TestEndpointInitiativePing replays the turn order through the HTTP
// endpoint with signed fixtures: with init-ping on, the replies that start
// a turn (the GM's beginning of round 1, a round end) carry
// allowed_mentions that parse nothing and list exactly the owner of the
// acting character, whose mention is in the text; every other reply (a
// join among them) pings nobody.
func TestEndpointInitiativePing(t *testing.T) {
	svc, db := openService(t, filepath.Join(t.TempDir(), "hpkeeper.db"), dice.NewQueue(nil))
	defer db.Close()
	kp := newKeyPair(t)
	now := time.Now()
	srv := endpointServer(t, svc, kp, now, testLogger(t))
	var postBody func(name string, body []byte) []byte
	post := func(name string) []byte {
		t.Helper()
		return postBody(name, fixture(t, name))
	}
	postBody = func(name string, body []byte) []byte {
		t.Helper()
		status, b := do(t, srv.Client(), kp.signedRequest(t, srv.URL, body, now))
		if status != http.StatusOK {
			t.Fatalf("POST %s: %d %s", name, status, b)
		}
		return b
	}
	for _, name := range []string{"table_setup.json", "char_create.json", "table_option_init_ping.json", "init_start.json"} {
		wantNoMentions(t, post(name))
	}
	// The GM's /init next, which begins round 1: /init start's fixture
	// with the subcommand next and an interaction id of its own.
	begin := bytes.ReplaceAll(fixture(t, "init_start.json"), []byte(`"1311000000000010011"`), []byte(`"1311000000000010022"`))
	begin = bytes.Replace(begin, []byte(`"name": "start"`), []byte(`"name": "next"`), 1)
	pinged := func(name string, body []byte, wantText ...string) {
		t.Helper()
		b := postBody(name, body)
		var w struct {
			Type int `json:"type"`
			Data struct {
				Content         string                     `json:"content"`
				Flags           int                        `json:"flags"`
				AllowedMentions map[string]json.RawMessage `json:"allowed_mentions"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			t.Fatalf("%s: %v in %s", name, err, b)
		}
		if !bytes.Contains(b, []byte(`"allowed_mentions":{"parse":[],"users":["`+fixturePlayer+`"]}`)) || len(w.Data.AllowedMentions) != 2 {
			t.Errorf("%s: allowed_mentions %s; want exactly {\"parse\":[],\"users\":[%q]}", name, b, fixturePlayer)
		}
		if w.Type != 4 || w.Data.Flags&64 != 0 || !strings.Contains(w.Data.Content, "<@"+fixturePlayer+">") {
			t.Errorf("%s: %s; want a public reply mentioning the player", name, b)
		}
		for _, s := range wantText {
			if !strings.Contains(w.Data.Content, s) {
				t.Errorf("%s: content %q; want %q", name, w.Data.Content, s)
			}
		}
	}
	join := post("init_join.json")
	wantNoMentions(t, join)
	if !bytes.Contains(join, []byte("**Lister** joins the turn order: initiative 14, rolled at the table.")) {
		t.Errorf("init_join.json: %s; want the join", join)
	}
	pinged("the GM's /init next", begin, "Round 1 of the turn order begins. It is **Lister**'s turn.")
	pinged("init_next.json", fixture(t, "init_next.json"), "**Lister**'s turn ends.", "The clock moves 1 round", "Round 2 of the turn order begins. It is **Lister**'s turn.")
	// A reply that starts no turn pings nobody, at the same table: /init
	// start again (a new interaction id), refused as the order is open.
	again := bytes.ReplaceAll(fixture(t, "init_start.json"), []byte(`"1311000000000010011"`), []byte(`"1311000000000010021"`))
	b := postBody("init_start.json again", again)
	wantNoMentions(t, b)
	if !bytes.Contains(b, []byte("already open")) {
		t.Errorf("second /init start: %s; want the refusal", b)
	}
}
