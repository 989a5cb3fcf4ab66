package bot

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fuzzTargets are every native fuzz target of the module, by package
// (SECURITY.md promise 9). `go test ./...` replays their committed corpora
// (testdata/fuzz/<target>) as ordinary tests; TestFuzzBriefly fuzzes each for
// a few seconds, as a CI step of its own (.ci/run).
var fuzzTargets = []struct{ pkg, name string }{
	{"./rules/dice", "FuzzParse"},
	{"./commands", "FuzzParseStats"},
	{"./commands/layout", "FuzzSplit"},
	{"./cmd/hpkeeper/console", "FuzzParseLine"},
	{"./cmd/hpkeeper/console", "FuzzPlainEscape"},
	{"./bot", "FuzzInteraction"},
	{"./bot", "FuzzRoute"},
	{"./bot", "FuzzDecodeInteraction"},
	{"./bot", "FuzzDecodeOnePass"},
	{"./bot", "FuzzVerify"},
	{"./storage", "FuzzEncodeCharacter"},
	{"./storage", "FuzzValidCompact"},
	{"./storage", "FuzzAppendString"},
}

// envFuzzTime names the variable that turns TestFuzzBriefly on: how long
// to fuzz each target, a Go duration ("3s"). Unset, the test is skipped, so
// that `go test ./...` stays the plain replay of the corpora everywhere (a
// CI service that sets CI=true included); .ci/run sets it for its fuzz step.
const envFuzzTime = "HPKEEPER_FUZZTIME"

// TestFuzzBriefly fuzzes each target for HPKEEPER_FUZZTIME when that is
// set, and is skipped otherwise. It builds the instrumented test binary of
// each package once (`go test -c -fuzz`, the packages two at a time), then
// runs the targets one after another with one fuzzing worker each, in their
// package's directory so they read and write its testdata/fuzz corpus. A
// failure prints the fuzzer's output, which names the input it saved.
func TestFuzzBriefly(t *testing.T) {
	fuzztime := os.Getenv(envFuzzTime)
	if fuzztime == "" {
		t.Skip("set " + envFuzzTime + "=3s to fuzz every target (.ci/run does, in a step of its own)")
	}
	if _, err := time.ParseDuration(fuzztime); err != nil {
		t.Fatalf("%s=%q: %v", envFuzzTime, fuzztime, err)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir := t.TempDir()
	binOf := func(pkg string) string {
		return filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".test")
	}
	var pkgs []string
	for _, ft := range fuzzTargets {
		if !slices.Contains(pkgs, ft.pkg) {
			pkgs = append(pkgs, ft.pkg)
		}
	}
	start := time.Now()
	built := make(map[string]error, len(pkgs))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, pkg := range pkgs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(goCmd, "test", "-c", "-fuzz=.", "-o", binOf(pkg), pkg)
			cmd.Dir = ".." // the module root
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("go test -c -fuzz=. %s: %v\n%s", pkg, err, out)
			}
			mu.Lock()
			built[pkg] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Logf("built %d instrumented test binaries in %v", len(pkgs), time.Since(start).Round(time.Second))
	for _, ft := range fuzzTargets {
		t.Run(ft.name, func(t *testing.T) {
			if err := built[ft.pkg]; err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cmd := exec.Command(binOf(ft.pkg), "-test.run=^$", "-test.fuzz=^"+ft.name+"$", "-test.fuzztime="+fuzztime,
				"-test.parallel=1", "-test.fuzzcachedir="+filepath.Join(dir, "cache", ft.name))
			cmd.Dir = filepath.Join("..", ft.pkg)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("fuzzing %s in %s: %v\n%s", ft.name, ft.pkg, err, out)
			}
			t.Logf("%s fuzzed for %s (%v)", ft.name, fuzztime, time.Since(start).Round(100*time.Millisecond))
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
