//go:build !linux

package storage

import (
	"errors"
	"syscall"
)

// freeBytes returns -1: the free space is read on Linux only.
func freeBytes(string) int64 { return -1 }

// outOfSpace reports whether err is a write refused for want of space.
func outOfSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }
