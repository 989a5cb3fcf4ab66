package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeWritesCPUProfile runs serve with --cpuprofile until it is
// stopped: the file then holds a profile (gzip-compressed protobuf, the
// format go tool pprof reads), written at the graceful stop.
func TestServeWritesCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuf
	e := env(map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32)})
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--db", filepath.Join(dir, "hpkeeper.db"), "--listen", "127.0.0.1:0", "--cpuprofile", prof}, strings.NewReader(""), &stdout, &stderr, e)
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stdout.String(), "serving the interactions endpoint"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not start in 10 s\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d\nstderr: %s", code, stderr.String())
	}
	data, err := os.ReadFile(prof)
	if err != nil {
		t.Fatalf("read the profile: %v", err)
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		t.Errorf("profile %q (%d bytes) is not gzip data", prof, len(data))
	}
}
