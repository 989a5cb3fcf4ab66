// Package discord is what hpkeeper knows of Discord's own rules that no
// transport implements: how Discord spreads a bot's guilds over its gateway
// shards, (guild_id >> 22) % shard_count with DMs on shard 0, and the
// rate-limit bucket of each shard's IDENTIFY, shard_id % max_concurrency
// (Discord's developer documentation, "Gateway": "Sharding" and "Session
// Start Limit"). It is the one place those formulas are written: the
// gateway refuses by them an interaction that belongs to another process
// (package bot), the fake of Discord routes by them (bot/discordtest), and
// hpkeeper shard places each table in the file of its guild's shard.
package discord

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpkeeper/hpkeeper/storage"
)

// ErrBadGuildID is returned (wrapped) by ShardOf and Owns for a guild id
// that is not a snowflake (an unsigned 64-bit decimal number).
var ErrBadGuildID = errors.New("guild id is not a snowflake")

// ShardOf returns the shard, of count shards, whose gateway session
// receives the events of guild guildID: (guild_id >> 22) % count. A DM
// (guildID "") is on shard 0. It returns an error wrapping ErrBadGuildID
// when guildID is not a snowflake, and an error when count is not
// 1…storage.MaxShards.
func ShardOf(guildID string, count int) (int, error) {
	if count < 1 || count > storage.MaxShards {
		return 0, fmt.Errorf("shard count %d is not 1…%d", count, storage.MaxShards)
	}
	if guildID == "" {
		return 0, nil
	}
	id, err := parseSnowflake(guildID)
	if err != nil {
		return 0, err
	}
	return int((id >> 22) % uint64(count)), nil
}

// Owns reports whether the guild guildID (a DM when "") is in r, the share
// of the guilds a process serves or a file holds, and returns its shard
// (ShardOf; 0 when r.Count is 0, which holds every guild). It returns an
// error wrapping ErrBadGuildID for a malformed guild id, which no share
// holds.
func Owns(r storage.ShardRange, guildID string) (shard int, owned bool, err error) {
	if r.Count == 0 {
		if guildID != "" {
			if _, err := parseSnowflake(guildID); err != nil {
				return 0, false, err
			}
		}
		return 0, true, nil
	}
	shard, err = ShardOf(guildID, r.Count)
	if err != nil {
		return 0, false, err
	}
	return shard, shard >= r.First && shard <= r.Last, nil
}

// IdentifyBucket returns the rate-limit bucket of shard's IDENTIFY,
// shard_id % maxConcurrency: Discord lets each bucket identify once per
// interval, and the buckets at once. maxConcurrency is the
// session_start_limit's max_concurrency of GET /gateway/bot, at least 1.
func IdentifyBucket(shard, maxConcurrency int) int { return shard % maxConcurrency }

// parseSnowflake parses a Discord id: decimal digits only, at most 20.
func parseSnowflake(s string) (uint64, error) {
	if len(s) > 20 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q: %w", clipID(s), ErrBadGuildID)
	}
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", clipID(s), ErrBadGuildID)
	}
	return id, nil
}

// clipID shortens a malformed id for an error message.
func clipID(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}
