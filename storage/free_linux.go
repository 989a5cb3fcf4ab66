package storage

import (
	"errors"
	"syscall"
)

// freeBytes returns the bytes available to this process on the filesystem
// of path, or -1 when statfs fails.
func freeBytes(path string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// outOfSpace reports whether err is a write refused for want of space.
func outOfSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
