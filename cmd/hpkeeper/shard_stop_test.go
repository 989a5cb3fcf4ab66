package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

// writeTables writes a file at path of the given number of tables, in
// guilds of every shard of 4, with events of about 1 KB each, 100 tables a
// transaction.
func writeTables(t *testing.T, path string, tables, events int) {
	t.Helper()
	db, err := storage.Open(path, storage.Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	summary := strings.Repeat("Rimmer takes 1 (1d6 [1] = 1) and goes down. ", 20)
	for batch := 0; batch*100 < tables; batch++ {
		err := db.Update(func(tx *storage.Tx) error {
			for i := batch * 100; i < min((batch+1)*100, tables); i++ {
				ch := fmt.Sprintf("13110000000%08d", i)
				if err := tx.PutTable(&storage.Table{ChannelID: ch, GuildID: guildOfShard(i%4, 4, i), System: "harm", SetupBy: "u1", GMs: []string{"u1"}}); err != nil {
					return err
				}
				for e := 0; e < events; e++ {
					if err := tx.AppendEvent(&storage.Event{ChannelID: ch, UserID: "u1", Command: "/damage", Summary: summary}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestShardSplitStopsOnSignal sends SIGINT, then in a second run SIGTERM,
// to `hpkeeper shard split` once it has begun writing its new files (a
// .partial file beside them): it stops within seconds, exits 1, says it
// stopped and removed what it had written, and leaves the directory as it
// was (before, only SIGKILL stopped it, leaving a .partial file behind).
func TestShardSplitStopsOnSignal(t *testing.T) {
	bin := buildHpkeeper(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "hpkeeper.db")
	writeTables(t, src, 2000, 10) // about 20 MB
	before, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			c := startChild(t, bin, []string{"shard", "split", "--from", src, "--shards", "4", "--to", filepath.Join(dir, "out-{ids}.db")}, []string{"HPKEEPER_CONFIG="}, "")
			deadline := time.Now().Add(60 * time.Second)
			for {
				if partial, _ := filepath.Glob(filepath.Join(dir, ".out-*.partial-*")); len(partial) > 0 {
					break
				}
				select {
				case <-c.done:
					t.Fatalf("shard split ended before it wrote a file: %v\n%s%s", c.err, c.stdout, c.stderr)
				default:
				}
				if time.Now().After(deadline) {
					t.Fatal("no .partial file after 60 s")
				}
				time.Sleep(2 * time.Millisecond)
			}
			sent := time.Now()
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-c.done:
			case <-time.After(30 * time.Second):
				t.Fatalf("shard split still runs 30 s after %v", sig)
			}
			t.Logf("stopped %v after %v", sig, time.Since(sent).Round(time.Millisecond))
			var exit *exec.ExitError
			if !errors.As(c.err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("exit: %v; want status 1", c.err)
			}
			msg := c.stderr.String()
			if !strings.Contains(msg, "stopped (signal "+sig.String()+")") || !strings.Contains(msg, "the partial new files were removed; no file was written, the sources are unchanged") {
				t.Errorf("stderr %q; want it to say it stopped on %v and removed its files", msg, sig)
			}
			if after, _ := filepath.Glob(filepath.Join(dir, "*")); !slices.Equal(before, after) {
				t.Errorf("the directory went from %v to %v; want it as it was", before, after)
			}
			if partial, _ := filepath.Glob(filepath.Join(dir, ".*")); len(partial) > 0 {
				t.Errorf("left behind: %v", partial)
			}
		})
	}
	if _, err := storage.Inspect(src, time.Second); err != nil {
		t.Errorf("the source after the stopped splits: %v", err)
	}
}
