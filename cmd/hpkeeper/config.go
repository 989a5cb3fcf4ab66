package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/bot"
)

// Config is hpkeeper's configuration, read from a TOML file (see
// config.example.toml, which comments every key). Secrets may come from the
// environment instead: DISCORD_TOKEN and DISCORD_PUBLIC_KEY override the file
// (see LoadConfig).
type Config struct {
	Discord DiscordConfig `toml:"discord"`
	Storage StorageConfig `toml:"storage"`
	HTTP    HTTPConfig    `toml:"http"`
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
}

// StorageConfig places the database.
type StorageConfig struct {
	// Path is the bbolt database file.
	Path string `toml:"path"`
	// LockTimeout is how long to wait for another process's lock on the file
	// before failing, as a Go duration ("2s").
	LockTimeout string `toml:"lock_timeout"`
}

// HTTPConfig configures the interactions endpoint (`serve`).
type HTTPConfig struct {
	// Listen is the address to listen on, host:port.
	Listen string `toml:"listen"`
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
	if _, err := cfg.LogLevel(); err != nil {
		return cfg, err
	}
	if f := cfg.Log.Format; f != "json" && f != "console" {
		return cfg, fmt.Errorf("config: log.format must be json or console, not %q", f)
	}
	return cfg, nil
}

// LoadConfig reads the file at path (no file: the defaults when path is "")
// and applies the environment: DISCORD_TOKEN, DISCORD_PUBLIC_KEY, and
// HPKEEPER_DB and HPKEEPER_LISTEN (handy in containers) override the file.
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
	if v := getenv("DISCORD_TOKEN"); v != "" {
		cfg.Discord.Token = v
	}
	if v := getenv("DISCORD_PUBLIC_KEY"); v != "" {
		cfg.Discord.PublicKey = v
	}
	if v := getenv("HPKEEPER_DB"); v != "" {
		cfg.Storage.Path = v
	}
	if v := getenv("HPKEEPER_LISTEN"); v != "" {
		cfg.HTTP.Listen = v
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
