package main

import (
	"regexp"
	"strings"
	"testing"
)

// flagsIn returns the flag names a flag.PrintDefaults listing shows.
func flagsIn(help string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestSubcommandHelp: every subcommand's -h exits 0 and prints one line of
// what it does, its usage, its flags and the environment variables it reads.
func TestSubcommandHelp(t *testing.T) {
	tests := []struct {
		sub   string
		flags []string
		env   []string
	}{
		{"console", []string{"db", "files", "dice", "seed"}, nil},
		{"run", []string{"config", "db", "admin-listen", "shards", "shard-ids"}, []string{"DISCORD_TOKEN", "HPKEEPER_DB", "HPKEEPER_SHARDS", "HPKEEPER_SHARD_IDS", "HPKEEPER_ADMIN_LISTEN", "HPKEEPER_ADMIN_TOKEN", "HPKEEPER_LOG_LEVEL", "HPKEEPER_LOG_FORMAT", "HPKEEPER_CONFIG", "HPKEEPER_TEST_DISCORD_URL"}},
		{"serve", []string{"config", "db", "listen", "admin-listen"}, []string{"DISCORD_PUBLIC_KEY", "DISCORD_TOKEN", "HPKEEPER_DB", "HPKEEPER_LISTEN", "HPKEEPER_ADMIN_LISTEN", "HPKEEPER_ADMIN_TOKEN", "HPKEEPER_LOG_LEVEL", "HPKEEPER_LOG_FORMAT", "HPKEEPER_TEST_DISCORD_URL"}},
		{"register", []string{"config", "guild"}, []string{"DISCORD_TOKEN", "HPKEEPER_CONFIG", "HPKEEPER_TEST_DISCORD_URL"}},
		{"backup", []string{"config", "to", "from", "db"}, []string{"HPKEEPER_DB", "HPKEEPER_ADMIN_LISTEN", "HPKEEPER_LISTEN", "HPKEEPER_ADMIN_TOKEN"}},
		{"check", []string{"config", "db"}, []string{"HPKEEPER_DB", "HPKEEPER_CONFIG"}},
		{"health", []string{"config", "url", "timeout"}, []string{"HPKEEPER_ADMIN_LISTEN", "HPKEEPER_LISTEN"}},
		{"bench", []string{"tables", "concurrency", "duration", "target", "inprocess"}, []string{"GOMAXPROCS", "GOGC", "GOMEMLIMIT"}},
		{"fakediscord", []string{"listen", "endpoint", "shards", "key-seed"}, nil},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(t, nil, tt.sub, "-h")
		help := stdout + stderr
		if code != 0 {
			t.Errorf("%s -h = %d; want 0", tt.sub, code)
		}
		first, _, _ := strings.Cut(help, "\n")
		if !strings.HasPrefix(first, "hpkeeper "+tt.sub+": ") || !strings.HasSuffix(first, ".") || len(first) < 40 {
			t.Errorf("%s -h starts %q; want one line \"hpkeeper %s: what it does.\"", tt.sub, first, tt.sub)
		}
		if !strings.Contains(help, "Usage: hpkeeper "+tt.sub) && !strings.Contains(help, "hpkeeper "+tt.sub+" [flags]") {
			t.Errorf("%s -h has no usage line:\n%s", tt.sub, help)
		}
		got := strings.Join(flagsIn(help), " ")
		for _, f := range tt.flags {
			if !strings.Contains(" "+got+" ", " "+f+" ") {
				t.Errorf("%s -h lists the flags %q; want -%s among them", tt.sub, got, f)
			}
		}
		if !strings.Contains(help, "Environment") {
			t.Errorf("%s -h says nothing of the environment:\n%s", tt.sub, help)
		}
		for _, v := range tt.env {
			if !strings.Contains(help, v) {
				t.Errorf("%s -h does not name %s:\n%s", tt.sub, v, help)
			}
		}
	}
}

// TestTopLevelHelpListsEveryConsoleFlag: `hpkeeper help` names every flag
// that `hpkeeper console -h` lists, every subcommand, and every environment
// variable hpkeeper reads.
func TestTopLevelHelpListsEveryConsoleFlag(t *testing.T) {
	_, out, _ := runCmd(t, nil, "help")
	_, cout, cerr := runCmd(t, nil, "console", "-h")
	flags := flagsIn(cout + cerr)
	if len(flags) < 4 {
		t.Fatalf("console -h lists %v; want its flags", flags)
	}
	for _, f := range flags {
		if !strings.Contains(out, "[--"+f+" ") && !strings.Contains(out, "--"+f+":") {
			t.Errorf("hpkeeper help does not list the console flag --%s:\n%s", f, out)
		}
	}
	for _, sub := range commandNames {
		if !strings.Contains(out, "hpkeeper "+sub+" ") {
			t.Errorf("hpkeeper help does not list %s", sub)
		}
	}
	for _, v := range envVars {
		if !strings.Contains(out, v.name) {
			t.Errorf("hpkeeper help does not name %s", v.name)
		}
	}
}

func TestOperatorCommandErrors(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/hpkeeper.db"
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"backup"}, 2, "--to FILE is required"},
		{[]string{"backup", "--to", dir + "/b.db", "--from", "http://127.0.0.1:1", "--db", db}, 2, "not both"},
		{[]string{"backup", "--to", db, "--db", db}, 2, "is the database itself"},
		{[]string{"backup", "--to", dir + "/b.db", "--db", dir + "/missing.db"}, 1, "no such file"},
		{[]string{"backup", "--to", dir + "/b.db", "--from", "ftp://x"}, 1, "not an http(s) URL"},
		{[]string{"backup", "--to", dir + "/b.db", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"check", "--db", dir + "/missing.db"}, 1, "no such file"},
		{[]string{"check", "--config", dir + "/missing.toml"}, 1, "no such file"},
		{[]string{"health", "--url", "http://127.0.0.1:1", "--timeout", "1s"}, 1, "refused"},
		{[]string{"health", "--bogus"}, 2, "flag provided but not defined"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(stdout+stderr, tt.out) {
			t.Errorf("run(%q) = %d, output %q; want %d and %q", tt.args, code, stdout+stderr, tt.code, tt.out)
		}
	}
	// A missing file is named once, not "open F: open F: …".
	missing := dir + "/missing.db"
	for _, args := range [][]string{{"check", "--db", missing}, {"backup", "--db", missing, "--to", dir + "/b.db"}} {
		_, stdout, stderr := runCmd(t, nil, args...)
		if n := strings.Count(stdout+stderr, "open "+missing); n != 1 {
			t.Errorf("%s of a missing file names it %d times: %q; want once", args[0], n, stdout+stderr)
		}
	}
}
