package operator

import (
	"runtime/debug"
	"testing"

	"github.com/hpkeeper/hpkeeper/bot/operator/operatortest"
)

// TestBuildInfo reads the version, commit, time and modified flag Go
// embeds; link-time values take their place; without anything, "(devel)".
func TestBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v0.0.0-20261202030651-4ad31a41d89a+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "4ad31a41d89a2a62df1594879e3ccf3f0855ccad"},
			{Key: "vcs.time", Value: "2026-12-02T03:06:51Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := buildInfoFrom(bi, "", "")
	want := BuildInfo{Version: "v0.0.0-20261202030651-4ad31a41d89a+dirty", Revision: "4ad31a41d89a2a62df1594879e3ccf3f0855ccad",
		Time: "2026-12-02T03:06:51Z", Modified: true, GoVersion: "go1.99.1"}
	if got != want {
		t.Errorf("buildInfoFrom = %+v; want %+v", got, want)
	}
	if s := got.String(); s != "v0.0.0-20261202030651-4ad31a41d89a+dirty (4ad31a41d89a, 2026-12-02T03:06:51Z, modified; go1.99.1)" {
		t.Errorf("String() = %q", s)
	}
	// Stamped at link time (no .git in the Docker build context).
	got = buildInfoFrom(&debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "(devel)"}}, "v1.2.3", "0123456789abcdef")
	if got.Version != "v1.2.3" || got.Revision != "0123456789abcdef" || got.Time != "" || got.Modified {
		t.Errorf("with -X values = %+v; want them", got)
	}
	if got := buildInfoFrom(nil, "", ""); got.Version != "(devel)" || got.Revision != "" || got.GoVersion == "" {
		t.Errorf("with nothing embedded = %+v; want (devel), no revision, this Go", got)
	}
}

// TestBuildInfoReported: hpkeeper_build_info is 1 with the build's labels,
// and GET /healthz names the version.
func TestBuildInfoReported(t *testing.T) {
	s, m, admin := newServedAdmin(t, "")
	b := BuildInfo{Version: "v1.2.3", Revision: "4ad31a41d89a2a62df1594879e3ccf3f0855ccad", GoVersion: "go1.99.1"}
	m.ObserveBuild(b)
	admin.SetBuildInfo(b)
	fams := operatortest.Scrape(t, s.client, s.srv.URL+PathMetrics)
	if v := operatortest.Sample(fams, MetricBuildInfo, "version", "v1.2.3", "revision", "4ad31a41d89a", "goversion", "go1.99.1"); v != 1 {
		t.Errorf("%s{version=v1.2.3,revision=4ad31a41d89a,goversion=go1.99.1} = %v; want 1", MetricBuildInfo, v)
	}
	if status, body := getHealth(t, s.client, s.srv.URL); status != 200 || body["version"] != "v1.2.3" {
		t.Errorf("GET /healthz = %d %v; want 200 with the version", status, body)
	}
}
