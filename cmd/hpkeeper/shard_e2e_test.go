package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/storage"
)

// gatewayInteraction returns the JSON of a slash command from a GM as the
// gateway carries it: in guild and channel, or a DM when guild is "".
func gatewayInteraction(id, guild, channel, command, sub string, opts ...string) []byte {
	user := map[string]any{"id": "1311000000000001001", "username": "gm"}
	i := map[string]any{"id": id, "application_id": "1", "type": 2, "token": "tok-" + id, "version": 1, "channel_id": channel, "data": commandData(command, sub, opts...)}
	if guild == "" {
		i["user"] = user
	} else {
		i["guild_id"] = guild
		i["member"] = map[string]any{"user": user, "permissions": "16", "nick": ""}
	}
	b, err := json.Marshal(i)
	if err != nil {
		panic(err)
	}
	return b
}

// TestRunTwoProcessesTwoShardsEach runs the bot as two `hpkeeper run`
// child processes of two shards each (--shards 4 --shard-ids 0-1 and 2-3),
// each with its own file, against a loopback fake of Discord's gateway and
// REST API: every shard identifies once, from its own process; each guild's
// /table setup is answered by the process of its shard and written to that
// process's file only; a DM goes to shard 0's; an interaction of a shard-3
// guild that arrives on shard 0 is refused by the first process, logged, and
// written nowhere; each /healthz shows its two shards connected; SIGTERM
// stops both cleanly.
func TestRunTwoProcessesTwoShardsEach(t *testing.T) {
	bin := buildHpkeeper(t)
	dir := t.TempDir()
	guilds := make([]string, 4)
	var interactions [][]byte
	for s := range guilds {
		guilds[s] = guildOfShard(s, 4, s)
		interactions = append(interactions, gatewayInteraction("131100000000000800"+strconv.Itoa(s), guilds[s], "131100000000000800"+strconv.Itoa(s), "table", "setup", "system", "harm"))
	}
	dm := gatewayInteraction("1311000000000008010", "", "1311000000000008010", "table", "setup", "system", "hp-mp-wp")
	stray := guildOfShard(3, 4, 7)
	misrouted := gatewayInteraction("1311000000000008011", stray, "1311000000000008011", "table", "setup", "system", "harm")
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 4, MaxConcurrency: 2, Guilds: guilds, Interactions: append(interactions, dm, misrouted)})
	fake.Misroute(stray, 0)

	env := []string{"DISCORD_TOKEN=test-token", "HPKEEPER_CONFIG=", "HPKEEPER_DB=", "HPKEEPER_SHARDS=", "HPKEEPER_SHARD_IDS=", "HPKEEPER_TEST_DISCORD_URL=" + fake.URL}
	files := []string{filepath.Join(dir, "shards-0-1.db"), filepath.Join(dir, "shards-2-3.db")}
	var procs []*child
	for i, ids := range []string{"0-1", "2-3"} {
		procs = append(procs, startChild(t, bin, []string{"run", "--shards", "4", "--shard-ids", ids, "--db", files[i], "--admin-listen", "127.0.0.1:0"},
			env, "serving the admin routes (/healthz, /metrics, /admin/backup)"))
	}
	defer func() {
		if t.Failed() {
			for i, p := range procs {
				t.Logf("process %d stdout:\n%s\nstderr:\n%s", i, p.stdout, p.stderr)
			}
		}
	}()

	got := fake.Collect(6, nil, 20*time.Second)
	for _, id := range []string{"1311000000000008000", "1311000000000008001", "1311000000000008002", "1311000000000008003", "1311000000000008010"} {
		var rep reply
		if err := json.Unmarshal(got[id].Body, &rep); err != nil || rep.Type != 4 || rep.Data.Flags != 0 || !strings.Contains(rep.Data.Content, "now plays") {
			t.Errorf("/table setup %s: %s; want it answered", id, got[id].Body)
		}
	}
	var refused reply
	if err := json.Unmarshal(got["1311000000000008011"].Body, &refused); err != nil || refused.Data.Flags != 64 || !strings.Contains(refused.Data.Content, "another hpkeeper process") {
		t.Errorf("the misrouted interaction: %s; want the ephemeral refusal", got["1311000000000008011"].Body)
	}
	seen := map[int]bool{}
	for _, id := range fake.Identifies() {
		if id.Count != 4 || seen[id.Shard] {
			t.Errorf("IDENTIFY %+v; want each of 4 shards once", id)
		}
		seen[id.Shard] = true
	}
	if len(seen) != 4 {
		t.Errorf("shards identified: %v; want 0-3", seen)
	}
	for i, p := range procs {
		var h struct {
			Status string `json:"status"`
			Shards []struct {
				ID    int    `json:"id"`
				State string `json:"state"`
			} `json:"shards"`
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			resp, err := http.Get("http://" + p.addr + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err := json.Unmarshal(b, &h); err != nil {
				t.Fatalf("process %d /healthz %q: %v", i, b, err)
			}
			if h.Status == "ok" || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if h.Status != "ok" || len(h.Shards) != 2 || h.Shards[0].ID != 2*i || h.Shards[1].ID != 2*i+1 || h.Shards[0].State != "connected" {
			t.Errorf("process %d /healthz %+v; want ok with shards %d and %d connected", i, h, 2*i, 2*i+1)
		}
	}

	for _, p := range procs {
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range procs {
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			t.Fatalf("process %d did not exit within 15 s of SIGTERM", i)
		}
		var exit interface{ ExitCode() int }
		if p.err != nil && (!errors.As(p.err, &exit) || exit.ExitCode() != 0) {
			t.Errorf("process %d exited with %v; want 0", i, p.err)
		}
	}
	if l := procs[0].stdout.String(); !strings.Contains(l, "interaction refused") || !strings.Contains(l, `"guild_shard":3`) {
		t.Errorf("the first process did not log the refusal:\n%s", l)
	}

	owner := map[string]int{} // channel → the file that must hold it
	for s := range guilds {
		owner["131100000000000800"+strconv.Itoa(s)] = s / 2
	}
	owner["1311000000000008010"] = 0  // the DM: shard 0
	owner["1311000000000008011"] = -1 // refused: nowhere
	for i, f := range files {
		for ch, want := range owner {
			if has := len(tableAt(t, f, ch)) > 0; has != (want == i) {
				t.Errorf("%s has the table of channel %s: %v; want %v", f, ch, has, want == i)
			}
		}
		db, err := storage.Open(f, storage.Options{Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		mine, other := storage.ShardRange{Count: 4, First: 2 * i, Last: 2*i + 1}, storage.ShardRange{Count: 4, First: 2 - 2*i, Last: 3 - 2*i}
		if err := db.ClaimShards(mine); err != nil {
			t.Errorf("%s claimed by %v: %v", f, mine, err)
		}
		if err := db.ClaimShards(other); !errors.Is(err, storage.ErrShardMismatch) {
			t.Errorf("%s claimed by %v: %v; want ErrShardMismatch", f, other, err)
		}
		db.Close()
	}
}
