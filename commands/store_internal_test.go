package commands

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hpkeeper/hpkeeper/storage"
)

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
