package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
)

// TestFullDisk runs `hpkeeper serve` on a database on an 8 MiB tmpfs and
// fills the filesystem, as an operator's disk fills: the table set up in
// the next channel whose commit fails is answered, ephemerally, that it
// could not be saved and nothing changed (not the generic apology);
// /healthz says 503 "degraded" and why (without a path or an error's
// text), the metrics agree and show the free space; once the filler is
// removed /healthz recovers by itself (no command needed) and the same
// command is saved. The file is sound afterwards. It needs root to mount
// the tmpfs, and skips otherwise.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8388608,mode=0700"); err != nil {
		t.Skipf("a full disk needs a small filesystem, and mounting a tmpfs failed (%v): run as root to test it", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	bin := buildHpkeeper(t)
	dbPath := filepath.Join(dir, "hpkeeper.db")
	pub, priv := genKey(t)
	c := startServe(t, bin, dbPath, pub, true)
	// The /table setup in channel i, as the interaction id (a retry is a
	// new interaction).
	setup := func(i, id int) []byte {
		return interactionIn(fmt.Sprintf("13110000000001%05d", i), id, "u1", "table", "setup", "system", "hit-protection")
	}
	mustPost(t, c.addr, priv, setup(0, 1))

	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for buf := make([]byte, 64<<10); ; {
		if _, err := f.Write(buf); errors.Is(err, syscall.ENOSPC) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	f.Close()

	failedAt := 0
	for i := 1; i < 1000 && failedAt == 0; i++ {
		status, rep, err := post(t.Context(), http.DefaultClient, c.addr, priv, setup(i, i+1))
		switch {
		case err != nil || status != http.StatusOK:
			t.Fatalf("/table setup %d on the full disk: %d %v", i, status, err)
		case rep.Data.Content == commands.NotSaved && rep.Data.Flags&64 != 0:
			failedAt = i
		case rep.Data.Content == commands.Apology:
			t.Fatalf("/table setup %d on the full disk got the apology; want %q", i, commands.NotSaved)
		case !strings.Contains(rep.Data.Content, "now plays"):
			t.Fatalf("/table setup %d: %+v", i, rep)
		}
	}
	if failedAt == 0 {
		t.Fatal("999 tables set up on a full 8 MiB filesystem; want a commit to fail")
	}
	t.Logf("%d tables saved in the file's free pages, then %q", failedAt-1, commands.NotSaved)

	health := func() (int, map[string]string) {
		resp, err := http.Get("http://" + c.addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]string
		b, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("/healthz: %v in %s", err, b)
		}
		return resp.StatusCode, body
	}
	code, body := health()
	if code != 503 || body["status"] != "degraded" || !strings.Contains(body["reason"], "changes cannot be saved") ||
		!strings.Contains(body["reason"], "disk full") || strings.Contains(body["reason"], dir) {
		t.Errorf("/healthz on the full disk: %d %v; want 503 degraded, saying the disk is full and changes cannot be saved, no path", code, body)
	}
	metrics := func() string {
		resp, err := http.Get("http://" + c.addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	m := metrics()
	for _, want := range []string{`hpkeeper_health_status{status="degraded"} 1`, `hpkeeper_health_status{status="ok"} 0`, "hpkeeper_database_free_bytes 0\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics on the full disk lacks %q", want)
		}
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	// No command: the health probe itself finds that commits work again.
	code, body = health()
	if code != 200 || body["status"] != "degraded" || !strings.Contains(body["reason"], "disk nearly full") || strings.Contains(body["reason"], "cannot be saved") {
		t.Errorf("/healthz after the filler was removed: %d %v; want 200, the disk only nearly full (an 8 MiB tmpfs)", code, body)
	}
	if m := metrics(); !strings.Contains(m, `hpkeeper_health_status{status="degraded"} 1`) || strings.Contains(m, "hpkeeper_database_free_bytes 0\n") {
		t.Errorf("/metrics after the filler was removed:\n%s", m)
	}
	if rep := mustPost(t, c.addr, priv, setup(failedAt, 5000)); !strings.Contains(rep.Data.Content, "now plays") {
		t.Errorf("/table setup %d after the disk was freed: %+v; want it saved", failedAt, rep)
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop after SIGTERM")
	}
	checkDB(t, dbPath)
}
