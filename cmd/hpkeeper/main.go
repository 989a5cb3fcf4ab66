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
//	hpkeeper bench    [flags]                                               load-test serve on loopback
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
	"strings"
	"syscall"

	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/console"
)

// usage is the top-level help: every subcommand, every console flag, and
// every environment variable (envVars).
var usage = `hpkeeper tracks hit points, wounds and harm for a tabletop-RPG table on Discord.

Usage:
  hpkeeper console  [--db FILE] [--files DIR] [--dice 1,2,6] [--seed N]
        try the bot in a terminal, no Discord needed (--db: the database file,
        default hpkeeper.db; --files: where attached files are written, default .;
        --dice: die faces to roll first; --seed: repeatable random rolls)
  hpkeeper run      [--config FILE] [--db FILE] [--shards auto|N] [--shard-ids A-B] [--admin-listen ADDR]
        connect to Discord's gateway, every shard or a range of them (needs DISCORD_TOKEN)
  hpkeeper serve    [--config FILE] [--db FILE] [--listen ADDR] [--admin-listen ADDR]
        serve the HTTP interactions endpoint, /healthz and /metrics (needs DISCORD_PUBLIC_KEY)
  hpkeeper register [--config FILE] [--guild ID]
        register the slash commands with Discord (needs DISCORD_TOKEN)
  hpkeeper backup   --to FILE [--from URL | --db FILE] [--config FILE]
        write a consistent, checked copy of the live database
  hpkeeper check    [--db FILE] [--config FILE]
        check a database file no process holds; print its schema version and counts
  hpkeeper health   [--url URL] [--timeout D] [--config FILE]
        exit 0 if the running process answers GET /healthz with 200
  hpkeeper shard    split --from FILES --shards N [--shard-ids A-B,…] --to PATTERN
  hpkeeper shard    merge --from FILES --to FILE
        move tables between database files by the shard of their guild (bot stopped)
  hpkeeper bench    [--tables N] [--concurrency N] [--duration D] [...]
        load-test serve on loopback

"hpkeeper COMMAND -h" describes a command's flags and environment variables.
Configuration: config.example.toml documents every key.
` + strings.TrimPrefix(envHelp(envNames()...), "\n")

// envNames returns the name of every environment variable hpkeeper reads.
func envNames() []string {
	names := make([]string, len(envVars))
	for i, v := range envVars {
		names[i] = v.name
	}
	return names
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
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
		return benchMain(ctx, rest, stdout, stderr)
	case "backup":
		return backupMain(ctx, rest, stdout, stderr, getenv)
	case "check":
		return checkMain(ctx, rest, stdout, stderr, getenv)
	case "health":
		return healthMain(ctx, rest, stdout, stderr, getenv)
	case "shard":
		return shardMain(ctx, rest, stdout, stderr, getenv)
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
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "hpkeeper: unknown command %q\n\n%s", sub, usage)
		return 2
	}
}
