package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// The replicas comparison (hpkeeper bench --postgres URL): the same load,
// the same minutes, through one serve over a bbolt file and through 1, 2
// and 3 serve replicas over one PostgreSQL database, the load generator
// sending each request to the next replica in turn (a round-robin
// balancer); then the round trips each kind of command makes to
// PostgreSQL.

// replicaTarget is one deployment the comparison measures.
type replicaTarget struct {
	postgres bool
	replicas int
}

func (t replicaTarget) String() string {
	if !t.postgres {
		return "bbolt file"
	}
	return "PostgreSQL"
}

// parseReplicas reads --replicas: counts 1…16, comma-separated.
func parseReplicas(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 16 {
			return nil, fmt.Errorf("--replicas %q: want counts from 1 to 16, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// checkLoopbackPostgres refuses a PostgreSQL URL whose host is not a
// loopback address: a benchmark reaches nothing beyond the machine.
func checkLoopbackPostgres(ctx context.Context, raw string) error {
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return fmt.Errorf("--postgres: %w", err)
	}
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		return nil // a Unix socket: this machine
	}
	return checkLoopback(ctx, "http://"+net.JoinHostPort(host, strconv.Itoa(int(cfg.Port))))
}

// scratchDatabase creates a database for one measurement on the server at
// raw and returns its URL and the function that drops it.
func scratchDatabase(ctx context.Context, raw string) (string, func(), error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, err
	}
	name := "hpkeeper_bench_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		return "", nil, fmt.Errorf("--postgres: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("--postgres: create a database for the benchmark: %w", err)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if conn, err := pgx.Connect(ctx, raw); err == nil {
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			conn.Close(ctx)
		}
	}
	return u.String(), drop, nil
}

// runReplicas runs the comparison and prints it.
func runReplicas(ctx context.Context, cfg *config, priv ed25519.PrivateKey, dir string, out *reporter, stderr io.Writer) error {
	if err := checkLoopbackPostgres(ctx, cfg.postgres); err != nil {
		return err
	}
	pub := priv.Public().(ed25519.PublicKey)
	targets := []replicaTarget{{postgres: false, replicas: 1}}
	for _, n := range cfg.replicas {
		targets = append(targets, replicaTarget{postgres: true, replicas: n})
	}
	type row struct {
		t     replicaTarget
		phase string
		runs  []runResult
	}
	var rows []row
	for ti, t := range targets {
		store := filepath.Join(dir, fmt.Sprintf("replicas-%d.db", ti))
		drop := func() { _ = os.Remove(store) }
		if t.postgres {
			var err error
			if store, drop, err = scratchDatabase(ctx, cfg.postgres); err != nil {
				return err
			}
		}
		var servers []*server
		stopAll := func() {
			for _, s := range servers {
				_ = s.stop()
			}
			drop()
		}
		var urls []string
		for range t.replicas {
			addr, err := freeLoopbackPort()
			if err != nil {
				stopAll()
				return err
			}
			s, err := startChild(ctx, []string{"serve", "--db", store, "--listen", addr}, addr, pub, cfg.verbose, stderr)
			if err != nil {
				stopAll()
				return fmt.Errorf("%s, %d replicas: %w", t, t.replicas, err)
			}
			servers = append(servers, s)
			urls = append(urls, s.url)
		}
		cl := newClientOf(urls, priv, max(cfg.concurrency, cfg.setupClients))
		start := time.Now()
		if err := cl.setup(ctx, cfg); err != nil {
			stopAll()
			return fmt.Errorf("%s, %d replicas: setup: %w", t, t.replicas, err)
		}
		out.printf("%s, %d serve process%s: setup in %.1fs\n", t, t.replicas, map[bool]string{true: "es"}[t.replicas > 1], time.Since(start).Seconds())
		est := newEstimates(cfg)
		for r := range cfg.runs {
			for _, phase := range cfg.phases {
				res, err := cl.run(ctx, cfg, mixes[phase], 0, nil, false, est.expect(phase))
				if err != nil {
					stopAll()
					return fmt.Errorf("%s, %d replicas: phase %s run %d: %w", t, t.replicas, phase, r+1, err)
				}
				res.verbose = cfg.verbose
				est.saw(phase, res)
				out.run(phase, r+1, res)
				found := false
				for i := range rows {
					if rows[i].t == t && rows[i].phase == phase {
						rows[i].runs, found = append(rows[i].runs, res), true
					}
				}
				if !found {
					rows = append(rows, row{t: t, phase: phase, runs: []runResult{res}})
				}
			}
		}
		stopAll()
		out.printf("\n")
	}
	out.printf("replicas, the same load through each (median of %d runs; writes/s min / median / max):\n", cfg.runs)
	out.printf("  store        serves  phase    req/s       writes/s (min / median / max)       p99  write p99  errors\n")
	for _, r := range rows {
		s := summarize(r.phase, r.runs)
		lo, med, hi := spread(r.runs, runResult.writeRate)
		out.printf("  %-11s  %6d  %-5s  %7.0f  %8.0f / %6.0f / %6.0f  %9s  %9s  %6d\n", r.t, r.t.replicas, r.phase, s.rate,
			lo, med, hi, fmtDur(s.p99), fmtLat(s.writeP99), s.errorCount)
	}
	out.printf("\n")
	return roundTrips(ctx, cfg, priv, out)
}

// roundTrips measures, in this process over a new database, how many
// round trips to PostgreSQL each kind of command costs through the
// endpoint of a replica (the shared replay guard included), a request at
// a time, after a first pass that prepares the statements.
func roundTrips(ctx context.Context, cfg *config, priv ed25519.PrivateKey, out *reporter) error {
	u, drop, err := scratchDatabase(ctx, cfg.postgres)
	if err != nil {
		return err
	}
	defer drop()
	db, err := storage.OpenPostgres(u, storage.PostgresOptions{})
	if err != nil {
		return err
	}
	defer db.Close()
	pub := priv.Public().(ed25519.PublicKey)
	ep, err := bot.NewEndpoint(commands.New(db, dice.Random(), cfg.systems, cfg.features()...), pub, zerolog.Nop(), bot.WithSharedReplays(db),
		bot.WithFilesClient(&http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(offlineURL)}}))
	if err != nil {
		return err
	}
	srv, err := serveInProcess(ctx, ep, func() error { return nil })
	if err != nil {
		return err
	}
	defer func() { _ = srv.stop() }()
	cl := newClient(srv.url, priv, 1)
	const n = 0 // table 0: hit-protection
	sys := systemWorkloads[n]
	gm, player := gmOf(n), playerOf(n, 0)
	type kind struct {
		what string
		u    sender
		bc   commandData
	}
	setup := []kind{{"/table setup", gm, cmd("table", "setup", "system", sys.name)}}
	for i := range 5 {
		setup = append(setup, kind{"/char create", playerOf(n, i), cmd("char", "create", "name", charName(i), "stats", sys.stats)})
	}
	kinds := []kind{
		{"/char show (a read)", player, cmd("char", "show", "name", charName(0))},
		{"/table show (a read)", player, cmd("table", "show")},
		{"/history (a read of events)", player, cmd("history", "")},
		{"/roll (no table read)", player, cmd("roll", "", "expr", "1d20+3")},
		{"/damage (a write)", gm, sys.damage(charName(1))},
		{"/undo (a read of events, then a write)", gm, cmd("undo", "")},
	}
	send := func(k kind, pass int) error {
		u := k.u
		if k.bc.name == "history" {
			u = playerOf(n, 5+pass) // a page costs work units: a user of its own each pass
		}
		body, err := k.bc.body(u, n)
		if err != nil {
			return err
		}
		_, _, err = cl.send(ctx, body)
		return err
	}
	for _, k := range setup {
		if err := send(k, 0); err != nil {
			return fmt.Errorf("round trips: %s: %w", k.what, err)
		}
	}
	out.printf("round trips to PostgreSQL per request, through a replica's endpoint (the replay guard's 1 included):\n")
	const each = 10
	for pass := range 2 { // the first prepares every statement on the connections
		for _, k := range kinds {
			before := db.RoundTrips()
			for range each {
				if err := send(k, pass); err != nil {
					return fmt.Errorf("round trips: %s: %w", k.what, err)
				}
			}
			if pass == 1 {
				out.printf("  %-40s %5.1f\n", k.what, float64(db.RoundTrips()-before)/each)
			}
		}
	}
	out.printf("\n")
	return nil
}
