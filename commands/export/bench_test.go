package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/commands"
	"github.com/hpkeeper/hpkeeper/commands/commandstest"
	"github.com/hpkeeper/hpkeeper/commands/export"
	"github.com/hpkeeper/hpkeeper/rules/dice"
)

// largeStats is the hp-mp-wp sheet whose 90-day advance writes the
// largest event (commands' worstStats).
const largeStats = "class=sorcerer level=40 hp-max=9999 str=50 dex=50 con=50 int=50 wis=50 cha=50 fort=40 will=40 feats=endurance,die-hard"

// benchClock hands out request times a minute apart, so that no work
// allowance runs out.
type benchClock struct {
	mu sync.Mutex
	at time.Time
	n  int
}

// req returns a request of user in channel ch for line.
func (c *benchClock) req(tb *commandstest.Table, ch, user, line string) *commands.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(time.Minute)
	c.n++
	r := tb.Request(user, line)
	r.ChannelID, r.Now, r.InteractionID = ch, c.at, fmt.Sprint("bench-", c.n)
	return r
}

// exportFile returns the largest export file (up to MaxFileSize): a table
// of 49 characters of largeStats whose history repeats its 90-day advance.
func exportFile(b *testing.B, tb *commandstest.Table, c *benchClock) []byte {
	b.Helper()
	do := func(ch, user, line string) *commands.Response {
		resp := tb.Svc.Handle(context.Background(), c.req(tb, ch, user, line))
		if resp.Ephemeral && len(resp.Files) == 0 {
			b.Fatalf("%s: %s", line, resp.Content)
		}
		return resp
	}
	do("seed", "!gm", "/table setup system:hp-mp-wp")
	for i := range commands.MaxCharacters - 1 {
		do("seed", "!gm", fmt.Sprintf(`/char create name:W%02d stats:"%s"`, i, largeStats))
	}
	do("seed", "!gm", "/clock action:advance amount:90 unit:days")
	var ex export.File
	if err := json.Unmarshal(do("seed", "!gm", "/table export").Files[0].Data, &ex); err != nil {
		b.Fatal(err)
	}
	return commandstest.GrowExport(b, &ex, commands.MaxFileSize-64<<10)
}

// BenchmarkWritesBesideExport is issue 26's "stalls beside the writer":
// while one GM exports (or imports) the largest table again and again,
// each op is one small write at another table (a /damage, timed from
// request to reply, then its /undo untimed). p50-ms, p99-ms and max-ms are
// the small write's latency, over-50ms-% the share of them past the 50 ms
// bound; runs counts the exports or imports meanwhile. "alone" is the
// same write with nothing beside it.
func BenchmarkWritesBesideExport(b *testing.B) {
	db := commandstest.OpenDB(b)
	s := commands.New(db, dice.NewRandom(26), commandstest.Systems(), commandstest.Features()...)
	tb := &commandstest.Table{T: b, Svc: s, DB: db, Channel: "seed"}
	c := &benchClock{at: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	data := exportFile(b, tb, c)
	b.Logf("export file: %d bytes", len(data))
	importInto := func(ch string) *commands.Response {
		r := c.req(tb, ch, "!gm", "/table import file:t.json")
		r.Attachments = map[string]*commands.Attachment{"file": {Filename: "t.json", Data: data}}
		return s.Handle(context.Background(), r)
	}
	if resp := importInto("big"); resp.Ephemeral {
		b.Fatal(resp.Content)
	}
	small := func(line string) {
		if resp := s.Handle(context.Background(), c.req(tb, "small", "!gm", line)); resp.Ephemeral {
			b.Fatalf("%s: %s", line, resp.Content)
		}
	}
	small("/table setup system:hit-protection")
	small(`/char create name:Bob stats:"class=fighter level=3 hit-die=d10"`)
	var imports atomic.Int64
	for _, bc := range []struct {
		name string
		run  func() // one export or import; nil: nothing beside
	}{
		{"alone", nil},
		{"export-8MiB", func() {
			if resp := s.Handle(context.Background(), c.req(tb, "big", "!gm", "/table export")); len(resp.Files) != 1 {
				b.Errorf("export: %s", resp.Content)
			}
		}},
		{"import-8MiB", func() {
			if resp := importInto(fmt.Sprint("imported-", imports.Add(1))); resp.Ephemeral {
				b.Errorf("import: %s", resp.Content)
			}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			runs := 0
			if bc.run != nil {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						bc.run()
						runs++
					}
				}()
			}
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				small("/damage target:Bob amount:1")
				lat = append(lat, time.Since(start))
				b.StopTimer()
				small("/undo")
				time.Sleep(2 * time.Millisecond) // let the other command run
				b.StartTimer()
			}
			close(stop)
			wg.Wait()
			slices.Sort(lat)
			over := 0
			for _, d := range lat {
				if d > 50*time.Millisecond {
					over++
				}
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
			b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
			b.ReportMetric(100*float64(over)/float64(len(lat)), "over-50ms-%")
			b.ReportMetric(float64(runs), "runs")
		})
	}
}
