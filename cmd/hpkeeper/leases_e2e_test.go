package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/discordtest"
	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// shardHealth is a process's /healthz as these tests read it.
type shardHealth struct {
	Status string `json:"status"`
	Shards []struct {
		ID    int    `json:"id"`
		State string `json:"state"`
	} `json:"shards"`
}

// healthOf reads the /healthz of the process at addr.
func healthOf(t *testing.T, addr string) shardHealth {
	t.Helper()
	var h shardHealth
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		return h
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &h)
	return h
}

// connected returns the shards h shows connected.
func (h shardHealth) connected() map[int]bool {
	out := map[int]bool{}
	for _, s := range h.Shards {
		if s.State == "connected" {
			out[s.ID] = true
		}
	}
	return out
}

// TestRunProcessesShareShardsAndTakeOver runs two `hpkeeper run` processes
// on one PostgreSQL database, with no shard range, against a loopback fake
// of Discord's gateway: between them they run the 4 shards, each identified
// once. The process that runs shard 0 is killed with SIGKILL: the other takes
// its shards over once their leases ran out (3 s here, HPKEEPER_LEASE_TTL),
// identifies each of them once more, and answers a /table setup on every
// shard.
func TestRunProcessesShareShardsAndTakeOver(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	url := pgtest.NewDatabase(t)
	bin := buildHpkeeper(t)
	guilds := make([]string, 4)
	for s := range guilds {
		guilds[s] = guildOfShard(s, 4, s)
	}
	fake := discordtest.NewServer(t, discordtest.Options{Shards: 4, MaxConcurrency: 2, Guilds: guilds})
	env := []string{"DISCORD_TOKEN=test-token", "HPKEEPER_CONFIG=", "HPKEEPER_DB=", "HPKEEPER_DB_URL=", "HPKEEPER_SHARDS=", "HPKEEPER_SHARD_IDS=",
		"HPKEEPER_LEASE_TTL=3s", "HPKEEPER_TEST_DISCORD_URL=" + fake.URL}
	var procs []*child
	for range 2 {
		procs = append(procs, startChild(t, bin, []string{"run", "--shards", "4", "--db", url, "--admin-listen", "127.0.0.1:0"},
			env, "serving the admin routes (/healthz, /metrics, /admin/backup)"))
	}
	defer func() {
		if t.Failed() {
			for i, p := range procs {
				t.Logf("process %d stderr:\n%s\nstdout (last 8 KB):\n%s", i, p.stderr, tail(p.stdout.String(), 8192))
			}
		}
	}()
	waitShards := func(what string, ok func(a, b map[int]bool) bool) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			a, b := healthOf(t, procs[0].addr).connected(), healthOf(t, procs[1].addr).connected()
			if ok(a, b) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 90 s the processes run %v and %v; want %s", a, b, what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitShards("the 4 shards between them, each once", func(a, b map[int]bool) bool {
		for s := range 4 {
			if a[s] == b[s] {
				return false
			}
		}
		return true
	})
	victim := 0
	if !healthOf(t, procs[0].addr).connected()[0] {
		victim = 1
	}
	lost := len(healthOf(t, procs[victim].addr).connected())
	before := len(fake.Identifies())
	if err := procs[victim].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-procs[victim].done
	survivor := procs[1-victim]
	waitShards("the survivor running all 4 shards", func(a, b map[int]bool) bool {
		return len(healthOf(t, survivor.addr).connected()) == 4
	})
	if got := len(fake.Identifies()) - before; got != lost {
		t.Errorf("%d IDENTIFYs after the kill; want one for each of the %d shards taken over", got, lost)
	}
	for s, g := range guilds {
		id := "131100000000000820" + strconv.Itoa(s)
		if err := fake.Dispatch(s, gatewayInteraction(id, g, id, "table", "setup", "system", "harm")); err != nil {
			t.Fatal(err)
		}
	}
	got := fake.Collect(4, nil, 30*time.Second)
	for s := range guilds {
		id := "131100000000000820" + strconv.Itoa(s)
		var rep reply
		if err := json.Unmarshal(got[id].Body, &rep); err != nil || !strings.Contains(rep.Data.Content, "now plays") {
			t.Errorf("/table setup on shard %d after the takeover: %s; want it answered", s, got[id].Body)
		}
	}
	if err := survivor.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-survivor.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the surviving process did not exit within 30 s of SIGTERM")
	}
	if l := survivor.stdout.String(); !strings.Contains(l, "shard lease taken") {
		t.Errorf("the survivor did not log taking a lease:\n%s", tail(l, 4096))
	}
}
