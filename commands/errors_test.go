package commands_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// TestNotSavedMessage: a change whose commit failed (a full disk) is
// answered with NotSaved, which says that nothing of it was kept; any
// other internal error with the apology; a user's error with its own
// message. (cmd/hpkeeper.TestFullDisk sends it through serve.)
func TestNotSavedMessage(t *testing.T) {
	full := fmt.Errorf("commit /data/hpkeeper.db: %w: write: %w", storage.ErrCommitFailed, syscall.ENOSPC)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{full, "The table could not be saved; nothing changed. Please try again in a moment."},
		{fmt.Errorf("damage: %w", full), commands.NotSaved},
		{errors.New("decode table: unexpected end of JSON input"), commands.Apology},
		{commands.Errorf(commands.CodeNotFound, "No character named %q.", "Rimmer"), `No character named "Rimmer".`},
	} {
		if got := commands.ErrorMessage(tc.err); got != tc.want {
			t.Errorf("ErrorMessage(%v) = %q; want %q", tc.err, got, tc.want)
		}
	}
	if commands.ErrorCode(full) != commands.CodeInternal {
		t.Errorf("a failed commit is not counted as internal")
	}
}
