package main

// Tests of what an operator meets first: the version, help, the
// configuration (every key from the environment, secrets from files, a
// check without starting), and a start or stop that leaves the database as
// it was.

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestVersion: `hpkeeper version` and --version print the same, the module
// version first; a version and revision set at link time (the Docker
// image's -ldflags -X) take the place of the build's.
func TestVersion(t *testing.T) {
	code, out, _ := runCmd(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "hpkeeper "+buildInfo().Version+"\n") || !strings.Contains(out, "revision") || !strings.Contains(out, "go1.") {
		t.Errorf("version = %d %q; want 0, the version, the revision and the Go release", code, out)
	}
	for _, flag := range []string{"--version", "-version"} {
		if c2, out2, _ := runCmd(t, nil, flag); c2 != 0 || out2 != out {
			t.Errorf("%s = %d %q; want what version prints", flag, c2, out2)
		}
	}
	version, revision = "v9.8.7", "0123456789abcdef0123456789abcdef01234567"
	defer func() { version, revision = "", "" }()
	_, out, _ = runCmd(t, nil, "version")
	if !strings.HasPrefix(out, "hpkeeper v9.8.7\n") || !strings.Contains(out, "revision  0123456789abcdef0123456789abcdef01234567\n") {
		t.Errorf("version with -X main.version and main.revision = %q; want them", out)
	}
}

// TestVersionNamesTheCommit: a binary built with go build in a git
// checkout names the commit it was built from. It is skipped where the
// module root has no .git directory (a copy of the source, or a git
// worktree, whose .git is a file Go does not read).
func TestVersionNamesTheCommit(t *testing.T) {
	if fi, err := os.Stat("../../.git"); err != nil || !fi.IsDir() {
		t.Skip("the module root has no .git directory: the build carries no revision")
	}
	head, err := exec.Command("git", "-C", "../..", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git rev-parse HEAD: %v", err)
	}
	bin := buildHpkeeper(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "revision  " + strings.TrimSpace(string(head)); !strings.Contains(string(out), want) {
		t.Errorf("hpkeeper version = %q; want %q", out, want)
	}
}

// TestHelpCommand: `hpkeeper help CMD` prints CMD's own help on stdout.
func TestHelpCommand(t *testing.T) {
	for _, sub := range []string{"serve", "run", "register", "console", "backup", "check", "health", "bench", "fakediscord"} {
		code, out, errOut := runCmd(t, nil, "help", sub)
		if code != 0 || !strings.HasPrefix(out, "hpkeeper "+sub+": ") || errOut != "" {
			t.Errorf("help %s = %d, stdout %.80q, stderr %.80q; want 0 and %s's own help on stdout", sub, code, out, errOut, sub)
		}
	}
	for _, sub := range []string{"shard", "config"} {
		if code, out, _ := runCmd(t, nil, "help", sub); code != 0 || !strings.Contains(out, "hpkeeper "+sub) {
			t.Errorf("help %s = %d %q; want 0 and its help", sub, code, out)
		}
	}
	if code, _, errOut := runCmd(t, nil, "help", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("help frobnicate = %d %q; want 2 and the unknown command named", code, errOut)
	}
}

// exampleKeys returns every key of config.example.toml, "section.key", with
// the comment text above it.
func exampleKeys(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]string{}
	section, comment := "", ""
	keyLine := regexp.MustCompile(`^([a-z_]+) = `)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "["):
			section, comment = strings.Trim(line, "[]"), ""
		case strings.HasPrefix(line, "#"):
			comment += line + "\n"
		case keyLine.MatchString(line):
			keys[section+"."+keyLine.FindStringSubmatch(line)[1]] = comment
			comment = ""
		}
	}
	return keys
}

// TestEveryKeyHasAnEnvironmentVariable: each key of config.example.toml has
// an environment variable, which the key's comment names, and which
// `hpkeeper config check -h` lists; and every variable's key is in the file.
func TestEveryKeyHasAnEnvironmentVariable(t *testing.T) {
	keys := exampleKeys(t)
	if len(keys) < 14 {
		t.Fatalf("config.example.toml has %d keys: %v; want them all", len(keys), keys)
	}
	_, _, help := runCmd(t, nil, "config", "check", "-h")
	byKey := map[string]string{}
	for _, v := range envVars {
		if v.key == "" {
			continue
		}
		byKey[v.key] = v.name
		if _, ok := keys[v.key]; !ok {
			t.Errorf("%s sets %s, which config.example.toml does not have", v.name, v.key)
		}
	}
	for key, comment := range keys {
		name := byKey[key]
		if name == "" {
			t.Errorf("config.example.toml's %s has no environment variable", key)
			continue
		}
		if !strings.Contains(comment, name) {
			t.Errorf("config.example.toml's comment on %s does not name %s:\n%s", key, name, comment)
		}
		if !strings.Contains(help, name) {
			t.Errorf("config check -h does not list %s", name)
		}
	}
}

// TestEnvironmentSetsEveryKey: every key's variable sets it, over the file.
func TestEnvironmentSetsEveryKey(t *testing.T) {
	path := writeConfig(t, "[storage]\ncache_mb = 8\nlock_timeout = \"3s\"\n[discord]\napplication_id = \"1\"\n")
	e := map[string]string{
		"DISCORD_TOKEN": "tok", "DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32), "HPKEEPER_APPLICATION_ID": "42",
		"HPKEEPER_DEV_GUILD": "43", "HPKEEPER_SHARDS": "4", "HPKEEPER_SHARD_IDS": "1-2", "HPKEEPER_DB": "/data/x.db",
		"HPKEEPER_LOCK_TIMEOUT": "2s", "HPKEEPER_CACHE_MB": "-1", "HPKEEPER_ALLOW_UNSOUND": "true", "HPKEEPER_LISTEN": "127.0.0.1:1", "HPKEEPER_ADMIN_LISTEN": ":2",
		"HPKEEPER_ADMIN_TOKEN": "a-token-of-twenty-chars", "HPKEEPER_LOG_LEVEL": "warn", "HPKEEPER_LOG_FORMAT": "console",
	}
	cfg, err := LoadConfig(path, env(e))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Discord: DiscordConfig{Token: "tok", ApplicationID: "42", PublicKey: strings.Repeat("ab", 32), DevGuild: "43", Shards: "4", ShardIDs: "1-2"},
		Storage: StorageConfig{Path: "/data/x.db", LockTimeout: "2s", CacheMB: -1, AllowUnsound: true},
		HTTP:    HTTPConfig{Listen: "127.0.0.1:1"},
		Admin:   AdminConfig{Listen: ":2", Token: "a-token-of-twenty-chars"},
		Log:     LogConfig{Level: "warn", Format: "console"},
	}
	if cfg != want {
		t.Errorf("LoadConfig with every variable = %+v; want %+v", cfg, want)
	}
	for name, bad := range map[string]string{"HPKEEPER_CACHE_MB": "lots", "HPKEEPER_LOCK_TIMEOUT": "soon", "HPKEEPER_ALLOW_UNSOUND": "maybe"} {
		if _, err := LoadConfig("", env(map[string]string{name: bad})); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s=%s: %v; want an error naming the value", name, bad, err)
		}
	}
}

// TestSecretsFromFiles: DISCORD_TOKEN_FILE, DISCORD_PUBLIC_KEY_FILE and
// HPKEEPER_ADMIN_TOKEN_FILE name files holding the secret (a trailing line
// break is dropped); a missing file, an empty one, or both forms at once are
// refused.
func TestSecretsFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg, err := LoadConfig("", env(map[string]string{
		"DISCORD_TOKEN_FILE":        write("token", "secret-token\n"),
		"DISCORD_PUBLIC_KEY_FILE":   write("key", strings.Repeat("cd", 32)+"\n"),
		"HPKEEPER_ADMIN_TOKEN_FILE": write("admin", "an-admin-token-of-24-ch\n"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Discord.Token != "secret-token" || cfg.Discord.PublicKey != strings.Repeat("cd", 32) || cfg.Admin.Token != "an-admin-token-of-24-ch" {
		t.Errorf("secrets from files = %q, %q, %q", cfg.Discord.Token, cfg.Discord.PublicKey, cfg.Admin.Token)
	}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"DISCORD_TOKEN": "x", "DISCORD_TOKEN_FILE": write("t2", "y")}, "both DISCORD_TOKEN and DISCORD_TOKEN_FILE"},
		{map[string]string{"DISCORD_TOKEN_FILE": filepath.Join(dir, "missing")}, "no such file"},
		{map[string]string{"HPKEEPER_ADMIN_TOKEN_FILE": write("empty", "\n")}, "is empty"},
	} {
		if _, err := LoadConfig("", env(tt.env)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadConfig(%v) = %v; want an error saying %q", tt.env, err, tt.want)
		}
	}
}

// TestCacheMBRefusesNegatives: -1 means no cache; other negatives are
// refused rather than read as -1.
func TestCacheMBRefusesNegatives(t *testing.T) {
	if _, err := ParseConfig(strings.NewReader("[storage]\ncache_mb = -1\n")); err != nil {
		t.Errorf("cache_mb = -1: %v; want it accepted", err)
	}
	for _, n := range []string{"-2", "-64"} {
		if _, err := ParseConfig(strings.NewReader("[storage]\ncache_mb = " + n + "\n")); err == nil || !strings.Contains(err.Error(), "storage.cache_mb") {
			t.Errorf("cache_mb = %s: %v; want it refused", n, err)
		}
	}
}

// TestConfigCheck: `hpkeeper config check` validates without starting:
// exit 0 with the values in force (secrets hidden) and what each command
// still needs, exit 1 with the wrong key named.
func TestConfigCheck(t *testing.T) {
	db := filepath.Join(t.TempDir(), "never-created.db")
	good := writeConfig(t, "[storage]\npath = \""+db+"\"\n[log]\nformat = \"console\"\n")
	code, out, errOut := runCmd(t, map[string]string{"DISCORD_TOKEN": "do-not-print-me"}, "config", "check", "--config", good)
	if code != 0 || !strings.Contains(out, "valid") || !strings.Contains(out, "log.format               console") {
		t.Errorf("config check = %d %q %q; want 0 and the values", code, out, errOut)
	}
	if strings.Contains(out+errOut, "do-not-print-me") || !strings.Contains(out, "discord.token            (set, 15 characters)") {
		t.Errorf("config check printed %q; want the token hidden, its presence shown", out)
	}
	if !strings.Contains(out, "run:      can start") || !strings.Contains(out, "serve:    needs the application's public key") {
		t.Errorf("config check = %q; want what run and serve need", out)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("config check touched the database %s: %v", db, err)
	}
	bad := writeConfig(t, "[storage]\npaht = \"x.db\"\n")
	code, _, errOut = runCmd(t, nil, "config", "check", "--config", bad)
	if code != 1 || !strings.Contains(errOut, "unknown keys: storage.paht") || !strings.Contains(errOut, "NOT valid") {
		t.Errorf("config check of a typo = %d %q; want 1 and the key named", code, errOut)
	}
	if code, _, errOut := runCmd(t, map[string]string{"HPKEEPER_LOCK_TIMEOUT": "-1s"}, "config", "check"); code != 1 || !strings.Contains(errOut, "storage.lock_timeout") {
		t.Errorf("config check with a negative lock timeout = %d %q; want 1 and the key named", code, errOut)
	}
	if code, _, _ := runCmd(t, nil, "config"); code != 2 {
		t.Errorf("config with no operation = %d; want 2", code)
	}
}

// TestServeBindsBeforeOpeningTheDatabase: serve on an address in use fails
// before it creates or opens the database file.
func TestServeBindsBeforeOpeningTheDatabase(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	db := filepath.Join(t.TempDir(), "hpkeeper.db")
	for _, args := range [][]string{
		{"serve", "--db", db, "--listen", busy.Addr().String()},
		{"serve", "--db", db, "--listen", "127.0.0.1:0", "--admin-listen", busy.Addr().String()},
		{"run", "--db", db, "--admin-listen", busy.Addr().String()},
	} {
		e := map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32), "DISCORD_TOKEN": "tok", envTestDiscord: "http://127.0.0.1:1"}
		code, _, errOut := runCmd(t, e, args...)
		if code != 1 || !strings.Contains(errOut, "address already in use") {
			t.Errorf("%v on a port in use = %d %q; want 1 and the address named", args, code, errOut)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("%v on a port in use created or touched %s: %v", args, db, err)
		}
	}
}

// TestStopSignals: SIGTERM, SIGINT and SIGHUP all stop serve cleanly (exit
// 0, the database closed), and the stop is logged when it begins, naming
// the signal.
func TestStopSignals(t *testing.T) {
	bin := buildHpkeeper(t)
	pub, _ := genKey(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			c := startServe(t, bin, filepath.Join(t.TempDir(), "hpkeeper.db"), pub, true)
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-c.done:
			case <-time.After(time.Minute):
				t.Fatalf("serve still runs a minute after %v", sig)
			}
			log := c.stdout.String()
			if c.err != nil {
				t.Errorf("serve exited with %v after %v; want status 0\n%s", c.err, sig, log)
			}
			stopping := strings.Index(log, `"message":"stopping`)
			closed := strings.Index(log, `"message":"database closed"`)
			if stopping < 0 || closed < stopping || !strings.Contains(log, `"cause":"signal `+sig.String()+`"`) {
				t.Errorf("log after %v:\n%s\nwant a line saying the stop began, naming the signal, before \"database closed\"", sig, log)
			}
			if !strings.Contains(log, `"message":"hpkeeper starting"`) || !strings.Contains(log, `"version":"`) {
				t.Errorf("log:\n%s\nwant a start-up line with the version", log)
			}
		})
	}
}
