// Command bigfile writes a large hpkeeper database for the measurements of
// BENCHMARKS.md ("Issue 26"): tables in guilds of every shard, five
// characters each and a history of events of 0.5-1 KB of random text, until
// the file reaches -size bytes. It is not part of the build (testdata):
//
//	go run ./storage/testdata/bigfile -db big.db -size 1073741824
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"time"

	"github.com/hpkeeper/hpkeeper/storage"
)

func main() {
	path := flag.String("db", "big.db", "the database file to write (created)")
	size := flag.Int64("size", 1<<30, "stop once the file is this many bytes")
	events := flag.Int("events", 100, "events per table")
	flag.Parse()
	db, err := storage.Open(*path, storage.Options{CacheBytes: -1})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	const letters = "abcdefghijklmnopqrstuvwxyz      ,."
	text := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	t0 := time.Date(2025, 3, 1, 20, 0, 0, 0, time.UTC)
	for i := 0; ; i++ {
		fi, err := os.Stat(*path)
		if err != nil {
			log.Fatal(err)
		}
		if i%500 == 0 {
			fmt.Fprintf(os.Stderr, "%d tables, %d MiB\n", i, fi.Size()>>20)
		}
		if fi.Size() >= *size {
			return
		}
		guild := fmt.Sprint(uint64(1300000000+i)<<22 | uint64(i%4096))
		channel := fmt.Sprint(uint64(1400000000+i)<<22 | 7)
		err = db.Update(func(tx *storage.Tx) error {
			t := &storage.Table{ChannelID: channel, GuildID: guild, System: "hit-protection", SetupBy: "u1", GMs: []string{"u1"}, Options: map[string]string{}, CreatedAt: t0}
			if err := tx.PutTable(t); err != nil {
				return err
			}
			var cs []*storage.Character
			for k := 0; k < 5; k++ {
				sheet, _ := json.Marshal(map[string]any{"class": "fighter", "hp": 10 + k, "hit_die": 8})
				c := &storage.Character{ChannelID: channel, Name: fmt.Sprintf("Character %d", k), OwnerID: "u1", OwnerName: "p", CreatedAt: t0, Sheet: sheet}
				if err := tx.CreateCharacter(c); err != nil {
					return err
				}
				cs = append(cs, c)
			}
			for e := 0; e < *events; e++ {
				before := *cs[e%5]
				after := before
				after.Sheet, _ = json.Marshal(map[string]any{"class": "fighter", "hp": e % 20, "hit_die": 8})
				if err := tx.PutCharacter(&after); err != nil {
					return err
				}
				err := tx.AppendEvent(&storage.Event{ChannelID: channel, At: t0.Add(time.Duration(e) * time.Minute), UserID: "u1",
					Command: "/damage target:x amount:3", Summary: text(500 + rng.IntN(500)), Dice: []string{"1d6 [3] = 3"},
					Changes: []storage.Change{{CharacterID: before.ID, Name: before.Name, Before: &before, After: &after}}})
				if err != nil {
					return err
				}
				*cs[e%5] = after
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
}
