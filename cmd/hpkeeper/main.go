// Command hpkeeper is a Discord bot that tracks hit points, wounds and harm
// for a tabletop-RPG table.
//
// Usage:
//
//	hpkeeper console  [--db FILE] [--files DIR] [--dice 1,2,6] [--seed N]   the bot in a terminal, no Discord
//	hpkeeper run      [--config FILE] [--db FILE] [--shards auto|N] [--shard-ids A-B] [--admin-listen ADDR]  gateway mode (needs DISCORD_TOKEN)
//	hpkeeper serve    [--config FILE] [--db FILE] [--listen ADDR] [--admin-listen ADDR]  HTTP interactions endpoint (needs DISCORD_PUBLIC_KEY)
//	hpkeeper register [--config FILE] [--guild ID]                          register the slash commands with Discord
//	hpkeeper backup   --to FILE [--from URL | --db FILE] [--config FILE]    a consistent copy of the live database
//	hpkeeper check    [--db FILE] [--config FILE]                           check a database file no process holds
//	hpkeeper health   [--url URL] [--timeout D] [--config FILE]             exit 0 if the running process is healthy
//	hpkeeper shard    split|merge --from FILES --to FILE|PATTERN [...]     move tables between files by shard (offline)
//	hpkeeper migrate  --from FILE.db|URL --to URL|FILE.db                  copy every table into another database, checked
//	hpkeeper bench    [flags]                                               load-test serve on loopback
//	hpkeeper config   check [--config FILE]                                 validate a configuration without starting
//	hpkeeper fakediscord [--listen ADDR] [--endpoint URL]                   a loopback fake of Discord to try the bot against
//	hpkeeper version                                                        the build: version, commit, Go release
//
// main parses the subcommand, handles signals and exit codes, and delegates
// to App (run, serve, register) or to the subcommand's own Main.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/bench"
	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/console"
)

// usage is the top-level help: every subcommand, every console flag, and
// every environment variable (envVars).
var usage = `hpkeeper tracks hit points, wounds and harm for a tabletop-RPG table on Discord.

Usage:
  hpkeeper console  [--db FILE] [--files DIR] [--dice 1,2,6] [--seed N]
        try the bot in a terminal, no Discord needed (--db: the database file,
        default hpkeeper.db; --files: where attached files are written, default
        hpkeeper-files in the temporary directory; --dice: die faces to roll
        first; --seed: repeatable random rolls)
  hpkeeper run      [--config FILE] [--db FILE] [--shards auto|N] [--shard-ids A-B] [--admin-listen ADDR]
        connect to Discord's gateway, every shard or a range of them (needs DISCORD_TOKEN)
  hpkeeper serve    [--config FILE] [--db FILE] [--listen ADDR] [--admin-listen ADDR]
        serve the HTTP interactions endpoint, /healthz and /metrics (needs DISCORD_PUBLIC_KEY)
  hpkeeper register [--config FILE] [--guild ID]
        register the slash commands with Discord (needs DISCORD_TOKEN)
  hpkeeper backup   --to FILE [--from URL | --db FILE] [--config FILE]
        write a consistent, checked copy of the live database
  hpkeeper check    [--db FILE|URL] [--config FILE]
        check a database file no process holds, or a PostgreSQL database;
        print its schema version and counts
  hpkeeper health   [--url URL] [--timeout D] [--config FILE]
        exit 0 if the running process answers GET /healthz with 200
  hpkeeper shard    split --from FILES --shards N [--shard-ids A-B,…] --to PATTERN
  hpkeeper shard    merge --from FILES --to FILE
        move tables between database files by the shard of their guild (bot stopped)
  hpkeeper migrate  --from FILE.db|URL --to URL|FILE.db
        copy every table into another database, a file into PostgreSQL or back,
        each table read back and compared; resumable (bot stopped)
  hpkeeper bench    [--tables N] [--concurrency N] [--duration D] [...]
        load-test serve on loopback
  hpkeeper config   check [--config FILE]
        validate a configuration (file and environment) without starting anything
  hpkeeper fakediscord [--listen ADDR] [--endpoint URL]
        a fake of Discord on loopback, to try register, run and serve without Discord
  hpkeeper version  (or --version)
        the version, the commit it was built from and the Go release

"hpkeeper help COMMAND" (or "hpkeeper COMMAND -h") describes a command's flags
and environment variables.
Configuration: config.example.toml documents every key.
` + strings.TrimPrefix(envHelp(envNames()...), "\n")

// commandNames are the subcommands, for `hpkeeper help COMMAND`.
var commandNames = []string{"console", "run", "serve", "register", "backup", "check", "health", "shard", "bench", "config", "fakediscord", "version"}

// envNames returns the name of every environment variable hpkeeper reads.
func envNames() []string {
	names := make([]string, len(envVars))
	for i, v := range envVars {
		names[i] = v.name
	}
	return names
}

func init() {
	// Log durations as Go writes them, with their unit ("took":"1.52ms"),
	// not as bare numbers of milliseconds.
	zerolog.DurationFieldFormat = zerolog.DurationFormatString
}

func main() {
	ctx, stop := signalContext(context.Background())
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// stopSignals stop the process cleanly, all alike: SIGTERM (docker stop,
// systemd), SIGINT (Ctrl-C) and SIGHUP (a closed terminal, or an operator's
// kill -HUP, which would otherwise end the process at once with status 129).
var stopSignals = []os.Signal{syscall.SIGTERM, os.Interrupt, syscall.SIGHUP}

// signalContext returns a context cancelled by the first of stopSignals,
// its cause naming the signal ("signal terminated"). After that first
// signal the signals get their default action again, so a second one ends a
// stop that hangs. stop releases the signals.
func signalContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(fmt.Errorf("signal %v", s))
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// run executes one subcommand and returns the process exit code: 0 on
// success (and for --help), 1 on failure (a configuration that does not load
// included), 2 on a usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "console":
		return console.Main(ctx, rest, stdin, stdout, stderr, systems, features()...)
	case "bench":
		return bench.Main(ctx, rest, stdout, stderr, systems, features)
	case "backup":
		return backupMain(ctx, rest, stdout, stderr, getenv)
	case "check":
		return checkMain(ctx, rest, stdout, stderr, getenv)
	case "health":
		return healthMain(ctx, rest, stdout, stderr, getenv)
	case "shard":
		return shardMain(ctx, rest, stdout, stderr, getenv)
	case "migrate":
		return migrateMain(ctx, rest, stdout, stderr, getenv)
	case "config":
		return configMain(ctx, rest, stdout, stderr, getenv)
	case "fakediscord":
		return fakeDiscordMain(ctx, rest, stdout, stderr)
	case "run", "serve", "register":
		app, err := NewApp(sub, rest, stdout, stderr, getenv)
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		case err != nil:
			fmt.Fprintf(stderr, "hpkeeper %s: %v\n", sub, err)
			return 1
		}
		if err := app.Run(ctx); err != nil {
			fmt.Fprintf(stderr, "hpkeeper %s: %v\n", sub, err)
			return 1
		}
		return 0
	case "version", "--version", "-version":
		return versionMain(stdout)
	case "help", "-h", "--help":
		if sub == "help" && len(rest) > 0 {
			return helpMain(ctx, rest, stdout, stderr, getenv)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "hpkeeper: unknown command %q\n\n%s", sub, usage)
		return 2
	}
}

// helpMain runs `hpkeeper help COMMAND`: the command's own -h, on stdout.
// It returns 0, or 2 for a command that does not exist.
func helpMain(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	name := args[0]
	if !slices.Contains(commandNames, name) {
		fmt.Fprintf(stderr, "hpkeeper help: unknown command %q\n\n%s", name, usage)
		return 2
	}
	sub := []string{name, "-h"}
	if name == "shard" || name == "config" {
		sub = []string{name, "help"}
	}
	return run(ctx, sub, strings.NewReader(""), stdout, stdout, getenv)
}
