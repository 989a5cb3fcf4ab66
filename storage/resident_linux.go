package storage

import "syscall"

// canDropResident: Linux drops a file mapping's pages on request.
const canDropResident = true

// dropResident drops the n bytes of a read-only file mapping at addr from
// the process's resident memory (madvise MADV_DONTNEED); reading them again
// faults them back in from the page cache, unchanged.
func dropResident(addr uintptr, n int64) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(n), syscall.MADV_DONTNEED)
}
