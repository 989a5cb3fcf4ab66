package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// damagedCopy writes a small sound database, damages a copy of it with
// harm (given the file and its page size and root page, read from its
// first meta page) and returns the copy's path.
func damagedCopy(t *testing.T, harm func(f *os.File, pageSize int64, root uint64)) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "hpkeeper.db")
	writeTables(t, path, 40, 0)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt reads the meta page of the later transaction.
	meta := make([]byte, 64)
	if _, err := f.ReadAt(meta, 16); err != nil {
		t.Fatal(err)
	}
	ps := int64(binary.NativeEndian.Uint32(meta[8:]))
	other := make([]byte, 64)
	if _, err := f.ReadAt(other, ps+16); err != nil {
		t.Fatal(err)
	}
	if binary.NativeEndian.Uint64(other[48:]) > binary.NativeEndian.Uint64(meta[48:]) {
		meta = other
	}
	harm(f, ps, binary.NativeEndian.Uint64(meta[16:]))
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDamagedFileRefused runs serve, run and check on a damaged file, as
// an operator would meet one: a file cut short (truncate -s 8192 made
// both crash with SIGBUS before), an empty file ("bad file descriptor"
// from check before), a root page overwritten (serve panicked in migrate
// before) and a damaged meta page. Each exits 1 with one line on stderr
// naming the file, what is wrong and what to do; check prints no counts
// for what it could not read; serve opens the readable one with
// --allow-unsound, logging what is wrong.
func TestDamagedFileRefused(t *testing.T) {
	cases := []struct {
		name     string
		harm     func(f *os.File, pageSize int64, root uint64)
		want     string
		readable bool
	}{
		{"truncated", func(f *os.File, _ int64, _ uint64) { f.Truncate(8192) }, "it is 8,192 bytes long, shorter than the", false},
		{"empty", func(f *os.File, _ int64, _ uint64) { f.Truncate(0) }, "it is empty (0 bytes), not a database", false},
		{"root page overwritten", func(f *os.File, ps int64, root uint64) {
			f.WriteAt(bytes.Repeat([]byte{0xA5}, int(ps)), int64(root)*ps)
		}, "(the root) is not a branch or leaf page", false},
		{"meta page flipped", func(f *os.File, _ int64, _ uint64) { f.WriteAt([]byte{0xFF, 0xFF}, 16+48) },
			"meta page 0 is damaged (checksum mismatch)", true},
		{"other meta page flipped", func(f *os.File, ps int64, _ uint64) { f.WriteAt([]byte{0xFF, 0xFF}, ps+16+48) },
			"meta page 1 is damaged (checksum mismatch)", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := damagedCopy(t, tc.harm)
			e := env(map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32), "DISCORD_TOKEN": "test-token"})
			for _, args := range [][]string{
				{"serve", "--db", path, "--listen", "127.0.0.1:0"},
				{"run", "--db", path, "--shards", "1"},
				{"check", "--db", path},
			} {
				var stdout, stderr bytes.Buffer
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a serve that starts stops
				code := run(ctx, args, strings.NewReader(""), &stdout, &stderr, e)
				cancel()
				msg := stderr.String()
				if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, path+" is damaged: ") || !strings.Contains(msg, tc.want) ||
					!strings.Contains(msg, "restore the last backup") {
					t.Errorf("%s: exit %d, stderr %q; want 1 and one line naming %s, saying %q and to restore the last backup", args[0], code, msg, path, tc.want)
				}
				if args[0] != "check" && !strings.Contains(msg, "hpkeeper check --db "+path) {
					t.Errorf("%s: %q; want it to say to run hpkeeper check", args[0], msg)
				}
				if tc.readable != strings.Contains(msg, "--allow-unsound") {
					t.Errorf("%s: %q; want --allow-unsound offered only for a file bbolt can read", args[0], msg)
				}
				out := stdout.String()
				if args[0] == "check" && !tc.readable && (!strings.Contains(out, "NOT sound") || strings.Contains(out, "tables")) {
					t.Errorf("check: stdout %q; want NOT sound and no counts", out)
				}
				for _, never := range []string{"bad file descriptor", "panic", "goroutine", "SIGBUS"} {
					if strings.Contains(msg+out, never) {
						t.Errorf("%s said %q", args[0], never)
					}
				}
			}
			if !tc.readable {
				return
			}
			// The operator's override: serve starts on it and logs why it
			// should not have.
			ctx, cancel := context.WithCancel(context.Background())
			var stdout, stderr syncBuf
			done := make(chan int)
			go func() {
				done <- run(ctx, []string{"serve", "--db", path, "--listen", "127.0.0.1:0", "--allow-unsound"}, strings.NewReader(""), &stdout, &stderr, e)
			}()
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(stdout.String(), "serving the interactions endpoint") && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			cancel()
			if code := <-done; code != 0 {
				t.Fatalf("serve --allow-unsound exited %d: %s", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), `"level":"warn"`) || !strings.Contains(stdout.String(), tc.want) {
				t.Errorf("serve --allow-unsound logged %q; want a warning saying %q", stdout.String(), tc.want)
			}
		})
	}
}
