package history_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/storage"
)

// gmEvents appends n events by the GM "gm" to tb's table, each changing
// the GM's character id and holding a summary of size bytes (a large
// event: what parsing it costs is its JSON's size).
func gmEvents(t *testing.T, tb *table, id uint64, n, size int) {
	t.Helper()
	err := tb.DB.Update(func(tx *storage.Tx) error {
		c, err := tx.Character(tb.Channel, id)
		if err != nil {
			return err
		}
		for i := range n {
			e := &storage.Event{ChannelID: tb.Channel, At: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), UserID: "gm", UserName: "gm",
				Command: fmt.Sprintf("/char set name:%s stats:hp=%d", c.Name, i%5+1), Summary: strings.Repeat("x", size),
				Changes: []storage.Change{{CharacterID: id, Name: c.Name, Before: c, After: c}}}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// at runs line as user at the instant now (the work allowance refills
// with the request's time).
func at(tb *table, user, line string, now time.Time) *commands.Response {
	tb.T.Helper()
	r := tb.Request(user, line)
	r.Now = now
	return tb.Svc.Handle(context.Background(), r)
}

// TestReadsArePaidFor is issue 26's "costs no work units": a read pays
// for what it parses before it is made, one unit for each 32 KiB of
// events' JSON, besides history.Cost; a read the caller cannot pay for is
// refused, saying what it reads, and another user is not affected. The
// page before #258 of a history of 40 KiB events is read from the
// checkpoint at #512, about 320 units an event shown: it shows one event
// (a page reads at most a quarter of an allowance, and one event at
// least) and ends with the command for the rest; three such pages pass
// at once, the fourth is refused.
func TestReadsArePaidFor(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`)) // #2
	gmEvents(t, tb, 1, 518, 40<<10)                                                    // #3 … #520, 40 KiB each
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		out := at(tb, "bob", "/history before:#258", now)
		if out.Ephemeral {
			t.Fatalf("page %d at once: %q; want it to pass", i+1, out.Content)
		}
		all := out.Content // a long page continues in follow-ups
		for _, f := range out.FollowUps {
			all += "\n" + f.Content
		}
		if !strings.Contains(all, "`#257`") || strings.Contains(all, "`#256`") || !strings.HasSuffix(all, "Older events: `/history before:#257`") {
			t.Errorf("page %d: %q; want #257 alone and the command for the rest", i+1, clip(all))
		}
	}
	out := at(tb, "bob", "/history before:#258", now)
	if !out.Ephemeral || !regexp.MustCompile(`Slow down: this /history page reads 257 events of history \(10\.\d MiB, 3\d\d units`).MatchString(out.Content) {
		t.Errorf("the fourth page at once: %q; want a slow-down naming what it reads", out.Content)
	}
	if out := at(tb, "cat", "/history before:#258", now); out.Ephemeral {
		t.Errorf("another user's page: %q; want it to pass", out.Content)
	}
}

// clip shortens a reply of long events for a failure message.
func clip(s string) string {
	return regexp.MustCompile(`x{20,}`).ReplaceAllString(s, "xxx…")
}

// TestUndoIsPaidFor: an /undo pays for reading the event it reverts
// before it reads it: ann's change of Lister lies under 300 of the GM's
// events of 40 KiB, so reading it parses 255 events (from the checkpoint
// at #256), about 320 units; with less left of her allowance she is told
// to slow down and nothing is changed, and a minute later it passes.
func TestUndoIsPaidFor(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`)) // #2
	tb.OK(tb.Do("!gm", `/char create name:Goblin stats:"class=fighter level=1 hp=4"`)) // #3
	tb.OK(tb.Do("ann", `/char set name:Lister stats:"hp=5"`))                          // #4
	gmEvents(t, tb, 2, 300, 40<<10)                                                    // #5 … #304
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for range 8 { // 800 units
		tb.Dice.Push(repeatFace(3, 100)...)
		if out := at(tb, "ann", "/roll expr:100d6", now); out.Ephemeral {
			t.Fatalf("a roll of 100 dice: %q", out.Content)
		}
	}
	out := at(tb, "ann", "/undo", now)
	if !out.Ephemeral || !regexp.MustCompile(`Slow down: this /undo reads 25\d events of history \(9\.\d MiB, 3\d\d units`).MatchString(out.Content) {
		t.Errorf("/undo with 200 units left: %q; want a slow-down naming what it reads", out.Content)
	}
	wantIn(t, tb.OK(tb.Do("!gm", "/char show name:Lister")), "5/8")
	wantIn(t, at(tb, "ann", "/undo", now.Add(time.Minute)).Content, "Undid `#4`")
}

// repeatFace returns n dice showing face.
func repeatFace(face, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = face
	}
	return out
}

// wantIn fails t unless got holds want.
func wantIn(t *testing.T, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("got %q; want %q in it", got, want)
	}
}
