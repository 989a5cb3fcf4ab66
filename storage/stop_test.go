package storage

import (
	"errors"
	"testing"
)

// TestStopWrites: once StopWrites has returned, every Update fails with
// ErrClosed and what was written stays as it is, while Views and
// InteractionApplied still answer; an Update begun before it commits
// before it returns, and the interaction it recorded reads as applied.
func TestStopWrites(t *testing.T) { bothBackends(t, testStopWrites) }

func testStopWrites(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	release, begun := make(chan struct{}), make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		wrote <- db.Update(func(tx *Tx) error {
			if err := tx.RecordInteraction("i-running", "c1", t0); err != nil {
				return err
			}
			close(begun)
			<-release
			return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, UserID: "u1", Command: "/roll"})
		})
	}()
	<-begun
	stopped := make(chan struct{})
	go func() { db.StopWrites(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("StopWrites returned while an Update it must wait for was still running")
	default:
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatalf("the Update begun before StopWrites: %v", err)
	}
	<-stopped
	err := db.Update(func(tx *Tx) error { return tx.PutTable(newTable("c2")) })
	if !errors.Is(err, ErrClosed) {
		t.Errorf("Update after StopWrites = %v; want ErrClosed", err)
	}
	db.StopWrites() // again: nothing more
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Table("c2"); !errors.Is(err, ErrNotFound) {
			t.Errorf("table c2 after a refused Update: %v; want none", err)
		}
		return nil
	})
	in, ok, err := db.InteractionApplied("c1", "i-running")
	if err != nil || !ok || in.EventSeq != 1 {
		t.Errorf("InteractionApplied(the Update's) = %+v, %v, %v; want applied, event 1", in, ok, err)
	}
	if _, ok, err := db.InteractionApplied("c1", "i-never"); err != nil || ok {
		t.Errorf("InteractionApplied(never sent) = %v, %v; want not applied", ok, err)
	}
}
