package storage

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Faults while the file is in use.
//
// Open refuses a damaged file (damage.go), but a file can be damaged while
// a process holds it (a failing disk, another program writing into it) or
// opened with Options.AllowUnsound. bbolt then faults or panics on a page
// it cannot read. As a last line of defence, the goroutines that read the
// file through bbolt (the writer, View's caller, Open, Inspect) run with
// debug.SetPanicOnFault, so a fault in the mapped file is a panic instead
// of a crash, and recover a panic raised in bbolt's code: it becomes an
// error wrapping ErrDamaged, the transaction is rolled back, and the DB is
// not used again (every later Update, View, Ping and Backup returns the
// error), since bbolt's state after such a panic cannot be trusted. A panic
// of the caller's own code is not bbolt's: it propagates as before.

// panicOrigin says where the panic being recovered comes from, read from
// the stack of the deferred function that is about to recover it (the
// panic goes on untouched when that function does not): fromBbolt when
// the first frame below runtime.gopanic that is not the runtime's is a
// function of bbolt, fault when the runtime raised it for a bad memory
// access (runtime.sigpanic: a fault in the mapped file, or a nil pointer).
func panicOrigin() (fromBbolt, fault bool) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && f.Function == "runtime.sigpanic":
			fault = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt.") || strings.HasPrefix(f.Function, "go.etcd.io/bbolt/"), fault
		}
		if !more {
			return false, fault
		}
	}
}

// faultOf returns the error for r, recovered from a panic of the kind
// panicOrigin found, when it is bbolt's: raised in bbolt's code, or a
// fault at an address (debug.SetPanicOnFault; a nil pointer has none). It
// returns nil for the caller's own panic.
func faultOf(r any, fromBbolt bool, path string) error {
	if re, ok := r.(runtime.Error); ok {
		if a, hasAddr := re.(interface{ Addr() uintptr }); hasAddr {
			return &DamageError{Path: path, Count: 1,
				Problems: []string{fmt.Sprintf("a read of its pages faulted at address %#x (the file is shorter than its pages, or a page points outside it)", a.Addr())}}
		}
	}
	if fromBbolt {
		return &DamageError{Path: path, Problems: []string{fmt.Sprintf("bbolt could not read a page (%v)", r)}, Count: 1}
	}
	return nil
}

// guard runs fn with faults in mapped memory turned into panics, and turns
// a panic of bbolt's into an error wrapping ErrDamaged (see guarded); it
// returns fn's error or that one.
func guard(path string, fn func() error) error {
	err, fault := guarded(path, fn)
	if fault != nil {
		return fault
	}
	return err
}

// guarded runs fn with faults in mapped memory turned into panics, and
// returns fn's error, or, after a panic of bbolt's, a *DamageError as
// fault. Any other panic goes on: untouched (with its stack) unless it was
// a nil pointer dereference, which is recovered to be told apart from a
// fault and raised again.
func guarded(path string, fn func() error) (err, fault error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	returned := false
	defer func() {
		if returned {
			return
		}
		fromBbolt, memFault := panicOrigin()
		if !fromBbolt && !memFault {
			return // not recovered: the panic goes on as it was
		}
		r := recover()
		if fault = faultOf(r, fromBbolt, path); fault == nil {
			panic(r)
		}
	}()
	err = fn()
	returned = true
	return err, nil
}

// fail marks the DB as unusable after a fault (its first one is kept) and
// returns the error every later use gets.
func (db *DB) fail(err error) error {
	db.fault.CompareAndSwap(nil, &err)
	return *db.fault.Load()
}

// failed returns the fault that made the DB unusable, or nil.
func (db *DB) failed() error {
	if p := db.fault.Load(); p != nil {
		return *p
	}
	return nil
}
