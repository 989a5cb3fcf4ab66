package commands

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestWorkLimiter checks the token bucket: the burst, the refill rate, a cost
// larger than the burst, a clock going backwards, and that full buckets are
// forgotten once maxTrackedUsers users are tracked.
func TestWorkLimiter(t *testing.T) {
	l := newWorkLimiter(100, 60) // 1 unit a second
	at := time.Unix(1_800_000_000, 0)
	if ok, _ := l.take(context.Background(), "u", 100, at); !ok {
		t.Fatal("take(100) of a full 100-unit bucket refused")
	}
	if ok, wait := l.take(context.Background(), "u", 10, at); ok || wait != 10*time.Second {
		t.Errorf("take(10) of an empty bucket = %v, wait %v; want refused, 10s", ok, wait)
	}
	if ok, _ := l.take(context.Background(), "u", 10, at.Add(-time.Hour)); ok {
		t.Error("a clock going backwards refilled the bucket")
	}
	if ok, _ := l.take(context.Background(), "u", 10, at.Add(10*time.Second)); !ok {
		t.Error("take(10) after 10 s refused")
	}
	if ok, wait := l.take(context.Background(), "v", 101, at); ok || wait != 100*time.Second {
		t.Errorf("take(101) over the burst = %v, wait %v; want refused, 100s", ok, wait)
	}
	if ok, _ := l.take(context.Background(), "w", 0, at); !ok {
		t.Error("a free request was refused")
	}
	// Users active in the same minute are all tracked (their buckets are
	// not full); once maxTrackedUsers are tracked, a new user sweeps away
	// every bucket that has refilled.
	for i := 0; i < maxTrackedUsers+10; i++ {
		l.take(context.Background(), fmt.Sprintf("user-%d", i), 1, at)
	}
	l.take(context.Background(), "late", 1, at.Add(time.Hour))
	if n := len(l.users); n != 1 {
		t.Errorf("%d buckets left after an hour; want the full ones forgotten", n)
	}
}

// TestWorkLimiterSweepsRarelyWhenAllAreActive: when every tracked user is
// active (no bucket is full), a sweep frees nothing; the next one waits a
// second, so a crowd of users arriving at once does not make every newcomer
// scan them all.
func TestWorkLimiterSweepsRarelyWhenAllAreActive(t *testing.T) {
	l := newWorkLimiter(100, 60)
	at := time.Unix(1_800_000_000, 0)
	n := 3*maxTrackedUsers + 1
	for i := range n {
		l.take(context.Background(), fmt.Sprintf("user-%d", i), 1, at)
	}
	if len(l.users) != n {
		t.Fatalf("%d users tracked; want all %d (none is full)", len(l.users), n)
	}
	// One sweep at maxTrackedUsers, not one per new user after it.
	if l.sweeps != 1 {
		t.Errorf("%d sweeps for %d users arriving in the same second; want 1", l.sweeps, n)
	}
	l.take(context.Background(), "next-second", 1, at.Add(time.Second))
	if l.sweeps != 2 {
		t.Errorf("%d sweeps after a second more; want 2", l.sweeps)
	}
}
