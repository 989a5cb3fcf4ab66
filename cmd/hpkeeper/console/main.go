package console

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// DefaultDB is the database file the console opens when --db is not given,
// relative to the working directory.
const DefaultDB = "hpkeeper.db"

// DefaultFilesDir is --files' default: hpkeeper-files in the system's
// temporary directory, so that trying the console leaves no chart or export
// in the working directory (a clone of the repository, say).
func DefaultFilesDir() string { return filepath.Join(os.TempDir(), "hpkeeper-files") }

// Exit codes returned by Main.
const (
	// ExitOK: the session ended normally.
	ExitOK = 0
	// ExitFailure: a script line was not understood, or the database could
	// not be opened, or input or output failed.
	ExitFailure = 1
	// ExitUsage: bad flags or arguments.
	ExitUsage = 2
	// ExitInterrupted: ctx was cancelled (e.g. by Ctrl-C) before the input ended.
	ExitInterrupted = 130
)

// Main runs `hpkeeper console [flags]` with args (the flags, without the
// program and subcommand names) over the rule systems and features given
// (a fresh set: the service keeps them) and returns the exit code. It opens the
// database (--db, default DefaultDB), writes attached files into --files
// (default DefaultFilesDir), builds the dice (--seed N for
// repeatable random rolls, else truly random; --dice 1,2,6 faces to roll
// first), and runs a Console on stdin and stdout: interactively with a
// prompt when stdin is a terminal, else as a script whose lines are echoed
// after "> ". Errors go to stderr, and so do the handlers' internal-error
// logs unless ctx already carries a zerolog logger.
//
// As RULES.md §0.3 says, faces given with --dice are consumed in order and
// running out of them is an error (the bot answers so); with --seed as well,
// random rolls follow the given faces instead. The :dice directive works
// the same way: without --seed, once it queued faces, running out of them is
// an error too, so a script cannot pass by a lucky random roll; before any
// :dice (and without --dice) rolls are random.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, systems []commands.System, features ...commands.Feature) int {
	fs := flag.NewFlagSet("hpkeeper console", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", DefaultDB, "the bbolt database `file`")
	filesDir := fs.String("files", DefaultFilesDir(), "the `directory` where attached files (odds charts, table exports) are written, created when needed")
	diceFlag := fs.String("dice", "", "die `faces` to roll first, e.g. 1,2,6 (Fudge dice: -1,0,1); running out is an error unless --seed is given")
	var seed uint64
	seeded := false
	fs.Func("seed", "seed `N` (0 to 18446744073709551615) to make random rolls repeatable", func(s string) error {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return errors.New("not a whole number from 0 to 18446744073709551615")
		}
		seed, seeded = n, true
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "hpkeeper console: play hpkeeper in a fake Discord on the terminal, over a local database file (no Discord needed).\n\n"+
			"Usage: hpkeeper console [flags] [< script]\n\n"+
			"Type :help inside for the syntax. A script read from a pipe or file makes the\n"+
			"exit status 1 if any line was not understood.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(fs.Output(), "\nEnvironment: none (the console reads no environment variables).\n")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hpkeeper console: unexpected argument %q (give a script on standard input)\n", fs.Arg(0))
		return ExitUsage
	}
	var faces []int
	if *diceFlag != "" {
		var err error
		if faces, err = ParseFaces(*diceFlag); err != nil {
			fmt.Fprintf(stderr, "hpkeeper console: --dice: %v\n", err)
			return ExitUsage
		}
	}

	db, err := storage.Open(*dbPath, storage.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "hpkeeper console: %v\n", err)
		return ExitFailure
	}
	defer func() {
		if err := db.Close(); err != nil {
			fmt.Fprintf(stderr, "hpkeeper console: closing %s: %v\n", *dbPath, err)
		}
	}()

	var fallback dice.Source
	switch {
	case seeded:
		fallback = dice.NewRandom(seed)
	case faces == nil:
		fallback = dice.Random()
	}
	queue := dice.NewQueue(fallback)
	queue.Push(faces...)

	if zerolog.Ctx(ctx).GetLevel() == zerolog.Disabled {
		log := zerolog.New(zerolog.ConsoleWriter{Out: stderr, NoColor: true}).
			Level(zerolog.WarnLevel).With().Timestamp().Logger()
		ctx = log.WithContext(ctx)
	}

	c := New(commands.New(db, queue, systems, features...), queue, stdout, Options{Interactive: IsTerminal(stdin), FilesDir: *filesDir, StrictDice: !seeded})
	switch err := c.Run(ctx, stdin); {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintln(stderr, "hpkeeper console: interrupted")
		return ExitInterrupted
	default:
		fmt.Fprintf(stderr, "hpkeeper console: %v\n", err)
		return ExitFailure
	}
}

// IsTerminal reports whether f, a reader or a writer, is a terminal (a
// character device): the console then prompts, and hpkeeper's console log
// format uses colours.
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	fi, err := file.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
