package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/storage"
)

// TestSharedWorkLimits: over a shared store the allowance is the store's
// (one for every replica); when the store cannot answer, the process's own
// buckets do, and the process says so at warn level, once a minute at
// most (storage.DB.WorkLimitFailures counts every time for the metrics).
func TestSharedWorkLimits(t *testing.T) {
	var logs bytes.Buffer
	ctx := zerolog.New(&logs).WithContext(context.Background())
	l := newWorkLimiter(WorkBurst, WorkPerMinute)
	var fail bool
	asked := 0
	l.shared = func(user string, cost, burst, perMinute int, now time.Time) (bool, time.Duration, error) {
		asked++
		if fail {
			return false, 0, errors.New("database unavailable")
		}
		return false, 7 * time.Second, nil // spent on another replica
	}
	now := time.Unix(1_800_000_000, 0)
	if ok, wait := l.take(ctx, "u1", 10, now); ok || wait != 7*time.Second || asked != 1 {
		t.Errorf("take over a shared store that refuses = %v, %v (asked %d); want its refusal", ok, wait, asked)
	}
	if ok, _ := l.take(ctx, "u1", 0, now); !ok || asked != 1 {
		t.Errorf("a free command asked the store (%d)", asked)
	}
	if logs.Len() != 0 {
		t.Errorf("logged while the store answers: %s", logs.String())
	}
	fail = true
	if ok, _ := l.take(ctx, "u1", 10, now); !ok {
		t.Error("with the store unreachable, the process's own allowance refused a first spend")
	}
	l.take(ctx, "u2", 10, now)
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), `"level":"warn"`) ||
		!strings.Contains(logs.String(), "database unavailable") {
		t.Errorf("two spends the store could not answer logged %d lines:\n%s\nwant one warning with the store's error", n, logs.String())
	}
}

// TestStoreMessages: what a player reads when the database could not
// answer, or could not say whether it saved the change.
func TestStoreMessages(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("update: %w", storage.ErrUnavailable), Unavailable},
		{fmt.Errorf("commit: %w: %w", storage.ErrCommitUnknown, storage.ErrUnavailable), CommitUnknown},
		{errors.New("disk on fire"), Apology},
	} {
		if got := ErrorMessage(tt.err); got != tt.want {
			t.Errorf("ErrorMessage(%v) = %q; want %q", tt.err, got, tt.want)
		}
	}
}
