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

	"github.com/BurntSushi/toml"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot"
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
	// Path is the bbolt database file.
	Path string `toml:"path"`
	// LockTimeout is how long to wait for another process's lock on the file
	// before failing, as a Go duration ("2s").
	LockTimeout string `toml:"lock_timeout"`
	// CacheMB bounds the cache of decoded tables and characters that run and
	// serve keep in memory, in MiB (storage.Options.CacheBytes): 0 means the
	// default, 32; a negative value keeps none.
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
// /admin/backup (bot.Admin).
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
	if c.Storage.CacheMB > 1<<20 {
		return fmt.Errorf("config: storage.cache_mb %d is more than a TiB", c.Storage.CacheMB)
	}
	if _, err := c.AdminAddr(); err != nil {
		return err
	}
	if t := c.Admin.Token; t != "" && len(t) < bot.MinAdminToken {
		return fmt.Errorf("config: admin.token must be at least %d characters (it guards a copy of every table)", bot.MinAdminToken)
	}
	if _, err := c.ShardRange(); err != nil {
		return err
	}
	return nil
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

// envVars lists every environment variable hpkeeper reads, with what it
// sets and the key it overrides (nil for those that are no key:
// HPKEEPER_CONFIG, read as the default of --config, and the tests' Discord);
// LoadConfig applies them over the file, and -h lists them.
var envVars = []struct {
	name, what string
	key        func(*Config) *string
}{
	{"HPKEEPER_CONFIG", "the configuration file (the default of --config)", nil},
	{"DISCORD_TOKEN", "the bot token (discord.token)", func(c *Config) *string { return &c.Discord.Token }},
	{"DISCORD_PUBLIC_KEY", "the application's public key (discord.public_key)", func(c *Config) *string { return &c.Discord.PublicKey }},
	{"HPKEEPER_DB", "the database file (storage.path)", func(c *Config) *string { return &c.Storage.Path }},
	{"HPKEEPER_LISTEN", "serve's interactions listener (http.listen)", func(c *Config) *string { return &c.HTTP.Listen }},
	{"HPKEEPER_SHARDS", "run's gateway shard count, auto or N (discord.shards)", func(c *Config) *string { return (*string)(&c.Discord.Shards) }},
	{"HPKEEPER_SHARD_IDS", "the shards this run process runs, A-B (discord.shard_ids)", func(c *Config) *string { return &c.Discord.ShardIDs }},
	{"HPKEEPER_ADMIN_LISTEN", "the admin listener for /healthz, /metrics and /admin/backup (admin.listen)", func(c *Config) *string { return &c.Admin.Listen }},
	{"HPKEEPER_ADMIN_TOKEN", "the admin bearer token (admin.token)", func(c *Config) *string { return &c.Admin.Token }},
	{"HPKEEPER_LOG_LEVEL", "trace, debug, info, warn or error (log.level)", func(c *Config) *string { return &c.Log.Level }},
	{"HPKEEPER_LOG_FORMAT", "json or console (log.format)", func(c *Config) *string { return &c.Log.Format }},
	{envTestDiscord, "tests only: send every Discord request and the gateway to this http://<loopback IP>:<port> (anything else is refused)", nil},
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
// and applies the environment (envVars): DISCORD_TOKEN, DISCORD_PUBLIC_KEY,
// HPKEEPER_DB, HPKEEPER_LISTEN, HPKEEPER_SHARDS, HPKEEPER_SHARD_IDS,
// HPKEEPER_ADMIN_LISTEN, HPKEEPER_ADMIN_TOKEN, HPKEEPER_LOG_LEVEL and
// HPKEEPER_LOG_FORMAT override the file. It returns an
// error for a file that does not parse or a value, from either, that is not
// valid.
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
		if val := getenv(v.name); val != "" && v.key != nil {
			*v.key(&cfg) = val
		}
	}
	if err := cfg.validate(); err != nil {
		return cfg, fmt.Errorf("environment: %w", err)
	}
	return cfg, nil
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
