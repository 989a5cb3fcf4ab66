package bot

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
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
	{"./commands", "FuzzFitLimits"},
	{"./cmd/hpkeeper/console", "FuzzParseLine"},
	{"./cmd/hpkeeper/console", "FuzzPlainEscape"},
	{"./bot", "FuzzInteraction"},
	{"./bot", "FuzzRoute"},
	{"./bot", "FuzzDecodeInteraction"},
	{"./bot", "FuzzVerify"},
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

// fuzzFunc matches the declaration of a native fuzz target.
var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)

// TestFuzzTargetsListed checks that fuzzTargets names every fuzz target of
// the module, in its package, and that SECURITY.md lists each one.
func TestFuzzTargetsListed(t *testing.T) {
	found := map[string]string{} // target → package
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(b, -1) {
			found[string(m[1])] = "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, ".."+string(filepath.Separator))))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, ft := range fuzzTargets {
		listed[ft.name] = ft.pkg
	}
	for name, pkg := range found {
		if listed[name] != pkg {
			t.Errorf("fuzz target %s in %s is not in fuzzTargets (listed: %q)", name, pkg, listed[name])
		}
	}
	for name := range listed {
		if found[name] == "" {
			t.Errorf("fuzzTargets lists %s, which no test file declares", name)
		}
	}
	sec, err := os.ReadFile(filepath.Join("..", "SECURITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range found {
		if !bytes.Contains(sec, []byte("`"+name+"`")) {
			t.Errorf("SECURITY.md does not list the fuzz target `%s`", name)
		}
	}
}
