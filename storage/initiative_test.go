package storage

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestInitiativeRoundTrip: a table's turn order is stored and read back
// exactly, in the table record and in an event's table states.
func TestInitiativeRoundTrip(t *testing.T) { bothBackends(t, testInitiativeRoundTrip) }

func testInitiativeRoundTrip(t *testing.T) {
	db := mustOpen(t)
	tbl := newTable("c1")
	tbl.Clock = 7
	tbl.Initiative = &Initiative{
		Combatants: []Combatant{
			{CharacterID: 2, Initiative: 5, Bonus: 1, Join: 2, Roll: "1d6+1 [4] + 1 = 5"},
			{CharacterID: 1, Initiative: 5, Bonus: 0, Join: 1, Roll: "given: 5", Hidden: true},
		},
		Turn: 1, Start: 3, Underway: true, Joins: 2,
	}
	before := newTable("c1")
	ev := &Event{ChannelID: "c1", At: t0, Command: "/init next", TableBefore: before, TableAfter: tbl}
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.PutTable(tbl); err != nil {
			return err
		}
		return tx.AppendEvent(ev)
	})
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, tbl) {
			t.Errorf("Table = %+v (order %+v); want %+v", got, got.Initiative, tbl.Initiative)
		}
		e, err := tx.Event("c1", ev.Seq)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(e.TableAfter.Initiative, tbl.Initiative) || e.TableBefore.Initiative != nil {
			t.Errorf("event table states: before %+v, after %+v; want none, then the order", e.TableBefore.Initiative, e.TableAfter.Initiative)
		}
		return nil
	})
}

// TestTableWithoutInitiativeReadsUnchanged: a table record as the code
// before turn orders wrote it (no "initiative" key) reads with no order
// and is written back byte for byte, so no schema version is needed.
func TestTableWithoutInitiativeReadsUnchanged(t *testing.T) {
	old := []byte(`{"channel_id":"c1","guild_id":"g1","system":"hit-protection","setup_by":"u-gm","gms":["u-gm"],"options":{"catch-breath":"on"},"clock":12,"created_at":"2025-03-01T20:15:30.123456789Z"}`)
	db := mustOpen(t)
	setupTable(t, db, "c1")
	if err := db.bolt.Update(func(btx *bolt.Tx) error {
		return btx.Bucket(bucketChannels).Put(channelKey("c1", kindTable, nil), old)
	}); err != nil {
		t.Fatal(err)
	}
	// Reopened: the record was written behind the state cache's back.
	db = reopenUncached(t, db, db.path)
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if got.Initiative != nil || got.Clock != 12 {
			t.Errorf("old table = %+v; want clock 12 and no turn order", got)
		}
		again, err := encodeTable(got)
		if err != nil {
			return err
		}
		if string(again) != string(old) {
			t.Errorf("old table re-encoded as\n%s\nwant\n%s", again, old)
		}
		return nil
	})
	// And a table without an order never writes the key.
	b, err := json.Marshal(newTable("c2"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "initiative") {
		t.Errorf("table without a turn order encodes as %s; want no initiative key", b)
	}
}

// TestPutTableRefusesBadInitiative: a turn order no code writes is refused
// and nothing is stored.
func TestPutTableRefusesBadInitiative(t *testing.T) {
	bothBackends(t, testPutTableRefusesBadInitiative)
}

func testPutTableRefusesBadInitiative(t *testing.T) {
	db := mustOpen(t)
	tests := []struct {
		name string
		o    Initiative
	}{
		{"turn past the end", Initiative{Combatants: []Combatant{{CharacterID: 1}}, Turn: 2}},
		{"negative turn", Initiative{Turn: -1}},
		{"negative start", Initiative{Start: -1}},
		{"character id 0", Initiative{Combatants: []Combatant{{CharacterID: 0}}}},
		{"a character twice", Initiative{Combatants: []Combatant{{CharacterID: 3}, {CharacterID: 3}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := newTable("bad")
			o := tt.o
			tbl.Initiative = &o
			if err := db.Update(func(tx *Tx) error { return tx.PutTable(tbl) }); err == nil || !strings.Contains(err.Error(), "turn order") {
				t.Errorf("PutTable(%+v) error = %v; want a turn order error", o, err)
			}
		})
	}
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Table("bad"); err == nil {
			t.Error("a refused table was stored")
		}
		return nil
	})
	// The end of the order is a valid turn: nobody left can act this round.
	ok := newTable("ok")
	ok.Initiative = &Initiative{Combatants: []Combatant{{CharacterID: 1}}, Turn: 1}
	mustUpdate(t, db, func(tx *Tx) error { return tx.PutTable(ok) })
}
