package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFakeDiscordRunsRegisterRunAndServe follows README.md's recipe "Try
// it against a fake Discord": `hpkeeper fakediscord` on loopback, then
// `register`, `run` and `serve` as child processes pointed at it with
// HPKEEPER_TEST_DISCORD_URL. The commands are registered there; an
// interaction sent to it reaches run over the gateway and serve over HTTP,
// signed with the key the fake printed, and the answers come back; serve's
// follow-up (the /odds chart) goes to the fake's webhook route.
func TestFakeDiscordRunsRegisterRunAndServe(t *testing.T) {
	bin := buildHpkeeper(t)
	seed := strings.Repeat("42", ed25519.SeedSize)
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuf{}
	stopped := make(chan int, 1)
	go func() {
		stopped <- run(ctx, []string{"fakediscord", "--listen", "127.0.0.1:0", "--key-seed", seed}, strings.NewReader(""), out, out, env(nil))
	}()
	defer func() {
		cancel()
		if code := <-stopped; code != 0 {
			t.Errorf("fakediscord exited %d", code)
		}
		if t.Failed() {
			t.Logf("fakediscord's output:\n%s", out)
		}
	}()
	var base string
	for deadline := time.Now().Add(time.Minute); base == ""; time.Sleep(20 * time.Millisecond) {
		if m := regexp.MustCompile(`fake Discord listening on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("fakediscord did not say where it listens:\n%s", out)
		}
	}
	pub := ed25519.NewKeyFromSeed(must(hex.DecodeString(seed))).Public().(ed25519.PublicKey)
	if !strings.Contains(out.String(), "DISCORD_PUBLIC_KEY="+hex.EncodeToString(pub)) {
		t.Errorf("fakediscord did not print the public key of its --key-seed:\n%s", out)
	}
	env := []string{envTestDiscord + "=" + base, "DISCORD_TOKEN=fake-token", "DISCORD_PUBLIC_KEY=" + hex.EncodeToString(pub),
		"HPKEEPER_CONFIG=", "HPKEEPER_DB=", "HPKEEPER_ADMIN_LISTEN=", "HPKEEPER_SHARDS=", "HPKEEPER_SHARD_IDS="}
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !strings.Contains(out.String(), what); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("fakediscord never logged %q:\n%s", what, out)
			}
		}
	}

	// register
	reg := startChild(t, bin, []string{"register", "--guild", "1311000000000000100"}, env, "")
	<-reg.done
	if reg.err != nil {
		t.Fatalf("register against the fake: %v\n%s%s", reg.err, reg.stdout, reg.stderr)
	}
	waitFor("commands registered in guild 1311000000000000100")

	// run: an interaction sent to the fake arrives over the gateway.
	dir := t.TempDir()
	rc := startChild(t, bin, []string{"run", "--db", filepath.Join(dir, "run.db")}, env, "connecting to the Discord gateway")
	waitFor("IDENTIFY of shard 0 of 1")
	status, body := sendFake(t, base+PathFakeInteractions, interaction(1, "1311000000000001001", "table", "setup", "system", "harm"))
	if status != http.StatusOK || !strings.Contains(body, "now plays **harm**") {
		t.Errorf("/table setup through the fake to run: %d %s", status, body)
	}
	if err := rc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-rc.done
	if rc.err != nil {
		t.Errorf("run exited with %v after SIGTERM\n%s", rc.err, rc.stderr)
	}

	// serve: the same, signed, over HTTP; the chart follows through the
	// fake's webhook.
	sc := startChild(t, bin, []string{"serve", "--db", filepath.Join(dir, "serve.db"), "--listen", "127.0.0.1:0"}, env, "serving the interactions endpoint")
	status, body = sendFake(t, base+PathFakeInteractions+"?endpoint=http://"+sc.addr+"/", interaction(2, "1311000000000001001", "odds", "", "expr", "4dF"))
	if status != http.StatusOK || !strings.Contains(body, "4dF") {
		t.Errorf("/odds through the fake to serve: %d %s", status, body)
	}
	waitFor("POST /webhooks/1/…: follow-up: files dice-odds.png")
	if status, body := sendFake(t, base+PathFakeInteractions+"?endpoint=http://example.com/", []byte(`{"type":1}`)); status != http.StatusBadRequest || !strings.Contains(body, "loopback") {
		t.Errorf("an endpoint beyond loopback: %d %s; want it refused", status, body)
	}
}

// sendFake posts an interaction to the fake's /fake/interactions.
func sendFake(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{}, Timeout: time.Minute}
	res, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestFakeDiscordRefuses: only loopback, and usage errors exit 2.
func TestFakeDiscordRefuses(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fakediscord", "--listen", "0.0.0.0:0"}, 1, "want a loopback IP"},
		{[]string{"fakediscord", "--endpoint", "http://10.0.0.1:8080/"}, 2, "not a loopback"},
		{[]string{"fakediscord", "--key-seed", "zz"}, 2, "64 hex digits"},
		{[]string{"fakediscord", "extra"}, 2, "unexpected argument"},
	} {
		code, out, errOut := runCmd(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%v = %d %q; want %d and %q", tt.args, code, out+errOut, tt.code, tt.want)
		}
	}
}
