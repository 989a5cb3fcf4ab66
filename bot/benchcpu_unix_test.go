//go:build unix

package bot

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, user and system,
// over all its threads; zero when it cannot be read.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
