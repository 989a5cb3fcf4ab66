package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/export"
	"github.com/hpkeeper/hpkeeper/rules/dice"
	"github.com/hpkeeper/hpkeeper/storage"
)

// worstStats are, per system, the sheet that makes each command do the
// most work at its limits: in hp-mp-wp a character that stays awake and
// makes an exertion save almost every hour (Fort +40 and abilities of 50,
// so that it rarely fails and takes long to fall asleep; HP max 9,999 so
// that the largest damage leaves it standing); in hit-protection and harm
// the largest sheets.
var worstStats = map[string]string{
	"hp-mp-wp":       "class=sorcerer level=40 hp-max=9999 str=50 dex=50 con=50 int=50 wis=50 cha=50 fort=40 will=40 feats=endurance,die-hard",
	"hit-protection": "class=fighter level=20 hit-die=d12 hp=12",
	"harm":           "endure=6 react=6 willpower=6 first-aid=6 counsel=6 vigor=10 instinct=10 reason=10",
}

// changedStats are worstStats with one value changed, for /char set.
var changedStats = map[string]string{
	"hp-mp-wp":       strings.Replace(worstStats["hp-mp-wp"], "fort=40", "fort=39", 1),
	"hit-protection": strings.Replace(worstStats["hit-protection"], "hp=12", "hp=11", 1),
	"harm":           strings.Replace(worstStats["harm"], "vigor=10", "vigor=9", 1),
}

// worstClock is the simulated time of BenchmarkWorstCase's requests: a
// minute later at each, so that the per-user work limit never refuses one.
var worstClock = struct {
	sync.Mutex
	now time.Time
}{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}

// worstReq is benchReq a minute after the previous worstReq.
func worstReq(ch, cmd string, opts ...string) *commands.Request {
	r := benchReq(ch, cmd, opts...)
	worstClock.Lock()
	worstClock.now = worstClock.now.Add(time.Minute)
	r.Now = worstClock.now
	worstClock.Unlock()
	return r
}

// longAdvance is the options of a /clock advance of a day or more at a
// table of sys: at hp-mp-wp with awake:true, which keeps everyone awake
// as the worst case does, where the advance would otherwise ask first.
func longAdvance(sys string, amount, unit string) []string {
	opts := []string{"action:advance", amount, unit}
	if sys == "hp-mp-wp" {
		opts = append(opts, "awake:true")
	}
	return opts
}

// worstTable is a service over a fresh bbolt file (durable, as in
// production) rolling seeded dice, with one table of sys at channel "w"
// holding commands.MaxCharacters characters of worstStats, named W00 …
// W49; the GM is "gm".
func worstTable(b *testing.B, sys string) (*commands.Service, *storage.DB) {
	b.Helper()
	db := commandstest.OpenDB(b)
	s := commands.New(db, dice.NewRandom(14), allSystems, commandstest.Features()...)
	mustHandle(b, s, worstReq("w", "table setup", "system:"+sys))
	for i := range commands.MaxCharacters {
		mustHandle(b, s, worstReq("w", "char create", fmt.Sprintf("name:W%02d", i), "stats:"+worstStats[sys]))
	}
	return s, db
}

// deleteCharacter deletes the named character at channel ch as the GM,
// pressing Delete on the confirmation.
func deleteCharacter(b *testing.B, s *commands.Service, ch, name string) {
	b.Helper()
	resp := mustHandle(b, s, worstReq(ch, "char delete", "name:"+name))
	for _, row := range resp.Components {
		for _, btn := range row {
			if btn.Label == "Delete" {
				r := worstReq(ch, "")
				r.Kind, r.Command, r.CustomID = commands.KindComponent, "", btn.CustomID
				mustHandle(b, s, r)
				return
			}
		}
	}
	b.Fatalf("no Delete button in %+v", resp)
}

// allTargets is the `target` option naming every character of worstTable
// (50 names, 199 characters: within the option's 200).
func allTargets() string {
	names := make([]string, commands.MaxCharacters)
	for i := range names {
		names[i] = fmt.Sprintf("W%02d", i)
	}
	return "target:" + strings.Join(names, ",")
}

// writerTimer measures the writer's time (running the command functions
// and committing, storage.DB.WriterStats) of the commands it times.
type writerTimer struct {
	db        *storage.DB
	total, mx time.Duration
	fn, fnMax time.Duration // of which running the commands' functions
	n         int
}

// do runs f, a command whose writer time is to be counted alone.
func (w *writerTimer) do(f func()) {
	before := w.db.WriterStats()
	f()
	after := w.db.WriterStats()
	fn := after.Functions - before.Functions
	d := fn + after.Commits - before.Commits
	w.total += d
	w.mx = max(w.mx, d)
	w.fn += fn
	w.fnMax = max(w.fnMax, fn)
	w.n++
}

// report adds the writer time per command (mean and largest) to b, and
// the part of it spent running the command (the rest is the commit, the
// disk's).
func (w *writerTimer) report(b *testing.B) {
	if w.n == 0 {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(w.total)/float64(w.n), "writer-ms/op")
	b.ReportMetric(ms(w.mx), "writer-max-ms")
	b.ReportMetric(ms(w.fn)/float64(w.n), "fn-ms/op")
	b.ReportMetric(ms(w.fnMax), "fn-max-ms")
}

// BenchmarkWorstCase is every command at its limits (SECURITY.md, "Input
// limits"): the largest table (50 characters of the heaviest sheets), the
// longest advance (90 days), the most dice (100), the most targets (all
// 50), the largest import (8 MiB) and the reads over them. Beside ns/op,
// writer-ms/op and writer-max-ms are the single writer's time per command
// (running it and committing; 0 for reads), which every other table's
// writes wait behind. Commands that change what the next one sees are undone
// after each run, outside the measurement.
func BenchmarkWorstCase(b *testing.B) {
	ctx := context.Background()
	for _, sys := range []string{"hp-mp-wp", "hit-protection", "harm"} {
		s, db := worstTable(b, sys)
		// timed runs cmd (with an /undo after it when undo is set) as the
		// benchmark's op, its writer time measured.
		timed := func(name string, undo bool, cmd string, opts ...string) {
			b.Run(sys+"/"+name, func(b *testing.B) {
				w := &writerTimer{db: db}
				for b.Loop() {
					r := worstReq("w", cmd, opts...)
					var resp *commands.Response
					w.do(func() { resp = s.Handle(ctx, r) })
					if resp.Ephemeral {
						b.Fatalf("%s %v: %s", cmd, opts, resp.Content)
					}
					if undo {
						b.StopTimer()
						mustHandle(b, s, worstReq("w", "undo"))
						b.StartTimer()
					}
				}
				w.report(b)
			})
		}
		timed("clock-advance-90-days", true, "clock", longAdvance(sys, "amount:90", "unit:days")...)
		timed("clock-advance-2160-hours", true, "clock", longAdvance(sys, "amount:2160", "unit:hours")...)
		timed("clock-next-round", true, "clock", "action:next-round")
		switch sys {
		case "harm":
			timed("rest-day", true, "rest", "kind:day")
			timed("damage-50-targets-100d10", true, "damage", allTargets(), "amount:100d10", "kind:physical")
		case "hit-protection":
			// Damage that takes more than 5 characters to 0 HP is refused
			// (one message holds 5 choices): 50 targets of 1, and 5 of 100
			// dice.
			timed("rest-night", true, "rest", "kind:night")
			timed("damage-50-targets-1", true, "damage", allTargets(), "amount:1")
			timed("damage-5-targets-100d10", true, "damage", "target:W00,W01,W02,W03,W04", "amount:100d10")
		default:
			timed("rest-night", true, "rest", "kind:night")
			timed("damage-50-targets-100d10", true, "damage", allTargets(), "amount:100d10")
		}
		timed("roll-100d1000", false, "roll", "expr:100d1000")
		timed("roll-500-rerolls", false, "roll", "expr:100d10rr<9") // the most dice a roll may expect to roll (docs/dice.md §9)
		timed("char-set-every-stat", true, "char set", "name:W07", "stats:"+changedStats[sys])
		timed("char-list", false, "char list")
		timed("table-show", false, "table show")
		timed("history", false, "history")
		timed("odds-60-totals", false, "odds", "expr:59d2")
		timed("odds-reroll-pool", false, "odds", "expr:3d20rol1kh2") // about the most counting the odds of a chart do (docs/dice.md §10)
		b.Run(sys+"/undo-of-90-days", func(b *testing.B) {
			w := &writerTimer{db: db}
			for b.Loop() {
				b.StopTimer()
				mustHandle(b, s, worstReq("w", "clock", longAdvance(sys, "amount:90", "unit:days")...))
				b.StartTimer()
				w.do(func() { mustHandle(b, s, worstReq("w", "undo")) })
			}
			w.report(b)
		})
		b.Run(sys+"/char-create-at-49", func(b *testing.B) {
			w := &writerTimer{db: db}
			deleteCharacter(b, s, "w", "W49")
			for b.Loop() {
				w.do(func() { mustHandle(b, s, worstReq("w", "char create", "name:W49", "stats:"+worstStats[sys])) })
				b.StopTimer()
				mustHandle(b, s, worstReq("w", "undo"))
				b.StartTimer()
			}
			w.report(b)
		})
		b.Run(sys+"/autocomplete-at-50", func(b *testing.B) {
			for b.Loop() {
				r := worstReq("w", "damage", "target:W0")
				r.Kind, r.Focused = commands.KindAutocomplete, "target"
				if resp := s.Handle(ctx, r); len(resp.Choices) != 10 {
					b.Fatalf("autocomplete: %d choices", len(resp.Choices))
				}
			}
		})
	}
	importExport(b)
	b.Run("stall-script/clock-advance-90-days", func(b *testing.B) {
		// Issue 14's script: one character of "hp-max=10 mp-max=0" at a new
		// table; 10,000 days are refused, so its longest advance is 90.
		db := commandstest.OpenDB(b)
		s := commands.New(db, dice.NewRandom(14), allSystems, commandstest.Features()...)
		mustHandle(b, s, worstReq("dm", "table setup", "system:hp-mp-wp"))
		mustHandle(b, s, worstReq("dm", "char create", "name:Ox", "stats:hp-max=10 mp-max=0"))
		w := &writerTimer{db: db}
		for b.Loop() {
			w.do(func() {
				mustHandle(b, s, worstReq("dm", "clock", longAdvance("hp-mp-wp", "amount:90", "unit:days")...))
			})
			b.StopTimer()
			mustHandle(b, s, worstReq("dm", "undo"))
			b.StartTimer()
		}
		w.report(b)
	})
}

// importExport is BenchmarkWorstCase's /table import of the largest file
// (MaxFileSize) and what reads the table it makes: /table export and
// /history target: over a history none of whose events touch the target.
func importExport(b *testing.B) {
	ctx := context.Background()
	s, db := worstTable(b, "hp-mp-wp")
	// One 90-day advance is an event with the 50 characters before and
	// after; the file repeats it until it reaches the limit.
	mustHandle(b, s, worstReq("w", "clock", longAdvance("hp-mp-wp", "amount:90", "unit:days")...))
	gm := worstReq("w", "table export")
	resp := s.Handle(ctx, gm)
	var ex export.File
	if err := json.Unmarshal(resp.Files[0].Data, &ex); err != nil {
		b.Fatal(err)
	}
	advance := ex.Events[len(ex.Events)-1]
	var data []byte
	for step := 64; step > 0; step /= 2 {
		for {
			n := len(ex.Events)
			for range step {
				e := *advance
				e.Seq = uint64(len(ex.Events) + 1)
				ex.Events = append(ex.Events, &e)
			}
			next, err := json.MarshalIndent(ex, "", "  ")
			if err != nil {
				b.Fatal(err)
			}
			// Room for the export of the imported table, which adds a
			// character and its events.
			if len(next) > commands.MaxFileSize-64<<10 {
				ex.Events = ex.Events[:n]
				break
			}
			data = next
		}
	}
	b.Logf("import file: %d bytes, %d characters, %d events", len(data), len(ex.Characters), len(ex.Events))
	// The reads below go to a table imported here, whatever sub-benchmarks
	// run.
	imported := worstReq("imported0", "table import", "file:t.json")
	imported.Attachments = map[string]*commands.Attachment{"file": {Filename: "t.json", Data: data}}
	mustHandle(b, s, imported)
	n := 0
	b.Run("import-8MiB", func(b *testing.B) {
		w := &writerTimer{db: db}
		for b.Loop() {
			n++
			r := worstReq(fmt.Sprintf("imported%d", n), "table import", "file:t.json")
			r.Attachments = map[string]*commands.Attachment{"file": {Filename: "t.json", Data: data}}
			w.do(func() { mustHandle(b, s, r) })
		}
		w.report(b)
		b.ReportMetric(float64(len(data))/(1<<20), "MiB")
	})
	// A new character whom no event of the imported history touches: its
	// /history reads the whole window. At "window" the history is the
	// window's 1,000 events, each the largest advance.
	deleteCharacter(b, s, "imported0", "W49")
	mustHandle(b, s, worstReq("imported0", "char create", "name:Nobody", "stats:hp-max=10"))
	mustHandle(b, s, worstReq("window", "table setup", "system:hp-mp-wp"))
	err := db.Update(func(tx *storage.Tx) error {
		// Nobody gets id 101, which the copies (of characters 1 … 50) never
		// touch.
		if err := tx.SkipCharacterIDs("window", 100); err != nil {
			return err
		}
		for range 1000 {
			e := *advance
			e.ChannelID = "window"
			if err := tx.AppendEvent(&e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	mustHandle(b, s, worstReq("window", "char create", "name:Nobody", "stats:hp-max=10"))
	// A player with nothing to undo: /undo looks through the latest 500
	// events, each the largest advance, in a read transaction; the
	// writer's part is only the events written meanwhile.
	b.Run("undo-by-player-over-1000-advances", func(b *testing.B) {
		w := &writerTimer{db: db}
		for b.Loop() {
			r := worstReq("window", "undo")
			r.UserID, r.UserName, r.Permissions = "player", "player", 0
			w.do(func() {
				if resp := s.Handle(ctx, r); !strings.Contains(resp.Content, "nothing here that you can undo") {
					b.Fatalf("undo: %s", resp.Content)
				}
			})
		}
		w.report(b)
	})
	for _, c := range []struct {
		name, ch, cmd string
		opts          []string
	}{
		{"export-8MiB", "imported0", "table export", nil},
		{"history-target-over-8MiB", "imported0", "history", []string{"target:Nobody"}},
		{"history-target-over-1000-advances", "window", "history", []string{"target:Nobody"}},
		// A page of older events that starts as far above a checkpoint
		// as there can be (storage.Tx.EachEventBefore): 255 advances
		// stepped over, then the 513 below looked through.
		{"history-target-before-deep", "window", "history", []string{"target:Nobody", "before:#514"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				r := worstReq(c.ch, c.cmd, c.opts...)
				if resp := s.Handle(ctx, r); resp.Ephemeral && len(resp.Files) == 0 {
					b.Fatalf("%s: %s", c.cmd, resp.Content)
				}
			}
		})
	}
}

// BenchmarkWriteDuringAdvance measures what a write at another table waits
// while the longest clock advance runs: one goroutine advances a table by
// 90 days again and again (issue 14's stall script: one character of
// "hp-max=10 mp-max=0"; or the largest hp-mp-wp table), back to back or
// one advance every 100 ms; each op is one /damage at a small table, timed
// from request to reply. p50-ms, p99-ms and max-ms are its latency;
// advances counts the advances that ran meanwhile.
func BenchmarkWriteDuringAdvance(b *testing.B) {
	for _, c := range []struct {
		name  string
		chars int
		stats string
		pause time.Duration
	}{
		{"stall-script/back-to-back", 1, "hp-max=10 mp-max=0", 0},
		{"largest-table/back-to-back", commands.MaxCharacters, worstStats["hp-mp-wp"], 0},
		{"largest-table/every-100ms", commands.MaxCharacters, worstStats["hp-mp-wp"], 100 * time.Millisecond},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := commands.New(commandstest.OpenDB(b), dice.NewRandom(14), allSystems, commandstest.Features()...)
			mustHandle(b, s, worstReq("w", "table setup", "system:hp-mp-wp"))
			for i := range c.chars {
				mustHandle(b, s, worstReq("w", "char create", fmt.Sprintf("name:W%02d", i), "stats:"+c.stats))
			}
			setupBenchTables(b, s, "hp-mp-wp", benchSystems[1].stats, 1)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var advances int
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-time.After(c.pause):
					}
					mustHandle(b, s, worstReq("w", "clock", longAdvance("hp-mp-wp", "amount:90", "unit:days")...))
					advances++
				}
			}()
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				mustHandle(b, s, benchReq("ch0", "damage", "target:Bob", "amount:1"))
				lat = append(lat, time.Since(start))
				b.StopTimer()
				mustHandle(b, s, benchReq("ch0", "undo"))
				time.Sleep(time.Millisecond) // let the advance take the writer again
				b.StartTimer()
			}
			close(stop)
			wg.Wait()
			slices.Sort(lat)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
			b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
			b.ReportMetric(float64(advances), "advances")
		})
	}
}
