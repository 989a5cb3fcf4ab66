package storage

import (
	"syscall"
	"time"
)

// holdSleep sleeps for d in the kernel (nanosleep), to within the kernel's
// timer slack (50 µs). Go's own timers wake a process that has nothing
// else to do only to the millisecond on Linux (the runtime's epoll wait
// takes milliseconds): a hold of 200 µs would last 1.1 ms.
func holdSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	// A signal (the runtime's preemption) ends the sleep early with the
	// time left in ts: sleep that, so that the hold lasts d in all.
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
