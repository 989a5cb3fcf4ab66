package history_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// largeStats is the hp-mp-wp sheet whose 90-day advance writes the largest
// event (commands' worstStats): 49 of them make each advance an event of
// 49 characters before and after.
const largeStats = "class=sorcerer level=40 hp-max=9999 str=50 dex=50 con=50 int=50 wis=50 cha=50 fort=40 will=40 feats=endurance,die-hard"

// largeHistory returns a service over a fresh file with one table, "w", of
// 49 characters of largeStats owned by the GM, whose history is events
// copies of its largest 90-day advance: issue 26's "table with 500+ large
// events". Requests are a minute apart from at on.
func largeHistory(b *testing.B, events int) (*commands.Service, *storage.DB, func(user, line string) *commands.Request) {
	b.Helper()
	db := commandstest.OpenDB(b)
	s := commands.New(db, dice.NewRandom(26), commandstest.Systems(), commandstest.Features()...)
	tb := &commandstest.Table{T: b, Svc: s, DB: db, Channel: "w"}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	req := func(user, line string) *commands.Request {
		r := tb.Request(user, line)
		at = at.Add(time.Minute)
		r.Now = at
		r.InteractionID = fmt.Sprint(at.UnixNano())
		return r
	}
	do := func(user, line string) {
		if resp := s.Handle(context.Background(), req(user, line)); resp.Ephemeral {
			b.Fatalf("%s: %s", line, resp.Content)
		}
	}
	do("!gm", "/table setup system:hp-mp-wp")
	for i := range commands.MaxCharacters - 1 {
		do("!gm", fmt.Sprintf(`/char create name:W%02d stats:"%s"`, i, largeStats))
	}
	do("!gm", "/clock action:advance amount:90 unit:days")
	err := db.Update(func(tx *storage.Tx) error {
		seq, err := tx.LastEventSeq("w")
		if err != nil {
			return err
		}
		advance, err := tx.Event("w", seq)
		if err != nil {
			return err
		}
		for range events - 1 {
			e := *advance
			if err := tx.AppendEvent(&e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return s, db, req
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReadCost is what issue 26 found a player's read could cost for
// free at a table of 600 large events (each a 90-day advance of 49
// characters): /undo with nothing of theirs to undo, and /history target:
// of a character no event touches. cpu-ms/op is the process's CPU time per
// command (every goroutine's: on a busy machine, wall time says little).
func BenchmarkReadCost(b *testing.B) {
	s, _, req := largeHistory(b, 600)
	ctx := context.Background()
	do := func(user, line string) *commands.Response {
		return s.Handle(ctx, req(user, line))
	}
	if resp := do("!gm", `/char create name:Nobody stats:"hp-max=10"`); resp.Ephemeral {
		b.Fatal(resp.Content)
	}
	for _, c := range []struct{ name, user, line, want string }{
		{"undo-by-player-with-nothing", "player", "/undo", "nothing here that you can undo"},
		{"history-target-w00", "player", "/history target:W00", "#"},
		{"history-target-nobody", "player", "/history target:Nobody", "/char create"},
		{"history-user-gm-page-5", "player", "/history user:gm page:5", "#"},
	} {
		b.Run(c.name, func(b *testing.B) {
			start := cpuTime(b)
			for b.Loop() {
				if resp := do(c.user, c.line); !strings.Contains(resp.Content, c.want) {
					b.Fatalf("%s: %s", c.line, resp.Content)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
