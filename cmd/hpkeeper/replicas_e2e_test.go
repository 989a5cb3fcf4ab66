package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// startReplica starts `serve` on the PostgreSQL database at url.
func startReplica(t *testing.T, bin, url string, pub ed25519.PublicKey) *child {
	t.Helper()
	env := []string{"DISCORD_PUBLIC_KEY=" + hex.EncodeToString(pub), "HPKEEPER_CONFIG=", "DISCORD_TOKEN=", "HPKEEPER_ADMIN_LISTEN=", "HPKEEPER_DB=", "HPKEEPER_DB_URL="}
	return startChild(t, bin, []string{"serve", "--db", url, "--listen", "127.0.0.1:0"}, env, "serving the interactions endpoint")
}

// TestReplicasSurviveAKill runs three serve replicas on one PostgreSQL
// database behind a round-robin client: six clients move the clocks of 8
// tables a round at a time (/clock action:next-round, each application one
// round and one event). Midway one replica is killed with SIGKILL while at
// least one request is in flight there (it is stopped first, SIGSTOP, and
// killed once a request has been written to it, which it cannot have
// answered); a request it was answering is sent again, the same signed
// bytes, to the next replica. At the end every acknowledged round is there, and no
// request was applied twice: each table's clock is at least its
// acknowledged rounds and at most those plus the requests whose answer was
// lost (cut off by the kill, then refused on the next replica as a replay),
// and its history holds one event per round. A request answered by one
// replica is refused by the others (401), the dead one's included; the same
// interaction signed anew is refused by its own record (ephemerally, with
// nothing changed).
func TestReplicasSurviveAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	url := pgtest.NewDatabase(t)
	bin := buildHpkeeper(t)
	pub, priv := genKey(t)
	var reps []*child
	for range 3 {
		reps = append(reps, startReplica(t, bin, url, pub))
	}
	defer func() {
		if t.Failed() {
			for i, r := range reps {
				t.Logf("replica %d stderr:\n%s\nstdout (last 4 KB):\n%s", i, r.stderr, tail(r.stdout.String(), 4096))
			}
		}
	}()
	const gm = "1311000000000001001"
	channels := make([]string, 8)
	for i := range channels {
		channels[i] = fmt.Sprintf("13110000000000004%02d", i)
		mustPost(t, reps[i%3].addr, priv, interactionIn(channels[i], 1+i, gm, "table", "setup", "system", "hit-protection"))
	}

	var (
		mu      sync.Mutex
		dead    = map[int]bool{}
		acked   = make([]int, len(channels)) // rounds answered 200
		unknown = make([]int, len(channels)) // rounds whose answer was lost
		byDead  []signedPost                 // answered by the replica since killed
		answers []signedPost
		next    int
		// stopped: the victim is stopped (SIGSTOP), so a request written
		// to it since (wroteToStopped) is in flight at the kill; cutOff
		// counts the requests written to it that its death cut off.
		stopped        bool
		wroteToStopped int
		cutOff         int
	)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	const victim = 1
	const total = 240 // requests in all; the kill comes after a third
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	killed := make(chan struct{})
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= total {
					return
				}
				if i == total/3 {
					close(killed)
				}
				ch := i % len(channels)
				req := signAt(priv, interactionIn(channels[ch], 10_000+i, gm, "clock", "", "action", "next-round"), time.Now())
				outcome, by := "", -1
				for try := 0; try < 3 && outcome == ""; try++ {
					r := (i + try) % 3
					mu.Lock()
					if dead[r] {
						mu.Unlock()
						continue
					}
					mu.Unlock()
					wrote := false
					trace := &httptrace.ClientTrace{WroteRequest: func(w httptrace.WroteRequestInfo) {
						mu.Lock()
						defer mu.Unlock()
						if wrote = w.Err == nil; wrote && r == victim && stopped {
							wroteToStopped++
						}
					}}
					status, rep, err := req.post(httptrace.WithClientTrace(ctx, trace), client, reps[r].addr)
					if err != nil && r == victim {
						mu.Lock()
						if wrote {
							cutOff++
						}
						mu.Unlock()
					}
					switch {
					case err != nil && try == 0:
						// Cut off (the replica died, or was dying): the
						// same request again, to the next replica.
					case err != nil:
						t.Errorf("request %d on replica %d: %v", i, r, err)
						return
					case status == http.StatusOK && rep.Type == 4 && strings.Contains(rep.Data.Content, "round"):
						outcome, by = "acked", r
					case status == http.StatusUnauthorized && try > 0:
						outcome = "unknown" // the dead replica had accepted it
					default:
						t.Errorf("request %d on replica %d (try %d): status %d, reply %+v", i, r, try, status, rep)
						return
					}
				}
				mu.Lock()
				switch outcome {
				case "acked":
					acked[ch]++
					answers = append(answers, req)
					if by == victim {
						byDead = append(byDead, req)
					}
				case "unknown":
					unknown[ch]++
				default:
					t.Errorf("request %d: no replica answered it", i)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-killed:
	case <-ctx.Done():
		t.Fatal("the load did not get a third of the way in 3 minutes")
	}
	// Stop the victim, and keep the load going until a request has been
	// written to it: stopped, it cannot answer it, so the kill cuts it off.
	if err := reps[victim].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for !processStopped(t, reps[victim].cmd.Process.Pid) {
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	stopped = true
	mu.Unlock()
	for {
		mu.Lock()
		n := wroteToStopped
		mu.Unlock()
		if n > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no request reached the stopped replica before the load ran out of time")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	dead[victim] = true // the clients stop choosing it; requests in flight there are cut off
	mu.Unlock()
	if err := reps[victim].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-reps[victim].done
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if cutOff == 0 {
		t.Fatal("no request was in flight on the replica at its kill: the test cut nothing off")
	}

	// A request answered by one replica is refused by every other: replay
	// each answered one (those of the dead replica first) on the live ones.
	replays := append(byDead, answers[len(answers)-min(len(answers), 5):]...)
	for _, req := range replays {
		for r, rep := range reps {
			if r == victim {
				continue
			}
			if status, _, err := req.post(context.Background(), client, rep.addr); err != nil || status != http.StatusUnauthorized {
				t.Errorf("an answered request replayed on replica %d: status %d, %v; want 401", r, status, err)
			}
		}
	}
	// The same interaction signed anew (a new signature, which the replay
	// guard has not seen: as Discord would send a retry) is refused by the
	// interaction's own record, written with its change, and changes
	// nothing.
	for _, req := range replays[:min(len(replays), 3)] {
		again := signAt(priv, req.body, time.Now().Add(time.Second))
		status, rep, err := again.post(context.Background(), client, reps[2].addr)
		if err != nil || status != http.StatusOK || rep.Data.Flags&64 == 0 || !strings.Contains(rep.Data.Content, "applied already") {
			t.Errorf("an applied interaction signed anew: status %d, reply %+v, %v; want the ephemeral refusal", status, rep, err)
		}
	}
	for r, rep := range reps {
		if r == victim {
			continue
		}
		if err := rep.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-rep.done
	}

	db, err := storage.OpenPostgres(url, storage.PostgresOptions{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sumAcked, sumUnknown := 0, 0
	err = db.View(func(tx *storage.Tx) error {
		for i, ch := range channels {
			tb, err := tx.Table(ch)
			if err != nil {
				return err
			}
			events := 0
			if err := tx.EachEventBackward(ch, func(*storage.Event) (bool, error) { events++; return true, nil }); err != nil {
				return err
			}
			clock := int(tb.Clock)
			if clock < acked[i] || clock > acked[i]+unknown[i] {
				t.Errorf("table %s: clock %d after %d acknowledged rounds and %d whose answer was lost; want %d to %d (lost: an acknowledged write; more: a request applied twice)",
					ch, clock, acked[i], unknown[i], acked[i], acked[i]+unknown[i])
			}
			if events != clock+1 {
				t.Errorf("table %s: %d events for clock %d; want the setup and one per round", ch, events, clock)
			}
			sumAcked += acked[i]
			sumUnknown += unknown[i]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.InspectPostgres(url, 0); err != nil {
		t.Errorf("the database after the kill: %v", err)
	}
	if sumAcked < total/2 {
		t.Errorf("only %d of %d rounds acknowledged: the test did not exercise the replicas", sumAcked, total)
	}
	t.Logf("%d rounds acknowledged; %d requests cut off by the kill, of which %d had been applied there (refused as replays elsewhere); %d answered by the killed replica and refused on the others when replayed", sumAcked, cutOff, sumUnknown, len(byDead))
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Error("the load ran out of time")
	}
}

// processStopped reports whether the process pid is stopped by a signal
// (state T in /proc/pid/stat).
func processStopped(t *testing.T, pid int) bool {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) && runtime.GOOS != "linux" {
		t.Skip("needs /proc to see the replica stopped")
	}
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state …: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'T'
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
