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
