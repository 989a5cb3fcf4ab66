package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestRunUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{nil, 2, "Usage:"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"help"}, 0, "hpkeeper console"},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"run", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"serve", "-h"}, 0, "-listen"},
		{[]string{"register", "--db", "x.db"}, 2, "flag provided but not defined: -db"},
		{[]string{"run", "--config", "/nonexistent/hpkeeper.toml"}, 1, "no such file"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, env(nil))
		if code != tt.code || !strings.Contains(stdout.String()+stderr.String(), tt.out) {
			t.Errorf("run(%q) = %d, output %q; want %d and %q", tt.args, code, stdout.String()+stderr.String(), tt.code, tt.out)
		}
	}
}

func TestRunNeedsSecrets(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--db", filepath.Join(dir, "a.db")}, "no public key"},
		{[]string{"run", "--db", filepath.Join(dir, "a.db")}, "no bot token"},
		{[]string{"register"}, "no bot token"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, env(nil))
		if code != 1 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 1 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestServeLockedDatabase: a second process on the same file fails fast with
// an error naming the file instead of hanging (bbolt's lock, Options.Timeout).
func TestServeLockedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var stdout, stderr bytes.Buffer
	e := env(map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32), "HPKEEPER_LISTEN": "127.0.0.1:0"})
	start := time.Now()
	code := run(context.Background(), []string{"serve", "--db", path}, strings.NewReader(""), &stdout, &stderr, e)
	if code != 1 || !strings.Contains(stderr.String(), path) || !strings.Contains(stderr.String(), "locked") {
		t.Errorf("serve on a locked file = %d, stderr %q; want 1 and a message naming %s", code, stderr.String(), path)
	}
	if d := time.Since(start); d > 60*time.Second { // not for ever: the lock is never released
		t.Errorf("serve on a locked file took %v; want it to give up after the lock timeout", d)
	}
}

// TestServeStopsOnCancel starts the endpoint and stops it with the context,
// as SIGTERM does; the database is closed so the file can be reopened.
func TestServeStopsOnCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.db")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	e := env(map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32)})
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--db", path, "--listen", "127.0.0.1:0"}, strings.NewReader(""), &stdout, &stderr, e)
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
	if !strings.Contains(stdout.String(), "serving the interactions endpoint") || !strings.Contains(stdout.String(), "database closed") {
		t.Errorf("log = %q; want the start and the close", stdout.String())
	}
	db, err := storage.Open(path, storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("reopen after serve stopped: %v", err)
	}
	db.Close()
}
