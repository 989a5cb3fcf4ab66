package operator

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// BuildInfo identifies the running program for operators: `hpkeeper
// version`, the start-up log line, GET /healthz ("version") and the
// hpkeeper_build_info metric all show it.
type BuildInfo struct {
	// Version is the main module's version: a release tag (v0.2.0), a
	// pseudo-version Go derives from the commit when the tree has no tag on
	// it (v0.0.0-20251202025900-66ec0b9d1e2f, "+dirty" with uncommitted
	// changes), or "(devel)" when the build had no version control
	// information (go run, -buildvcs=false, a copy of the source without
	// .git) and none was given at link time.
	Version string
	// Revision is the commit the program was built from (40 hex digits),
	// "" when unknown.
	Revision string
	// Time is the commit's time, RFC 3339 in UTC, "" when unknown.
	Time string
	// Modified reports a build from a tree with uncommitted changes.
	Modified bool
	// GoVersion is the Go release that built it (go1.26.8).
	GoVersion string
}

// develVersion is Go's main module version when it knows none.
const develVersion = "(devel)"

// ReadBuildInfo reads the program's BuildInfo from what the Go linker
// embedded (debug.ReadBuildInfo: the module version and the vcs.revision,
// vcs.time and vcs.modified settings). version and revision, when not "",
// take the place of the embedded ones: builds without version control
// information set them at link time (the Dockerfile's -ldflags "-X
// main.version=… -X main.revision=…").
func ReadBuildInfo(version, revision string) BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return buildInfoFrom(bi, version, revision)
}

// buildInfoFrom is ReadBuildInfo over bi (nil: nothing embedded).
func buildInfoFrom(bi *debug.BuildInfo, version, revision string) BuildInfo {
	b := BuildInfo{Version: develVersion, GoVersion: runtime.Version()}
	if bi != nil {
		if v := bi.Main.Version; v != "" {
			b.Version = v
		}
		if bi.GoVersion != "" {
			b.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.time":
				b.Time = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		b.Version = version
	}
	if revision != "" && revision != b.Revision {
		b.Revision, b.Time, b.Modified = revision, "", false
	}
	return b
}

// String is the one-line form the start-up log and /healthz do not need
// but people do: "v0.2.0 (66ec0b9d1e2f, 2025-12-02T02:59:00Z, modified; go1.26.8)".
func (b BuildInfo) String() string {
	var parts []string
	if b.Revision != "" {
		parts = append(parts, shortRevision(b.Revision))
	}
	if b.Time != "" {
		parts = append(parts, b.Time)
	}
	if b.Modified {
		parts = append(parts, "modified")
	}
	detail := b.GoVersion
	if len(parts) > 0 {
		detail = strings.Join(parts, ", ") + "; " + b.GoVersion
	}
	return fmt.Sprintf("%s (%s)", b.Version, detail)
}

// shortRevision is the first 12 hex digits of a commit id.
func shortRevision(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}
