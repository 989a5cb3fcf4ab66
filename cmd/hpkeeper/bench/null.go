package bench

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/hpkeeper/hpkeeper/bot"
)

// The null endpoint is the ceiling every headline of hpkeeper bench is
// divided by: bot.NullEndpoint on the same HTTP server as serve
// (bot.ServeListener), in a process of its own started the same way, loaded
// by the same clients over the same kind of connections with the mixed
// phase's requests. It verifies each signature and answers a fixed reply.

// nullPhase names the null endpoint's runs in the report.
const nullPhase = "null"

// serveNull serves the null endpoint on addr (loopback only) until ctx is
// cancelled, with the public key of DISCORD_PUBLIC_KEY: what bench runs as
// its child for --null.
func serveNull(ctx context.Context, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--serve-null %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--serve-null %q: only a loopback address", addr)
	}
	key, err := bot.ParsePublicKey(os.Getenv("DISCORD_PUBLIC_KEY"))
	if err != nil {
		return fmt.Errorf("--serve-null needs DISCORD_PUBLIC_KEY: %w", err)
	}
	h, err := bot.NullEndpoint(key)
	if err != nil {
		return err
	}
	return bot.Serve(ctx, addr, h)
}

// startNull starts the null endpoint as serve is started: a child process
// (hpkeeper bench --serve-null), or in this process with --inprocess. With
// --target there is no null endpoint to start: it fails.
func startNull(ctx context.Context, cfg *config, pub ed25519.PublicKey, stderr io.Writer) (*server, error) {
	if cfg.target != "" {
		return nil, errors.New("--target: the null endpoint runs beside a server bench starts itself (use --null=false)")
	}
	if cfg.inProcess {
		h, err := bot.NullEndpoint(pub)
		if err != nil {
			return nil, err
		}
		return serveInProcess(ctx, h, func() error { return nil })
	}
	addr, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	return startChild(ctx, []string{"bench", "--serve-null", addr}, addr, pub, cfg.verbose, stderr)
}

// serveInProcess serves h on a new loopback port in this process until the
// server is stopped; stop runs after the HTTP server has shut down.
func serveInProcess(ctx context.Context, h http.Handler, stop func() error) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, stop())
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- bot.ServeListener(sctx, ln, h) }()
	return &server{url: "http://" + ln.Addr().String(), pid: os.Getpid(), stop: func() error {
		cancel()
		err := <-done
		return errors.Join(err, stop())
	}}, nil
}

// freeLoopbackPort returns a loopback address with a port free a moment ago
// (listen, note it, close: the child binds it again).
func freeLoopbackPort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr, nil
}

// startChild starts this executable with args as a server on addr, with
// the public key and only the environment a benchmark passes on, and waits
// until it answers HTTP.
func startChild(ctx context.Context, args []string, addr string, pub ed25519.PublicKey, verbose bool, stderr io.Writer) (*server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = []string{"DISCORD_PUBLIC_KEY=" + hex.EncodeToString(pub), "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"HTTPS_PROXY=" + OfflineProxy, "HTTP_PROXY=" + OfflineProxy}
	for _, v := range []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT"} {
		if val := os.Getenv(v); val != "" {
			cmd.Env = append(cmd.Env, v+"="+val)
		}
	}
	if verbose {
		cmd.Stdout, cmd.Stderr = stderr, stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", args[0], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	srv := &server{url: "http://" + addr, pid: cmd.Process.Pid, stop: func() error {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			return err
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			return errors.New("server did not stop")
		}
	}}
	probe := newClient(srv.url, nil, 1)
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("%s exited early: %v (run with -v to see its log)", args[0], err)
		default:
		}
		if probe.up(ctx) {
			return srv, nil
		}
		if time.Now().After(deadline) {
			_ = srv.stop()
			return nil, fmt.Errorf("%s did not come up within 15s", args[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// estimates keeps, per phase, the request rate the next run may reach, so
// that enough requests are signed before it: the first null run assumes
// firstGuess requests a second, a phase's first run the null endpoint's best
// (hpkeeper cannot be faster than the ceiling), later runs 1.3× their phase's
// best so far. An open loop needs its rate in actions (each at most two
// requests).
type estimates struct {
	rate float64 // --rate, or 0
	best map[string]float64
}

// firstGuess is what the first run is signed for when nothing was measured
// yet: above what two cores verify (about 45 µs a signature).
const firstGuess = 40000

func newEstimates(cfg *config) *estimates {
	return &estimates{rate: cfg.rate, best: map[string]float64{}}
}

func (e *estimates) expect(phase string) float64 {
	if e.rate > 0 {
		return 1.1*e.rate + 1
	}
	if b, ok := e.best[phase]; ok {
		return 1.3 * b
	}
	if b, ok := e.best[nullPhase]; ok {
		return 1.3 * b
	}
	return firstGuess
}

func (e *estimates) saw(phase string, r runResult) {
	e.best[phase] = max(e.best[phase], r.rate())
}
