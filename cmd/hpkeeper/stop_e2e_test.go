package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/storage"
)

// importInteraction returns a /table import from user (with Manage
// Channels) in channel, whose file the test Discord's CDN serves at
// /attachments/1/2/<file>; the interaction's token is token.
func importInteraction(id int, token, channel, user, file string) []byte {
	b, err := json.Marshal(map[string]any{
		"id": strconv.Itoa(id), "application_id": "1", "type": 2, "token": token, "version": 1,
		"guild_id": "1311000000000000100", "channel_id": channel,
		"member": map[string]any{"user": map[string]any{"id": user, "username": user}, "permissions": "16", "nick": ""},
		"data": map[string]any{"id": "9", "name": "table", "type": 1,
			"options": []map[string]any{{"name": "import", "type": 1, "options": []map[string]any{{"name": "file", "type": 11, "value": "777"}}}},
			"resolved": map[string]any{"attachments": map[string]any{"777": map[string]any{
				"id": "777", "filename": "table.json", "size": 300, "content_type": "application/json",
				"url": "https://cdn.discordapp.com/attachments/1/2/" + file}}}},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// TestSIGTERMSettlesDeferredCommands is issue 26's "none of 74 deferred
// undos was answered 20 s after SIGTERM", through serve's endpoint and the
// test Discord at loopback. Two GMs' imports are deferred, each waiting for
// its file from the CDN; while the first runs, its GM's next command at
// that table is answered at once that it still runs. Then SIGTERM: the
// second import's file comes within the grace, and it is answered (the
// table imported); the first's never comes, and after the grace it is told
// through its webhook that it was cancelled with nothing changed. serve
// then exits 0, with the first channel still without a table.
func TestSIGTERMSettlesDeferredCommands(t *testing.T) {
	bin := buildHpkeeper(t)
	fake := discordtest.NewServer(t, discordtest.Options{})
	lateFile, never := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(never) }) // before the fake closes (Cleanup runs last first)
	file := `{"format":"hpkeeper-table","version":1,"exported_at":"2026-12-01T00:00:00Z","table":{"channel_id":"x","system":"harm","gms":[],"options":{},"clock":0,"created_at":"2026-12-01T00:00:00Z"},"last_character_id":0,"characters":[],"events":[]}`
	fake.HandleFunc("GET /attachments/1/2/{file}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("file") {
		case "late.json":
			<-lateFile
		default:
			<-never
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, file)
	})
	pub, priv := genKey(t)
	dbPath := filepath.Join(t.TempDir(), "hpkeeper.db")
	env := []string{"DISCORD_PUBLIC_KEY=" + hex.EncodeToString(pub), "HPKEEPER_CONFIG=", "DISCORD_TOKEN=", "HPKEEPER_ADMIN_LISTEN=",
		"HPKEEPER_TEST_DISCORD_URL=" + fake.URL}
	c := startChild(t, bin, []string{"serve", "--db", dbPath, "--listen", "127.0.0.1:0"}, env, "serving the interactions endpoint")
	const gm, gm2, stuck, late = "1311000000000001001", "1311000000000001002", "1311000000000000301", "1311000000000000302"
	send := func(body []byte) reply {
		t.Helper()
		status, rep, err := post(context.Background(), http.DefaultClient, c.addr, priv, body)
		if err != nil || status != http.StatusOK {
			t.Fatalf("POST %s: status %d, %v", body, status, err)
		}
		return rep
	}
	if rep := send(importInteraction(1, "t-stuck", stuck, gm, "stuck.json")); rep.Type != 5 {
		t.Fatalf("the import waiting for its file: %+v; want it deferred (type 5)", rep)
	}
	if rep := send(importInteraction(2, "t-late", late, gm2, "late.json")); rep.Type != 5 {
		t.Fatalf("the second import: %+v; want it deferred (type 5)", rep)
	}
	rep := send(interactionIn(stuck, 3, gm, "history", ""))
	if rep.Type != 4 || rep.Data.Flags&64 == 0 || rep.Data.Content != fmt.Sprintf(bot.StillRunning, "/table import") {
		t.Errorf("the GM's next command at the table of the running import: %+v; want the ephemeral StillRunning", rep)
	}

	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the stop has begun: the late file comes within the grace
	close(lateFile)
	select {
	case <-c.done:
	case <-time.After(time.Minute):
		t.Fatalf("serve did not exit within a minute of SIGTERM\n%s", c.stdout)
	}
	if c.err != nil {
		t.Errorf("serve exited with %v after SIGTERM; want status 0\nstderr: %s", c.err, c.stderr)
	}
	told := map[string][]string{}
	for _, m := range fake.Messages() {
		if m.Route == "webhook" {
			told[m.Token] = append(told[m.Token], fmt.Sprintf("%s %s %d %s", m.Method, m.MessageID, m.Flags, m.Content))
		}
	}
	if got := told["t-late"]; len(got) != 1 || !strings.HasPrefix(got[0], "PATCH @original 0 Imported a **harm** table") {
		t.Errorf("the import whose file came within the grace: webhook calls %q; want its answer", got)
	}
	if got, want := told["t-stuck"], []string{"DELETE @original 0 ", "POST  64 " + bot.CancelledAtStop}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the import still waiting at the stop: webhook calls %q; want %q", got, want)
	}
	db, err := storage.Open(dbPath, storage.Options{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for ch, want := range map[string]bool{stuck: false, late: true} {
		err := db.View(func(tx *storage.Tx) error {
			_, err := tx.Table(ch)
			return err
		})
		if got := err == nil; got != want || err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("channel %s has a table: %v (%v); want %v", ch, got, err, want)
		}
	}
}
