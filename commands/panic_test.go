package commands_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/hpmpwp"
	"github.com/hpkeeper/hpkeeper/commands/tracker"
	"github.com/hpkeeper/hpkeeper/commands/view"
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

// boomSystem is hp-mp-wp with two buttons whose handlers panic: "boom"
// outside any transaction, "boomtx" in the middle of a write transaction
// after saving a change.
type boomSystem struct{ hpmpwp.System }

func (boomSystem) Name() string { return "boom" }

func (boomSystem) Components() map[string]commands.HandlerFunc {
	return map[string]commands.HandlerFunc{
		"boom": func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
			panic("kaboom outside a transaction")
		},
		"boomtx": func(ctx context.Context, s *commands.Service, r *commands.Request) (*commands.Response, error) {
			return s.Mutate(ctx, r, func(m *commands.Mutation) (*commands.Response, error) {
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
		},
	}
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
	s := commands.New(db, dice.NewRandom(1), []commands.System{hpmpwp.System{}, boomSystem{}}, commandstest.Features()...)
	var logs lockedBuffer
	ctx := zerolog.New(&logs).WithContext(context.Background())
	n := 0
	gm := func(command, sub string, opts map[string]string) *commands.Request {
		n++ // each interaction its own id, as Discord's: a change is applied once per id
		return &commands.Request{Kind: commands.KindCommand, InteractionID: fmt.Sprintf("ok-%d", n), ChannelID: "c1", UserID: "gm", UserName: "gm",
			Command: command, Subcommand: sub, Options: opts}
	}
	if r := s.Handle(ctx, gm("table", "setup", map[string]string{"system": "hp-mp-wp"})); r.Ephemeral {
		t.Fatal(r.Content)
	}
	if r := s.Handle(ctx, gm("char", "create", map[string]string{"name": "Rimmer", "stats": "hp-max=10 mp-max=0"})); r.Ephemeral {
		t.Fatal(r.Content)
	}
	before := snapshotFor(t, db, "c1")
	for i, id := range []string{"boom:1", "boomtx:1", "boomtx:2"} {
		iid := "panic-" + string(rune('a'+i))
		resp := s.Handle(ctx, &commands.Request{Kind: commands.KindComponent, InteractionID: iid, ChannelID: "c1", UserID: "gm", UserName: "gm", CustomID: id})
		if resp == nil || !resp.Ephemeral || resp.Content != commands.Apology {
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
	done := make(chan *commands.Response, 1)
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

// viewBoomSystem is hp-mp-wp whose character view panics once boom is set.
type viewBoomSystem struct {
	hpmpwp.System
	boom *atomic.Bool
}

func (viewBoomSystem) Name() string { return "viewboom" }

func (v viewBoomSystem) View(c *storage.Character, now int64) (view.Character, error) {
	if v.boom.Load() {
		panic("kaboom in a view")
	}
	return v.System.View(c, now)
}

// TestTrackerPanicContained: the tracker is rendered outside Handle (the
// bot's tracker updater calls Service.Tracker from its own goroutine,
// which nothing recovers), so a panic in a system's code there is an
// error, not the end of the process.
func TestTrackerPanicContained(t *testing.T) {
	boom := new(atomic.Bool)
	s := commands.New(commandstest.OpenDB(t), dice.NewRandom(1), []commands.System{viewBoomSystem{boom: boom}}, commandstest.Features()...)
	tracker.Of(s.Registry()).SetPoster(&fakePoster{}, "")
	tb := &commandstest.Table{T: t, Svc: s, Channel: "c1"}
	tb.OK(tb.Do("!gm", "/table setup system:viewboom"))
	tb.OK(tb.Do("!gm", `/char create name:Rimmer stats:"hp-max=10 mp-max=0"`))
	tb.Do("!gm", "/table tracker")
	boom.Store(true)
	id, resp, err := tracker.Of(s.Registry()).Tracker("c1")
	if err == nil || !strings.Contains(err.Error(), "kaboom in a view") || resp != nil || id != "" {
		t.Errorf("Tracker with a panicking view = %q, %+v, %v; want an error naming the panic", id, resp, err)
	}
}
