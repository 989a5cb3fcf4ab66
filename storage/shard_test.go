package storage

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// guildOn returns the n-th made-up snowflake guild id whose shard, of count
// shards (a power of two up to 64), is shard.
func guildOn(shard, count, n int) string {
	return strconv.FormatUint((uint64(312_000_000_000+n*count+shard)<<22)|0x2a5, 10)
}

func TestParseShardRange(t *testing.T) {
	tests := []struct {
		ids   string
		count int
		want  ShardRange
		str   string
	}{
		{"", 0, ShardRange{}, "every shard"},
		{"", 4, ShardRange{Count: 4, Last: 3}, "all 4 shards"},
		{"", 1, ShardRange{Count: 1}, "shard 0 of 1"},
		{"0-3", 8, ShardRange{Count: 8, Last: 3}, "shards 0-3 of 8"},
		{" 4 - 7 ", 8, ShardRange{Count: 8, First: 4, Last: 7}, "shards 4-7 of 8"},
		{"2", 4, ShardRange{Count: 4, First: 2, Last: 2}, "shard 2 of 4"},
		{"0-3", 4, ShardRange{Count: 4, Last: 3}, "all 4 shards"},
	}
	for _, tt := range tests {
		got, err := ParseShardRange(tt.ids, tt.count)
		if err != nil || got != tt.want || got.String() != tt.str {
			t.Errorf("ParseShardRange(%q, %d) = %+v (%q), %v; want %+v (%q)", tt.ids, tt.count, got, got, err, tt.want, tt.str)
		}
		if back, err := ParseShardRange(got.IDs(), tt.count); err != nil || back != got {
			t.Errorf("ParseShardRange(%q.IDs() = %q) = %+v, %v; want it back", tt.ids, got.IDs(), back, err)
		}
	}
	for _, bad := range []struct {
		ids   string
		count int
	}{{"0-3", 0}, {"3-1", 4}, {"4", 4}, {"0-4", 4}, {"-1", 4}, {"a", 4}, {"1-", 4}, {"1-2-3", 4}, {"", -1}, {"", MaxShards + 1}} {
		if r, err := ParseShardRange(bad.ids, bad.count); err == nil {
			t.Errorf("ParseShardRange(%q, %d) = %+v; want an error", bad.ids, bad.count, r)
		}
	}
}

// TestClaimShards: a file without tables takes the range of the process
// that opens it; once it holds tables, only a process serving the same
// guilds may use it.
func TestClaimShards(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db := mustOpenPath(t, path)
	low, high := ShardRange{Count: 4, Last: 1}, ShardRange{Count: 4, First: 2, Last: 3}
	for _, r := range []ShardRange{{}, high, low, low} { // empty: any claim, the last wins
		if err := db.ClaimShards(r); err != nil {
			t.Fatalf("ClaimShards(%v) on an empty file = %v", r, err)
		}
	}
	setupTable(t, db, "c1")
	if err := db.ClaimShards(low); err != nil {
		t.Errorf("ClaimShards(%v) again = %v; want nil", low, err)
	}
	for _, other := range []ShardRange{high, {}, AllShards(4), {Count: 8, Last: 1}, {Count: 4, Last: 0}} {
		if err := db.ClaimShards(other); !errors.Is(err, ErrShardMismatch) {
			t.Errorf("ClaimShards(%v) on a file of %v with a table = %v; want ErrShardMismatch", other, low, err)
		}
	}

	whole := mustOpenPath(t, filepath.Join(t.TempDir(), "whole.db"))
	setupTable(t, whole, "c1")
	for _, ok := range []ShardRange{{}, AllShards(1), AllShards(16)} {
		if err := whole.ClaimShards(ok); err != nil {
			t.Errorf("ClaimShards(%v) on a whole file = %v; want nil", ok, err)
		}
	}
	err := whole.ClaimShards(high)
	if !errors.Is(err, ErrShardMismatch) {
		t.Fatalf("ClaimShards(%v) on a whole file with a table = %v; want ErrShardMismatch", high, err)
	}
	if want := "holds the tables of every guild, not of shards 2-3 of 4"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q; want it to say %q", err, want)
	}
}
