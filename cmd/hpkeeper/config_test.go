package main

import (
	"os"
	"strings"
	"testing"
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
