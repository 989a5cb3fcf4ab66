package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/hpkeeper/hpkeeper/bot/operator"
)

// version and revision name the build when it carries no version control
// information (a copy of the source without .git, such as the Docker build
// context): the Dockerfile sets them with
//
//	go build -ldflags "-X main.version=v0.2.0 -X main.revision=<commit>"
//
// Empty, the module version and the vcs.* settings that `go build` embeds
// in a git checkout are used (operator.ReadBuildInfo).
var version, revision string

// buildInfo is the running program's operator.BuildInfo.
func buildInfo() operator.BuildInfo { return operator.ReadBuildInfo(version, revision) }

// versionMain runs `hpkeeper version` (and --version): the module version,
// the commit and its time, whether the tree had uncommitted changes, and
// the Go release, one per line. It always returns 0.
func versionMain(stdout io.Writer) int {
	b := buildInfo()
	fmt.Fprintf(stdout, "hpkeeper %s\n", b.Version)
	rev, at := b.Revision, b.Time
	if rev == "" {
		rev = "unknown (built without version control information: build from a git checkout with go build, or set -ldflags -X main.revision)"
	}
	if at == "" {
		at = "unknown"
	}
	fmt.Fprintf(stdout, "  revision  %s\n  time      %s\n  modified  %t\n  go        %s %s/%s\n", rev, at, b.Modified, b.GoVersion, runtime.GOOS, runtime.GOARCH)
	return 0
}
