package storage

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestReplayStateTakenOnce: the saved replay guard survives a reopen and is
// returned once; a second take finds nothing.
func TestReplayStateTakenOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.TakeReplayState(); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("TakeReplayState on a new file = %q, %v; want an empty state (never served)", got, err)
	}
	if got, err := db.TakeReplayState(); err != nil || got != nil {
		t.Fatalf("TakeReplayState again = %q, %v; want nil, nil", got, err)
	}
	want := []byte("\x01state")
	if err := db.SaveReplayState(want); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, err := db.TakeReplayState(); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("TakeReplayState after a reopen = %q, %v; want %q", got, err, want)
	}
	if got, err := db.TakeReplayState(); err != nil || got != nil {
		t.Fatalf("second TakeReplayState = %q, %v; want nil: taken once", got, err)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}
