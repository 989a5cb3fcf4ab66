package console

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiles: the console writes attached files (the odds chart, a table
// export) into the files directory and prints their paths, and reads a
// local file for an attachment option (/table import).
func TestFiles(t *testing.T) {
	svc, queue := newTestService(t)
	dir := t.TempDir()
	var out bytes.Buffer
	c := New(svc, queue, &out, Options{FilesDir: dir})
	export := filepath.Join(dir, "hpkeeper-table.json")
	script := strings.Join([]string{
		":gm gm",
		":user gm",
		"/table setup system:hit-protection",
		`/char create name:Lister stats:"class=fighter hp=5"`,
		"/odds",
		"/table export",
		":channel copy",
		":gm gm",
		"/table import file:" + export,
		"/table show",
		"!/table import file:" + filepath.Join(dir, "missing.json"),
	}, "\n")
	if err := c.Run(context.Background(), strings.NewReader(script)); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"(attached injury-odds.png, image/png; written to " + filepath.Join(dir, "injury-odds.png") + ")",
		"(attached hpkeeper-table.json, application/json; written to " + export + ")",
		"Imported a **hit-protection** table: 1 character, 2 events",
		"Lister",
		"(cannot attach " + filepath.Join(dir, "missing.json"),
		"Attach the JSON file",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "injury-odds.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Fatalf("odds chart: %v", err)
	}
}

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{"a.png": "a.png", "../../etc/passwd": "passwd", "": "attachment", "/": "attachment", "x/../y.json": "y.json"} {
		if got := safeFileName(in); got != want {
			t.Errorf("safeFileName(%q) = %q; want %q", in, got, want)
		}
	}
}
