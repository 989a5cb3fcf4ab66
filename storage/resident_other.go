//go:build !linux

package storage

// canDropResident: only on Linux does boundResident drop pages.
const canDropResident = false

func dropResident(uintptr, int64) {}
