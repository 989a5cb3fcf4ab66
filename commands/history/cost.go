package history

import (
	"context"
	"fmt"
	"math"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// What a read of the history costs. The index (storage.Tx.EventEntries)
// says which events a command shows or reverts without decoding any; what
// reading those then parses is known before it is read
// (storage.Tx.PlanEvents), and the caller pays for it from their work
// allowance first (storage.ReadSize.Units: one unit per 32 KiB of events'
// JSON, about a millisecond of CPU), beside the command's own Cost. A read
// the caller cannot pay for is not made.

// pay spends what reading size costs from the work allowance of r's user,
// or returns the CodeRateLimited refusal naming what, the read, and how
// long to wait.
func pay(ctx context.Context, s *commands.Service, r *commands.Request, what string, size storage.ReadSize) error {
	units := size.Units()
	ok, wait := s.TakeWork(ctx, r, units)
	if ok {
		return nil
	}
	return commands.Errorf(commands.CodeRateLimited, "Slow down: %s reads %s of history (%s, %d units; you may spend %d a minute). Try again in %d s. Nothing was changed.",
		what, commands.Count(size.Events, "event"), sizeText(size.Bytes), units, commands.WorkPerMinute, int(math.Ceil(wait.Seconds())))
}

// sizeText is a size in bytes as a player reads it: "640 KiB", "12.5 MiB".
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1<<10-1)>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
