package main

// End-to-end tests of the operator's commands against `hpkeeper serve` as a
// child process: backup under write load, check, health and /metrics.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

const e2eAdminToken = "e2e-admin-token-0123456789abcdef"

// runCmd runs hpkeeper's run() in this process with the environment e and
// returns its exit code, stdout and stderr.
func runCmd(t *testing.T, e map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, env(e))
	return code, stdout.String(), stderr.String()
}

// TestBackupUnderLoad runs `hpkeeper serve` with an admin token while four
// clients create characters, and takes a backup with `hpkeeper backup` as an
// operator would (the file is held, so the copy comes through the running
// process). `hpkeeper check` passes on the copy, and every creation
// acknowledged before the backup began is in it. Then the other operator
// commands: health, /metrics, check refusing the live file, and a direct
// backup once the process has stopped.
func TestBackupUnderLoad(t *testing.T) {
	bin := buildHpkeeper(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "hpkeeper.db")
	pub, priv := genKey(t)
	t.Setenv("HPKEEPER_ADMIN_TOKEN", e2eAdminToken) // the child inherits it
	c := startServe(t, bin, dbPath, pub, true)
	const gm = "1311000000000001001"
	// Each writer creates its characters at four tables in turn: a table
	// holds at most commands.MaxCharacters.
	channels := make([]string, 16)
	for i := range channels {
		channels[i] = fmt.Sprintf("13110000000000004%02d", i)
		mustPost(t, c.addr, priv, interactionIn(channels[i], 1+i, gm, "table", "setup", "system", "hp-mp-wp"))
	}

	var (
		mu    sync.Mutex
		acked []string
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 10 * time.Second}
			for i := 0; !stop.Load(); i++ {
				name := fmt.Sprintf("W%d-%d", w, i)
				status, rep, err := post(context.Background(), client, c.addr, priv, interactionIn(channels[4*w+i%4], 1000+w*100000+i, gm, "char", "create", "name", name, "stats", "hp-max=9 mp-max=0"))
				if err != nil || status != http.StatusOK || rep.Data.Flags&64 != 0 {
					t.Errorf("create %s: %d %+v %v", name, status, rep, err)
					return
				}
				mu.Lock()
				acked = append(acked, name)
				mu.Unlock()
			}
		}()
	}
	waitFor := func(n int) {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			got := len(acked)
			mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) || t.Failed() {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("only %d creations acknowledged; want %d", got, n)
			}
		}
	}
	waitFor(150)
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()

	e := map[string]string{"HPKEEPER_ADMIN_TOKEN": e2eAdminToken, "HPKEEPER_LISTEN": c.addr}
	dst := filepath.Join(dir, "backup.db")
	code, out, errOut := runCmd(t, e, "backup", "--to", dst, "--db", dbPath)
	mu.Lock()
	during := len(acked) - len(before)
	mu.Unlock()
	waitFor(len(before) + during + 20) // the writers carry on after the backup
	stop.Store(true)
	wg.Wait()
	if code != 0 || !strings.Contains(out, "through http://"+c.addr) || !strings.Contains(out, "checked") {
		t.Fatalf("backup under load = %d\nstdout: %s\nstderr: %s\nwant 0, a copy through %s", code, out, errOut, c.addr)
	}

	code, out, errOut = runCmd(t, nil, "check", "--db", dst)
	if code != 0 || !strings.Contains(out, "consistent") || !strings.Contains(out, "schema version "+strconv.FormatUint(storage.SchemaVersion, 10)) {
		t.Errorf("check of the copy = %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	m := regexp.MustCompile(`characters +(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("check printed no character count: %s", out)
	}
	inCopy := checkDB(t, dst, channels...)
	for _, name := range before {
		if !inCopy[name] {
			t.Errorf("%s was acknowledged before the backup began but is not in the copy", name)
		}
	}
	if n, _ := strconv.Atoi(m[1]); n != len(inCopy) || n < len(before) {
		t.Errorf("check counts %d characters, the copy holds %d; want equal, at least the %d acknowledged before", n, len(inCopy), len(before))
	}
	t.Logf("%d creations acknowledged before the backup, %d while it ran, %d in the copy", len(before), during, len(inCopy))

	// health and /metrics on the interactions listener, from loopback.
	if code, out, errOut := runCmd(t, e, "health"); code != 0 || !strings.Contains(out, `200 OK {"status":"ok","version":"`) {
		t.Errorf("health = %d %q %q; want 0 and the 200 line", code, out, errOut)
	}
	resp, err := http.Get("http://" + c.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var created float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, `hpkeeper_interactions_total{command="char",kind="command",outcome="ok"} `) {
			created, _ = strconv.ParseFloat(strings.Fields(line)[1], 64)
		}
	}
	resp.Body.Close()
	mu.Lock()
	total := len(acked)
	mu.Unlock()
	if created < float64(total) {
		t.Errorf("/metrics counts %v /char commands answered ok; want at least the %d acknowledged", created, total)
	}

	// Without the token the shared listener refuses, even from loopback.
	code, _, errOut = runCmd(t, map[string]string{"HPKEEPER_LISTEN": c.addr}, "backup", "--to", filepath.Join(dir, "nope.db"), "--db", dbPath)
	if code != 1 || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "admin.token") {
		t.Errorf("backup without the token = %d %q; want 1, a 401 and a hint about admin.token", code, errOut)
	}
	// check refuses the live file at once and says what to do.
	start := time.Now()
	code, _, errOut = runCmd(t, nil, "check", "--db", dbPath)
	// The advice names the file: a plain `hpkeeper backup` would copy storage.path.
	if code != 1 || !strings.Contains(errOut, "held by a running process") || !strings.Contains(errOut, "hpkeeper backup --db "+dbPath+" --to ") {
		t.Errorf("check of the live file = %d %q; want 1 and advice to back up that file first", code, errOut)
	}
	// A bound for a check that waits for the lock for ever, loose enough
	// for a loaded machine (a child process, then the lock timeout).
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("check of the live file took %v; want it to give up after the lock timeout", d)
	}
	// Given a configuration, the advice keeps it: backup finds the running
	// process's listener there.
	conf := writeConfig(t, "[storage]\nlock_timeout = \"500ms\"\n")
	code, _, errOut = runCmd(t, nil, "check", "--config", conf, "--db", dbPath)
	if want := "hpkeeper backup --config " + conf + " --db " + dbPath + " --to copy.db"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("check --config of the live file = %d %q; want 1 and the advice %q", code, errOut, want)
	}

	// Stopped: backup copies directly, check reads the file itself.
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-c.done
	direct := filepath.Join(dir, "direct.db")
	code, out, errOut = runCmd(t, map[string]string{"HPKEEPER_LISTEN": "127.0.0.1:1"}, "backup", "--to", direct, "--db", dbPath)
	if code != 0 || !strings.Contains(out, "directly") {
		t.Errorf("backup of a file no process holds = %d %q %q; want 0, directly", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, nil, "check", "--db", dbPath); code != 0 || !strings.Contains(out, fmt.Sprintf("characters     %d", total)) {
		t.Errorf("check of the stopped database = %d %q %q; want 0 and %d characters", code, out, errOut, total)
	}
	if code, _, _ := runCmd(t, map[string]string{"HPKEEPER_LISTEN": c.addr}, "health"); code != 1 {
		t.Errorf("health with nothing listening = %d; want 1", code)
	}
}

// TestServeAdminListener runs serve in this process with --admin-listen on
// loopback: the admin routes answer there (a backup needs no token from a
// direct loopback peer), the interactions listener keeps /healthz, and serve
// without a bot token warns that tracker messages will not be edited.
func TestServeAdminListener(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuf
	e := env(map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32)})
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", filepath.Join(dir, "hpkeeper.db"), "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"}, strings.NewReader(""), &stdout, &stderr, e)
	}()
	var adminAddr, httpAddr string
	var warned bool
	for deadline := time.Now().Add(10 * time.Second); adminAddr == "" || httpAddr == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no listen lines after 10 s\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
		}
		for _, line := range strings.Split(stdout.String(), "\n") {
			var l struct {
				Level, Message, Listen string
			}
			if json.Unmarshal([]byte(line), &l) != nil {
				continue
			}
			switch {
			case strings.HasPrefix(l.Message, "serving the admin routes"):
				adminAddr = l.Listen
			case l.Message == "serving the interactions endpoint":
				httpAddr = l.Listen
			case l.Level == "warn" && strings.Contains(l.Message, "tracker messages will not be posted or edited"):
				warned = true
			}
		}
	}
	if !warned {
		t.Errorf("serve without a bot token did not warn about the tracker:\n%s", stdout.String())
	}
	code, out, errOut := runCmd(t, map[string]string{"HPKEEPER_ADMIN_LISTEN": adminAddr}, "backup", "--to", filepath.Join(dir, "copy.db"), "--db", filepath.Join(dir, "hpkeeper.db"))
	if code != 0 || !strings.Contains(out, "through http://"+adminAddr) {
		t.Errorf("backup through the admin listener = %d %q %q", code, out, errOut)
	}
	// One backup at a time: the server may still be finishing the one above
	// (its copy read to the end) when the next arrives, which gets 409 then.
	get := func(method, url string) int {
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			req, _ := http.NewRequest(method, url, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusConflict || time.Now().After(deadline) {
				return resp.StatusCode
			}
		}
	}
	for _, c := range []struct {
		method, url string
		want        int
	}{
		{"GET", "http://" + adminAddr + "/healthz", 200},
		{"GET", "http://" + adminAddr + "/metrics", 200},
		{"POST", "http://" + adminAddr + "/admin/backup", 200},
		{"GET", "http://" + httpAddr + "/healthz", 200},
		{"POST", "http://" + httpAddr + "/admin/backup", 403}, // no token configured: never on this listener
	} {
		if got := get(c.method, c.url); got != c.want {
			t.Errorf("%s %s = %d; want %d", c.method, c.url, got, c.want)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
}
