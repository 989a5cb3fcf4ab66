package storage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sharding. Discord spreads a bot's guilds over its gateway shards
// (bot/discord has the formula) and a table never crosses a guild (a table
// is a channel), so the guilds partition cleanly: a process that runs a
// range of the shards keeps exactly those guilds' tables in a file of its
// own. A ShardRange is such a share of the guilds; a file that holds only
// some guilds carries its range in meta/shards (ClaimShards), and
// PlaceTables (placetables.go) writes new files with theirs.

// MaxShards is the largest shard count hpkeeper accepts.
const MaxShards = 1 << 16

// ErrShardMismatch is returned (wrapped) by DB.ClaimShards when the file
// holds another share of the guilds than the shards a process serves:
// other shards' tables, or only some of the shards' (a split file under
// every shard).
var ErrShardMismatch = errors.New("the file holds another share of the guilds than this process serves")

// ShardRange is a share of a bot's guilds: those whose shard, of Count
// shards, is First through Last. The zero ShardRange is every guild, the
// shard count not fixed (Discord's recommendation).
type ShardRange struct {
	// Count is the number of shards, 1…MaxShards; 0 means not fixed, and
	// then the range is every shard.
	Count int
	// First and Last are the range's first and last shard ids:
	// 0 ≤ First ≤ Last < Count (both 0 when Count is 0).
	First, Last int
}

// AllShards returns the range of every shard of count shards (the zero
// ShardRange for count 0).
func AllShards(count int) ShardRange {
	if count <= 0 {
		return ShardRange{}
	}
	return ShardRange{Count: count, Last: count - 1}
}

// ParseShardRange reads ids, "A-B" or a single shard id "A", as a range of
// count shards; "" is every shard. It returns an error when count is not
// 0…MaxShards, when ids is given with count 0 (a range needs a fixed count),
// or when the ids are not numbers with 0 ≤ A ≤ B < count.
func ParseShardRange(ids string, count int) (ShardRange, error) {
	if count < 0 || count > MaxShards {
		return ShardRange{}, fmt.Errorf("shard count %d is not 1…%d", count, MaxShards)
	}
	ids = strings.TrimSpace(ids)
	if ids == "" {
		return AllShards(count), nil
	}
	if count == 0 {
		return ShardRange{}, fmt.Errorf("shard ids %q need a fixed shard count, not auto", ids)
	}
	a, b, isRange := strings.Cut(ids, "-")
	if !isRange {
		b = a
	}
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || first < 0 || last < first || last >= count {
		return ShardRange{}, fmt.Errorf("shard ids %q are not A-B (or A) with 0 ≤ A ≤ B < %d", ids, count)
	}
	return ShardRange{Count: count, First: first, Last: last}, nil
}

// Whole reports whether r is every shard, so every guild.
func (r ShardRange) Whole() bool {
	return r.Count == 0 || (r.First == 0 && r.Last == r.Count-1)
}

// IDs returns the range as ParseShardRange reads it: "0-3", or "2" for one
// shard; "" for the zero ShardRange.
func (r ShardRange) IDs() string {
	switch {
	case r.Count == 0:
		return ""
	case r.First == r.Last:
		return strconv.Itoa(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// String describes r for people: "shards 0-3 of 8", "shard 2 of 8",
// "every shard" (count not fixed) or "all 4 shards".
func (r ShardRange) String() string {
	switch {
	case r.Count == 0:
		return "every shard"
	case r.Whole() && r.Count > 1:
		return fmt.Sprintf("all %d shards", r.Count)
	case r.First == r.Last:
		return fmt.Sprintf("shard %d of %d", r.First, r.Count)
	}
	return fmt.Sprintf("shards %d-%d of %d", r.First, r.Last, r.Count)
}

// Len returns the number of shards in r (0 for the zero ShardRange).
func (r ShardRange) Len() int {
	if r.Count == 0 {
		return 0
	}
	return r.Last - r.First + 1
}

// stamp is r as meta/shards holds it, "<first>-<last>/<count>"; nil when r
// is every guild (a file without the key holds every guild).
func (r ShardRange) stamp() []byte {
	if r.Whole() {
		return nil
	}
	return fmt.Appendf(nil, "%d-%d/%d", r.First, r.Last, r.Count)
}

// parseStamp reads meta/shards (nil: every guild).
func parseStamp(v []byte) (ShardRange, error) {
	if v == nil {
		return ShardRange{}, nil
	}
	ids, count, ok := strings.Cut(string(v), "/")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n < 1 {
		return ShardRange{}, fmt.Errorf("meta/shards %q is not <first>-<last>/<count>", v)
	}
	r, err := ParseShardRange(ids, n)
	if err != nil {
		return ShardRange{}, fmt.Errorf("meta/shards %q: %w", v, err)
	}
	return r, nil
}

// sameGuilds reports whether a and b hold the same guilds: both every
// guild, or the same range of the same count. (Two contiguous ranges of
// different counts never hold the same guilds unless both are whole.)
func sameGuilds(a, b ShardRange) bool {
	if a.Whole() || b.Whole() {
		return a.Whole() && b.Whole()
	}
	return a == b
}

// ClaimShards makes sure the file holds the tables of r's guilds and of no
// others, before a process that serves r's shards (r whole: every guild)
// uses it; a file with no table yet is marked as r's. It returns an error
// wrapping ErrShardMismatch when the file holds another share of the
// guilds (its tables must be moved first, with hpkeeper shard), or the error
// of the durable write.
//
// A PostgreSQL database holds every guild, whatever process serves which
// shards (leases.go): ClaimShards returns nil for it.
func (db *DB) ClaimShards(r ShardRange) error {
	if db.pg != nil {
		return nil
	}
	return db.Update(func(tx *Tx) error {
		btx, err := tx.write()
		if err != nil {
			return err
		}
		channels, err := channelsBucket(btx)
		if err != nil {
			return err
		}
		meta := btx.Bucket(bucketMeta)
		held, err := parseStamp(meta.Get(keyShards))
		if err != nil {
			return fmt.Errorf("claim shards of %s: %w", db.path, err)
		}
		if sameGuilds(held, r) {
			return nil
		}
		if k, _ := channels.Cursor().First(); k != nil {
			return fmt.Errorf("%s holds the tables of %s, not of %s: %w", db.path, describeHeld(held), describeHeld(r), ErrShardMismatch)
		}
		if s := r.stamp(); s != nil {
			return tx.j.put(meta, keyShards, s)
		}
		return tx.j.del(meta, keyShards)
	})
}

// describeHeld names the guilds a file holds.
func describeHeld(r ShardRange) string {
	if r.Whole() {
		return "every guild"
	}
	return r.String()
}
