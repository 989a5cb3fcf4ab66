package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"
)

// snapshot reads every listed channel's table and characters.
func snapshot(tb testing.TB, db *DB, channels []string) map[string]state {
	tb.Helper()
	out := map[string]state{}
	for _, ch := range channels {
		out[ch] = readState(tb, db, ch)
	}
	return out
}

// TestCacheServesWhatTheFileHolds runs a random workload (seed printed,
// HPKEEPER_SEED to replay) of creates, puts with odd inputs (a sheet with
// spaces, an empty sheet, invalid UTF-8, times in other zones, nil and empty
// GMs and Options), renames, deletes and reverts through a cached database,
// and checks that every record read from the cache equals the one decoded
// from the file by a database that caches nothing, after a reopen.
func TestCacheServesWhatTheFileHolds(t *testing.T) { bothBackends(t, testCacheServesWhatTheFileHolds) }

func testCacheServesWhatTheFileHolds(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	channels := []string{"c1", "c2", "c3"}
	zone := time.FixedZone("UTC+5", 5*3600)
	for _, ch := range channels {
		tb := newTable(ch)
		switch rng.IntN(3) {
		case 0:
			tb.GMs, tb.Options = nil, nil
		case 1:
			tb.GMs, tb.Options = []string{}, map[string]string{}
		}
		tb.CreatedAt = time.Now().In(zone) // a monotonic reading and a zone
		mustUpdate(t, db, func(tx *Tx) error { return tx.PutTable(tb) })
	}
	sheets := [][]byte{[]byte(`{"hp": 3,  "class":"fighter"}`), nil, []byte{}, []byte(`{"note":"a<b & c>d"}`), []byte("null")}
	names := []string{"Lister", "Rimmer", "Kryten", "Cat", "Holly", "Kochanski", "bad\xffname", "Ace"}
	var events []*Event
	for range 300 {
		ch := channels[rng.IntN(len(channels))]
		err := db.Update(func(tx *Tx) error {
			chars, err := tx.Characters(ch)
			if err != nil {
				return err
			}
			switch op := rng.IntN(6); {
			case op == 0 || len(chars) == 0:
				c := newCharacter(ch, names[rng.IntN(len(names))], rng.IntN(9))
				c.Sheet = sheets[rng.IntN(len(sheets))]
				c.CreatedAt = time.Now().In(zone)
				err := tx.CreateCharacter(c)
				if errors.Is(err, ErrNameTaken) {
					return nil
				}
				return err
			case op == 1:
				return tx.DeleteCharacter(ch, chars[rng.IntN(len(chars))].ID)
			case op == 2:
				tb, err := tx.Table(ch)
				if err != nil {
					return err
				}
				before := *tb
				tb.Clock += int64(rng.IntN(100))
				tb.Options = map[string]string{"k": fmt.Sprint(rng.IntN(3))}
				tb.GMs = append(tb.GMs, "u\xfe")
				switch rng.IntN(4) {
				case 0:
					tb.Initiative = nil
				case 1:
					tb.Initiative = &Initiative{Combatants: []Combatant{}, Start: tb.Clock}
				default:
					tb.Initiative = &Initiative{Start: tb.Clock, Turn: 1, Joins: 2, Underway: rng.IntN(2) == 0, Combatants: []Combatant{
						{CharacterID: 7, Initiative: 12, Bonus: 1, Join: 2, Roll: "1d6+1 [5] + 6 = 12"},
						{CharacterID: 3, Initiative: 4, Join: 1, Roll: "given: 4 \xff", Hidden: true}}}
				}
				if err := tx.PutTable(tb); err != nil {
					return err
				}
				e := &Event{ChannelID: ch, At: t0, TableBefore: &before, TableAfter: tb}
				if err := tx.AppendEvent(e); err != nil {
					return err
				}
				events = append(events, e)
				return nil
			case op == 3 && len(events) > 0:
				e := events[len(events)-1]
				if e.ChannelID != ch {
					return nil
				}
				// A conflict or a taken name fails the function, which
				// then leaves nothing: the loop below carries on.
				if err := tx.RevertEvent(e); err != nil {
					return err
				}
				events = events[:len(events)-1]
				return nil
			default:
				c := chars[rng.IntN(len(chars))]
				before := *c
				c.Sheet = sheets[rng.IntN(len(sheets))]
				c.Hidden = rng.IntN(2) == 0
				if rng.IntN(4) == 0 {
					c.Name = names[rng.IntN(len(names))]
				}
				err := tx.PutCharacter(c)
				if errors.Is(err, ErrNameTaken) {
					return nil
				}
				if err != nil {
					return err
				}
				after, err := tx.Character(ch, c.ID)
				if err != nil {
					return err
				}
				e := &Event{ChannelID: ch, At: t0, Changes: []Change{{CharacterID: c.ID, Name: c.Name, Before: &before, After: after}}}
				if err := tx.AppendEvent(e); err != nil {
					return err
				}
				events = append(events, e)
				return nil
			}
		})
		if err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNameTaken) {
			t.Fatalf("seed %d: Update: %v", seed, err)
		}
	}
	cached := snapshot(t, db, channels)
	if st := db.CacheStats(); st.Hits == 0 {
		t.Errorf("CacheStats %+v: no hit; the reads did not come from the cache", st)
	}
	plain := reopenUncached(t, db, path)
	if got := snapshot(t, plain, channels); !reflect.DeepEqual(got, cached) {
		for _, ch := range channels {
			if !reflect.DeepEqual(got[ch], cached[ch]) {
				t.Errorf("seed %d: channel %s from the cache:\n%+v\nfrom the file:\n%+v", seed, ch, cached[ch], got[ch])
			}
		}
	}
	if st := plain.CacheStats(); st.Channels != 0 || st.Limit != 0 {
		t.Errorf("CacheBytes -1: CacheStats %+v; want nothing cached", st)
	}
}

// TestCacheCopiesAreTheCallers: changing a returned record, its sheet
// bytes, GMs, options or turn order changes nothing a later read sees.
func TestCacheCopiesAreTheCallers(t *testing.T) { bothBackends(t, testCacheCopiesAreTheCallers) }

func testCacheCopiesAreTheCallers(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	mustUpdate(t, db, func(tx *Tx) error {
		tb, err := tx.Table("c1")
		if err != nil {
			return err
		}
		tb.Initiative = &Initiative{Combatants: []Combatant{{CharacterID: 1, Initiative: 9, Join: 1, Roll: "given: 9"}}, Joins: 1}
		return tx.PutTable(tb)
	})
	// Encoded, so that the copies changed below cannot change want too.
	want, err := json.Marshal(readState(t, db, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	mustView(t, db, func(tx *Tx) error {
		tb, err := tx.Table("c1")
		if err != nil {
			return err
		}
		tb.GMs[0], tb.Options["catch-breath"], tb.Clock = "thief", "off", 99
		tb.Initiative.Combatants[0].Roll, tb.Initiative.Turn = "stolen", 1
		c, err := tx.CharacterByName("c1", "lister")
		if err != nil {
			return err
		}
		c.Sheet[2], c.Name = 'X', "Thief"
		cs, err := tx.Characters("c1")
		if err != nil {
			return err
		}
		cs[0].Sheet[3], cs[0].OwnerID = 'Y', "thief"
		return nil
	})
	if got, err := json.Marshal(readState(t, db, "c1")); err != nil || string(got) != string(want) {
		t.Errorf("after changing returned copies:\n%s\nwant\n%s (%v)", got, want, err)
	}
}

// TestCacheKeepsNothingOfAFailedFunction: a function that wrote a channel
// and failed, and one that panicked, leave the cache as it was, for readers
// and for the next function of the same group.
func TestCacheKeepsNothingOfAFailedFunction(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	want := readState(t, db, "c1")
	release := holdWriter(t, db)
	errBoom := errors.New("boom")
	failing := enqueue(t, db, func(tx *Tx) error {
		c, err := tx.CharacterByName("c1", "Lister")
		if err != nil {
			return err
		}
		c.Sheet = sheet(0)
		if err := tx.PutCharacter(c); err != nil {
			return err
		}
		tb, _ := tx.Table("c1")
		tb.Clock = 50
		if err := tx.PutTable(tb); err != nil {
			return err
		}
		return errBoom
	})
	panicking := enqueue(t, db, func(tx *Tx) error {
		if err := tx.CreateCharacter(newCharacter("c1", "Ghost", 1)); err != nil {
			return err
		}
		panic("boom")
	})
	var seen state
	after := enqueue(t, db, func(tx *Tx) error {
		tb, err := tx.Table("c1")
		if err != nil {
			return err
		}
		seen.Table = tb
		seen.Characters, err = tx.Characters("c1")
		return err
	})
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := <-failing; !errors.Is(err.(error), errBoom) {
		t.Fatalf("failing function: %v", err)
	}
	<-panicking
	if err := <-after; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen.Table, want.Table) || !reflect.DeepEqual(seen.Characters, want.Characters) {
		t.Errorf("the next function of the group saw\n%+v %+v\nwant\n%+v %+v", seen.Table, seen.Characters, want.Table, want.Characters)
	}
	if got := readState(t, db, "c1"); !reflect.DeepEqual(got, want) {
		t.Errorf("readers after the failures see\n%+v\nwant\n%+v", got, want)
	}
}

// fortyTables opens a new file with a state cache of cacheBytes, closed
// when t ends, and sets up 40 tables of two characters in it: more than
// the small caches of the tests below hold.
func fortyTables(t *testing.T, cacheBytes int) (*DB, []string) {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "hpkeeper.db"), Options{Timeout: testTimeout, CacheBytes: cacheBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var channels []string
	for i := range 40 {
		ch := fmt.Sprintf("c%d", i)
		channels = append(channels, ch)
		setupTable(t, db, ch, "Lister", "Rimmer")
	}
	return db, channels
}

// TestCacheEvictsBeyondItsSize: with a small bound the cache keeps at most
// that many bytes and every read is still right.
func TestCacheEvictsBeyondItsSize(t *testing.T) {
	db, channels := fortyTables(t, 8<<10)
	first := snapshot(t, db, channels)
	st := db.CacheStats()
	if st.Bytes > st.Limit || st.Channels == 0 || st.Channels >= len(channels) {
		t.Errorf("CacheStats %+v: want some but not all of %d channels, within the limit", st, len(channels))
	}
	if again := snapshot(t, db, channels); !reflect.DeepEqual(again, first) {
		t.Error("a second read through the evicting cache differs from the first")
	}
}

// TestCacheUnderConcurrency: readers run beside writers that change every
// table (run with -race); each read sees a table whose clock and characters
// agree (they come from one commit) and never goes back in time.
func TestCacheUnderConcurrency(t *testing.T) { bothBackends(t, testCacheUnderConcurrency) }

func testCacheUnderConcurrency(t *testing.T) {
	db := mustOpen(t)
	channels := []string{"c1", "c2", "c3", "c4"}
	for _, ch := range channels {
		setupTable(t, db, ch, "Lister")
	}
	const writes = 200
	var wg sync.WaitGroup
	for _, ch := range channels {
		wg.Go(func() {
			for i := 1; i <= writes; i++ {
				mustUpdate(t, db, func(tx *Tx) error {
					tb, err := tx.Table(ch)
					if err != nil {
						return err
					}
					tb.Clock = int64(i)
					if err := tx.PutTable(tb); err != nil {
						return err
					}
					c, err := tx.CharacterByName(ch, "Lister")
					if err != nil {
						return err
					}
					c.Sheet = sheet(i)
					return tx.PutCharacter(c)
				})
			}
		})
	}
	errs := make(chan error, 8)
	for r := range 4 {
		wg.Go(func() {
			last := map[string]int64{}
			for db.WriterStats().Updates < int64(len(channels)*writes) {
				ch := channels[r%len(channels)]
				err := db.View(func(tx *Tx) error {
					tb, err := tx.Table(ch)
					if err != nil {
						return err
					}
					c, err := tx.CharacterByName(ch, "Lister")
					if err != nil {
						return err
					}
					if string(c.Sheet) != string(sheet(int(tb.Clock))) && tb.Clock != 0 {
						return fmt.Errorf("%s: clock %d with sheet %s: not one commit", ch, tb.Clock, c.Sheet)
					}
					if tb.Clock < last[ch] {
						return fmt.Errorf("%s: clock went back from %d to %d", ch, last[ch], tb.Clock)
					}
					last[ch] = tb.Clock
					c.Sheet[0] = '!' // the caller's copy
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// reopenUncached closes db and opens its file at path again with no cache,
// to read what the file itself holds; the test closes it.
func reopenUncached(t *testing.T, db *DB, path string) *DB {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	var plain *DB
	var err error
	if IsPostgresURL(path) {
		plain, err = OpenPostgres(path, PostgresOptions{CacheBytes: -1})
	} else {
		plain, err = Open(path, Options{Timeout: testTimeout, CacheBytes: -1})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plain.Close() })
	return plain
}

// testSeed returns the seed of a randomised test: HPKEEPER_SEED when set,
// else a new one; it is logged so that a failure can be replayed.
func testSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("HPKEEPER_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("HPKEEPER_SEED=%q: %v", s, err)
		}
		seed = n
	}
	t.Logf("seed %d (HPKEEPER_SEED=%d replays it)", seed, seed)
	return seed
}

// TestCacheCopiesEveryField guards the cache's copies against a field
// added to Table (its turn order included) or Character later: storedTable, storedCharacter,
// Table.Clone and copyCharacter handle each field of those records by name
// (strings made valid UTF-8 as encoding/json writes them; slices, maps and
// pointers copied deep, so that no caller shares memory with the cache).
// A new field fails this test until those functions handle it and it is
// listed here.
func TestCacheCopiesEveryField(t *testing.T) { bothBackends(t, testCacheCopiesEveryField) }

func testCacheCopiesEveryField(t *testing.T) {
	handled := map[reflect.Type]map[string]bool{
		reflect.TypeOf(Table{}): {"ChannelID": true, "GuildID": true, "System": true, "SetupBy": true, "GMs": true,
			"Options": true, "Clock": true, "CreatedAt": true, "TrackerMessageID": true, "Initiative": true,
			"GMInbox": true},
		reflect.TypeOf(GMNote{}):     {"Text": true, "Given": true},
		reflect.TypeOf(Initiative{}): {"Combatants": true, "Turn": true, "Start": true, "Underway": true, "Joins": true},
		reflect.TypeOf(Combatant{}): {"CharacterID": true, "Initiative": true, "Bonus": true, "Join": true, "Roll": true,
			"Hidden": true, "Fallen": true},
		reflect.TypeOf(Character{}): {"ChannelID": true, "ID": true, "Name": true, "OwnerID": true, "OwnerName": true,
			"CreatedAt": true, "Sheet": true, "Hidden": true},
	}
	for typ, fields := range handled {
		for i := range typ.NumField() {
			if f := typ.Field(i); !fields[f.Name] {
				t.Errorf("%s.%s (%s) is new: make storedTable/storedCharacter (storage/cache.go) and Table.Clone/copyCharacter store and copy it exactly, then list it here",
					typ.Name(), f.Name, f.Type)
			}
		}
	}
}

// TestCacheShareCountsAgainstTheBudget: what a share holds is counted
// with the states, which are evicted to make room for it, so that both
// keep to Options.CacheBytes; a share gives back what it no longer holds.
func TestCacheShareCountsAgainstTheBudget(t *testing.T) {
	db, channels := fortyTables(t, 16<<10)
	first := snapshot(t, db, channels)
	before := db.CacheStats()
	share := db.CacheShare()
	if share.Limit() != before.Limit/4 {
		t.Errorf("CacheShare().Limit() = %d; want a quarter of %d", share.Limit(), before.Limit)
	}
	share.Charge(share.Limit())
	st := db.CacheStats()
	if st.Shared != share.Limit() || st.Bytes+st.Shared > st.Limit || st.Channels >= before.Channels {
		t.Errorf("CacheStats %+v after charging %d (before %+v): want fewer states, within the limit with the share", st, share.Limit(), before)
	}
	if again := snapshot(t, db, channels); !reflect.DeepEqual(again, first) {
		t.Error("a read beside the share differs from the first")
	}
	share.Charge(-share.Limit())
	if st := db.CacheStats(); st.Shared != 0 {
		t.Errorf("CacheStats %+v: the share gave back all it held", st)
	}
}

// TestVersionNamesOneState: a View reads a version that changes when the
// channel's table or characters do, and an Update reads none.
func TestVersionNamesOneState(t *testing.T) { bothBackends(t, testVersionNamesOneState) }

func testVersionNamesOneState(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	version := func() uint64 {
		var v uint64
		if err := db.View(func(tx *Tx) error {
			var err error
			v, err = tx.Version("c1")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	v1 := version()
	if v1 == 0 || version() != v1 {
		t.Fatalf("Version = %d, then %d; want one version, not 0", v1, version())
	}
	err := db.Update(func(tx *Tx) error {
		c, err := tx.CharacterByName("c1", "Lister")
		if err != nil {
			return err
		}
		if v, err := tx.Version("c1"); v != 0 || err != nil {
			return fmt.Errorf("Version in an Update = %d, %v; want 0", v, err)
		}
		c.OwnerName = "Dave"
		return tx.PutCharacter(c)
	})
	if err != nil {
		t.Fatal(err)
	}
	if v2 := version(); v2 == v1 || v2 == 0 {
		t.Errorf("Version after a write = %d; want another than %d", v2, v1)
	}
}

// TestCachedSheetHasNoSpareCapacity: the cache keeps a written character's
// sheet for as long as its table stays cached, so the compacted bytes are
// kept in a slice no larger than the sheet given, up to the allocator's
// size class (json.Compact into a growing buffer left up to half of it
// unused, about 12 MB at 10,000 tables × 5).
func TestCachedSheetHasNoSpareCapacity(t *testing.T) {
	for _, sheet := range []string{`{"hp":12,"max_hp":12}`, `{"a":[1, 2, 3], "b": {"c": "d e f g h i j k l m n o p"}}`, `{}`, `{"a": 1}`} {
		c, err := storedCharacter(&Character{ID: 1, Name: "Rook", Sheet: json.RawMessage(sheet)})
		if err != nil {
			t.Fatal(err)
		}
		if cap(c.Sheet) > len(sheet)+len(sheet)/8+8 {
			t.Errorf("sheet %s: kept %d bytes in a slice of %d, want at most the sheet's %d", sheet, len(c.Sheet), cap(c.Sheet), len(sheet))
		}
	}
}
