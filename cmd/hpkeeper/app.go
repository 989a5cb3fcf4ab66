package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/bench"
	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/console"
	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// errUsage reports flags that did not parse (the flag package has already
// printed why).
var errUsage = errors.New("usage")

// App is one run of a Discord-facing subcommand (run, serve or register):
// its configuration and logger. Run opens what it needs and closes it again.
type App struct {
	// Mode is "run", "serve" or "register".
	Mode string
	// Config is the loaded configuration with flags applied.
	Config Config
	// Guild is register's --guild (default: the config's dev_guild).
	Guild string
	// Log is the process logger (JSON or console, per Config.Log).
	Log zerolog.Logger
	// testDiscord is HPKEEPER_TEST_DISCORD_URL: the loopback fake of
	// Discord every session talks to instead (tests only; "" for Discord).
	testDiscord string
	// cpuProfile is --cpuprofile: a file for a CPU profile of the whole
	// run, written when it ends ("" for none).
	cpuProfile string
}

// The Discord-facing subcommands: what each does (-h), the environment
// variables each reads.
var appModes = map[string]struct {
	what string
	env  []string
}{
	"run": {"connect to Discord's gateway, all shards or a range of them, and answer interactions over it (needs DISCORD_TOKEN); with an admin listener, answer /healthz, /metrics and /admin/backup there.",
		[]string{"HPKEEPER_CONFIG", "DISCORD_TOKEN", "DISCORD_TOKEN_FILE", "HPKEEPER_SHARDS", "HPKEEPER_SHARD_IDS", "HPKEEPER_LEASE_TTL", "HPKEEPER_DB", "HPKEEPER_DB_URL", "HPKEEPER_DB_URL_FILE", "HPKEEPER_LOCK_TIMEOUT", "HPKEEPER_CACHE_MB",
			"HPKEEPER_ALLOW_UNSOUND", "HPKEEPER_ADMIN_LISTEN", "HPKEEPER_ADMIN_TOKEN", "HPKEEPER_ADMIN_TOKEN_FILE", "HPKEEPER_LOG_LEVEL", "HPKEEPER_LOG_FORMAT", envTestDiscord}},
	"serve": {"serve Discord's HTTP interactions endpoint (needs DISCORD_PUBLIC_KEY; DISCORD_TOKEN for the tracker), with /healthz, /metrics and /admin/backup on the same listener.",
		[]string{"HPKEEPER_CONFIG", "DISCORD_PUBLIC_KEY", "DISCORD_PUBLIC_KEY_FILE", "DISCORD_TOKEN", "DISCORD_TOKEN_FILE", "HPKEEPER_DB", "HPKEEPER_DB_URL", "HPKEEPER_DB_URL_FILE", "HPKEEPER_LOCK_TIMEOUT", "HPKEEPER_CACHE_MB",
			"HPKEEPER_ALLOW_UNSOUND", "HPKEEPER_LISTEN", "HPKEEPER_ADMIN_LISTEN", "HPKEEPER_ADMIN_TOKEN", "HPKEEPER_ADMIN_TOKEN_FILE", "HPKEEPER_LOG_LEVEL", "HPKEEPER_LOG_FORMAT", envTestDiscord}},
	"register": {"register the slash commands with Discord, globally or in one guild (needs DISCORD_TOKEN; the application id is looked up from the token when not configured).",
		[]string{"HPKEEPER_CONFIG", "DISCORD_TOKEN", "DISCORD_TOKEN_FILE", "HPKEEPER_APPLICATION_ID", "HPKEEPER_DEV_GUILD", "HPKEEPER_LOG_LEVEL", "HPKEEPER_LOG_FORMAT", envTestDiscord}},
}

// NewApp parses the flags of a subcommand and loads the configuration. It
// returns flag.ErrHelp for -h, errUsage when the flags do not parse, or an
// error for a configuration that does not load.
func NewApp(mode string, args []string, stdout, stderr io.Writer, getenv func(string) string) (*App, error) {
	fs := flag.NewFlagSet("hpkeeper "+mode, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", getenv("HPKEEPER_CONFIG"), "TOML configuration `file` (see config.example.toml)")
	var db, listen, adminListen, guild, shards, shardIDs, cpuProfile *string
	var allowUnsound *bool
	if mode == "run" {
		shards = fs.String("shards", "", "the bot's gateway shard `count`: auto (Discord's recommendation) or N, the same in every process (default: discord.shards of the config, auto)")
		shardIDs = fs.String("shard-ids", "", "run only these shard `ids`, A-B (or A), of --shards N; this process's file holds exactly their guilds (default: discord.shard_ids of the config; all)")
	}
	if mode != "register" {
		db = fs.String("db", "", "database `file`, or a postgres:// URL (default: storage.url, else storage.path of the config, hpkeeper.db)")
		adminListen = fs.String("admin-listen", "", "serve /healthz, /metrics and /admin/backup on this `address` too; a port alone (:9090) binds loopback (default: admin.listen of the config, off)")
		allowUnsound = fs.Bool("allow-unsound", false, "open a damaged database file that bbolt can still read (one bad meta page, pages lost or listed twice) instead of refusing it, for when no backup is left; what is wrong is logged (default: storage.allow_unsound of the config, false)")
		cpuProfile = fs.String("cpuprofile", "", "write a CPU profile of the whole run to this `file` when it stops, for `go tool pprof` (hpkeeper bench --cpuprofile uses it; off by default)")
	}
	if mode == "serve" {
		listen = fs.String("listen", "", "`address` to listen on for interactions (default: http.listen of the config, 127.0.0.1:8080)")
	}
	if mode == "register" {
		guild = fs.String("guild", "", "register in this guild `id` only (default: discord.dev_guild of the config; empty: global)")
	}
	synopsis := "[flags]"
	if mode == "register" {
		synopsis = "[--config FILE] [--guild ID]"
	}
	fs.Usage = usageFunc(fs, mode, appModes[mode].what, synopsis, appModes[mode].env...)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, flag.ErrHelp
		}
		return nil, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hpkeeper %s: unexpected argument %q\n", mode, fs.Arg(0))
		return nil, errUsage
	}
	cfg, err := LoadConfig(*configPath, getenv)
	if err != nil {
		return nil, err
	}
	if db != nil && *db != "" {
		setDB(&cfg, *db)
	}
	if listen != nil && *listen != "" {
		cfg.HTTP.Listen = *listen
	}
	if allowUnsound != nil && *allowUnsound {
		cfg.Storage.AllowUnsound = true
	}
	if adminListen != nil && *adminListen != "" {
		cfg.Admin.Listen = *adminListen
	}
	if shards != nil && *shards != "" {
		cfg.Discord.Shards = ShardsSetting(*shards)
	}
	if shardIDs != nil && *shardIDs != "" {
		cfg.Discord.ShardIDs = *shardIDs
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	app := &App{Mode: mode, Config: cfg, Guild: cfg.Discord.DevGuild, testDiscord: getenv(envTestDiscord)}
	if app.testDiscord != "" {
		if _, err := bot.LoopbackDiscord(app.testDiscord); err != nil {
			return nil, fmt.Errorf("%s: %w", envTestDiscord, err)
		}
	}
	if guild != nil && *guild != "" {
		app.Guild = *guild
	}
	if cpuProfile != nil {
		app.cpuProfile = *cpuProfile
	}
	lvl, err := cfg.LogLevel()
	if err != nil {
		return nil, err
	}
	var out io.Writer = stdout
	if cfg.Log.Format == "console" {
		// Colours only for a terminal: escape codes in a file or a
		// journal are noise.
		out = zerolog.ConsoleWriter{Out: stderr, TimeFormat: time.TimeOnly, NoColor: !console.IsTerminal(stderr)}
	}
	// Serialised: the stop's line comes from a goroutine of its own while
	// others log (an io.Writer such as a test's buffer need not be safe for
	// concurrent use).
	app.Log = zerolog.New(zerolog.SyncWriter(out)).Level(lvl).With().Timestamp().Str("mode", mode).Logger()
	zerolog.DefaultContextLogger = &app.Log
	return app, nil
}

// Run does the subcommand's work until ctx is cancelled (run, serve) or the
// work is done (register). It returns an error for missing secrets, a
// database it cannot open (locked by another process, say), an address it
// cannot listen on, or a failure to reach or answer Discord.
func (a *App) Run(ctx context.Context) error {
	b := buildInfo()
	a.Log.Info().Str("version", b.Version).Str("revision", b.Revision).Bool("modified", b.Modified).Str("go", b.GoVersion).
		Msg("hpkeeper starting")
	if a.testDiscord != "" {
		a.Log.Warn().Str("url", a.testDiscord).Msg(envTestDiscord + " is set: every Discord request and the gateway go to this loopback address (tests only)")
	}
	switch a.Mode {
	case "register":
		return a.register(ctx)
	case "serve":
		key, err := a.Config.Key()
		if err != nil {
			return err
		}
		if r, _ := a.Config.ShardRange(); !r.Whole() {
			return fmt.Errorf("discord.shard_ids (%s) is for run: serve receives the interactions of every guild at its one URL, so it serves every shard", r)
		}
		// Bind before the database is opened: a port in use fails the
		// start with the file untouched (no replay guard spent, no file
		// created).
		ln, err := net.Listen("tcp", a.Config.HTTP.Listen)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", a.Config.HTTP.Listen, err)
		}
		defer ln.Close() // when the service does not start; ServeListener closes it otherwise
		return a.withService(ctx, func(s served) error {
			// Follow-ups and deferred answers go to Discord's webhooks, or
			// to the tests' loopback Discord (NewApp has checked its URL).
			var webhooks *http.Client
			if a.testDiscord != "" {
				webhooks, _ = bot.LoopbackClient(a.testDiscord)
			}
			// The replay guard survives a graceful restart in the database
			// and a crash by its start rule (bot/replay.go).
			// Replicas of a shared database share it there instead
			// (bot/sharedreplay.go).
			// At the stop, deferred commands still running are told
			// whether the database saved their change (bot/inflight.go).
			opts := []bot.EndpointOption{bot.WithReplayStore(s.db), bot.WithFilesClient(s.metrics.Client(webhooks)), bot.WithSettler(s.db)}
			if s.db.Shared() {
				opts = append(opts, bot.WithSharedReplays(s.db))
			}
			ep, err := bot.NewEndpoint(bot.Instrument(s.svc, s.metrics), key, a.Log, opts...)
			if err != nil {
				return err
			}
			// The log names the real address (with port 0, the one the
			// kernel chose: the end-to-end tests read it).
			a.Log.Info().Str("listen", ln.Addr().String()).Str("db", a.dbName()).Msg("serving the interactions endpoint")
			err = bot.ServeListener(ctx, ln, s.admin.WithInteractions(s.metrics.InstrumentEndpoint(ep)))
			// Deferred answers still use the database; then the guard is saved.
			return errors.Join(err, ep.Close())
		})
	case "run":
		if a.Config.Discord.Token == "" {
			return errors.New("no bot token: set DISCORD_TOKEN (or discord.token in the config)")
		}
		shards, err := a.Config.ShardRange()
		if err != nil {
			return err
		}
		return a.withService(ctx, func(s served) error {
			g, err := bot.NewGateway(a.Config.Discord.Token, bot.Instrument(s.svc, s.metrics), a.Log, shards, a.sessionOptions(s.metrics)...)
			if err != nil {
				return err
			}
			g.SettleWith(s.db)
			if s.db.Shared() {
				// Any process may run any shard: leases in the
				// database say which (bot/leases.go).
				ttl, _ := a.Config.LeaseTTL() // validated
				g.ShareShards(s.db, "", ttl)
			}
			s.metrics.ObserveGateway(g)
			s.admin.ObserveShards(g)
			a.Log.Info().Str("db", a.dbName()).Str("shards", shards.String()).Msg("connecting to the Discord gateway")
			return g.Run(ctx)
		})
	}
	return fmt.Errorf("unknown mode %q", a.Mode)
}

// served is what withService hands run and serve: the service, its
// database, the metrics it reports to, and the operator's routes over the
// database.
type served struct {
	svc     *commands.Service
	db      *storage.DB
	metrics *operator.Metrics
	admin   *operator.Admin
}

// withService opens the database (its writer observed by the metrics),
// starts the admin listener when admin.listen is set, runs fn with the
// service, and when fn returns stops the admin listener, waits for the
// tracker's edits and closes the database.
func (a *App) withService(ctx context.Context, fn func(served) error) (runErr error) {
	timeout, err := a.Config.LockTimeout()
	if err != nil {
		return err
	}
	if a.cpuProfile != "" {
		stop, err := bench.StartCPUProfile(a.cpuProfile) // the profile bench asks a child serve for
		if err != nil {
			return err
		}
		defer func() { runErr = errors.Join(runErr, stop()) }()
	}
	// The admin listener binds before the database opens too.
	adminLn, err := a.listenAdmin()
	if err != nil {
		return err
	}
	if adminLn != nil {
		defer adminLn.Close() // when the service does not start
	}
	// The stop is logged when it begins (a signal, see main), not only
	// when the database is closed at its end, and always before that.
	var logStop sync.Once
	stopping := func() {
		logStop.Do(func() {
			a.Log.Info().Str("cause", stopCause(ctx)).Msg("stopping: no new interactions; finishing those in flight, then closing the database")
		})
	}
	defer context.AfterFunc(ctx, stopping)()
	m := operator.NewMetrics()
	m.ObserveBuild(buildInfo())
	cache := a.Config.Storage.CacheMB << 20
	if a.Config.Storage.CacheMB < 0 {
		cache = -1
	}
	opened := time.Now()
	db, err := a.openDB(timeout, m.ObserveCommit, cache)
	if err != nil {
		return openAdvice(err, a.Config.Storage.Path, a.Mode)
	}
	ev := a.Log.Info()
	if err := db.Unsound(); err != nil {
		ev = a.Log.Warn().Err(err)
	}
	ev.Str("db", a.dbName()).Dur("took", time.Since(opened)).Msg("database opened and checked")
	stopExpire := a.expireShared(ctx, db)
	m.ObserveDB(db)
	s := served{svc: commands.New(db, dice.Random(), systems, features()...), db: db, metrics: m}
	runErr = a.claimShards(db)
	if runErr == nil {
		s.admin, runErr = operator.NewAdmin(db, m, a.Config.Admin.Token, a.Log)
	}
	if runErr == nil {
		s.admin.SetBuildInfo(buildInfo())
		trk := a.wireTracker(s.svc, m)
		runErr = a.withAdminListener(ctx, adminLn, s.admin, func() error { return fn(s) })
		if trk != nil {
			trk.Wait()
		}
	}
	stopExpire()
	if ctx.Err() != nil {
		stopping()
	}
	if err := db.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("close database: %w", err)
	}
	a.Log.Info().Msg("database closed")
	return runErr
}

// openAdvice adds to the error of opening the database at path what the
// operator can do about it, on the same line: for a damaged file, check
// it and restore the last backup (or, when bbolt can still read it, start
// with --allow-unsound).
func openAdvice(err error, path, mode string) error {
	var de *storage.DamageError
	if !errors.As(err, &de) {
		return err
	}
	advice := fmt.Sprintf("nothing was changed; see what is wrong with `hpkeeper check --db %s` and restore the last backup (README: Backups and restore)", path)
	if de.Readable {
		advice += fmt.Sprintf(", or, with no backup left, start with `hpkeeper %s --allow-unsound` to use the file as bbolt reads it", mode)
	}
	return fmt.Errorf("%w; %s", err, advice)
}

// claimShards makes sure the database holds the guilds this process
// serves (storage.DB.ClaimShards): run's shard range, every guild for
// serve; a file without tables is marked as this process's.
func (a *App) claimShards(db *storage.DB) error {
	if db.Shared() {
		return nil // a shared database holds every guild; leases place the shards
	}
	var r storage.ShardRange // serve: every guild
	if a.Mode == "run" {
		var err error
		if r, err = a.Config.ShardRange(); err != nil {
			return err
		}
	}
	if err := db.ClaimShards(r); err != nil {
		if errors.Is(err, storage.ErrShardMismatch) {
			return fmt.Errorf("%w\n(move the tables first with hpkeeper shard split or merge, or run this file with the shards it holds)", err)
		}
		return err
	}
	return nil
}

// sessionOptions are the options of every Discord session the process
// makes: the tests' loopback Discord when HPKEEPER_TEST_DISCORD_URL is set
// (NewApp has checked it), then the metrics' 429 counting.
func (a *App) sessionOptions(m *operator.Metrics) []bot.SessionOption {
	var opts []bot.SessionOption
	if a.testDiscord != "" {
		opts, _ = bot.LoopbackDiscord(a.testDiscord)
	}
	if m != nil {
		opts = append(opts, m.Session())
	}
	return opts
}

// listenAdmin binds admin.listen; nil when it is not set.
func (a *App) listenAdmin() (net.Listener, error) {
	addr, err := a.Config.AdminAddr()
	if err != nil || addr == "" {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("admin listener: listen on %s: %w", addr, err)
	}
	return ln, nil
}

// withAdminListener runs fn, serving admin's routes on ln (listenAdmin's;
// nil: none) while it runs, and shutting down gracefully when fn returns.
func (a *App) withAdminListener(ctx context.Context, ln net.Listener, admin *operator.Admin, fn func() error) error {
	if ln == nil {
		return fn()
	}
	a.Log.Info().Str("listen", ln.Addr().String()).Msg("serving the admin routes (/healthz, /metrics, /admin/backup)")
	actx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- bot.ServeListener(actx, ln, admin.Handler()) }()
	runErr := fn()
	stop()
	if err := <-done; err != nil && runErr == nil {
		runErr = fmt.Errorf("admin listener: %w", err)
	}
	return runErr
}

func (a *App) register(ctx context.Context) error {
	if a.Config.Discord.Token == "" {
		return errors.New("no bot token: set DISCORD_TOKEN (or discord.token in the config)")
	}
	s, err := bot.NewSession(a.Config.Discord.Token, a.Log, a.sessionOptions(nil)...)
	if err != nil {
		return err
	}
	cmds, err := bot.Register(ctx, s, a.Config.Discord.ApplicationID, a.Guild, commands.NewRegistry(systems, features()...))
	if err != nil {
		return err
	}
	scope := "globally (may take up to an hour to show)"
	if a.Guild != "" {
		scope = "in guild " + a.Guild
	}
	a.Log.Info().Int("commands", len(cmds)).Str("scope", scope).Msg("registered the slash commands")
	return nil
}

// stopCause names why ctx ended, for the log line that says a stop began:
// the signal (see main's signalContext), or the context's error.
func stopCause(ctx context.Context) string {
	if err := context.Cause(ctx); err != nil {
		return err.Error()
	}
	return "stopped"
}
