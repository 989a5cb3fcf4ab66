package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot"
	"github.com/hpkeeper/hpkeeper/bot/operator"
	"github.com/hpkeeper/hpkeeper/storage"
)

// Config is hpkeeper's configuration, read from a TOML file (see
// config.example.toml, which comments every key). Secrets may come from the
// environment instead, and environment variables override the file (see
// LoadConfig and envVars).
type Config struct {
	Discord DiscordConfig `toml:"discord"`
	Storage StorageConfig `toml:"storage"`
	HTTP    HTTPConfig    `toml:"http"`
	Admin   AdminConfig   `toml:"admin"`
	Log     LogConfig     `toml:"log"`
}

// DiscordConfig identifies the Discord application.
type DiscordConfig struct {
	// Token is the bot token (gateway mode and command registration).
	Token string `toml:"token"`
	// ApplicationID is the application's id (command registration).
	ApplicationID string `toml:"application_id"`
	// PublicKey is the application's Ed25519 public key in hex (HTTP mode).
	PublicKey string `toml:"public_key"`
	// DevGuild, when set, makes `register` register commands in that guild
	// only (instant updates while developing).
	DevGuild string `toml:"dev_guild"`
	// Shards is the bot's gateway shard count for `run`: "auto" (Discord's
	// recommendation, GET /gateway/bot) or a number, the same in every
	// process of the bot. A TOML integer is accepted too.
	Shards ShardsSetting `toml:"shards"`
	// ShardIDs are the shards this process runs, "A-B" or "A"; "" means all
	// of them. It needs a number in Shards. Each process holds exactly its
	// shards' guilds in its own database file.
	ShardIDs string `toml:"shard_ids"`
	// LeaseTTL is how long a run process's lease on a shard lasts unless it
	// renews it, as a Go duration, on a shared database (storage.url): the
	// time within which the other processes take a dead one's shards over.
	LeaseTTL string `toml:"lease_ttl"`
}

// ShardsSetting is discord.shards: "auto" or a shard count, given in TOML
// as a string or an integer.
type ShardsSetting string

// UnmarshalTOML takes a string or an integer.
func (s *ShardsSetting) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*s = ShardsSetting(x)
	case int64:
		*s = ShardsSetting(strconv.FormatInt(x, 10))
	default:
		return fmt.Errorf("discord.shards must be \"auto\" or a number, not %v", v)
	}
	return nil
}

// StorageConfig places the database.
type StorageConfig struct {
	// Path is the bbolt database file, used when URL is "".
	Path string `toml:"path"`
	// URL, when set, is a PostgreSQL database ("postgres://user@host/db")
	// used instead of the file: any number of run and serve processes may
	// share it (docs/scaling.md).
	URL string `toml:"url"`
	// LockTimeout is how long to wait for another process's lock on the file
	// before failing, as a Go duration ("2s").
	LockTimeout string `toml:"lock_timeout"`
	// CacheMB bounds the cache of decoded tables and characters that run and
	// serve keep in memory, in MiB (storage.Options.CacheBytes): 0 means the
	// default, 32; -1 keeps none (any other negative number is refused).
	CacheMB int `toml:"cache_mb"`
	// AllowUnsound makes run and serve open a file that is damaged but
	// readable (storage.Options.AllowUnsound), which they otherwise refuse;
	// --allow-unsound sets it for one start. Off by default.
	AllowUnsound bool `toml:"allow_unsound"`
}

// HTTPConfig configures the interactions endpoint (`serve`).
type HTTPConfig struct {
	// Listen is the address to listen on, host:port.
	Listen string `toml:"listen"`
}

// AdminConfig configures the operator's routes: /healthz, /metrics and
// /admin/backup (operator.Admin).
type AdminConfig struct {
	// Listen is where run and serve answer the operator's routes on a
	// listener of their own, host:port; ":9090" (no host) binds loopback,
	// 127.0.0.1:9090. "" (the default) means no such listener: serve still
	// answers them on http.listen, run does not.
	Listen string `toml:"listen"`
	// Token is the bearer token that opens every admin route from any peer
	// (Authorization: Bearer <token>), at least 16 characters; "" means none.
	// POST /admin/backup on serve's http.listen needs it.
	Token string `toml:"token"`
}

// LogConfig configures logging.
type LogConfig struct {
	// Level is trace, debug, info, warn or error.
	Level string `toml:"level"`
	// Format is "json" (one object a line) or "console" (human-readable).
	Format string `toml:"format"`
}

// DefaultConfig returns the configuration used for keys a file leaves out.
func DefaultConfig() Config {
	return Config{
		Discord: DiscordConfig{Shards: "auto"},
		Storage: StorageConfig{Path: "hpkeeper.db", LockTimeout: "1s"},
		HTTP:    HTTPConfig{Listen: "127.0.0.1:8080"},
		Log:     LogConfig{Level: "info", Format: "json"},
	}
}

// ParseConfig reads a TOML configuration over the defaults. Unknown keys are
// an error naming them, so a typo does not pass silently.
func ParseConfig(r io.Reader) (Config, error) {
	cfg := DefaultConfig()
	md, err := toml.NewDecoder(r).Decode(&cfg)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		keys := make([]string, len(undec))
		for i, k := range undec {
			keys[i] = k.String()
		}
		return cfg, fmt.Errorf("config: unknown keys: %s", strings.Join(keys, ", "))
	}
	return cfg, cfg.validate()
}

// validate checks the values a file or the environment gave.
func (c Config) validate() error {
	if _, err := c.LogLevel(); err != nil {
		return err
	}
	if f := c.Log.Format; f != "json" && f != "console" {
		return fmt.Errorf("config: log.format must be json or console, not %q", f)
	}
	if u := c.Storage.URL; u != "" && !storage.IsPostgresURL(u) {
		return fmt.Errorf("config: storage.url must be a PostgreSQL URL, postgres://user@host:port/database, not %q", storage.RedactURL(u))
	}
	if c.Storage.CacheMB > 1<<20 {
		return fmt.Errorf("config: storage.cache_mb %d is more than a TiB", c.Storage.CacheMB)
	}
	if c.Storage.CacheMB < -1 {
		return fmt.Errorf("config: storage.cache_mb must be a size in MiB, 0 for the default or -1 for no cache, not %d", c.Storage.CacheMB)
	}
	if _, err := c.LockTimeout(); err != nil {
		return err
	}
	if c.Discord.PublicKey != "" {
		if _, err := c.Key(); err != nil {
			return fmt.Errorf("config: discord.public_key: %w", err)
		}
	}
	if _, err := c.AdminAddr(); err != nil {
		return err
	}
	if t := c.Admin.Token; t != "" && len(t) < operator.MinAdminToken {
		return fmt.Errorf("config: admin.token must be at least %d characters (it guards a copy of every table)", operator.MinAdminToken)
	}
	if _, err := c.ShardRange(); err != nil {
		return err
	}
	if _, err := c.LeaseTTL(); err != nil {
		return err
	}
	return nil
}

// LeaseTTL parses discord.lease_ttl: bot.DefaultLeaseTTL when "", else a
// duration of at least a second (a lease is renewed every third of it).
func (c Config) LeaseTTL() (time.Duration, error) {
	if c.Discord.LeaseTTL == "" {
		return bot.DefaultLeaseTTL, nil
	}
	d, err := time.ParseDuration(c.Discord.LeaseTTL)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("config: discord.lease_ttl must be a duration of at least 1s, not %q", c.Discord.LeaseTTL)
	}
	return d, nil
}

// ShardRange returns the shards `run` runs (discord.shards and
// discord.shard_ids): the zero ShardRange for "auto" (every shard of
// Discord's recommended count). It returns an error for a count that is not
// "auto" or 1…storage.MaxShards, and for shard ids that are not A-B or A
// within the count, or that come with "auto" (every process of a bot must
// run with the same count, so a range needs a fixed one).
func (c Config) ShardRange() (storage.ShardRange, error) {
	count := 0
	switch v := strings.TrimSpace(string(c.Discord.Shards)); v {
	case "", "auto":
		if strings.TrimSpace(c.Discord.ShardIDs) != "" {
			return storage.ShardRange{}, fmt.Errorf("config: discord.shard_ids %q needs a number in discord.shards, not auto: every process of the bot must run with the same shard count", c.Discord.ShardIDs)
		}
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > storage.MaxShards {
			return storage.ShardRange{}, fmt.Errorf("config: discord.shards must be \"auto\" or a number 1…%d, not %q", storage.MaxShards, v)
		}
		count = n
	}
	r, err := storage.ParseShardRange(c.Discord.ShardIDs, count)
	if err != nil {
		return storage.ShardRange{}, fmt.Errorf("config: discord.shard_ids: %w", err)
	}
	return r, nil
}

// envVar is one environment variable hpkeeper reads: its name, what it
// sets (for -h), and, for one that overrides a key, the key and how it is
// set from the variable's text. A secret's variable has a NAME_FILE twin
// that names a file holding the value (Docker and systemd credentials).
type envVar struct {
	name, what string
	// key is the configuration key it overrides ("" for none).
	key string
	// set applies a value; nil for a variable that is no key.
	set func(c *Config, v string) error
	// secret marks a value that may come from NAME_FILE instead.
	secret bool
}

// str sets a string key.
func str(field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *field(c) = v; return nil }
}

// envVars lists every environment variable hpkeeper reads, with what it
// sets and the key it overrides (none for HPKEEPER_CONFIG, read as the
// default of --config, and the tests' Discord); every key of
// config.example.toml has one (TestEveryKeyHasAnEnvironmentVariable).
// LoadConfig applies them over the file, and -h lists them.
var envVars = []envVar{
	{name: "HPKEEPER_CONFIG", what: "the configuration file (the default of --config)"},
	{"DISCORD_TOKEN", "the bot token (discord.token)", "discord.token", str(func(c *Config) *string { return &c.Discord.Token }), true},
	{"DISCORD_TOKEN_FILE", "a file holding the bot token (discord.token), instead of DISCORD_TOKEN", "", nil, false},
	{"DISCORD_PUBLIC_KEY", "the application's public key (discord.public_key)", "discord.public_key", str(func(c *Config) *string { return &c.Discord.PublicKey }), true},
	{"DISCORD_PUBLIC_KEY_FILE", "a file holding the public key (discord.public_key), instead of DISCORD_PUBLIC_KEY", "", nil, false},
	{"HPKEEPER_APPLICATION_ID", "the application id register uses (discord.application_id)", "discord.application_id", str(func(c *Config) *string { return &c.Discord.ApplicationID }), false},
	{"HPKEEPER_DEV_GUILD", "register in this guild only (discord.dev_guild)", "discord.dev_guild", str(func(c *Config) *string { return &c.Discord.DevGuild }), false},
	{"HPKEEPER_SHARDS", "run's gateway shard count, auto or N (discord.shards)", "discord.shards", str(func(c *Config) *string { return (*string)(&c.Discord.Shards) }), false},
	{"HPKEEPER_SHARD_IDS", "the shards this run process runs, A-B (discord.shard_ids)", "discord.shard_ids", str(func(c *Config) *string { return &c.Discord.ShardIDs }), false},
	{"HPKEEPER_LEASE_TTL", "how long a run process's lease on a shard lasts, e.g. 15s, on a shared database (discord.lease_ttl)", "discord.lease_ttl", str(func(c *Config) *string { return &c.Discord.LeaseTTL }), false},
	{"HPKEEPER_DB", "the database file (storage.path)", "storage.path", str(func(c *Config) *string { return &c.Storage.Path }), false},
	{"HPKEEPER_DB_URL", "a PostgreSQL database instead of the file, postgres://… (storage.url)", "storage.url", str(func(c *Config) *string { return &c.Storage.URL }), true},
	{"HPKEEPER_DB_URL_FILE", "a file holding the PostgreSQL URL (storage.url), instead of HPKEEPER_DB_URL", "", nil, false},
	{"HPKEEPER_LOCK_TIMEOUT", "how long to wait for another process's lock on the file, e.g. 2s (storage.lock_timeout)", "storage.lock_timeout", str(func(c *Config) *string { return &c.Storage.LockTimeout }), false},
	{"HPKEEPER_CACHE_MB", "the state cache's size in MiB, -1 for none (storage.cache_mb)", "storage.cache_mb", func(c *Config, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("HPKEEPER_CACHE_MB %q is not a whole number of MiB", v)
		}
		c.Storage.CacheMB = n
		return nil
	}, false},
	{"HPKEEPER_ALLOW_UNSOUND", "true opens a damaged file bbolt can still read (storage.allow_unsound)", "storage.allow_unsound", func(c *Config, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("HPKEEPER_ALLOW_UNSOUND %q is not true or false", v)
		}
		c.Storage.AllowUnsound = b
		return nil
	}, false},
	{"HPKEEPER_LISTEN", "serve's interactions listener (http.listen)", "http.listen", str(func(c *Config) *string { return &c.HTTP.Listen }), false},
	{"HPKEEPER_ADMIN_LISTEN", "the admin listener for /healthz, /metrics and /admin/backup (admin.listen)", "admin.listen", str(func(c *Config) *string { return &c.Admin.Listen }), false},
	{"HPKEEPER_ADMIN_TOKEN", "the admin bearer token (admin.token)", "admin.token", str(func(c *Config) *string { return &c.Admin.Token }), true},
	{"HPKEEPER_ADMIN_TOKEN_FILE", "a file holding the admin token (admin.token), instead of HPKEEPER_ADMIN_TOKEN", "", nil, false},
	{"HPKEEPER_LOG_LEVEL", "trace, debug, info, warn or error (log.level)", "log.level", str(func(c *Config) *string { return &c.Log.Level }), false},
	{"HPKEEPER_LOG_FORMAT", "json or console (log.format)", "log.format", str(func(c *Config) *string { return &c.Log.Format }), false},
	{name: envTestDiscord, what: "tests only: send every Discord request and the gateway to this http://<loopback IP>:<port> (anything else is refused)"},
}

// envValue returns the value of a key's variable: NAME, or for a secret
// the contents of the file NAME_FILE names (its trailing line break and
// spaces trimmed); "" when neither is set. Both at once is an error.
func envValue(v envVar, getenv func(string) string) (string, error) {
	val := getenv(v.name)
	if !v.secret {
		return val, nil
	}
	file := getenv(v.name + "_FILE")
	if file == "" {
		return val, nil
	}
	if val != "" {
		return "", fmt.Errorf("both %s and %s_FILE are set: keep one", v.name, v.name)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s_FILE: %w", v.name, err)
	}
	val = strings.TrimSpace(string(b))
	if val == "" {
		return "", fmt.Errorf("%s_FILE: %s is empty", v.name, file)
	}
	return val, nil
}

// envTestDiscord names the fake Discord that end-to-end tests point a
// child process at (bot.LoopbackDiscord); read by NewApp, not a key.
const envTestDiscord = "HPKEEPER_TEST_DISCORD_URL"

// AdminAddr returns the address of the admin listener, "" when there is
// none; a port alone binds loopback. It returns an error when admin.listen
// is not host:port.
func (c Config) AdminAddr() (string, error) {
	if c.Admin.Listen == "" {
		return "", nil
	}
	host, port, err := net.SplitHostPort(c.Admin.Listen)
	if err != nil {
		return "", fmt.Errorf("config: admin.listen %q is not host:port or :port", c.Admin.Listen)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// AdminURL returns the base URL where the running process answers the
// admin routes, for the backup and health subcommands: the admin listener
// when admin.listen is set, else serve's http.listen. A listener on every
// address (0.0.0.0, ::) is reached through loopback.
func (c Config) AdminURL() (string, error) {
	addr, err := c.AdminAddr()
	if err != nil {
		return "", err
	}
	if addr == "" {
		addr = c.HTTP.Listen
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("config: %q is not host:port", addr)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// LoadConfig reads the file at path (no file: the defaults when path is "")
// and applies the environment (envVars: a variable for every key, and
// NAME_FILE for the secrets), which overrides the file. It returns an error
// for a file that does not parse, a secret's file that cannot be read, or a
// value, from either, that is not valid.
func LoadConfig(path string, getenv func(string) string) (Config, error) {
	cfg := DefaultConfig()
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return cfg, fmt.Errorf("config: %w", err)
		}
		defer f.Close()
		if cfg, err = ParseConfig(f); err != nil {
			return cfg, fmt.Errorf("%s: %w", path, err)
		}
	}
	for _, v := range envVars {
		if v.set == nil {
			continue
		}
		val, err := envValue(v, getenv)
		if err == nil && val != "" {
			err = v.set(&cfg, val)
		}
		if err != nil {
			return cfg, fmt.Errorf("environment: %w", err)
		}
	}
	if err := cfg.validate(); err != nil {
		return cfg, fmt.Errorf("environment: %w", err)
	}
	return cfg, nil
}

// LockTimeout parses Storage.LockTimeout, a Go duration; it returns an
// error when it is not a positive one.
func (c Config) LockTimeout() (time.Duration, error) {
	d, err := time.ParseDuration(c.Storage.LockTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("config: storage.lock_timeout %q is not a positive duration (\"1s\", \"500ms\")", c.Storage.LockTimeout)
	}
	return d, nil
}

// LogLevel parses Log.Level; "" means info.
func (c Config) LogLevel() (zerolog.Level, error) {
	if c.Log.Level == "" {
		return zerolog.InfoLevel, nil
	}
	lvl, err := zerolog.ParseLevel(strings.ToLower(c.Log.Level))
	if err != nil || lvl == zerolog.NoLevel {
		return zerolog.InfoLevel, fmt.Errorf("config: log.level must be trace, debug, info, warn or error, not %q", c.Log.Level)
	}
	return lvl, nil
}

// Key decodes Discord.PublicKey (see bot.ParsePublicKey). It returns an
// error when it is missing or not 64 hex digits.
func (c Config) Key() (ed25519.PublicKey, error) {
	if c.Discord.PublicKey == "" {
		return nil, errors.New("no public key: set discord.public_key or DISCORD_PUBLIC_KEY (the application's \"Public Key\" in the Discord developer portal)")
	}
	return bot.ParsePublicKey(c.Discord.PublicKey)
}
