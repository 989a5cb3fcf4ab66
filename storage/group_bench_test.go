package storage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// benchCommand is one typical state-changing command at table n: read a
// character, put it back changed and append the event holding its before
// and after states, in one Update.
func benchCommand(db *DB, n, i int) error {
	ch := fmt.Sprintf("t%d", n)
	return db.Update(func(tx *Tx) error {
		if _, err := tx.Table(ch); err != nil {
			return err
		}
		before, err := tx.CharacterByName(ch, "rimmer")
		if err != nil {
			return err
		}
		after := *before
		after.Sheet = sheet(i % 8)
		if err := tx.PutCharacter(&after); err != nil {
			return err
		}
		return tx.AppendEvent(&Event{
			ChannelID: ch, At: t0, UserID: "u-gm",
			Command: "/damage target:Rimmer amount:1d4",
			Summary: fmt.Sprintf("Rimmer takes %d", i%4+1),
			Dice:    []string{"1d4 [3] = 3"},
			Changes: []Change{{CharacterID: before.ID, Name: before.Name, Before: before, After: &after}},
		})
	})
}

// BenchmarkUpdateParallel runs typical commands from 50 goroutines (on two
// cores: SetParallelism(25)) over 1,000 tables, all durable: the group commit
// path. commits/op is how many fsynced commits each command cost.
func BenchmarkUpdateParallel(b *testing.B) {
	db := mustOpen(b)
	const tables = 1000
	for n := range tables {
		setupTable(b, db, fmt.Sprintf("t%d", n), "Lister", "Rimmer", "Kryten", "Cat", "Holly")
	}
	var seq atomic.Int64
	groups0, pages0, size0 := db.w.groups.Load(), pageWrites(db), dataBytes(b, db)
	b.SetParallelism(25)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(uint64(seq.Add(1)), 7))
		for pb.Next() {
			if err := benchCommand(db, r.IntN(tables), int(seq.Add(1))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(db.w.groups.Load()-groups0)/float64(b.N), "commits/op")
	b.ReportMetric(float64(pageWrites(db)-pages0)/float64(b.N), "writes/op")
	b.ReportMetric(float64(dataBytes(b, db)-size0)/float64(b.N), "file-B/op")
}

// BenchmarkUpdateSerial is the same command from one goroutine: one commit
// per command, the latency a lone command sees.
func BenchmarkUpdateSerial(b *testing.B) {
	db := mustOpen(b)
	const tables = 1000
	for n := range tables {
		setupTable(b, db, fmt.Sprintf("t%d", n), "Lister", "Rimmer", "Kryten", "Cat", "Holly")
	}
	b.ReportAllocs()
	pages0 := pageWrites(db)
	i := 0
	for b.Loop() {
		i++
		if err := benchCommand(db, i%tables, i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(pageWrites(db)-pages0)/float64(b.N), "writes/op")
}

// BenchmarkScale measures one typical read (a character by name) and one
// typical durable command at 100 and at 100,000 characters (20 and 20,000
// tables of 5): the per-command cost should not grow with the file.
func BenchmarkScale(b *testing.B) {
	for _, tables := range []int{20, 20000} {
		db := mustOpen(b)
		names := []string{"Lister", "Rimmer", "Kryten", "Cat", "Holly"}
		for start := 0; start < tables; start += 1000 {
			mustUpdate(b, db, func(tx *Tx) error {
				for n := start; n < min(start+1000, tables); n++ {
					ch := fmt.Sprintf("t%d", n)
					if err := tx.PutTable(newTable(ch)); err != nil {
						return err
					}
					for i, name := range names {
						if err := tx.CreateCharacter(newCharacter(ch, name, i+3)); err != nil {
							return err
						}
					}
				}
				return nil
			})
		}
		// Warm up as a running server is: every page read once (mapped and
		// in the page cache), so the first touch of a page is not timed.
		mustView(b, db, func(tx *Tx) error {
			for n := range tables {
				if _, err := tx.Characters(fmt.Sprintf("t%d", n)); err != nil {
					return err
				}
			}
			return nil
		})
		label := fmt.Sprintf("chars=%d", tables*len(names))
		b.Run(label+"/read", func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for b.Loop() {
				err := db.View(func(tx *Tx) error {
					_, err := tx.CharacterByName(fmt.Sprintf("t%d", r.IntN(tables)), "kryten")
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(label+"/write", func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			pages0 := pageWrites(db)
			i := 0
			for b.Loop() {
				i++
				if err := benchCommand(db, r.IntN(tables), i); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(pageWrites(db)-pages0)/float64(b.N), "writes/op")
			b.ReportMetric(float64(freePages(db)), "free-pages")
		})
	}
}

// pageWrites is how many writes db's commits have issued so far (bbolt's
// TxStats.Write): one per dirty node (a page, or a run of overflow pages)
// and one per meta page. writes/op in these benchmarks is this per command.
func pageWrites(db *DB) int64 {
	st := db.bolt.Stats()
	return st.TxStats.GetWrite()
}

// freePages is how many pages db's freelist holds, free or pending.
func freePages(db *DB) int {
	st := db.bolt.Stats()
	return st.FreePageN + st.PendingPageN
}

// BenchmarkDiskScatteredCommit is the disk alone doing what one bbolt commit
// of a typical command does at scale (BenchmarkScale's write: about 9
// writes/op, the meta page's included): 8 pages of 4 KiB written at random
// places in the file, fdatasync, the meta page written,
// fdatasync. It runs in a 4 MiB file (the size of a 100-character database)
// and in a 400 MiB one (a 100,000-character one, see BenchmarkScale): the
// ratio between the two is what the disk itself adds at scale, whatever the
// code above it does. The files go in b.TempDir(), where the other storage
// benchmarks put their databases; the 400 MiB one is written in full once
// per run.
func BenchmarkDiskScatteredCommit(b *testing.B) {
	const pageSize = 4096
	for _, mib := range []int{4, 400} {
		b.Run(fmt.Sprintf("file=%dMiB", mib), func(b *testing.B) {
			f, err := os.Create(filepath.Join(b.TempDir(), "scatter.dat"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			chunk := make([]byte, 1<<20)
			for i := range chunk {
				chunk[i] = byte(i * 7)
			}
			for i := range mib { // allocate every block, as a grown bbolt file has
				if _, err := f.WriteAt(chunk, int64(i)<<20); err != nil {
					b.Fatal(err)
				}
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
			pages := int64(mib) << 20 / pageSize
			page := chunk[:pageSize]
			r := rand.New(rand.NewPCG(3, 4))
			for b.Loop() {
				for range 8 {
					if _, err := f.WriteAt(page, (2+r.Int64N(pages-2))*pageSize); err != nil {
						b.Fatal(err)
					}
				}
				if err := fdatasync(f); err != nil {
					b.Fatal(err)
				}
				if _, err := f.WriteAt(page, 0); err != nil {
					b.Fatal(err)
				}
				if err := fdatasync(f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// dataBytes is the size of the pages db's file uses (bbolt's high-water
// mark, not the file's preallocated length), in bytes.
func dataBytes(tb testing.TB, db *DB) int64 {
	tb.Helper()
	var n int64
	if err := db.bolt.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil }); err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkHistoryPage reads a /history page, the 10 newest events of a
// table, from 50 goroutines over 1,000 tables of 5 characters and 20
// events each: the read that comes from the file, not the state cache.
func BenchmarkHistoryPage(b *testing.B) {
	db := mustOpen(b)
	const tables, events = 1000, 20
	for n := range tables {
		setupTable(b, db, fmt.Sprintf("t%d", n), "Lister", "Rimmer", "Kryten", "Cat", "Holly")
	}
	var wg sync.WaitGroup
	for w := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := w; n < tables; n += 50 {
				for i := range events {
					if err := benchCommand(db, n, i); err != nil {
						b.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	var seq atomic.Int64
	b.SetParallelism(25)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(uint64(seq.Add(1)), 11))
		for pb.Next() {
			ch := fmt.Sprintf("t%d", r.IntN(tables))
			got := 0
			err := db.View(func(tx *Tx) error {
				return tx.EachEventBackward(ch, func(*Event) (bool, error) {
					got++
					return got < 10, nil
				})
			})
			if err != nil || got != 10 {
				b.Errorf("history of %s: %d events, %v", ch, got, err)
				return
			}
		}
	})
}
