//go:build linux

package bench

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data as bbolt does on Linux.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
