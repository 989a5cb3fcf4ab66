package main

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

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
	code := run(ctx, []string{"bench", "--target", "http://10.1.2.3:8080", "--key-seed", strings.Repeat("00", 32)}, nil, &out, &errb, func(string) string { return "" })
	if code != 1 || !strings.Contains(errb.String(), "loopback") {
		t.Errorf("bench --target 10.1.2.3: exit %d, stderr %q; want 1 and a loopback refusal", code, errb.String())
	}
}

// TestBenchRunsInProcess runs a tiny load end to end: signed requests over
// loopback to a real endpoint and database, every phase, no errors.
func TestBenchRunsInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	var out, errb bytes.Buffer
	args := []string{"bench", "--inprocess", "--dir", t.TempDir(), "--tables", "4", "--chars", "3", "--concurrency", "4",
		"--duration", "300ms", "--warmup", "100ms", "--runs", "1", "--baseline", "50ms"}
	if code := run(context.Background(), args, nil, &out, &errb, func(string) string { return "" }); code != 0 {
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
	// Each phase sent requests, none failed.
	for _, phase := range []string{"mixed", "write", "read"} {
		m := regexp.MustCompile(`(?m)^  ` + phase + `\s+(\d+)\s+(\d+).*\s(\d+)\s+(\d+)\s+\S+$`).FindStringSubmatch(report)
		if m == nil {
			t.Errorf("no summary line for %s:\n%s", phase, report)
			continue
		}
		if m[1] == "0" {
			t.Errorf("%s: 0 req/s", phase)
		}
		if m[4] != "0" {
			t.Errorf("%s: %s errors:\n%s", phase, m[4], report)
		}
		if phase == "write" && m[2] == "0" {
			t.Errorf("write phase: 0 writes/s")
		}
	}
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

func TestBenchOpenLoopKeepsItsRate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	var out, errb bytes.Buffer
	args := []string{"bench", "--inprocess", "--dir", t.TempDir(), "--tables", "4", "--chars", "3", "--concurrency", "4",
		"--rate", "100", "--phases", "read", "--duration", "1s", "--warmup", "200ms", "--runs", "1", "--baseline", "0"}
	if code := run(context.Background(), args, nil, &out, &errb, func(string) string { return "" }); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &out, &errb)
	}
	report := out.String()
	if !strings.Contains(report, "open loop at 100 actions/s") {
		t.Errorf("report does not name the open loop:\n%s", report)
	}
	m := regexp.MustCompile(`(?m)^  read\s+(\d+)\s`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no summary line for read:\n%s", report)
	}
	// A read action is one request: about 100 of them a second, not as many
	// as the server can answer (thousands).
	if n, _ := strconv.Atoi(m[1]); n < 50 || n > 150 {
		t.Errorf("open loop at 100 actions/s ran %d req/s:\n%s", n, report)
	}
}
