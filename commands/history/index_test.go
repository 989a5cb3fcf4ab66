package history_test

import (
	"regexp"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/history"
)

// TestUndoFindsByTheIndex is issue 26's "a read that costs seconds for
// free": a player's /undo with nothing of theirs to undo, at a table of
// 600 events, walked the history (every event decoded); now it asks the
// history's index and reads no event. A player whose own event lies
// under 300 of the GM's reads it alone (from the nearest checkpoint: at
// most 257 events parsed), and a GM's /undo of the newest reads one.
func TestUndoFindsByTheIndex(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`)) // #2
	tb.OK(tb.Do("!gm", `/char create name:Goblin stats:"class=fighter level=1 hp=4"`)) // #3
	gmEvents(t, tb, 2, 300, 100)                                                       // #4 … #303
	tb.OK(tb.Do("ann", `/char set name:Lister stats:"hp=5"`))                          // #304
	gmEvents(t, tb, 2, 300, 100)                                                       // #305 … #604

	parsed := func(f func()) int64 {
		before := tb.DB.EventsParsed()
		f()
		return tb.DB.EventsParsed() - before
	}
	if n := parsed(func() { tb.Refused(tb.Do("bob", "/undo"), "nothing here that you can undo") }); n != 0 {
		t.Errorf("a player with nothing to undo at a table of 604 events: %d events parsed; want none (the index)", n)
	}
	if n := parsed(func() { wantIn(t, tb.OK(tb.Do("ann", "/undo")), "#304") }); n != 210 {
		t.Errorf("ann's /undo of #304: %d events parsed; want it read alone, from the checkpoint at #512 (210)", n)
	}
	// Her #2 is now past the window of 500 events.
	if n := parsed(func() { tb.Refused(tb.Do("ann", "/undo"), "among the latest 500 events") }); n != 0 {
		t.Errorf("ann's second /undo: %d events parsed; want none", n)
	}
	if n := parsed(func() { wantIn(t, tb.OK(tb.Do("!gm", "/undo")), "#604") }); n != 2 {
		t.Errorf("the GM's /undo of #604, under ann's undo: %d events parsed; want 2", n)
	}
}

// TestUndoWritesWithoutParsing: /undo's write transaction, which runs
// in the single writer, parses no stored event (issue 29): it asks the
// index again by sequence numbers and reverts the event read before, in a
// read transaction, whatever that read cost.
func TestUndoWritesWithoutParsing(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`)) // #2
	tb.OK(tb.Do("!gm", `/char create name:Goblin stats:"class=fighter level=1 hp=4"`)) // #3
	tb.OK(tb.Do("ann", `/char set name:Lister stats:"hp=5"`))                          // #4
	gmEvents(t, tb, 2, 300, 100)                                                       // #5 … #304
	var looked int64
	t.Cleanup(history.SetUndoLooked(func() { looked = tb.DB.EventsParsed() }))
	for _, tc := range []struct{ user, want string }{
		{"ann", "#4"},   // under 300 of the GM's: read from the checkpoint at #256
		{"!gm", "#304"}, // the newest that is no undo
		{"!gm", "#303"}, // under an undo and the event it undid
	} {
		looked = -1
		wantIn(t, tb.OK(tb.Do(tc.user, "/undo")), tc.want)
		if looked < 0 {
			t.Fatalf("%s's /undo of %s did not look first", tc.user, tc.want)
		}
		if n := tb.DB.EventsParsed() - looked; n != 0 {
			t.Errorf("%s's /undo of %s: %d events parsed in the write transaction; want none", tc.user, tc.want, n)
		}
	}
}

// TestHistoryFiltersByTheIndex is the same failure of /history target:
// and user: (issue 14, issue 26): a page of a character's or a user's
// events looked through up to 1,000 events, decoding each; now the index
// chooses the page and only its events are read.
func TestHistoryFiltersByTheIndex(t *testing.T) {
	tb := newTable(t)
	tb.OK(tb.Do("!gm", "/table setup system:hit-protection"))
	tb.OK(tb.Do("ann", `/char create name:Lister stats:"class=fighter level=3 hp=6"`)) // #2
	tb.OK(tb.Do("!gm", `/char create name:Goblin stats:"class=fighter level=1 hp=4"`)) // #3
	tb.OK(tb.Do("ann", `/char create name:Kryten stats:"class=fighter level=1 hp=4"`)) // #4
	gmEvents(t, tb, 2, 700, 100)                                                       // #5 … #704
	parsed := func(f func()) int64 {
		before := tb.DB.EventsParsed()
		f()
		return tb.DB.EventsParsed() - before
	}
	seqs := func(out string) []string { return regexp.MustCompile("`#(\\d+)`").FindAllString(out, -1) }
	var page string
	if n := parsed(func() { page = tb.OK(tb.Do("bob", "/history target:Lister")) }); n != 256 {
		t.Errorf("/history target:Lister: %d events parsed; want 256: its only event, #2, read from the checkpoint at #256", n)
	}
	if got := seqs(page); len(got) != 1 || got[0] != "`#2`" {
		t.Errorf("/history target:Lister = %v; want its creation, #2", got)
	}
	if n := parsed(func() { page = tb.OK(tb.Do("bob", "/history user:ann")) }); n != 256 {
		t.Errorf("/history user:ann: %d events parsed; want 256: her two events read in one walk from the checkpoint at #256", n)
	}
	if got := seqs(page); len(got) != 2 || got[0] != "`#4`" {
		t.Errorf("/history user:ann = %v; want #4 and #2", got)
	}
	if n := parsed(func() { page = tb.OK(tb.Do("bob", "/history target:Goblin user:ann")) }); n != 0 {
		t.Errorf("/history target:Goblin user:ann: %d events parsed; want none", n)
	}
	wantIn(t, page, "No events here touching Goblin, by <@ann>")
}
