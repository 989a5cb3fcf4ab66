package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/hpkeeper/hpkeeper/storage"
)

// configMain runs `hpkeeper config check`: it loads the configuration as
// run and serve would (the file, then the environment, secrets' *_FILE
// included), validates every value, and prints the configuration in force
// with secrets hidden and what each Discord-facing command still needs,
// without opening the database or reaching Discord. It returns 0 for a
// valid configuration, 1 for an invalid one, 2 for a usage error.
func configMain(_ context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || (args[0] != "check" && args[0] != "help" && args[0] != "-h" && args[0] != "--help") {
		fmt.Fprint(stderr, configUsage)
		return 2
	}
	if args[0] != "check" {
		fmt.Fprint(stdout, configUsage)
		return 0
	}
	fs := flag.NewFlagSet("hpkeeper config check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "config check", "validate a configuration (the file and the environment) without starting: print the values in force, secrets hidden, and what run, serve and register still need; exit 1 if a value is wrong.",
		"[--config FILE]", configEnvNames()...)
	cfg, code, ok := opsFlags(fs, args[1:], stderr, getenv)
	if !ok {
		if code == 1 {
			fmt.Fprintln(stderr, "hpkeeper config check: the configuration is NOT valid")
		}
		return code
	}
	source := fs.Lookup("config").Value.String()
	if source == "" {
		source = "no file (the defaults)"
	}
	fmt.Fprintf(stdout, "configuration: %s, with the environment: valid\n", source)
	secret := func(v string) string {
		if v == "" {
			return "(not set)"
		}
		return fmt.Sprintf("(set, %d characters)", len(v))
	}
	plain := func(v string) string {
		if v == "" {
			return `""`
		}
		return v
	}
	rows := [][2]string{
		{"discord.token", secret(cfg.Discord.Token)},
		{"discord.application_id", plain(cfg.Discord.ApplicationID)},
		{"discord.public_key", plain(cfg.Discord.PublicKey)},
		{"discord.dev_guild", plain(cfg.Discord.DevGuild)},
		{"discord.shards", plain(string(cfg.Discord.Shards))},
		{"discord.shard_ids", plain(cfg.Discord.ShardIDs)},
		{"discord.lease_ttl", plain(cfg.Discord.LeaseTTL)},
		{"storage.path", plain(cfg.Storage.Path)},
		{"storage.url", plain(storage.RedactURL(cfg.Storage.URL))},
		{"storage.lock_timeout", plain(cfg.Storage.LockTimeout)},
		{"storage.cache_mb", cacheMB(cfg.Storage.CacheMB)},
		{"http.listen", plain(cfg.HTTP.Listen)},
		{"admin.listen", plain(cfg.Admin.Listen)},
		{"admin.token", secret(cfg.Admin.Token)},
		{"log.level", plain(cfg.Log.Level)},
		{"log.format", plain(cfg.Log.Format)},
	}
	for _, r := range rows {
		fmt.Fprintf(stdout, "  %-24s %s\n", r[0], r[1])
	}
	needs := func(mode string, missing ...string) {
		if len(missing) == 0 {
			fmt.Fprintf(stdout, "%-9s can start\n", mode+":")
			return
		}
		fmt.Fprintf(stdout, "%-9s needs %s\n", mode+":", missing[0])
	}
	var run, serve, register []string
	if cfg.Discord.Token == "" {
		run = append(run, "a bot token (DISCORD_TOKEN, DISCORD_TOKEN_FILE or discord.token)")
		register = run
	}
	if cfg.Discord.PublicKey == "" {
		serve = append(serve, "the application's public key (DISCORD_PUBLIC_KEY, DISCORD_PUBLIC_KEY_FILE or discord.public_key)")
	} else if r, _ := cfg.ShardRange(); !r.Whole() {
		serve = append(serve, "no discord.shard_ids: serve receives every guild's interactions")
	}
	needs("run", run...)
	needs("serve", serve...)
	if len(serve) == 0 && cfg.Discord.Token == "" {
		fmt.Fprintln(stdout, "          (without a bot token serve does not post or edit tracker messages)")
	}
	needs("register", register...)
	return 0
}

// configUsage is `hpkeeper config`'s help.
const configUsage = `Usage: hpkeeper config check [--config FILE]

  check   validate a configuration (the file, then the environment) without
          starting anything; print the values in force with secrets hidden and
          what run, serve and register still need; exit 1 if a value is wrong
`

// configEnvNames are every environment variable that sets a key, and
// HPKEEPER_CONFIG.
func configEnvNames() []string {
	var names []string
	for _, v := range envVars {
		if v.name != envTestDiscord {
			names = append(names, v.name)
		}
	}
	return names
}

// cacheMB shows storage.cache_mb with what 0 and -1 mean.
func cacheMB(n int) string {
	switch n {
	case 0:
		return "0 (the default: 8 MiB)"
	case -1:
		return "-1 (no cache)"
	}
	return fmt.Sprintf("%d MiB", n)
}
