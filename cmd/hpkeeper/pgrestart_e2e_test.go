package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// TestPostgresRestartedMidLoad stops the PostgreSQL server under two serve
// replicas while four clients move table clocks, and starts it again: while
// it is down each request is answered with a clear refusal (503 "database
// unavailable", nothing handled) or, if the server went away in the middle
// of its transaction, an ephemeral apology, and /healthz says "database
// unavailable"; once it is back the same processes answer again, with no
// restart, and /healthz is ok. Every acknowledged round is in the database
// and none was applied twice.
func TestPostgresRestartedMidLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a PostgreSQL server; skipped with -short")
	}
	db := pgtest.NewRestartable(t)
	bin := buildHpkeeper(t)
	pub, priv := genKey(t)
	reps := []*child{startReplica(t, bin, db.URL, pub), startReplica(t, bin, db.URL, pub)}
	defer func() {
		if t.Failed() {
			for i, r := range reps {
				t.Logf("replica %d stderr:\n%s\nstdout (last 4 KB):\n%s", i, r.stderr, tail(r.stdout.String(), 4096))
			}
		}
	}()
	const gm = "1311000000000001001"
	channels := []string{"1311000000000000501", "1311000000000000502", "1311000000000000503", "1311000000000000504"}
	for i, ch := range channels {
		mustPost(t, reps[i%2].addr, priv, interactionIn(ch, 1+i, gm, "table", "setup", "system", "hit-protection"))
	}
	health := func(addr string) (int, string) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	var (
		mu                   sync.Mutex
		acked                = make([]int, len(channels))
		unknown              = make([]int, len(channels))
		refused, apologies   int
		phase                atomic.Int32 // 0 before the stop, 1 while down, 2 after the start
		ackedAfter, ackedNow atomic.Int32
		next                 atomic.Int64
	)
	client := &http.Client{Timeout: 30 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1))
				ch := i % len(channels)
				req := signAt(priv, interactionIn(channels[ch], 10_000+i, gm, "clock", "", "action", "next-round"), time.Now())
				status, rep, err := req.post(ctx, client, reps[(i+w)%2].addr)
				mu.Lock()
				switch {
				case ctx.Err() != nil:
					unknown[ch]++ // cut off by the end of the test: written or not
				case err != nil:
					t.Errorf("request %d: %v (the replica must answer, the database down or not)", i, err)
				case status == http.StatusOK && rep.Type == 4 && rep.Data.Flags&64 == 0 && strings.Contains(rep.Data.Content, "round"):
					acked[ch]++
					ackedNow.Add(1)
					if phase.Load() == 2 {
						ackedAfter.Add(1)
					}
				case status == http.StatusServiceUnavailable:
					refused++ // not handled: the guard could not record it
				case status == http.StatusOK && rep.Data.Flags&64 != 0:
					// The server went away during its transaction: an
					// apology; written or not, it is not known here.
					apologies++
					unknown[ch]++
				default:
					t.Errorf("request %d: status %d, reply %+v", i, status, rep)
				}
				mu.Unlock()
				if phase.Load() == 1 {
					time.Sleep(20 * time.Millisecond) // the load keeps knocking, gently
				}
			}
		})
	}
	waitFor := func(what string, d time.Duration, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(d)
		for !ok() {
			if time.Now().After(deadline) {
				cancel()
				wg.Wait()
				t.Fatalf("after %v: %s", d, what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("30 rounds acknowledged before the stop", time.Minute, func() bool { return ackedNow.Load() >= 30 })
	db.Stop()
	phase.Store(1)
	waitFor("requests refused while the database is down", time.Minute, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return refused >= 8
	})
	for i, r := range reps {
		if status, body := health(r.addr); status != http.StatusServiceUnavailable || !strings.Contains(body, "database unavailable") {
			t.Errorf("replica %d /healthz while the database is down: %d %s; want 503 saying the database is unavailable", i, status, body)
		}
	}
	db.Start()
	phase.Store(2)
	waitFor("30 rounds acknowledged after the database came back, by the same processes", 2*time.Minute, func() bool { return ackedAfter.Load() >= 30 })
	cancel()
	wg.Wait()
	for i, r := range reps {
		var h struct{ Status string }
		status, body := health(r.addr)
		if json.Unmarshal([]byte(body), &h) != nil || status != http.StatusOK || h.Status != "ok" {
			t.Errorf("replica %d /healthz after the database came back: %d %s; want 200 ok", i, status, body)
		}
		select {
		case <-r.done:
			t.Errorf("replica %d exited: %v", i, r.err)
		default:
		}
	}
	if l := reps[0].stdout.String() + reps[1].stdout.String(); !strings.Contains(l, "database unavailable") {
		t.Error("no replica logged that the database was unavailable")
	}

	check, err := storage.OpenPostgres(db.URL, storage.PostgresOptions{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	sum := 0
	err = check.View(func(tx *storage.Tx) error {
		for i, ch := range channels {
			tb, err := tx.Table(ch)
			if err != nil {
				return err
			}
			if c := int(tb.Clock); c < acked[i] || c > acked[i]+unknown[i] {
				t.Errorf("table %s: clock %d after %d acknowledged rounds and %d whose answer was an apology or lost; want %d to %d", ch, c, acked[i], unknown[i], acked[i], acked[i]+unknown[i])
			}
			sum += acked[i]
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rounds acknowledged; while the database was down %d requests refused with 503 and %d answered with an apology", sum, refused, apologies)
}
