package storage

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
)

// countdown is a context that is done from its n-th Err on: PlaceTables
// asks between tables and pages, so each n stops it at another point.
type countdown struct {
	context.Context
	n, calls atomic.Int64
}

func (c *countdown) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

// TestPlaceTablesStops stops a split at every point where it looks at its
// context (SIGINT and SIGTERM cancel it in hpkeeper shard): each time it
// returns ErrStopped with the cause, and the directory holds the source
// alone, unchanged: no output, no partial file.
func TestPlaceTablesStops(t *testing.T) {
	dir := t.TempDir()
	src, _ := shardedSource(t, dir)
	want := dump(t, src)
	outputs := func(run int) []ShardFile {
		var out []ShardFile
		for s := 0; s < 4; s++ {
			out = append(out, ShardFile{Path: filepath.Join(dir, fmt.Sprintf("out-%d-%d.db", run, s)), Shards: ShardRange{Count: 4, First: s, Last: s}})
		}
		return out
	}
	// A run to the end counts the points.
	all := &countdown{Context: context.Background()}
	all.n.Store(1 << 62)
	if _, err := PlaceTables(all, []string{src}, outputs(0), byShard(outputs(0)), testTimeout); err != nil {
		t.Fatal(err)
	}
	points := all.calls.Load()
	if points < 20 {
		t.Fatalf("PlaceTables looked at its context %d times; want it between every table of every phase", points)
	}
	t.Logf("stopping at each of %d points", points)
	before, _ := filepath.Glob(filepath.Join(dir, "*"))
	for n := int64(1); n <= points; n++ {
		ctx := &countdown{Context: context.Background()}
		ctx.n.Store(n)
		rep, err := PlaceTables(ctx, []string{src}, outputs(int(n)), byShard(outputs(int(n))), testTimeout)
		if !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) || rep == nil {
			t.Fatalf("stopped at point %d of %d: %v; want ErrStopped and the cause", n, points, err)
		}
		if after, _ := filepath.Glob(filepath.Join(dir, "*")); !slices.Equal(before, after) {
			t.Fatalf("stopped at point %d of %d: the directory went from %v to %v; want nothing left", n, points, before, after)
		}
	}
	if got := dump(t, src); !maps.Equal(got, want) {
		t.Errorf("the source changed")
	}
}
