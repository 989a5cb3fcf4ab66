//go:build !linux

package bench

import "os"

// fdatasync flushes f (fsync where fdatasync is not available).
func fdatasync(f *os.File) error { return f.Sync() }
