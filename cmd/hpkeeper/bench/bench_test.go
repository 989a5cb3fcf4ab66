package bench

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands/commandstest"
)

// benchMain runs Main as hpkeeper wires it: every system and feature.
func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Main(ctx, args, stdout, stderr, commandstest.Systems(), commandstest.Features)
}

func TestBenchRefusesNonLoopbackTargets(t *testing.T) {
	ctx := context.Background()
	for _, target := range []string{"http://10.0.0.1:8080", "http://192.168.1.5/", "http://[2001:db8::1]:80", "https://127.0.0.1:8080", "ftp://127.0.0.1"} {
		if err := checkLoopback(ctx, target); err == nil {
			t.Errorf("checkLoopback(%q) = nil; want a refusal", target)
		}
	}
	for _, target := range []string{"http://127.0.0.1:8080", "http://[::1]:9000/", "http://127.0.0.2:1"} {
		if err := checkLoopback(ctx, target); err != nil {
			t.Errorf("checkLoopback(%q) = %v; want nil", target, err)
		}
	}
	// The dialer refuses whatever the URL said.
	if _, err := loopbackDialer()(ctx, "tcp", "10.0.0.1:80"); err == nil || !strings.Contains(err.Error(), "not a loopback") {
		t.Errorf("dial 10.0.0.1: %v; want a refusal", err)
	}
	var out, errb bytes.Buffer
	code := benchMain(ctx, []string{"--target", "http://10.1.2.3:8080", "--key-seed", strings.Repeat("00", 32)}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "loopback") {
		t.Errorf("bench --target 10.1.2.3: exit %d, stderr %q; want 1 and a loopback refusal", code, errb.String())
	}
}

// TestBenchRunsInProcess runs a tiny load end to end: signed requests over
// loopback to a real endpoint and database, every phase, no errors. It
// asserts on counts, never on rates: on a slow, busy machine (the race
// detector beside other work) a 300 ms window may hold a single request,
// and every client plays at least one measured action.
func TestBenchRunsInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	var out, errb bytes.Buffer
	args := []string{"--inprocess", "--dir", t.TempDir(), "--tables", "4", "--chars", "3", "--concurrency", "4",
		"--duration", "300ms", "--warmup", "100ms", "--runs", "1", "--baseline", "50ms"}
	if code := benchMain(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &out, &errb)
	}
	report := out.String()
	for _, want := range []string{"fdatasync loop", "bbolt, one Update per write", "setup: 4 tables × 3 characters",
		"median of the runs", "ratio to the raw baselines", "VmHWM",
		"null  run 1:", "signed before the run:", "ratio to the null endpoint", "read   req/s ÷ null ="} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	// Each phase sent requests (at least one per client), none failed.
	for _, phase := range []string{"mixed", "write", "read"} {
		requests, refused, errors, ok := runCounts(report, phase)
		if !ok {
			t.Errorf("no run line for %s:\n%s", phase, report)
			continue
		}
		if requests < 4 {
			t.Errorf("%s: %d requests; want at least one per client (4)", phase, requests)
		}
		if errors != 0 {
			t.Errorf("%s: %d errors:\n%s", phase, errors, report)
		}
		if phase == "write" && refused == requests {
			t.Errorf("write phase: every request refused:\n%s", report)
		}
	}
}

// runCounts reads the counts of the first run line of phase in a bench
// report ("… 123 requests, 4 refused, 0 errors").
func runCounts(report, phase string) (requests, refused, errors int, ok bool) {
	m := regexp.MustCompile(`(?m)^` + phase + `\s+run 1:.*\s(\d+) requests, (\d+) refused, (\d+) errors$`).FindStringSubmatch(report)
	if m == nil {
		return 0, 0, 0, false
	}
	requests, _ = strconv.Atoi(m[1])
	refused, _ = strconv.Atoi(m[2])
	errors, _ = strconv.Atoi(m[3])
	return requests, refused, errors, true
}

// In the open loop, an action that started late counts its delay once: in
// the latency of its first request, not of the follow-up (the /undo after a
// /damage, the press after /char delete).
func TestBenchOpenLoopCountsLateStart(t *testing.T) {
	wk := &worker{measure: true, late: 5 * time.Millisecond}
	wk.record(wireReply{}, time.Millisecond, nil, true)
	wk.record(wireReply{}, 2*time.Millisecond, nil, false)
	if w, r := wk.res.writeLatencies, wk.res.readLatencies; !slices.Equal(w, []time.Duration{6 * time.Millisecond}) ||
		!slices.Equal(r, []time.Duration{2 * time.Millisecond}) {
		t.Errorf("write latencies %v, read latencies %v; want [6ms] and [2ms]", w, r)
	}
}

// TestBenchOpenLoopKeepsItsRate: at 20 actions/s the open loop starts at
// most the scheduled actions (20 in the 1 s window, and each of the 4
// clients' one over the window's edges), however fast the server answers; a
// closed loop would send as many as it can. A count, not a rate: a slow
// machine may start fewer, never more.
func TestBenchOpenLoopKeepsItsRate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	var out, errb bytes.Buffer
	args := []string{"--inprocess", "--dir", t.TempDir(), "--tables", "4", "--chars", "3", "--concurrency", "4",
		"--rate", "20", "--phases", "read", "--duration", "1s", "--warmup", "200ms", "--runs", "1", "--baseline", "0"}
	if code := benchMain(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &out, &errb)
	}
	report := out.String()
	if !strings.Contains(report, "open loop at 20 actions/s") {
		t.Errorf("report does not name the open loop:\n%s", report)
	}
	// A read action is one request.
	requests, _, errors, ok := runCounts(report, "read")
	if !ok {
		t.Fatalf("no run line for read:\n%s", report)
	}
	if requests < 4 || requests > 20+2*4 || errors != 0 {
		t.Errorf("open loop at 20 actions/s for 1 s sent %d requests with %d errors; want 4 to 28 (one per client at least), none failing:\n%s", requests, errors, report)
	}
}
