package main

import (
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
)

// TestServeFollowUpsGoToTheTestDiscord: with HPKEEPER_TEST_DISCORD_URL set,
// serve sends an answer's follow-up message (the /odds chart, posted through
// the interaction's webhook) to that loopback fake, as -h and README say of
// "every Discord request", and not to Discord. The child also has
// offlineEnv's proxy, so a follow-up sent any other way reaches no one and
// the test fails.
func TestServeFollowUpsGoToTheTestDiscord(t *testing.T) {
	bin := buildHpkeeper(t)
	fake := discordtest.NewServer(t, discordtest.Options{})
	pub, priv := genKey(t)
	env := []string{"DISCORD_PUBLIC_KEY=" + hex.EncodeToString(pub), "HPKEEPER_CONFIG=", "DISCORD_TOKEN=", "HPKEEPER_ADMIN_LISTEN=",
		"HPKEEPER_TEST_DISCORD_URL=" + fake.URL}
	c := startChild(t, bin, []string{"serve", "--db", filepath.Join(t.TempDir(), "hpkeeper.db"), "--listen", "127.0.0.1:0"},
		env, "serving the interactions endpoint")
	mustPost(t, c.addr, priv, interaction(1, "1311000000000001001", "odds", "", "expr", "4dF"))

	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, req := range fake.Unexpected() {
			if strings.HasPrefix(req, "POST ") && strings.Contains(req, "/webhooks/1/t") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no follow-up reached the test Discord within 10 s; it got %q\nstdout: %s\nstderr: %s", fake.Unexpected(), c.stdout, c.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
