// Command hpkeeper is a Discord bot that tracks hit points, wounds and harm
// for a tabletop-RPG table.
//
// Usage:
//
//	hpkeeper console  [--db FILE] [--dice 1,2,6] [--seed N]   the bot in a terminal, no Discord
//	hpkeeper run      [--config FILE] [--db FILE]             gateway mode (needs DISCORD_TOKEN)
//	hpkeeper serve    [--config FILE] [--db FILE] [--listen ADDR]  HTTP interactions endpoint (needs DISCORD_PUBLIC_KEY)
//	hpkeeper register [--config FILE] [--guild ID]            register the slash commands with Discord
//
// main parses the subcommand, handles signals and exit codes, and delegates
// to App.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/console"
)

const usage = `hpkeeper tracks hit points, wounds and harm for a tabletop-RPG table on Discord.

Usage:
  hpkeeper console  [--db FILE] [--dice 1,2,6] [--seed N]      try the bot in a terminal (no Discord needed)
  hpkeeper run      [--config FILE] [--db FILE]                connect to Discord's gateway (needs DISCORD_TOKEN)
  hpkeeper serve    [--config FILE] [--db FILE] [--listen ADDR]  serve the HTTP interactions endpoint (needs DISCORD_PUBLIC_KEY)
  hpkeeper register [--config FILE] [--guild ID]               register the slash commands (needs DISCORD_TOKEN)
  hpkeeper bench    [--tables N] [--concurrency N] [--duration D]  load-test serve on loopback (see hpkeeper bench -h)

Configuration: config.example.toml documents every key; DISCORD_TOKEN,
DISCORD_PUBLIC_KEY, HPKEEPER_DB and HPKEEPER_LISTEN override the file.
`

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
		return console.Main(ctx, rest, stdin, stdout, stderr, systems...)
	case "bench":
		return benchMain(ctx, rest, stdout, stderr)
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
