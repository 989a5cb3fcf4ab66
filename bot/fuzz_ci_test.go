package bot

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// fuzzTargets are every native fuzz target of the module, by package
// (SECURITY.md promise 9). `go test ./...` replays their committed corpora
// (testdata/fuzz/<target>) as ordinary tests; TestFuzzBriefly fuzzes each for
// a few seconds in CI.
var fuzzTargets = []struct{ pkg, name string }{
	{"./rules/dice", "FuzzParse"},
	{"./commands", "FuzzParseStats"},
	{"./cmd/hpkeeper/console", "FuzzParseLine"},
	{"./bot", "FuzzInteraction"},
	{"./bot", "FuzzRoute"},
	{"./bot", "FuzzDecodeInteraction"},
}

// TestFuzzBriefly runs each fuzz target for HPKEEPER_FUZZTIME (default 3s)
// when the environment has CI=true, as `go test -fuzz` in a child process;
// elsewhere it is skipped (run the targets by hand, see SECURITY.md).
func TestFuzzBriefly(t *testing.T) {
	if os.Getenv("CI") != "true" {
		t.Skip("fuzzing runs in CI (CI=true) only")
	}
	if testing.Short() {
		t.Skip("skipped with -short")
	}
	fuzztime := os.Getenv("HPKEEPER_FUZZTIME")
	if fuzztime == "" {
		fuzztime = "3s"
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	for _, ft := range fuzzTargets {
		t.Run(ft.name, func(t *testing.T) {
			start := time.Now()
			// One fuzzing worker: the other packages' tests run alongside.
			cmd := exec.Command(goCmd, "test", "-run=^$", "-fuzz=^"+ft.name+"$", "-fuzztime="+fuzztime, "-parallel=1", ft.pkg)
			cmd.Dir = ".." // the module root
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go test -fuzz=%s %s: %v\n%s", ft.name, ft.pkg, err, out)
			}
			t.Logf("%s fuzzed for %s (%v with the build)", ft.name, fuzztime, time.Since(start).Round(time.Second))
		})
	}
}
