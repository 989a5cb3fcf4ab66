package operator

import (
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

// ShardState is what a gateway shard's session is doing.
type ShardState string

// The states of a shard, as /healthz and the metrics report them.
const (
	// ShardConnecting: waiting for its turn to identify (the session start
	// limit), or connecting for the first time.
	ShardConnecting ShardState = "connecting"
	// ShardConnected: READY or RESUMED received and heartbeating.
	ShardConnected ShardState = "connected"
	// ShardResuming: the connection dropped; the session reconnects and
	// resumes on its own, the other shards unaffected.
	ShardResuming ShardState = "resuming"
	// ShardDown: its first connection failed and waits to be tried again,
	// or the gateway has stopped.
	ShardDown ShardState = "down"
)

// ShardStatus is one gateway shard as /healthz and /metrics report it.
type ShardStatus struct {
	// ID is the shard id.
	ID int
	// State is what its session is doing.
	State ShardState
	// HeartbeatLatency is the round trip of the last heartbeat Discord
	// acknowledged; 0 before the first.
	HeartbeatLatency time.Duration
	// Reconnects counts connections after the first.
	Reconnects int64
	// Guilds counts the guilds the shard's READY and GUILD_CREATE events
	// named, less those the bot left since.
	Guilds int
	// Refused counts the interactions that arrived on the shard for a guild
	// outside the process's shards, and were refused.
	Refused int64
}

// ShardReporter reports the gateway's shards; *bot.Gateway implements it.
type ShardReporter interface {
	// ShardStatus returns each shard's status in shard id order; none
	// before the shard count is known.
	ShardStatus() []ShardStatus
	// ShardRange returns the shards the process runs, of the bot's count;
	// the zero ShardRange before the count is known.
	ShardRange() storage.ShardRange
}
