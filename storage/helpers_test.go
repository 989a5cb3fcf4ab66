package storage

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hpkeeper/hpkeeper/storage/pgtest"
)

// testTimeout is the lock timeout used by tests.
const testTimeout = 200 * time.Millisecond

// t0 is a fixed time for records (UTC, no monotonic reading, nanoseconds set
// so that precision loss would show).
var t0 = time.Date(2025, 3, 1, 20, 15, 30, 123456789, time.UTC)

// bothBackends runs test against a bbolt file (subtest "bbolt") and
// against PostgreSQL (subtest "postgres", skipped without a test server:
// pgtest), where mustOpen and newStore give it a database of that backend.
func bothBackends(t *testing.T, test func(t *testing.T)) {
	t.Run("bbolt", test)
	t.Run("postgres", func(t *testing.T) {
		pgtest.ServerURL(t)
		test(t)
	})
}

// onPostgres reports whether tb runs as the "postgres" subtest of
// bothBackends.
func onPostgres(tb testing.TB) bool {
	return strings.Contains(tb.Name()+"/", "/postgres/")
}

// newStore returns where a fresh database of tb's backend is: a path in a
// temporary directory, or the URL of a new PostgreSQL database.
func newStore(tb testing.TB) string {
	tb.Helper()
	if onPostgres(tb) {
		return pgtest.NewDatabase(tb)
	}
	return filepath.Join(tb.TempDir(), "hpkeeper.db")
}

// mustOpen opens a fresh database of tb's backend (bothBackends; bbolt
// outside it) and closes it when the test ends.
func mustOpen(tb testing.TB) *DB {
	tb.Helper()
	return mustOpenPath(tb, newStore(tb))
}

// openStore opens the database at path, a bbolt file or a PostgreSQL URL.
func openStore(path string) (*DB, error) {
	if IsPostgresURL(path) {
		return OpenPostgres(path, PostgresOptions{Timeout: 20 * time.Second})
	}
	return Open(path, Options{Timeout: testTimeout})
}

// inspectStore checks the database at path, a file (Inspect) or a
// PostgreSQL URL (InspectPostgres).
func inspectStore(path string) (*Report, error) {
	if IsPostgresURL(path) {
		return InspectPostgres(path, 0)
	}
	return Inspect(path, testTimeout)
}

// mustOpenPath opens the database at path (a file, or a PostgreSQL URL)
// and closes it when the test ends.
func mustOpenPath(tb testing.TB, path string) *DB {
	tb.Helper()
	db, err := openStore(path)
	if err != nil {
		tb.Fatalf("open %q: %v", RedactURL(path), err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

func mustUpdate(tb testing.TB, db *DB, fn func(*Tx) error) {
	tb.Helper()
	if err := db.Update(fn); err != nil {
		tb.Fatalf("Update error: %v", err)
	}
}

func mustView(tb testing.TB, db *DB, fn func(*Tx) error) {
	tb.Helper()
	if err := db.View(fn); err != nil {
		tb.Fatalf("View error: %v", err)
	}
}

func newTable(channelID string) *Table {
	return &Table{
		ChannelID: channelID,
		GuildID:   "g1",
		System:    "hit-protection",
		SetupBy:   "u-gm",
		GMs:       []string{"u-gm"},
		Options:   map[string]string{"catch-breath": "on"},
		Clock:     0,
		CreatedAt: t0,
	}
}

func newCharacter(channelID, name string, hp int) *Character {
	return &Character{
		ChannelID: channelID,
		Name:      name,
		OwnerID:   "u-" + name,
		OwnerName: name + "'s player",
		CreatedAt: t0.Add(time.Minute),
		Sheet:     sheet(hp),
	}
}

func sheet(hp int) json.RawMessage {
	b, err := json.Marshal(map[string]any{"class": "fighter", "hp": hp, "hit_die": 8})
	if err != nil {
		panic(err)
	}
	return b
}

// setupTable creates a table in channelID with the named characters and
// returns them with their ids.
func setupTable(tb testing.TB, db *DB, channelID string, names ...string) []*Character {
	tb.Helper()
	var out []*Character
	mustUpdate(tb, db, func(tx *Tx) error {
		if err := tx.PutTable(newTable(channelID)); err != nil {
			return err
		}
		for i, n := range names {
			c := newCharacter(channelID, n, i+3)
			if err := tx.CreateCharacter(c); err != nil {
				return err
			}
			out = append(out, c)
		}
		return nil
	})
	return out
}

// state is everything stored for one channel, for whole-state comparisons.
type state struct {
	Table      *Table
	Characters []*Character
	ByName     map[string]uint64 // lower-cased name → id, read through CharacterByName
}

func readState(tb testing.TB, db *DB, channelID string) state {
	tb.Helper()
	var s state
	mustView(tb, db, func(tx *Tx) error {
		t, err := tx.Table(channelID)
		if err == nil {
			s.Table = t
		}
		s.Characters, err = tx.Characters(channelID)
		if err != nil {
			return err
		}
		s.ByName = make(map[string]uint64)
		for _, c := range s.Characters {
			got, err := tx.CharacterByName(channelID, c.Name)
			if err != nil {
				return err
			}
			s.ByName[c.Name] = got.ID
		}
		return nil
	})
	return s
}

func assertState(tb testing.TB, got, want state) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", "  ")
		wj, _ := json.MarshalIndent(want, "", "  ")
		tb.Errorf("state = %s\nwant %s", gj, wj)
	}
}
