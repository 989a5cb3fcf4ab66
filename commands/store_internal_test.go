package commands

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

// TestSharedWorkLimits: over a shared store the allowance is the store's
// (one for every replica); when the store cannot answer, the process's own
// buckets do.
func TestSharedWorkLimits(t *testing.T) {
	l := newWorkLimiter(WorkBurst, WorkPerMinute)
	var fail bool
	asked := 0
	l.shared = func(user string, cost int, now time.Time) (bool, time.Duration, error) {
		asked++
		if fail {
			return false, 0, errors.New("database unavailable")
		}
		return false, 7 * time.Second, nil // spent on another replica
	}
	now := time.Unix(1_800_000_000, 0)
	if ok, wait := l.take("u1", 10, now); ok || wait != 7*time.Second || asked != 1 {
		t.Errorf("take over a shared store that refuses = %v, %v (asked %d); want its refusal", ok, wait, asked)
	}
	if ok, _ := l.take("u1", 0, now); !ok || asked != 1 {
		t.Errorf("a free command asked the store (%d)", asked)
	}
	fail = true
	if ok, _ := l.take("u1", 10, now); !ok {
		t.Error("with the store unreachable, the process's own allowance refused a first spend")
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
