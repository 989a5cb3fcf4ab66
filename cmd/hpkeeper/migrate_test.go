package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/cmd/hpkeeper/console"
	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// TestMigrateToPostgresAndBack: a file played in the console is copied into
// PostgreSQL, checked there, copied back into a new file, checked, and the
// console reads the same history and sheets from the copy as from the
// original; copying again finds every table there already; check and
// backup on PostgreSQL say what they do.
func TestMigrateToPostgresAndBack(t *testing.T) {
	u := pgtest.NewDatabase(t)
	dir := t.TempDir()
	orig, back := filepath.Join(dir, "orig.db"), filepath.Join(dir, "back.db")
	play := func(db, script string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := console.Main(context.Background(), []string{"--db", db, "--seed", "7", "--files", dir}, strings.NewReader(script), &out, &errOut, systems, features()...); code != 0 {
			t.Fatalf("console on %s: exit %d: %s", db, code, errOut.String())
		}
		return out.String()
	}
	play(orig, "/table setup system:hit-protection\n/char create name:Lister stats:\"class=fighter hit-die=d6 hp=4\"\n"+
		"/damage target:Lister amount:2\n/char set name:Lister stats:hp=3\n/undo\n")
	cmd := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, &errOut, env(nil))
		return code, out.String(), errOut.String()
	}
	for _, step := range [][]string{
		{"migrate", "--from", orig, "--to", u},
		{"check", "--db", u},
		{"migrate", "--from", u, "--to", back},
		{"check", "--db", back},
	} {
		code, out, errOut := cmd(step...)
		if code != 0 {
			t.Fatalf("hpkeeper %s: exit %d\n%s%s", strings.Join(step, " "), code, out, errOut)
		}
		t.Logf("hpkeeper %s:\n%s", strings.Join(step, " "), out)
	}
	code, out, _ := cmd("migrate", "--from", orig, "--to", u)
	if code != 0 || !strings.Contains(out, "0 channels copied and checked, 1 channel there already") {
		t.Errorf("migrating again: exit %d\n%s; want every table found there already", code, out)
	}
	code, out, _ = cmd("check", "--db", u)
	if code != 0 || !strings.Contains(out, "consistent") || !strings.Contains(out, "pg_amcheck") || !strings.Contains(out, "events         5") {
		t.Errorf("check on PostgreSQL: exit %d\n%s", code, out)
	}
	code, _, errOut := cmd("backup", "--db", u, "--to", filepath.Join(dir, "copy.db"))
	if code != 1 || !strings.Contains(errOut, "pg_dump") || !strings.Contains(errOut, "hpkeeper migrate") {
		t.Errorf("backup on PostgreSQL: exit %d\n%s; want 1 naming pg_dump and migrate", code, errOut)
	}
	read := "/history\n/char show name:Lister\n"
	if a, b := play(orig, read), play(back, read); a != b {
		t.Errorf("the console reads the copy differently:\noriginal:\n%s\ncopy:\n%s", a, b)
	}
}
