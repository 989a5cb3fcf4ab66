// Package bench is `hpkeeper bench`, the load generator: it measures
// `hpkeeper serve` on loopback with interactions signed as Discord signs
// them (throughput, latency, CPU and memory, each as a ratio to a null
// endpoint on the same machine), or compares one serve over a bbolt file
// with serve replicas over PostgreSQL (replicas.go). It touches the rest
// of hpkeeper through the bot's endpoint and the service main wires
// (Main), and reaches no host beyond loopback.
package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

const usage = `hpkeeper bench: measure hpkeeper serve on loopback with signed interactions (throughput, latency, memory).

Usage:
  hpkeeper bench [flags]

It generates its own Ed25519 key pair, starts "hpkeeper serve" as a child
process on 127.0.0.1 over a fresh database (or serves in-process with
--inprocess, or targets a running serve on loopback with --target), creates
--tables tables of --chars characters each, then runs each phase of --phases
--runs times for --duration after --warmup, with --concurrency clients each
sending one request at a time (a closed loop: a client sends its next
request when the reply to the last one arrives). With --rate the clients run
an open loop instead: together they start --rate user actions a second at
fixed intervals, whatever the replies' speed, and an action that starts late
because the client was still waiting counts its delay in its latency (so a
slow server cannot hide its queue by slowing the load down):

  mixed  damage (then /undo), heal, roll, rest, /char show, /table show,
         /char list, /history and a button flow (/char delete, press Cancel)
  write  only state-changing commands (damage, /undo, heal, roll, rest)
  read   only read-only commands (/char show, /table show, /char list, /history)

Before the server starts it measures the disk's own limit in the same
directory: a plain fdatasync loop and one bbolt Update per write. Beside
serve it starts the null endpoint (--null): the same HTTP server in a process
of its own that verifies each request's signature and answers one fixed
reply, the most any interactions bot can do on this machine; each round
runs the null endpoint with the mixed phase's requests, then every phase.
The requests of each measured window are signed before the run, as Discord
signs on its own machines (a button press, whose custom_id comes from the
reply, is signed when the reply arrives; the report counts those).

It prints latency percentiles (client-side: signed request sent to reply
read), throughput, refusals and errors per run; the load generator's CPU per
request; per phase the median, minimum and maximum over the runs; every
headline as a ratio to the null endpoint of the same round; the ratios to
the raw baselines; and the server's memory.

Flags:
`

// config is the parsed command line of bench.
type config struct {
	dir          string
	tables       int
	chars        int
	concurrency  int
	duration     time.Duration
	warmup       time.Duration
	runs         int
	phases       []string
	baseline     time.Duration
	inProcess    bool
	target       string
	keySeed      string
	printKey     bool
	cpuProfile   string
	memProfile   string
	verbose      bool
	setupClients int
	rate         float64
	null         bool
	serveNull    string
	cacheMB      int
	// postgres and replicas: the replicas comparison (replicas.go).
	postgres string
	replicas []int
	// systems and features are what an in-process server plays (Main).
	systems  []commands.System
	features func() []commands.Feature
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("hpkeeper bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\nEnvironment: GOMAXPROCS, GOGC and GOMEMLIMIT are passed on to the child serve; no other variable is read.\n")
	}
	fs.StringVar(&c.dir, "dir", "", "directory for the database and the baseline files (default: a new temporary directory, removed afterwards)")
	fs.IntVar(&c.tables, "tables", 1000, "tables (Discord channels) to create")
	fs.IntVar(&c.chars, "chars", 5, "characters per table")
	fs.IntVar(&c.concurrency, "concurrency", 50, "concurrent clients, each with one request in flight")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "measured time of each phase run")
	fs.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured time before each phase run")
	fs.IntVar(&c.runs, "runs", 3, "runs of each phase (the report gives each run and the median)")
	phases := fs.String("phases", "mixed,write,read", "comma-separated phases: mixed, write, read")
	fs.DurationVar(&c.baseline, "baseline", 3*time.Second, "time of each raw disk baseline (0 skips them)")
	fs.BoolVar(&c.inProcess, "inprocess", false, "serve in this process instead of a child process (needed for --memprofile)")
	fs.StringVar(&c.target, "target", "", "URL of a running hpkeeper serve on loopback (needs --key-seed); start that serve with HTTPS_PROXY="+OfflineProxy+", as bench does its own, so that the follow-ups it posts (0-HP charts, deferred answers) stay on loopback")
	fs.StringVar(&c.keySeed, "key-seed", "", "hex Ed25519 seed to sign with (default: a new random key)")
	fs.BoolVar(&c.printKey, "print-key", false, "print a new key seed and its public key (for --target) and exit")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile to this file: of the measured phases with --inprocess (server and load generator together), else of the child serve's whole life (setup included; not with --target)")
	fs.StringVar(&c.memProfile, "memprofile", "", "write a heap profile at the end to this file (with --inprocess)")
	fs.Float64Var(&c.rate, "rate", 0, "open loop: user actions a second across all clients, at fixed intervals (0: closed loop, as fast as replies come)")
	fs.BoolVar(&c.null, "null", true, "measure the null endpoint (signature check and a fixed reply) in every round, the ceiling the ratios divide by")
	fs.StringVar(&c.serveNull, "serve-null", "", "serve only the null endpoint on this loopback address until interrupted, with DISCORD_PUBLIC_KEY (bench starts itself so for --null)")
	fs.IntVar(&c.cacheMB, "cache-mb", 0, "the server's storage.cache_mb (0: its default; -1: no state cache)")
	fs.StringVar(&c.postgres, "postgres", "", "compare, under the same load, one serve over a bbolt file with --replicas serve processes over one PostgreSQL database on this loopback server `URL` (its user must be able to create databases; each measurement gets one of its own, dropped after), and count each kind of command's round trips to PostgreSQL")
	replicas := fs.String("replicas", "1,2,3", "with --postgres: the `counts` of serve replicas to measure, comma-separated")
	fs.BoolVar(&c.verbose, "v", false, "show the server's log and a sample refusal of each run")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, flag.ErrHelp
		}
		return nil, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hpkeeper bench: unexpected argument %q\n", fs.Arg(0))
		return nil, errUsage
	}
	for _, p := range strings.Split(*phases, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, ok := mixes[p]; !ok {
			fmt.Fprintf(stderr, "hpkeeper bench: unknown phase %q (mixed, write, read)\n", p)
			return nil, errUsage
		}
		c.phases = append(c.phases, p)
	}
	switch {
	case c.tables < 1 || c.chars < 2 || c.concurrency < 1 || c.runs < 1 || c.duration <= 0 || c.warmup < 0:
		fmt.Fprintln(stderr, "hpkeeper bench: --tables, --concurrency, --runs and --duration must be positive, --chars at least 2")
		return nil, errUsage
	case c.chars > commands.MaxCharacters:
		fmt.Fprintf(stderr, "hpkeeper bench: --chars is at most %d, the most a table holds\n", commands.MaxCharacters)
		return nil, errUsage
	case math.IsNaN(c.rate) || c.rate < 0 || c.rate > 0 && (c.rate > 1e6 || float64(c.concurrency)/c.rate > 3600):
		// Each client starts an action every concurrency/rate seconds: keep
		// that interval between a microsecond and an hour.
		fmt.Fprintln(stderr, "hpkeeper bench: --rate must be 0 (closed loop) or between concurrency/3600 and 1,000,000 actions/s")
		return nil, errUsage
	case c.target != "" && c.keySeed == "":
		fmt.Fprintln(stderr, "hpkeeper bench: --target needs --key-seed (the server must run with its public key; see --print-key)")
		return nil, errUsage
	case c.memProfile != "" && !c.inProcess:
		fmt.Fprintln(stderr, "hpkeeper bench: --memprofile needs --inprocess")
		return nil, errUsage
	case c.cpuProfile != "" && c.target != "":
		fmt.Fprintln(stderr, "hpkeeper bench: --cpuprofile profiles the server bench starts, not a --target")
		return nil, errUsage
	}
	if c.postgres != "" {
		var err error
		if c.replicas, err = parseReplicas(*replicas); err != nil {
			fmt.Fprintf(stderr, "hpkeeper bench: %v\n", err)
			return nil, errUsage
		}
		if c.target != "" || c.inProcess || c.rate > 0 {
			fmt.Fprintln(stderr, "hpkeeper bench: --postgres starts its own serve processes: not with --target, --inprocess or --rate")
			return nil, errUsage
		}
	}
	c.setupClients = 50 // setup is not measured: always 50 clients
	return c, nil
}

// errUsage reports flags that did not parse (the flag package has already
// said why).
var errUsage = errors.New("usage")

// Main runs `hpkeeper bench [flags]` with args (the flags, without the
// program and subcommand names) and returns the exit code: 0 when the
// report is printed (and for -h), 1 when the benchmark failed, 2 for a
// usage error. A server it runs in this process (--inprocess, and the
// round trips of --postgres) plays the rule systems given with a fresh set
// of features from features, as main wires serve; a server it starts as a
// child process is this executable's `hpkeeper serve`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, systems []commands.System, features func() []commands.Feature) int {
	cfg, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	cfg.systems, cfg.features = systems, features
	if cfg.serveNull != "" {
		if err := serveNull(ctx, cfg.serveNull); err != nil {
			fmt.Fprintf(stderr, "hpkeeper bench: %v\n", err)
			return 1
		}
		return 0
	}
	if err := measure(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "hpkeeper bench: %v\n", err)
		return 1
	}
	return 0
}

// signingKey returns the signing key: from the hex seed, or a new one.
func signingKey(seed string) (ed25519.PrivateKey, error) {
	if seed == "" {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		return priv, err
	}
	b, err := hex.DecodeString(strings.TrimSpace(seed))
	if err != nil || len(b) != ed25519.SeedSize {
		return nil, fmt.Errorf("--key-seed: want %d bytes of hex", ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(b), nil
}

// checkLoopback refuses any URL whose host is not a loopback address (a
// name must resolve to loopback addresses only).
func checkLoopback(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("target %q: %w", raw, err)
	}
	if u.Scheme != "http" {
		return fmt.Errorf("target %q: only http:// on loopback is allowed", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("target %q is not a loopback address: the load generator only targets loopback", raw)
		}
		return nil
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("target %q: %w", raw, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("target %q: no address", raw)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return fmt.Errorf("target %q resolves to %s, not loopback: the load generator only targets loopback", raw, a.IP)
		}
	}
	return nil
}

// loopbackDialer dials only loopback addresses, whatever the URL says.
func loopbackDialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("refusing to dial %s: not a loopback address", addr)
		}
		return d.DialContext(ctx, network, addr)
	}
}

// OfflineProxy is the proxy of every request the server under test
// makes to Discord (the webhook call of an answer deferred past
// bot.DefaultDeferAfter): a loopback port where nothing listens, so a
// benchmark never reaches Discord; such a reply counts with the deferral's
// latency, which is what a player would wait.
const OfflineProxy = "http://127.0.0.1:9"

var offlineURL, _ = url.Parse(OfflineProxy)

// server is the hpkeeper serve under test.
type server struct {
	url  string
	pid  int // 0 when not a child we started
	stop func() error
	// writerStats reads the storage writer's counters of an in-process
	// server; nil otherwise.
	writerStats func() storage.WriterStats
}

func measure(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	priv, err := signingKey(cfg.keySeed)
	if err != nil {
		return err
	}
	pub := priv.Public().(ed25519.PublicKey)
	if cfg.printKey {
		fmt.Fprintf(stdout, "key seed (hpkeeper bench --key-seed): %x\npublic key (DISCORD_PUBLIC_KEY of serve): %x\n", priv.Seed(), pub)
		fmt.Fprintf(stdout, "a serve for --target, its follow-ups kept on loopback:\n  DISCORD_PUBLIC_KEY=%x HTTPS_PROXY=%s hpkeeper serve --db bench.db --listen 127.0.0.1:8080\n", pub, OfflineProxy)
		return nil
	}
	if cfg.target != "" {
		if err := checkLoopback(ctx, cfg.target); err != nil {
			return err
		}
	}
	dir := cfg.dir
	if dir == "" {
		dir, err = os.MkdirTemp("", "hpkeeper-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out := &reporter{w: stdout}
	out.header(cfg, dir)

	var base baselines
	if cfg.baseline > 0 {
		if base, err = measureBaselines(dir, cfg.baseline); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		out.baselines(base)
	}

	if cfg.postgres != "" {
		return runReplicas(ctx, cfg, priv, dir, out, stderr) // replicas.go
	}
	var null *server
	if cfg.null {
		if null, err = startNull(ctx, cfg, pub, stderr); err != nil {
			return fmt.Errorf("null endpoint: %w", err)
		}
		defer func() { _ = null.stop() }()
	}
	srv, err := startServer(ctx, cfg, dir, pub, stderr)
	if err != nil {
		return err
	}
	defer func() { _ = srv.stop() }()

	cl := newClient(srv.url, priv, max(cfg.concurrency, cfg.setupClients)) // setup runs 50 clients whatever --concurrency says
	start := time.Now()
	if err := cl.setup(ctx, cfg); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	out.printf("setup: %d tables × %d characters (%d requests) in %.1fs\n\n",
		cfg.tables, cfg.chars, cfg.tables*(cfg.chars+1), time.Since(start).Seconds())
	var nullCl *client
	if null != nil {
		nullCl = newClient(null.url, priv, cfg.concurrency)
	}

	if cfg.cpuProfile != "" && cfg.inProcess {
		stop, err := StartCPUProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintln(stderr, "hpkeeper bench:", err)
			}
		}()
	}
	// Rounds: the null endpoint, then each phase, --runs times, so that
	// each phase run has a null run beside it on the same machine minutes.
	runs := map[string][]runResult{}
	est := newEstimates(cfg)
	for r := range cfg.runs {
		if nullCl != nil {
			res, err := nullCl.run(ctx, cfg, mixes["mixed"], null.pid, nil, true, est.expect(nullPhase))
			if err != nil {
				return fmt.Errorf("null endpoint run %d: %w", r+1, err)
			}
			res.verbose = cfg.verbose
			est.saw(nullPhase, res)
			runs[nullPhase] = append(runs[nullPhase], res)
			out.run(nullPhase, r+1, res)
		}
		for _, phase := range cfg.phases {
			res, err := cl.run(ctx, cfg, mixes[phase], srv.pid, srv.writerStats, false, est.expect(phase))
			if err != nil {
				return fmt.Errorf("phase %s run %d: %w", phase, r+1, err)
			}
			res.verbose = cfg.verbose
			est.saw(phase, res)
			runs[phase] = append(runs[phase], res)
			out.run(phase, r+1, res)
		}
		out.printf("\n")
	}
	var results []phaseResult
	for _, phase := range cfg.phases {
		results = append(results, summarize(phase, runs[phase]))
	}
	out.ranges(cfg.phases, runs)
	switch {
	case nullCl != nil && cfg.rate > 0:
		out.printf("open loop: the null endpoint ran at the same offered load (the mixed phase's requests); compare its latencies above\n\n")
	case nullCl != nil:
		out.ceiling(cfg.phases, runs)
	}
	out.summary(results, base)
	out.memory(srv.pid)
	if cfg.memProfile != "" {
		f, err := os.Create(cfg.memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "hpkeeper.db")); err == nil {
		out.printf("database file: %.1f MB\n", float64(fi.Size())/1e6)
	}
	return nil
}

// startServer starts (or targets) the server and waits until it answers a
// signed PING.
func startServer(ctx context.Context, cfg *config, dir string, pub ed25519.PublicKey, stderr io.Writer) (*server, error) {
	if cfg.target != "" {
		return &server{url: cfg.target, stop: func() error { return nil }}, nil
	}
	dbPath := filepath.Join(dir, "hpkeeper.db")
	_ = os.Remove(dbPath)
	if cfg.inProcess {
		cache := cfg.cacheMB << 20
		if cfg.cacheMB < 0 {
			cache = -1
		}
		db, err := storage.Open(dbPath, storage.Options{CacheBytes: cache})
		if err != nil {
			return nil, err
		}
		log := zerolog.Nop()
		if cfg.verbose {
			log = zerolog.New(stderr).Level(zerolog.InfoLevel)
		}
		ep, err := bot.NewEndpoint(commands.New(db, dice.Random(), cfg.systems, cfg.features()...), pub, log,
			bot.WithFilesClient(&http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(offlineURL)}}))
		if err != nil {
			db.Close()
			return nil, err
		}
		srv, err := serveInProcess(ctx, ep, db.Close)
		if err != nil {
			return nil, err
		}
		srv.writerStats = db.WriterStats
		return srv, nil
	}
	addr, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--db", dbPath, "--listen", addr}
	if cfg.cpuProfile != "" {
		file, err := filepath.Abs(cfg.cpuProfile)
		if err != nil {
			return nil, err
		}
		args = append(args, "--cpuprofile", file) // written when bench stops it
	}
	if cfg.cacheMB != 0 {
		conf := filepath.Join(dir, "bench.toml")
		if err := os.WriteFile(conf, fmt.Appendf(nil, "[storage]\ncache_mb = %d\n", cfg.cacheMB), 0o600); err != nil {
			return nil, err
		}
		args = append(args, "--config", conf)
	}
	return startChild(ctx, args, addr, pub, cfg.verbose, stderr)
}

// runResult is one measured run of a phase.
type runResult struct {
	requests int
	writes   int // state-changing requests
	refused  int // ephemeral replies (nothing changed)
	errors   int // transport errors, non-200 statuses, apologies
	firstErr string
	// firstRefusal is the text of one refusal, to see what was refused.
	firstRefusal string
	elapsed      time.Duration
	latencies    []time.Duration // sorted: every request's, readLatencies and writeLatencies together
	// writeLatencies are the latencies of the state-changing requests
	// (refused or not), sorted; readLatencies those of the rest.
	writeLatencies []time.Duration
	readLatencies  []time.Duration // sorted
	// actions is how many user actions (one request, or two for the
	// pairs) started in the measured window; targetRate is --rate, the
	// actions a second the open loop was asked for (0: closed loop).
	actions    int
	targetRate float64
	// writer is what an in-process server's storage writer did in the
	// window (zero for a child process).
	writer    storage.WriterStats
	verbose   bool
	serverCPU time.Duration // CPU time of the server process in the window
	inProcess bool          // the server ran in this process: serverCPU includes the load generator
	selfCPU   time.Duration // CPU time of the load generator (includes the server in-process)
	// presigned requests were signed before the run, taking presignWall
	// and presignCPU; signedLate were signed in the measured window (button
	// presses, and any action past the end of the presigned script).
	presigned               int
	presignWall, presignCPU time.Duration
	signedLate              int
}

// generatorCPUPerRequest is the load generator's CPU time per request (0
// when the server runs in this process: the two cannot be told apart).
func (r runResult) generatorCPUPerRequest() time.Duration {
	if r.requests == 0 || r.inProcess {
		return 0
	}
	return r.selfCPU / time.Duration(r.requests)
}

// cpuPerRequest is the server's CPU time per request.
func (r runResult) cpuPerRequest() time.Duration {
	if r.requests == 0 {
		return 0
	}
	return r.serverCPU / time.Duration(r.requests)
}

func (r runResult) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r runResult) writeRate() float64 { return float64(r.writes) / r.elapsed.Seconds() }

func (r runResult) pct(p float64) time.Duration { return percentile(r.latencies, p) }

// percentile returns the p-th percentile (0–100) of sorted, 0 when it is empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p/100*float64(len(sorted)-1))]
}

// phaseResult is the median over the runs of a phase.
type phaseResult struct {
	name                          string
	runs                          int
	rate, writeRate               float64
	p50, p95, p99, max            time.Duration
	readP50, readP99              time.Duration
	writeP50, writeP99            time.Duration
	requests, refused, errorCount int
	cpuPerRequest                 time.Duration
}

func summarize(name string, runs []runResult) phaseResult {
	med := func(f func(runResult) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	d := func(f func(runResult) time.Duration) time.Duration {
		return time.Duration(med(func(r runResult) float64 { return float64(f(r)) }))
	}
	pr := phaseResult{name: name, runs: len(runs),
		rate:          med(runResult.rate),
		writeRate:     med(runResult.writeRate),
		p50:           d(func(r runResult) time.Duration { return r.pct(50) }),
		p95:           d(func(r runResult) time.Duration { return r.pct(95) }),
		p99:           d(func(r runResult) time.Duration { return r.pct(99) }),
		max:           d(func(r runResult) time.Duration { return r.pct(100) }),
		readP50:       d(func(r runResult) time.Duration { return percentile(r.readLatencies, 50) }),
		readP99:       d(func(r runResult) time.Duration { return percentile(r.readLatencies, 99) }),
		writeP50:      d(func(r runResult) time.Duration { return percentile(r.writeLatencies, 50) }),
		writeP99:      d(func(r runResult) time.Duration { return percentile(r.writeLatencies, 99) }),
		cpuPerRequest: d(runResult.cpuPerRequest),
	}
	for _, r := range runs {
		pr.requests += r.requests
		pr.refused += r.refused
		pr.errorCount += r.errors
	}
	return pr
}

// reporter prints the report.
type reporter struct{ w io.Writer }

func (o *reporter) printf(format string, a ...any) { fmt.Fprintf(o.w, format, a...) }

func (o *reporter) header(cfg *config, dir string) {
	mode := "child process (hpkeeper serve)"
	switch {
	case cfg.target != "":
		mode = "target " + cfg.target
	case cfg.inProcess:
		mode = "in-process"
	}
	o.printf("hpkeeper bench: %s, GOMAXPROCS=%d, %d CPUs, %s/%s, %s\n", mode, runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	load := "closed loop"
	if cfg.rate > 0 {
		load = fmt.Sprintf("open loop at %g actions/s", cfg.rate)
	}
	o.printf("directory %s; %d tables × %d characters; %d clients, %s; %d run(s) of %s after %s warm-up\n\n",
		dir, cfg.tables, cfg.chars, cfg.concurrency, load, cfg.runs, cfg.duration, cfg.warmup)
}

func (o *reporter) baselines(b baselines) {
	o.printf("raw disk baseline (same directory):\n")
	o.printf("  fdatasync loop (4 KiB overwrite + fdatasync): %8.0f /s  mean %s\n", b.fsyncRate, fmtDur(b.fsyncMean))
	o.printf("  bbolt, one Update per write (1 KiB put):      %8.0f /s  mean %s\n\n", b.boltRate, fmtDur(b.boltMean))
}

func (o *reporter) run(phase string, n int, r runResult) {
	o.printf("%-5s run %d: %7.0f req/s (%6.0f writes/s)  p50 %-8s p95 %-8s p99 %-8s max %-8s  %d requests, %d refused, %d errors\n",
		phase, n, r.rate(), r.writeRate(), fmtDur(r.pct(50)), fmtDur(r.pct(95)), fmtDur(r.pct(99)), fmtDur(r.pct(100)),
		r.requests, r.refused, r.errors)
	switch {
	case r.serverCPU > 0 && r.inProcess:
		o.printf("           CPU: server and load generator together (one process) %.2f cores (%s/request)\n",
			r.serverCPU.Seconds()/r.elapsed.Seconds(), fmtDur(r.cpuPerRequest()))
	case r.serverCPU > 0:
		o.printf("           CPU: server %.2f cores (%s/request), load generator %.2f cores (%s/request)\n",
			r.serverCPU.Seconds()/r.elapsed.Seconds(), fmtDur(r.cpuPerRequest()), r.selfCPU.Seconds()/r.elapsed.Seconds(),
			fmtDur(r.generatorCPUPerRequest()))
	}
	if r.presigned > 0 {
		o.printf("           signed before the run: %d requests in %.1fs (%s CPU each); signed in the window: %d\n",
			r.presigned, r.presignWall.Seconds(), fmtDur(r.presignCPU/time.Duration(r.presigned)), r.signedLate)
	}
	o.printf("           read-only requests p50 %s p99 %s; state-changing p50 %s p99 %s\n",
		fmtLat(percentile(r.readLatencies, 50)), fmtLat(percentile(r.readLatencies, 99)),
		fmtLat(percentile(r.writeLatencies, 50)), fmtLat(percentile(r.writeLatencies, 99)))
	if w := r.writer; w.Groups > 0 {
		o.printf("           writer: %d commits of %.1f updates on average; per commit %s running the functions and %s committing; busy %.0f %% of the time\n",
			w.Groups, float64(w.Updates)/float64(w.Groups), fmtDur(w.Functions/time.Duration(w.Groups)),
			fmtDur(w.Commits/time.Duration(w.Groups)), 100*(w.Functions+w.Commits).Seconds()/r.elapsed.Seconds())
	}
	if r.targetRate > 0 {
		got := float64(r.actions) / r.elapsed.Seconds()
		o.printf("           open loop: started %.0f of %g actions/s (%.0f %%)", got, r.targetRate, 100*got/r.targetRate)
		if got < 0.95*r.targetRate {
			o.printf(": FELL BEHIND, the clients could not keep the rate (latencies include the backlog, up to the end of the run)")
		}
		o.printf("\n")
	}
	if r.firstErr != "" {
		o.printf("           first error: %s\n", r.firstErr)
	}
	if r.verbose && r.firstRefusal != "" {
		o.printf("           a refusal: %.160s\n", r.firstRefusal)
	}
}

func (o *reporter) summary(rs []phaseResult, b baselines) {
	o.printf("median of the runs:\n")
	o.printf("  phase     req/s  writes/s      p50      p95      p99      max  refused  errors  server CPU/req\n")
	for _, r := range rs {
		o.printf("  %-5s  %8.0f  %8.0f  %7s  %7s  %7s  %7s  %7d  %6d  %s\n", r.name, r.rate, r.writeRate,
			fmtDur(r.p50), fmtDur(r.p95), fmtDur(r.p99), fmtDur(r.max), r.refused, r.errorCount, fmtLat(r.cpuPerRequest))
	}
	o.printf("\nlatency by kind of request (median of the runs):\n")
	o.printf("  phase  read-only p50      p99  state-changing p50      p99\n")
	for _, r := range rs {
		o.printf("  %-5s  %13s  %7s  %18s  %7s\n", r.name, fmtLat(r.readP50), fmtLat(r.readP99), fmtLat(r.writeP50), fmtLat(r.writeP99))
	}
	if b.boltRate > 0 {
		o.printf("\nratio to the raw baselines:\n")
		for _, r := range rs {
			if r.writeRate == 0 {
				continue
			}
			o.printf("  %-5s  writes/s ÷ bbolt Update/s = %.2f×   writes/s ÷ fdatasync/s = %.2f×\n",
				r.name, r.writeRate/b.boltRate, r.writeRate/b.fsyncRate)
		}
	}
}

// spread returns the minimum, median and maximum of f over runs.
func spread(runs []runResult, f func(runResult) float64) (lo, med, hi float64) {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[0], v[len(v)/2], v[len(v)-1]
}

// ranges prints each phase's throughput and p99 as minimum, median and
// maximum over its runs, the null endpoint first.
func (o *reporter) ranges(phases []string, runs map[string][]runResult) {
	o.printf("min / median / max over the runs:\n")
	o.printf("  phase              req/s               writes/s                    p99  generator CPU/req\n")
	for _, phase := range append([]string{nullPhase}, phases...) {
		rs := runs[phase]
		if len(rs) == 0 {
			continue
		}
		a, b, c := spread(rs, runResult.rate)
		d, e, f := spread(rs, runResult.writeRate)
		g, h, i := spread(rs, func(r runResult) float64 { return float64(r.pct(99)) })
		_, gen, _ := spread(rs, func(r runResult) float64 { return float64(r.generatorCPUPerRequest()) })
		writes := fmt.Sprintf("%6.0f %6.0f %6.0f", d, e, f)
		if phase == nullPhase {
			writes = fmt.Sprintf("%20s", "–") // the null endpoint changes nothing
		}
		o.printf("  %-5s  %6.0f %6.0f %6.0f   %s   %s %s %s  %s\n", phase, a, b, c, writes,
			fmtDur(time.Duration(g)), fmtDur(time.Duration(h)), fmtDur(time.Duration(i)), fmtLat(time.Duration(gen)))
	}
	o.printf("\n")
}

// ceiling prints every phase's throughput as a ratio to the null endpoint:
// each run divided by the null run of its round, minimum, median and
// maximum over the rounds.
func (o *reporter) ceiling(phases []string, runs map[string][]runResult) {
	null := runs[nullPhase]
	o.printf("ratio to the null endpoint (each run ÷ the null run of its round; min / median / max):\n")
	for _, phase := range phases {
		rs := runs[phase]
		n := min(len(rs), len(null))
		if n == 0 {
			continue
		}
		req := make([]float64, n)
		wr := make([]float64, n)
		for i := range n {
			req[i] = rs[i].rate() / null[i].rate()
			wr[i] = rs[i].writeRate() / null[i].rate()
		}
		slices.Sort(req)
		slices.Sort(wr)
		o.printf("  %-5s  req/s ÷ null = %.2f %.2f %.2f", phase, req[0], req[n/2], req[n-1])
		if wr[n-1] > 0 {
			o.printf("   writes/s ÷ null = %.2f %.2f %.2f", wr[0], wr[n/2], wr[n-1])
		}
		o.printf("\n")
	}
	o.printf("\n")
}

func (o *reporter) memory(pid int) {
	if pid == 0 {
		return
	}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return
	}
	who := "the server (pid " + strconv.Itoa(pid) + ")"
	if pid == os.Getpid() {
		who = "this process (server and load generator together)"
	}
	o.printf("\nmemory of %s:\n ", who)
	for _, line := range strings.Split(string(st), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "VmHWM", "VmRSS", "RssAnon", "RssFile":
			o.printf(" %s %s", k, strings.Join(strings.Fields(v), " "))
		}
	}
	o.printf("\n")
}

// fmtLat is fmtDur for a figure that may be unmeasured, "–" for 0: a
// latency percentile with no such requests (the read-only share of the write
// phase, say), or the server's CPU under --target, which bench cannot read.
func fmtLat(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmtDur(d)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
}

// StartCPUProfile starts a CPU profile of this process into file (created
// or truncated); stop ends it and closes the file. serve's --cpuprofile,
// which bench passes to the serve it starts, uses it too.
func StartCPUProfile(file string) (stop func() error, err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		return nil
	}, nil
}
