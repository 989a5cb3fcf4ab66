package discord

import (
	"errors"
	"strconv"
	"testing"

	"github.com/hpkeeper/hpkeeper/storage"
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
	for _, count := range []int{0, -1, storage.MaxShards + 1} {
		if _, err := ShardOf("4194304", count); err == nil {
			t.Errorf("ShardOf(_, %d) = nil error; want an error", count)
		}
	}
}

func TestOwns(t *testing.T) {
	r := storage.ShardRange{Count: 4, First: 1, Last: 2}
	for shard := 0; shard < 4; shard++ {
		got, owned, err := Owns(r, guildOn(shard, 4, 1))
		if err != nil || got != shard || owned != (shard == 1 || shard == 2) {
			t.Errorf("Owns(%v, guild of shard %d) = %d, %v, %v", r, shard, got, owned, err)
		}
	}
	if _, owned, err := Owns(r, ""); owned || err != nil {
		t.Errorf("Owns(%v, a DM) = %v, %v; want not owned (DMs are on shard 0)", r, owned, err)
	}
	if _, owned, err := Owns(storage.ShardRange{Count: 4}, ""); !owned || err != nil {
		t.Errorf("shard 0 of 4 owns a DM = %v, %v; want owned", owned, err)
	}
	for _, all := range []storage.ShardRange{{}, storage.AllShards(4)} {
		if _, owned, err := Owns(all, guildOn(3, 4, 2)); !owned || err != nil {
			t.Errorf("Owns(%v, any guild) = %v, %v; want owned", all, owned, err)
		}
		if _, owned, err := Owns(all, "g1"); owned || !errors.Is(err, ErrBadGuildID) {
			t.Errorf("Owns(%v, \"g1\") = %v, %v; want refused with ErrBadGuildID", all, owned, err)
		}
	}
}

// TestIdentifyBucket: shard_id % max_concurrency, the buckets of 16
// shards at a max_concurrency of 4 being 0 1 2 3 0 1 2 3 ….
func TestIdentifyBucket(t *testing.T) {
	for shard := 0; shard < 16; shard++ {
		if got := IdentifyBucket(shard, 4); got != shard%4 {
			t.Errorf("IdentifyBucket(%d, 4) = %d; want %d", shard, got, shard%4)
		}
		if got := IdentifyBucket(shard, 1); got != 0 {
			t.Errorf("IdentifyBucket(%d, 1) = %d; want 0", shard, got)
		}
	}
}
