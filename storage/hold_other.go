//go:build !linux

package storage

import "time"

// holdSleep sleeps for d (on Linux, in the kernel: hold_linux.go).
func holdSleep(d time.Duration) { time.Sleep(d) }
