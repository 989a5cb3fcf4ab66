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

func TestShardOf(t *testing.T) {
	tests := []struct {
		guild string
		count int
		want  int
	}{
		{"", 4, 0}, // a DM
		{"41771983423143937", 1, 0},
		{"41771983423143937", 4, 2}, // 41771983423143937 >> 22 = 9959169726
		{"41771983423143937", 8, 6},
		{"175928847299117063", 4, 0}, // >> 22 = 41944705796
		{"175928847299117063", 8, 4},
		{"4194303", 2, 0}, // below 1 << 22
		{"4194304", 2, 1},
		{"18446744073709551615", 16, 15}, // the largest snowflake
		{guildOn(3, 4, 7), 4, 3},
	}
	for _, tt := range tests {
		if got, err := ShardOf(tt.guild, tt.count); err != nil || got != tt.want {
			t.Errorf("ShardOf(%q, %d) = %d, %v; want %d", tt.guild, tt.count, got, err, tt.want)
		}
	}
	for _, bad := range []string{"g1", "console", "-4194304", "+4194304", " 4194304", "12a", "18446744073709551616", "123456789012345678901"} {
		if _, err := ShardOf(bad, 4); !errors.Is(err, ErrBadGuildID) {
			t.Errorf("ShardOf(%q, 4) error = %v; want ErrBadGuildID", bad, err)
		}
	}
	for _, count := range []int{0, -1, MaxShards + 1} {
		if _, err := ShardOf("4194304", count); err == nil {
			t.Errorf("ShardOf(_, %d) = nil error; want an error", count)
		}
	}
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

func TestShardRangeOwns(t *testing.T) {
	r := ShardRange{Count: 4, First: 1, Last: 2}
	for shard := 0; shard < 4; shard++ {
		got, owned, err := r.Owns(guildOn(shard, 4, 1))
		if err != nil || got != shard || owned != (shard == 1 || shard == 2) {
			t.Errorf("%v.Owns(guild of shard %d) = %d, %v, %v", r, shard, got, owned, err)
		}
	}
	if _, owned, err := r.Owns(""); owned || err != nil {
		t.Errorf("%v.Owns(a DM) = %v, %v; want not owned (DMs are on shard 0)", r, owned, err)
	}
	if _, owned, err := (ShardRange{Count: 4}).Owns(""); !owned || err != nil {
		t.Errorf("shard 0 of 4 owns a DM = %v, %v; want owned", owned, err)
	}
	for _, all := range []ShardRange{{}, AllShards(4)} {
		if _, owned, err := all.Owns(guildOn(3, 4, 2)); !owned || err != nil {
			t.Errorf("%v.Owns(any guild) = %v, %v; want owned", all, owned, err)
		}
		if _, owned, err := all.Owns("g1"); owned || !errors.Is(err, ErrBadGuildID) {
			t.Errorf("%v.Owns(\"g1\") = %v, %v; want refused with ErrBadGuildID", all, owned, err)
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
