//go:build !unix

package bot

import "time"

// processCPU returns zero: the CPU time is read on Unix only.
func processCPU() time.Duration { return 0 }
