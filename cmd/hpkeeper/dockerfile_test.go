package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfile checks by reading what no engine here can build: the
// image runs as a numeric user (which runAsNonRoot can verify, and which a
// bind-mounted directory is chowned to), stamps the version and revision
// into the binary through the variables version.go reads, and labels the
// image with them.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	users := regexp.MustCompile(`(?m)^USER (.+)$`).FindAllStringSubmatch(df, -1)
	if len(users) != 1 || !regexp.MustCompile(`^\d+:\d+$`).MatchString(users[0][1]) || users[0][1] == "0:0" {
		t.Errorf("USER lines %q; want one numeric user:group, not root", users)
	}
	for _, want := range []string{
		"-X main.version=${VERSION}", "-X main.revision=${REVISION}",
		`org.opencontainers.image.version="${VERSION}"`, `org.opencontainers.image.revision="${REVISION}"`,
		"chown 10001:10001 /data", "useradd --system --uid 10001 --gid 10001",
	} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	// The -X targets exist (a rename would silently stamp nothing).
	version, revision = "x", "y"
	defer func() { version, revision = "", "" }()
	if b := buildInfo(); b.Version != "x" || b.Revision != "y" {
		t.Errorf("buildInfo with main.version and main.revision set = %+v", b)
	}
}
