package commands_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// benchService opens a service over a fresh bbolt file (durable commits, as
// in production) rolling seeded random dice.
func benchService(b *testing.B) *commands.Service {
	b.Helper()
	return commands.New(commandstest.OpenDB(b), dice.NewRandom(1), allSystems, commandstest.Features()...)
}

// benchReq is the request for cmd (command, subcommand, options as
// name:value words) at channel ch by a GM.
func benchReq(ch, cmd string, opts ...string) *commands.Request {
	name, sub, _ := strings.Cut(cmd, " ")
	r := &commands.Request{Kind: commands.KindCommand, ChannelID: ch, GuildID: "g1", UserID: "gm", UserName: "GM",
		Permissions: commands.ManageChannels, Command: name, Subcommand: sub, Options: map[string]string{}}
	for _, o := range opts {
		k, v, _ := strings.Cut(o, ":")
		r.Options[k] = v
	}
	return r
}

// mustHandle answers r and fails on a refusal.
func mustHandle(b *testing.B, s *commands.Service, r *commands.Request) *commands.Response {
	b.Helper()
	resp := s.Handle(context.Background(), r)
	if resp.Ephemeral {
		b.Fatalf("/%s %s %v refused: %s", r.Command, r.Subcommand, r.Options, resp.Content)
	}
	return resp
}

// benchSystems are the three systems with stats that survive many hits.
var benchSystems = []struct{ name, stats, damage string }{
	{"hit-protection", "level=3 hit-die=d10", "amount:1d4"},
	{"hp-mp-wp", "hp-max=30 class=fighter con=14", "amount:1d4"},
	{"harm", "endure=2 react=1 first-aid=2 vigor=4", "amount:1 kind:physical"},
}

// setupBenchTables creates n tables of sys with 5 characters each.
func setupBenchTables(b *testing.B, s *commands.Service, sys string, stats string, n int) {
	b.Helper()
	for t := range n {
		ch := fmt.Sprintf("ch%d", t)
		mustHandle(b, s, benchReq(ch, "table setup", "system:"+sys))
		for _, name := range []string{"Ann", "Bob", "Cid", "Dee", "Eve"} {
			mustHandle(b, s, benchReq(ch, "char create", "name:"+name, "stats:"+stats))
		}
	}
}

// BenchmarkDamage is each system's damage path through Service.Handle: one
// /damage and its /undo (so the character never runs out of HP), each one
// durable Update. ns/op is for the pair (mostly the two commits' fsyncs);
// writer-fn-µs/op is the time the writer spent running the pair's
// functions (storage.WriterStats.Functions), the CPU a write costs the
// single writer before its commit. More than about 450 pairs a run spend
// the GM's work allowance: run it -benchtime 300x.
func BenchmarkDamage(b *testing.B) {
	for _, sys := range benchSystems {
		b.Run(sys.name, func(b *testing.B) {
			s := benchService(b)
			setupBenchTables(b, s, sys.name, sys.stats, 1)
			opts := append([]string{"target:Bob"}, strings.Fields(sys.damage)...)
			db := s.DB().(*storage.DB)
			st0 := db.WriterStats()
			b.ReportAllocs()
			for b.Loop() {
				mustHandle(b, s, benchReq("ch0", "damage", opts...))
				mustHandle(b, s, benchReq("ch0", "undo"))
			}
			fn := db.WriterStats().Functions - st0.Functions
			b.ReportMetric(float64(fn.Microseconds())/float64(b.N), "writer-fn-µs/op")
		})
	}
}

// BenchmarkDamageParallel is BenchmarkDamage from 50 goroutines over 50
// tables: the group commit shares each fsync between the commands queued
// behind it.
func BenchmarkDamageParallel(b *testing.B) {
	for _, sys := range benchSystems {
		b.Run(sys.name, func(b *testing.B) {
			s := benchService(b)
			const tables = 50
			setupBenchTables(b, s, sys.name, sys.stats, tables)
			opts := append([]string{"target:Bob"}, strings.Fields(sys.damage)...)
			next := make(chan int, tables)
			for t := range tables {
				next <- t
			}
			b.SetParallelism(25)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ch := fmt.Sprintf("ch%d", <-next) // one table per goroutine
				for pb.Next() {
					mustHandle(b, s, benchReq(ch, "damage", opts...))
					mustHandle(b, s, benchReq(ch, "undo"))
				}
			})
		})
	}
}

// BenchmarkRead is the read-only commands through Service.Handle: after
// the first, each is answered from the memo of replies (ready.go).
func BenchmarkRead(b *testing.B) {
	s := benchService(b)
	setupBenchTables(b, s, "hp-mp-wp", benchSystems[1].stats, 1)
	benchRead(b, s)
}

// BenchmarkReadFresh is BenchmarkRead with no memo: every reply rendered,
// what a read costs the first time after a change.
func BenchmarkReadFresh(b *testing.B) {
	db := commandstest.OpenDB(b)
	setupBenchTables(b, commands.New(db, dice.NewRandom(1), allSystems, commandstest.Features()...), "hp-mp-wp", benchSystems[1].stats, 1)
	benchRead(b, commands.New(freshDB{db}, dice.NewRandom(1), allSystems, commandstest.Features()...))
}

// benchRead runs each read-only command at table ch0 of s as its GM.
func benchRead(b *testing.B, s *commands.Service) {
	// The simulated clock of the requests, shared by every invocation of the
	// sub-benchmarks so that it never goes back.
	now := time.Now()
	for _, c := range []struct{ name, cmd, opt string }{
		{"char-show", "char show", "name:Cid"},
		{"table-show", "table show", ""},
		{"char-list", "char list", ""},
		{"history", "history", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			var opts []string
			if c.opt != "" {
				opts = []string{c.opt}
			}
			b.ReportAllocs()
			for b.Loop() {
				r := benchReq("ch0", c.cmd, opts...)
				// /history is rate-limited per user (history.Cost units of
				// WorkPerMinute): each request comes 3 s after the last.
				now = now.Add(3 * time.Second)
				r.Now = now
				mustHandle(b, s, r)
			}
		})
	}
}

// scaleService returns a service whose file holds tables × 5 hp-mp-wp
// characters: one table set up through the service, then copied (records
// as the service wrote them) to the other channels in large transactions.
func scaleService(b *testing.B, tables int) *commands.Service {
	b.Helper()
	db := commandstest.OpenDB(b)
	s := commands.New(db, dice.NewRandom(1), allSystems, commandstest.Features()...)
	setupBenchTables(b, s, "hp-mp-wp", benchSystems[1].stats, 1)
	var table *storage.Table
	var chars []*storage.Character
	err := db.View(func(tx *storage.Tx) error {
		var err error
		if table, err = tx.Table("ch0"); err != nil {
			return err
		}
		chars, err = tx.Characters("ch0")
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	for start := 1; start < tables; start += 1000 {
		err := db.Update(func(tx *storage.Tx) error {
			for n := start; n < min(start+1000, tables); n++ {
				t := *table
				t.ChannelID = fmt.Sprintf("ch%d", n)
				if err := tx.PutTable(&t); err != nil {
					return err
				}
				for _, c := range chars {
					c := *c
					c.ChannelID = t.ChannelID
					if err := tx.CreateCharacter(&c); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	// Read every table once, as a server that has been running has.
	for n := range tables {
		mustHandle(b, s, benchReq(fmt.Sprintf("ch%d", n), "char list"))
	}
	return s
}

// BenchmarkScale is the per-command cost at 100 and at 100,000 characters
// (20 and 20,000 tables of 5), at a random table each time: /char show, and
// /damage with its /undo (durable).
func BenchmarkScale(b *testing.B) {
	for _, tables := range []int{20, 20000} {
		s := scaleService(b, tables)
		label := fmt.Sprintf("chars=%d", tables*5)
		b.Run(label+"/char-show", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				mustHandle(b, s, benchReq(fmt.Sprintf("ch%d", (i*7919)%tables), "char show", "name:Cid"))
			}
		})
		b.Run(label+"/damage+undo", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				ch := fmt.Sprintf("ch%d", (i*7919)%tables)
				mustHandle(b, s, benchReq(ch, "damage", "target:Bob", "amount:1d4"))
				mustHandle(b, s, benchReq(ch, "undo"))
			}
		})
	}
}
