package commands

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHandlerPanicContained registers handlers that panic, one of them in
// the middle of a write transaction after saving a change: each panic becomes
// a logged error with the interaction id and an ephemeral apology, the
// half-made change is rolled back, the write lock is released, and the
// service goes on answering (SECURITY.md promise 10).
func TestHandlerPanicContained(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "hpkeeper.db"), storage.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db, dice.NewRandom(1))
	var logs lockedBuffer
	ctx := zerolog.New(&logs).WithContext(context.Background())
	gm := func(command, sub string, opts map[string]string) *Request {
		return &Request{Kind: KindCommand, InteractionID: "ok-1", ChannelID: "c1", UserID: "gm", UserName: "gm",
			Command: command, Subcommand: sub, Options: opts}
	}
	if r := s.Handle(ctx, gm("table", "setup", map[string]string{"system": "hp-mp-wp"})); r.Ephemeral {
		t.Fatal(r.Content)
	}
	if r := s.Handle(ctx, gm("char", "create", map[string]string{"name": "Rimmer", "stats": "hp-max=10 mp-max=0"})); r.Ephemeral {
		t.Fatal(r.Content)
	}
	s.registry.component("boom", func(ctx context.Context, s *Service, r *Request) (*Response, error) {
		panic("kaboom outside a transaction")
	})
	s.registry.component("boomtx", func(ctx context.Context, s *Service, r *Request) (*Response, error) {
		return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
			c, err := m.Character("Rimmer")
			if err != nil {
				return nil, err
			}
			c.Name = "Half-Applied"
			if err := m.Save(c); err != nil {
				return nil, err
			}
			panic("kaboom inside a transaction")
		})
	})
	before := snapshotFor(t, db, "c1")
	for i, id := range []string{"boom:1", "boomtx:1", "boomtx:2"} {
		iid := "panic-" + string(rune('a'+i))
		resp := s.Handle(ctx, &Request{Kind: KindComponent, InteractionID: iid, ChannelID: "c1", UserID: "gm", UserName: "gm", CustomID: id})
		if resp == nil || !resp.Ephemeral || resp.Content != Apology {
			t.Fatalf("press %s after a panic: %+v; want the ephemeral apology", id, resp)
		}
		var line string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, `"interaction_id":"`+iid+`"`) {
				line = l
			}
		}
		if !strings.Contains(line, `"level":"error"`) || !strings.Contains(line, "kaboom") || !strings.Contains(line, "handler panicked") {
			t.Errorf("log for %s: %q; want an error naming the interaction and the panic", iid, line)
		}
	}
	if after := snapshotFor(t, db, "c1"); after != before {
		t.Errorf("a panicking transaction left a change:\n%s\nbecame\n%s", before, after)
	}
	// The write lock was released: the service still writes.
	done := make(chan *Response, 1)
	go func() {
		done <- s.Handle(ctx, gm("damage", "", map[string]string{"target": "Rimmer", "amount": "3"}))
	}()
	select {
	case r := <-done:
		if r.Ephemeral || !strings.Contains(r.Content, "HP 10 → 7") {
			t.Errorf("damage after the panics: %q; want HP 10 → 7", r.Content)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a write after the panic hangs: the transaction's lock was not released")
	}
}

func snapshotFor(t *testing.T, db *storage.DB, channel string) string {
	t.Helper()
	var b strings.Builder
	err := db.View(func(tx *storage.Tx) error {
		cs, err := tx.Characters(channel)
		for _, c := range cs {
			b.WriteString(c.Name + " " + string(c.Sheet) + "\n")
		}
		seq, _ := tx.LastEventSeq(channel)
		b.WriteString(strings.Repeat("e", int(seq)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
