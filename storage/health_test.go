package storage

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// TestHealthWhileCommitsFail makes every commit fail as a full disk makes
// it fail (the writer's test seam, failCommit): each Update says nothing
// was saved (ErrCommitFailed, with the disk's error), the table reads as
// before, Health says since when commits fail; a Ping tries an empty
// commit, and once the disk takes writes again Health recovers without
// any Update.
func TestHealthWhileCommitsFail(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	if h := db.Health(); h.CommitErr != nil || h.Fault != nil || h.Closed || h.FreeBytes <= 0 && h.FreeBytes != -1 {
		t.Fatalf("Health of a sound database = %+v", h)
	}
	full := func() error { return fmt.Errorf("write %s: %w", db.Path(), syscall.ENOSPC) }
	db.w.failCommit.Store(&full)
	before := time.Now()
	for i := 0; i < 3; i++ {
		err := db.Update(func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", fmt.Sprint("Rimmer", i), 3)) })
		if !errors.Is(err, ErrCommitFailed) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("Update on a full disk: %v; want ErrCommitFailed and ENOSPC", err)
		}
	}
	if n := len(readState(t, db, "c1").Characters); n != 1 {
		t.Errorf("the table has %d characters; want the 1 saved before the disk filled", n)
	}
	h := db.Health()
	if !errors.Is(h.CommitErr, ErrCommitFailed) || h.FailingSince.Before(before) || time.Since(h.FailingSince) > time.Minute {
		t.Errorf("Health while commits fail = %+v; want the error and when the first failed", h)
	}
	first := h.FailingSince
	if err := db.Ping(t.Context()); err != nil {
		t.Errorf("Ping: %v; want the writer to answer", err)
	}
	if h := db.Health(); h.CommitErr == nil || !h.FailingSince.Equal(first) {
		t.Errorf("Health after a Ping on the full disk = %+v; want still failing since %v", h, first)
	}
	db.w.failCommit.Store(nil) // space freed
	if err := db.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h := db.Health(); h.CommitErr != nil {
		t.Errorf("Health after the disk took a commit again = %+v; want recovered", h)
	}
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", "Rimmer", 3)) })
}

// TestHealthBusyWriter: Health.Busy grows while the writer runs one group.
func TestHealthBusyWriter(t *testing.T) {
	db := mustOpen(t)
	if h := db.Health(); h.Busy != 0 {
		t.Errorf("idle writer: Busy = %v; want 0", h.Busy)
	}
	entered, gate := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() { done <- db.Update(func(*Tx) error { close(entered); <-gate; return nil }) }()
	<-entered
	time.Sleep(20 * time.Millisecond)
	if h := db.Health(); h.Busy < 20*time.Millisecond {
		t.Errorf("writer held 20 ms: Busy = %v", h.Busy)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if h := db.Health(); h.Busy != 0 {
		t.Errorf("writer free again: Busy = %v; want 0", h.Busy)
	}
}
