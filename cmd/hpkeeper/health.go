package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/hpkeeper/hpkeeper/bot/operator"
)

// healthMain runs `hpkeeper health`, the container's health check: GET
// /healthz of the running process, its one-line answer on stdout. It
// returns 0 for a 200, 1 for anything else (no answer, 503), 2 for a usage
// error.
func healthMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("hpkeeper health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("url", "", "the running process's base `URL` (default: admin.listen of the config, else http.listen)")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this `duration`")
	fs.Usage = usageFunc(fs, "health", "ask the running process for GET /healthz and exit 0 if it answers 200 (the Docker HEALTHCHECK), 1 otherwise.",
		"[--url URL] [--timeout D] [--config FILE]", "HPKEEPER_CONFIG", "HPKEEPER_ADMIN_LISTEN", "HPKEEPER_LISTEN")
	cfg, code, ok := opsFlags(fs, args, stderr, getenv)
	if !ok {
		return code
	}
	if *base == "" {
		var err error
		if *base, err = cfg.AdminURL(); err != nil {
			fmt.Fprintf(stderr, "hpkeeper health: %v\n", err)
			return 1
		}
	}
	u, err := url.Parse(*base)
	if err != nil || u.Host == "" {
		fmt.Fprintf(stderr, "hpkeeper health: --url %q is not a URL\n", *base)
		return 2
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = operator.PathHealth
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper health: %v\n", err)
		return 2
	}
	client := &http.Client{Transport: &http.Transport{}} // no proxy
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper health: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Fprintf(stdout, "%s %s\n", resp.Status, bytes.TrimSpace(body))
	if resp.StatusCode != http.StatusOK {
		return 1
	}
	return 0
}
