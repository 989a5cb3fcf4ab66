package console

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runMain runs Main with args and stdin and returns the exit code, stdout and
// stderr.
func runMain(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, systems, features()...)
	return code, stdout.String(), stderr.String()
}

func TestMainSession(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "test.db")
	setup := "/table setup system:hit-protection\n"

	code, out, errOut := runMain(t, setup+"/roll expr:3d6dl1\n", "--db", db, "--dice", "5,2,1")
	if code != ExitOK || !strings.Contains(out, "3d6dl1 [5, 2, ~~1~~] = 7") {
		t.Errorf("Main(--dice 5,2,1) = %d, stdout:\n%s\nstderr: %s\nwant 0 and the roll 3d6dl1 [5, 2, ~~1~~] = 7", code, out, errOut)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("--db %s: %v", db, err)
	}

	// The table set up by the first run is still there: the file persists.
	code, out, _ = runMain(t, "/table show\n", "--db", db)
	if code != ExitOK || !strings.Contains(out, "hit-protection") {
		t.Errorf("Main(/table show) on the same file = %d, stdout:\n%s\nwant the hit-protection table", code, out)
	}

	// --dice alone: running out of faces is an error the bot reports
	// (RULES.md §0.3), and it fails the script: it cannot pass by luck.
	code, out, errOut = runMain(t, "/roll expr:2d6\n", "--db", db, "--dice", "3")
	if code != ExitFailure || !strings.Contains(out, "ran out") || !strings.Contains(errOut, "1 script line was refused by the bot (line 1)") {
		t.Errorf("Main(--dice 3, /roll expr:2d6) = %d, stdout:\n%s\nstderr: %s\nwant 1, a reply that the dice ran out and the line named", code, out, errOut)
	}

	// :dice behaves like --dice: without --seed, once faces were queued,
	// running out of them is an error, not a random roll; before any
	// :dice, rolls are random.
	code, out, _ = runMain(t, "/roll expr:1d6\n:dice 3\n!/roll expr:2d6\n!/roll expr:1d6\n", "--db", db)
	if code != ExitOK || strings.Count(out, "ran out") != 2 || !strings.Contains(out, "you rolled 1d6 [") {
		t.Errorf("Main(:dice 3, /roll expr:2d6, /roll expr:1d6) = %d, stdout:\n%s\nwant a random first roll, then two replies that the dice ran out", code, out)
	}
	code, out, _ = runMain(t, ":dice 3\n/roll expr:2d6\n", "--db", db, "--seed", "5")
	if code != ExitOK || strings.Contains(out, "ran out") || !strings.Contains(out, "2d6 [3, ") {
		t.Errorf("Main(--seed 5, :dice 3, /roll expr:2d6) = %d, stdout:\n%s\nwant the 3, then a seeded random die", code, out)
	}

	// --seed makes random rolls repeatable, also after the --dice faces.
	roll := func(args ...string) string {
		t.Helper()
		code, out, errOut := runMain(t, "/roll expr:10d20\n", append([]string{"--db", db}, args...)...)
		if code != ExitOK {
			t.Fatalf("Main(%v) = %d; stderr: %s", args, code, errOut)
		}
		return out
	}
	if a, b := roll("--seed", "42"), roll("--seed", "42"); a != b {
		t.Errorf("two runs with --seed 42 rolled\n%s\nand\n%s\nwant the same", a, b)
	}
	if a, b := roll("--seed", "42"), roll("--seed", "43"); a == b {
		t.Errorf("--seed 42 and --seed 43 both rolled\n%s", a)
	}
	if a := roll("--seed", "7", "--dice", "20"); !strings.Contains(a, "10d20 [20, ") {
		t.Errorf("--seed 7 --dice 20 rolled\n%s\nwant the first die 20, then random ones", a)
	}
}

func TestMainExitCodes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "test.db")
	tests := []struct {
		name       string
		stdin      string
		args       []string
		want       int
		wantStderr string
	}{
		{"script understood", "# nothing\n/help\n", []string{"--db", db}, ExitOK, ""},
		{"a refused line fails the script", "/char list\n", []string{"--db", db}, ExitFailure, "1 script line was refused by the bot (line 1); a line the script expects to be refused starts with !"},
		{"a refusal marked with ! is expected", "!/char list\n", []string{"--db", db}, ExitOK, ""},
		{"a line marked with ! must be refused", "/help\n! /help\n", []string{"--db", db}, ExitFailure, "1 script line was marked ! but not refused by the bot (line 2)"},
		{"both", "/char list\n!/help\n", []string{"--db", db}, ExitFailure, "(line 1)"},
		{"line not understood", "/help\nhello\n/help\n", []string{"--db", db}, ExitFailure, "1 script line was not understood (line 2)"},
		{"help flag", "", []string{"-h"}, ExitOK, "Usage: hpkeeper console"},
		{"unknown flag", "", []string{"--nope"}, ExitUsage, "flag provided but not defined"},
		{"bad seed", "", []string{"--seed", "x"}, ExitUsage, "not a whole number"},
		{"bad dice", "", []string{"--dice", "1,9999"}, ExitUsage, "--dice: no die has the face 9999"},
		{"argument", "", []string{"script.txt"}, ExitUsage, `unexpected argument "script.txt"`},
		{"unopenable db", "", []string{"--db", filepath.Join(t.TempDir(), "missing", "x.db")}, ExitFailure, "open database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runMain(t, tt.stdin, tt.args...)
			if code != tt.want {
				t.Errorf("Main(%v) = %d; want %d\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.want, out, errOut)
			}
			if tt.wantStderr != "" && !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("Main(%v) stderr %q; want it to contain %q", tt.args, errOut, tt.wantStderr)
			}
			if tt.wantStderr == "" && errOut != "" {
				t.Errorf("Main(%v) stderr %q; want nothing", tt.args, errOut)
			}
		})
	}
}

func TestMainCancelled(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	db := filepath.Join(t.TempDir(), "test.db")
	if code := Main(ctx, []string{"--db", db}, r, &stdout, &stderr, nil); code != ExitInterrupted {
		t.Errorf("Main with a cancelled context = %d; want %d (stderr %q)", code, ExitInterrupted, stderr.String())
	}
}

// TestMainFilesDefault: without --files, attached files go to
// hpkeeper-files in the temporary directory, never the working directory.
func TestMainFilesDefault(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	db := filepath.Join(t.TempDir(), "test.db")
	code, out, errOut := runMain(t, "/table setup system:hit-protection\n/odds\n", "--db", db)
	want := filepath.Join(tmp, "hpkeeper-files", "injury-odds.png")
	if code != ExitOK || !strings.Contains(out, "written to "+want) {
		t.Fatalf("Main(/odds) = %d, stdout:\n%s\nstderr: %s\nwant the chart written to %s", code, out, errOut, want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat("injury-odds.png"); !os.IsNotExist(err) {
		t.Errorf("injury-odds.png in the working directory: %v", err)
	}
}
