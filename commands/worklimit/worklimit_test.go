package worklimit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestLimiter checks the token bucket: the burst, the refill rate, a cost
// larger than the burst, a clock going backwards, and that full buckets are
// forgotten once maxTrackedUsers users are tracked.
func TestLimiter(t *testing.T) {
	l := New(100, 60) // 1 unit a second
	at := time.Unix(1_800_000_000, 0)
	if ok, _ := l.Take(context.Background(), "u", 100, at); !ok {
		t.Fatal("Take(100) of a full 100-unit bucket refused")
	}
	if ok, wait := l.Take(context.Background(), "u", 10, at); ok || wait != 10*time.Second {
		t.Errorf("Take(10) of an empty bucket = %v, wait %v; want refused, 10s", ok, wait)
	}
	if ok, _ := l.Take(context.Background(), "u", 10, at.Add(-time.Hour)); ok {
		t.Error("a clock going backwards refilled the bucket")
	}
	if ok, _ := l.Take(context.Background(), "u", 10, at.Add(10*time.Second)); !ok {
		t.Error("Take(10) after 10 s refused")
	}
	if ok, wait := l.Take(context.Background(), "v", 101, at); ok || wait != 100*time.Second {
		t.Errorf("Take(101) over the burst = %v, wait %v; want refused, 100s", ok, wait)
	}
	if ok, _ := l.Take(context.Background(), "w", 0, at); !ok {
		t.Error("a free request was refused")
	}
	// Users active in the same minute are all tracked (their buckets are
	// not full); once maxTrackedUsers are tracked, a new user sweeps away
	// every bucket that has refilled.
	for i := 0; i < maxTrackedUsers+10; i++ {
		l.Take(context.Background(), fmt.Sprintf("user-%d", i), 1, at)
	}
	l.Take(context.Background(), "late", 1, at.Add(time.Hour))
	if n := len(l.users); n != 1 {
		t.Errorf("%d buckets left after an hour; want the full ones forgotten", n)
	}
}

// TestLimiterSweepsRarelyWhenAllAreActive: when every tracked user is
// active (no bucket is full), a sweep frees nothing; the next one waits a
// second, so a crowd of users arriving at once does not make every newcomer
// scan them all.
func TestLimiterSweepsRarelyWhenAllAreActive(t *testing.T) {
	l := New(100, 60)
	at := time.Unix(1_800_000_000, 0)
	n := 3*maxTrackedUsers + 1
	for i := range n {
		l.Take(context.Background(), fmt.Sprintf("user-%d", i), 1, at)
	}
	if len(l.users) != n {
		t.Fatalf("%d users tracked; want all %d (none is full)", len(l.users), n)
	}
	// One sweep at maxTrackedUsers, not one per new user after it.
	if l.sweeps != 1 {
		t.Errorf("%d sweeps for %d users arriving in the same second; want 1", l.sweeps, n)
	}
	l.Take(context.Background(), "next-second", 1, at.Add(time.Second))
	if l.sweeps != 2 {
		t.Errorf("%d sweeps after a second more; want 2", l.sweeps)
	}
}

// fakeShared is a shared store that refuses every spend (spent on another
// replica), or cannot answer while fail is set.
type fakeShared struct {
	shared bool
	fail   bool
	asked  int
}

func (f *fakeShared) Shared() bool { return f.shared }

func (f *fakeShared) TakeWork(user string, cost int, burst, perMinute int, now time.Time) (bool, time.Duration, error) {
	f.asked++
	if f.fail {
		return false, 0, errors.New("database unavailable")
	}
	return false, 7 * time.Second, nil // spent on another replica
}

// TestSharedWorkLimits: over a shared store the allowance is the store's
// (one for every replica); when the store cannot answer, the process's own
// buckets do, and the process says so at warn level, once a minute at
// most (storage.DB.WorkLimitFailures counts every time for the metrics);
// a store no other process uses keeps none.
func TestSharedWorkLimits(t *testing.T) {
	var logs bytes.Buffer
	ctx := zerolog.New(&logs).WithContext(context.Background())
	l := New(1000, 1000)
	store := &fakeShared{shared: true}
	l.Share(store)
	now := time.Unix(1_800_000_000, 0)
	if ok, wait := l.Take(ctx, "u1", 10, now); ok || wait != 7*time.Second || store.asked != 1 {
		t.Errorf("Take over a shared store that refuses = %v, %v (asked %d); want its refusal", ok, wait, store.asked)
	}
	if ok, _ := l.Take(ctx, "u1", 0, now); !ok || store.asked != 1 {
		t.Errorf("a free command asked the store (%d)", store.asked)
	}
	if logs.Len() != 0 {
		t.Errorf("logged while the store answers: %s", logs.String())
	}
	store.fail = true
	if ok, _ := l.Take(ctx, "u1", 10, now); !ok {
		t.Error("with the store unreachable, the process's own allowance refused a first spend")
	}
	l.Take(ctx, "u2", 10, now)
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), `"level":"warn"`) ||
		!strings.Contains(logs.String(), "database unavailable") {
		t.Errorf("two spends the store could not answer logged %d lines:\n%s\nwant one warning with the store's error", n, logs.String())
	}
	alone := New(1000, 1000)
	file := &fakeShared{}
	alone.Share(file)
	if ok, _ := alone.Take(ctx, "u1", 10, now); !ok || file.asked != 0 {
		t.Errorf("Take beside a store no other process uses = %v (asked %d); want the process's own allowance", ok, file.asked)
	}
}
