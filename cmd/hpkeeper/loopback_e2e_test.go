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

	msgs := fake.WaitMessages(1, time.Minute)
	if len(msgs) != 1 || msgs[0].Method != "POST" || msgs[0].Route != "webhook" || msgs[0].ApplicationID != "1" || msgs[0].Token != "t" ||
		len(msgs[0].Files) != 1 || !strings.HasSuffix(msgs[0].Files[0], ".png") {
		t.Fatalf("the test Discord got %+v; want the chart's follow-up through the interaction's webhook\nstdout: %s\nstderr: %s", msgs, c.stdout, c.stderr)
	}
	if u := fake.Unexpected(); len(u) != 0 {
		t.Errorf("requests the test Discord has no route for: %q", u)
	}
}
