package main

// End-to-end tests of `hpkeeper serve` as a child process: acknowledged writes
// survive SIGKILL, SIGTERM shuts down gracefully, and a second process on the
// same file fails fast (SECURITY.md, promises 2 and 3).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/bench"
	"github.com/hpkeeper/hpkeeper/storage"
)

// offlineEnv sends every request a child makes to Discord (a deferred
// answer's webhook call, say) to a loopback port where nothing listens, so
// no test reaches a host beyond loopback.
var offlineEnv = []string{"HTTPS_PROXY=" + bench.OfflineProxy, "HTTP_PROXY=" + bench.OfflineProxy, "NO_PROXY="}

// e2eChannel is the channel every end-to-end interaction comes from.
const e2eChannel = "1311000000000000200"

// buildDir holds the binary built once for all end-to-end tests; TestMain
// removes it.
var (
	buildDir  string
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildHpkeeper builds the hpkeeper binary (once per test run) and returns
// its path. It skips the test when no go command is found.
func buildHpkeeper(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goCmd); err != nil {
			t.Skip("no go command to build hpkeeper with")
		}
	}
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "hpkeeper-e2e-"); buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "hpkeeper")
		// -buildvcs=auto: in a git checkout the binary names its commit
		// (TestVersionNamesTheCommit), whatever GOFLAGS says.
		out, err := exec.Command(goCmd, "build", "-buildvcs=auto", "-o", buildBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// child is one running hpkeeper subcommand (serve, run).
type child struct {
	cmd    *exec.Cmd
	addr   string        // host:port it listens on
	stdout *syncBuf      // its JSON log
	stderr *syncBuf      // its error output
	done   chan struct{} // closed when it has exited
	err    error         // Wait's error, valid after done
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe starts `bin serve` on dbPath, listening on 127.0.0.1:0, with
// the public key pub. When wantReady it waits (up to 60 s) for the log line
// naming the address and returns with c.addr set.
func startServe(t *testing.T, bin, dbPath string, pub ed25519.PublicKey, wantReady bool, args ...string) *child {
	t.Helper()
	ready := ""
	if wantReady {
		ready = "serving the interactions endpoint"
	}
	env := []string{"DISCORD_PUBLIC_KEY=" + hex.EncodeToString(pub), "HPKEEPER_CONFIG=", "DISCORD_TOKEN=", "HPKEEPER_ADMIN_LISTEN="}
	return startChild(t, bin, append([]string{"serve", "--db", dbPath, "--listen", "127.0.0.1:0"}, args...), env, ready)
}

// startChild starts bin with args, the environment extended by env and
// offlineEnv, and kills it when the test ends. When ready is not "" it
// waits (up to 60 s: a busy machine is slow to start one) for the JSON log
// line whose message is ready and
// returns with c.addr set to that line's "listen" field.
func startChild(t *testing.T, bin string, args, env []string, ready string) *child {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), env...), offlineEnv...)
	c := &child{cmd: cmd, stdout: &syncBuf{}, stderr: &syncBuf{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(c.stdout, pw)
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s %s: %v", bin, args[0], err)
	}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line struct {
				Msg    string `json:"message"`
				Listen string `json:"listen"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && ready != "" && line.Msg == ready {
				addrc <- line.Listen
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		c.err = cmd.Wait()
		pw.Close()
		close(c.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.done
	})
	if ready == "" {
		return c
	}
	select {
	case c.addr = <-addrc:
	case <-c.done:
		t.Fatalf("hpkeeper %s exited before it was ready: %v\nstdout: %s\nstderr: %s", args[0], c.err, c.stdout, c.stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("hpkeeper %s not ready after 60 s\nstdout: %s\nstderr: %s", args[0], c.stdout, c.stderr)
	}
	return c
}

// interaction returns the JSON of a slash command from user in e2eChannel;
// opts are name/value pairs of the (sub)command's string options.
func interaction(id int, user, command, sub string, opts ...string) []byte {
	return interactionIn(e2eChannel, id, user, command, sub, opts...)
}

// interactionIn is interaction in the channel given.
func interactionIn(channel string, id int, user, command, sub string, opts ...string) []byte {
	b, err := json.Marshal(map[string]any{
		"id": strconv.Itoa(id), "application_id": "1", "type": 2, "token": "t", "version": 1,
		"guild_id": "1311000000000000100", "channel_id": channel,
		"member": map[string]any{"user": map[string]any{"id": user, "username": user}, "permissions": "0", "nick": ""},
		"data":   commandData(command, sub, opts...),
	})
	if err != nil {
		panic(err)
	}
	return b
}

// commandData is the data of a slash command with string options, given as
// name/value pairs of the (sub)command's options.
func commandData(command, sub string, opts ...string) map[string]any {
	var o []map[string]any
	for i := 0; i+1 < len(opts); i += 2 {
		o = append(o, map[string]any{"name": opts[i], "type": 3, "value": opts[i+1]})
	}
	data := map[string]any{"id": "9", "name": command, "type": 1, "options": o}
	if sub != "" {
		data["options"] = []map[string]any{{"name": sub, "type": 1, "options": o}}
	}
	return data
}

// reply is the part of an interaction response the tests read.
type reply struct {
	Type int `json:"type"`
	Data struct {
		Content string `json:"content"`
		Flags   int    `json:"flags"`
	} `json:"data"`
}

// post signs body with priv as Discord does and posts it to addr. It returns
// the status and the decoded reply, or an error when the exchange failed.
func post(ctx context.Context, client *http.Client, addr string, priv ed25519.PrivateKey, body []byte) (int, reply, error) {
	return postAt(ctx, client, addr, priv, body, time.Now())
}

// postAt is post with the request signed at the time at.
func postAt(ctx context.Context, client *http.Client, addr string, priv ed25519.PrivateKey, body []byte, at time.Time) (int, reply, error) {
	return signAt(priv, body, at).post(ctx, client, addr)
}

// mustPost posts body and fails the test unless it gets a public reply.
func mustPost(t *testing.T, addr string, priv ed25519.PrivateKey, body []byte) reply {
	t.Helper()
	status, rep, err := post(context.Background(), http.DefaultClient, addr, priv, body)
	if err != nil || status != http.StatusOK || rep.Data.Flags&64 != 0 {
		t.Fatalf("POST %s: status %d, reply %+v, error %v; want a public 200 reply", body, status, rep, err)
	}
	return rep
}

func genKey(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// checkDB opens the file (failing at once if it is still locked), runs the
// bbolt consistency check and returns the names of the characters at
// e2eChannel, or at the channels given.
func checkDB(t *testing.T, path string, channels ...string) map[string]bool {
	t.Helper()
	db, err := storage.Open(path, storage.Options{Timeout: -1})
	if err != nil {
		t.Fatalf("storage.Open after the child exited: %v", err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Fatalf("consistency check: %v", err)
	}
	names := map[string]bool{}
	if len(channels) == 0 {
		channels = []string{e2eChannel}
	}
	err = db.View(func(tx *storage.Tx) error {
		for _, ch := range channels {
			cs, err := tx.Characters(ch)
			if err != nil {
				return err
			}
			for _, c := range cs {
				names[c.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read characters: %v", err)
	}
	return names
}

// TestKillKeepsAcknowledgedWrites kills `hpkeeper serve` with SIGKILL at
// random moments while four clients create characters, restarts it, and
// checks after every kill that the file passes bbolt's consistency check and
// holds every character whose creation was answered 200 with a public reply.
// HPKEEPER_KILL_SEED replays a run; HPKEEPER_KILLS sets the number of kills
// (default 24).
func TestKillKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("HPKEEPER_KILL_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("HPKEEPER_KILL_SEED=%q: %v", s, err)
		}
	}
	kills := 24
	if s := os.Getenv("HPKEEPER_KILLS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("HPKEEPER_KILLS=%q: want a positive number", s)
		}
		kills = n
	}
	t.Logf("seed %d (replay with HPKEEPER_KILL_SEED=%d)", seed, seed)
	rng := mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	bin := buildHpkeeper(t)
	dbPath := filepath.Join(t.TempDir(), "hpkeeper.db")
	pub, priv := genKey(t)

	var (
		mu     sync.Mutex
		acked  []string // names whose creation got a 200 public reply
		failed int      // requests that got no reply (killed in flight)
		nextID int
		// sent are names whose creation was sent and not yet answered;
		// seen are names a /char show found (served from the state cache),
		// possibly before their creation was acknowledged.
		sent = map[string]bool{}
		seen []string
	)
	const gm = "1311000000000001001"
	// The characters go to 64 tables in turn: a table holds at most
	// commands.MaxCharacters.
	channels := make([]string, 64)
	for i := range channels {
		channels[i] = fmt.Sprintf("13110000000000003%02d", i)
	}
	start := time.Now()
	for round := 0; round < kills; round++ {
		c := startServe(t, bin, dbPath, pub, true)
		if round == 0 {
			for i, ch := range channels {
				mustPost(t, c.addr, priv, interactionIn(ch, 1+i, gm, "table", "setup", "system", "hp-mp-wp"))
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 10 * time.Second}
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					mu.Lock()
					nextID++
					id := nextID
					mu.Unlock()
					name := fmt.Sprintf("C%d", id)
					mu.Lock()
					sent[name] = true
					mu.Unlock()
					// Signed as by a Discord whose clock runs 2 s ahead, past
					// bot.RestartClockSkew: a restart after SIGKILL refuses
					// requests signed before it (TestReplayRefusedAfterRestart),
					// which would idle the clients for a second every round.
					status, rep, err := postAt(ctx, client, c.addr, priv,
						interactionIn(channels[id%len(channels)], 1000+id, gm, "char", "create", "name", name, "stats", "hp-max=9 mp-max=0"),
						time.Now().Add(bot.RestartClockSkew+time.Second))
					if err != nil {
						mu.Lock()
						failed++
						mu.Unlock()
						return // the server is gone
					}
					if status == http.StatusOK && rep.Type == 4 && rep.Data.Flags&64 == 0 && strings.Contains(rep.Data.Content, name) {
						mu.Lock()
						acked = append(acked, name)
						delete(sent, name)
						mu.Unlock()
					} else {
						t.Errorf("create %s: status %d reply %+v; want a public reply", name, status, rep)
						return
					}
				}
			}()
		}
		// A reader asks for characters whose creation is in flight: what
		// the cache shows must be in the file after the kill, acknowledged
		// or not (a write reaches the cache only after its commit).
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				mu.Lock()
				var name string
				for k := range sent {
					name = k
					break
				}
				mu.Unlock()
				if name == "" {
					time.Sleep(time.Millisecond)
					continue
				}
				status, rep, err := postAt(ctx, client, c.addr, priv, interaction(1<<30+round<<20+n, gm, "char", "show", "name", name),
					time.Now().Add(bot.RestartClockSkew+time.Second))
				if err != nil {
					return
				}
				if status == http.StatusOK && rep.Type == 4 && rep.Data.Flags&64 == 0 {
					mu.Lock()
					seen = append(seen, name)
					mu.Unlock()
				}
			}
		}()
		time.Sleep(time.Duration(5+rng.IntN(150)) * time.Millisecond)
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("SIGKILL: %v", err)
		}
		<-c.done
		cancel()
		wg.Wait()
		client.CloseIdleConnections()
		names := checkDB(t, dbPath, channels...)
		mu.Lock()
		for _, n := range acked {
			if !names[n] {
				t.Errorf("round %d: %s got a 200 reply but is not in the database", round, n)
			}
		}
		for _, n := range seen {
			if !names[n] {
				t.Errorf("round %d: /char show found %s, which is not in the database", round, n)
			}
		}
		clear(sent) // cut off by the kill, or written without an answer
		mu.Unlock()
		if t.Failed() {
			t.Fatalf("stopping after round %d (seed %d)", round, seed)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(acked) < kills {
		t.Errorf("only %d acknowledged writes over %d kills; the test did not exercise the server", len(acked), kills)
	}
	t.Logf("%d SIGKILLs in %v: %d acknowledged writes all present, %d requests cut off by a kill, %d characters shown while their creation was in flight all present, file consistent each time",
		kills, time.Since(start).Round(time.Millisecond), len(acked), failed, len(seen))
}

// TestSIGTERMShutsDownGracefully sends SIGTERM while a request is in flight
// (its headers read, its body not yet sent): the server stops accepting new
// connections at once, still answers the in-flight request and stores its
// write, then closes the database and exits 0.
func TestSIGTERMShutsDownGracefully(t *testing.T) {
	bin := buildHpkeeper(t)
	dbPath := filepath.Join(t.TempDir(), "hpkeeper.db")
	pub, priv := genKey(t)
	c := startServe(t, bin, dbPath, pub, true)
	const gm = "1311000000000001001"
	mustPost(t, c.addr, priv, interaction(1, gm, "table", "setup", "system", "hp-mp-wp"))

	body := interaction(2, gm, "char", "create", "name", "Lister", "stats", "hp-max=9 mp-max=0")
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	sig := hex.EncodeToString(ed25519.Sign(priv, append([]byte(stamp), body...)))
	conn, err := net.Dial("tcp", c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nX-Signature-Ed25519: %s\r\nX-Signature-Timestamp: %s\r\n\r\n",
		c.addr, len(body), sig, stamp)
	half := len(body) / 2
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(body[:half]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let the server read the headers: the connection is active
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}

	// New connections are refused once the listener is closed.
	refused := false
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		nc, err := net.DialTimeout("tcp", c.addr, 200*time.Millisecond)
		if err != nil {
			refused = true
			break
		}
		nc.Close()
	}
	if !refused {
		t.Errorf("after SIGTERM, %s still accepts connections", c.addr)
	}
	select {
	case <-c.done:
		t.Fatalf("hpkeeper exited with a request in flight: %v\n%s", c.err, c.stdout)
	default:
	}

	// The in-flight request completes.
	if _, err := conn.Write(body[half:]); err != nil {
		t.Fatalf("finish the in-flight request: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read the in-flight reply: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte("Lister")) {
		t.Errorf("in-flight reply %d %s; want 200 creating Lister", resp.StatusCode, b)
	}
	conn.Close()

	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("hpkeeper did not exit within 15 s of SIGTERM\n%s", c.stdout)
	}
	if c.err != nil {
		t.Errorf("hpkeeper exited with %v after SIGTERM; want status 0\nstderr: %s", c.err, c.stderr)
	}
	if !strings.Contains(c.stdout.String(), "database closed") {
		t.Errorf("log lacks \"database closed\":\n%s", c.stdout)
	}
	if names := checkDB(t, dbPath); !names["Lister"] {
		t.Errorf("the in-flight write is not in the database: %v", names)
	}
}

// TestSecondProcessFailsFast starts a second `hpkeeper serve` on the file a
// first one holds: it must exit with status 1, with an error naming the file
// and the lock, after waiting the configured storage.lock_timeout (at least
// 1 s by default, at least 2 s with lock_timeout = "2s"), and not for ever.
// Only the lower bounds are exact: how much longer a start takes depends on
// the machine's load.
func TestSecondProcessFailsFast(t *testing.T) {
	bin := buildHpkeeper(t)
	dbPath := filepath.Join(t.TempDir(), "hpkeeper.db")
	pub, _ := genKey(t)
	startServe(t, bin, dbPath, pub, true)
	t.Run("default lock_timeout", func(t *testing.T) { secondProcess(t, bin, dbPath, pub, time.Second) })
	t.Run("lock_timeout 2s", func(t *testing.T) {
		conf := filepath.Join(t.TempDir(), "hpkeeper.toml")
		if err := os.WriteFile(conf, []byte("[storage]\nlock_timeout = \"2s\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		secondProcess(t, bin, dbPath, pub, 2*time.Second, "--config", conf)
	})
}

// secondProcess starts a serve on dbPath, held by another, and checks that
// it fails after waiting at least wait for the lock.
func secondProcess(t *testing.T, bin, dbPath string, pub ed25519.PublicKey, wait time.Duration, args ...string) {
	begin := time.Now()
	second := startServe(t, bin, dbPath, pub, false, args...)
	select {
	case <-second.done:
	case <-time.After(wait + 60*time.Second):
		t.Fatalf("the second process still runs after %v: it hangs on the lock\n%s", wait+60*time.Second, second.stdout)
	}
	took := time.Since(begin)
	var exit *exec.ExitError
	if !errors.As(second.err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("second process exited with %v; want exit status 1", second.err)
	}
	msg := second.stderr.String()
	if !strings.Contains(msg, dbPath) || !strings.Contains(msg, "locked") {
		t.Errorf("second process said %q; want an error naming %s and the lock", msg, dbPath)
	}
	// bbolt gives up one 50 ms retry before the timeout.
	if took < wait-100*time.Millisecond {
		t.Errorf("second process failed after %v; want it to wait the lock timeout, %v", took, wait)
	}
	t.Logf("the second process failed after %v: %s", took.Round(time.Millisecond), strings.TrimSpace(msg))
}
