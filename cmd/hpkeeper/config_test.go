package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpkeeper/hpkeeper/storage"
)

func TestExampleConfigParses(t *testing.T) {
	f, err := os.Open("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := ParseConfig(f)
	if err != nil {
		t.Fatalf("ParseConfig(config.example.toml) = %v", err)
	}
	if cfg.Storage.Path == "" || cfg.HTTP.Listen == "" {
		t.Errorf("example config = %+v; want a db path and listen address", cfg)
	}
}

func TestParseConfigRejects(t *testing.T) {
	for _, in := range []string{
		"[discord]\ntokn = \"x\"\n",
		"[log]\nlevel = \"loud\"\n",
		"[log]\nformat = \"xml\"\n",
		"[admin]\nlisten = \"9090\"\n",
		"[admin]\ntoken = \"too-short\"\n",
		"not toml",
	} {
		if _, err := ParseConfig(strings.NewReader(in)); err == nil {
			t.Errorf("ParseConfig(%q) = nil; want an error", in)
		}
	}
}

func TestEnvironmentOverridesSecrets(t *testing.T) {
	env := map[string]string{"DISCORD_TOKEN": "from-env", "DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32)}
	cfg, err := LoadConfig("", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Discord.Token != "from-env" {
		t.Errorf("token = %q; want the environment's", cfg.Discord.Token)
	}
	if _, err := cfg.Key(); err != nil {
		t.Errorf("Key() = %v", err)
	}
	cfg.Discord.PublicKey = "xyz"
	if _, err := cfg.Key(); err == nil {
		t.Errorf("Key() with a bad key = nil; want an error")
	}
}

func TestEnvironmentOverridesLogAndAdmin(t *testing.T) {
	env := map[string]string{
		"HPKEEPER_LOG_LEVEL": "debug", "HPKEEPER_LOG_FORMAT": "console",
		"HPKEEPER_ADMIN_LISTEN": ":9090", "HPKEEPER_ADMIN_TOKEN": "a-token-of-twenty-chars",
	}
	cfg, err := LoadConfig("", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Log.Level != "debug" || cfg.Log.Format != "console" || cfg.Admin.Token != "a-token-of-twenty-chars" {
		t.Errorf("config = %+v; want the environment's log level, format and token", cfg)
	}
	if addr, err := cfg.AdminAddr(); err != nil || addr != "127.0.0.1:9090" {
		t.Errorf("AdminAddr() = %q, %v; want loopback for a port alone", addr, err)
	}
	for _, bad := range []map[string]string{
		{"HPKEEPER_LOG_LEVEL": "loud"},
		{"HPKEEPER_LOG_FORMAT": "xml"},
		{"HPKEEPER_ADMIN_LISTEN": "9090"},
		{"HPKEEPER_ADMIN_TOKEN": "short"},
	} {
		if _, err := LoadConfig("", func(k string) string { return bad[k] }); err == nil {
			t.Errorf("LoadConfig with %v = nil; want an error", bad)
		}
	}
}

func TestAdminURL(t *testing.T) {
	tests := []struct {
		admin, listen, want string
	}{
		{"", "127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"", "0.0.0.0:8080", "http://127.0.0.1:8080"},
		{"", ":8080", "http://127.0.0.1:8080"},
		{"", "[::]:8080", "http://[::1]:8080"},
		{":9090", "0.0.0.0:8080", "http://127.0.0.1:9090"},
		{"10.0.0.5:9090", "127.0.0.1:8080", "http://10.0.0.5:9090"},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		cfg.Admin.Listen, cfg.HTTP.Listen = tt.admin, tt.listen
		if got, err := cfg.AdminURL(); err != nil || got != tt.want {
			t.Errorf("AdminURL(admin %q, http %q) = %q, %v; want %q", tt.admin, tt.listen, got, err, tt.want)
		}
	}
}

// TestShardSettings: discord.shards is auto or a count, in TOML as a string
// or an integer, from the file, the environment or the flags;
// discord.shard_ids is a range of it and needs a fixed count.
func TestShardSettings(t *testing.T) {
	tests := []struct {
		toml string
		env  map[string]string
		args []string
		want storage.ShardRange
	}{
		{"", nil, nil, storage.ShardRange{}},
		{"[discord]\nshards = \"auto\"\n", nil, nil, storage.ShardRange{}},
		{"[discord]\nshards = 8\n", nil, nil, storage.AllShards(8)},
		{"[discord]\nshards = \"8\"\nshard_ids = \"4-7\"\n", nil, nil, storage.ShardRange{Count: 8, First: 4, Last: 7}},
		{"[discord]\nshards = 8\nshard_ids = \"4-7\"\n", map[string]string{"HPKEEPER_SHARDS": "16", "HPKEEPER_SHARD_IDS": "8-15"}, nil, storage.ShardRange{Count: 16, First: 8, Last: 15}},
		{"", map[string]string{"HPKEEPER_SHARDS": "4"}, []string{"--shards", "2", "--shard-ids", "1"}, storage.ShardRange{Count: 2, First: 1, Last: 1}},
	}
	for _, tt := range tests {
		path := writeConfig(t, tt.toml)
		app, err := NewApp("run", append([]string{"--config", path}, tt.args...), io.Discard, io.Discard, func(k string) string { return tt.env[k] })
		if err != nil {
			t.Errorf("NewApp(%q, %v, %v) = %v", tt.toml, tt.env, tt.args, err)
			continue
		}
		if got, err := app.Config.ShardRange(); err != nil || got != tt.want {
			t.Errorf("NewApp(%q, %v, %v).ShardRange() = %v, %v; want %v", tt.toml, tt.env, tt.args, got, err, tt.want)
		}
	}
	for _, bad := range []string{
		"[discord]\nshards = 0\n",
		"[discord]\nshards = \"many\"\n",
		"[discord]\nshards = 1.5\n",
		"[discord]\nshard_ids = \"0-1\"\n",
		"[discord]\nshards = 4\nshard_ids = \"2-4\"\n",
		"[discord]\nshards = 4\nshard_ids = \"3-2\"\n",
	} {
		if _, err := ParseConfig(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseConfig(%q) = nil; want an error", bad)
		}
	}
	// --shards auto keeps the file's shard_ids, which need a count.
	path := writeConfig(t, "[discord]\nshards = 4\nshard_ids = \"0-1\"\n")
	if _, err := NewApp("run", []string{"--config", path, "--shards", "auto"}, io.Discard, io.Discard, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "needs a number") {
		t.Errorf("run --shards auto over shard_ids = %v; want shard_ids refused without a count", err)
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hpkeeper.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShardsAndTheFile: run refuses a file that holds other shards' tables
// (and serve a file that holds only some guilds' tables, or a shard range)
// before it connects anywhere; the test Discord must be loopback.
func TestShardsAndTheFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "hpkeeper.db")
	playTables(t, db, guildOfShard(1, 4, 1))
	low := filepath.Join(dir, "low.db")
	if code, out, errOut := runCmd(t, nil, "shard", "split", "--from", db, "--shards", "4", "--shard-ids", "0-1,2-3", "--to", filepath.Join(dir, "{ids}.db")); code != 0 {
		t.Fatalf("shard split = %d\n%s%s", code, out, errOut)
	}
	if err := os.Rename(filepath.Join(dir, "0-1.db"), low); err != nil {
		t.Fatal(err)
	}
	tok := map[string]string{"DISCORD_TOKEN": "test-token", "DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32), envTestDiscord: "http://127.0.0.1:1"}
	tests := []struct {
		args []string
		env  map[string]string
		code int
		out  string
	}{
		{[]string{"run", "--db", db, "--shards", "4", "--shard-ids", "0-1"}, tok, 1, "holds the tables of every guild, not of shards 0-1 of 4"},
		{[]string{"run", "--db", low, "--shards", "8", "--shard-ids", "0-3"}, tok, 1, "holds the tables of shards 0-1 of 4, not of shards 0-3 of 8"},
		{[]string{"run", "--db", low}, tok, 1, "hpkeeper shard split or merge"},
		{[]string{"serve", "--db", low, "--listen", "127.0.0.1:0"}, tok, 1, "holds the tables of shards 0-1 of 4, not of every guild"},
		{[]string{"serve", "--db", db}, map[string]string{"DISCORD_PUBLIC_KEY": strings.Repeat("ab", 32), "HPKEEPER_SHARDS": "4", "HPKEEPER_SHARD_IDS": "0-1"}, 1, "discord.shard_ids (shards 0-1 of 4) is for run"},
		{[]string{"run", "--db", db}, map[string]string{"DISCORD_TOKEN": "test-token", envTestDiscord: "http://localhost:80"}, 1, "not a loopback IP address"},
		{[]string{"run", "--db", db, "--shard-ids", "0-1"}, tok, 1, "needs a number in discord.shards"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(t, tt.env, tt.args...)
		if code != tt.code || !strings.Contains(stdout+stderr, tt.out) {
			t.Errorf("run(%q) = %d, output %q; want %d and %q", tt.args, code, stdout+stderr, tt.code, tt.out)
		}
	}
}
