package storage

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTables(t *testing.T) { bothBackends(t, testTables) }

func testTables(t *testing.T) {
	db := mustOpen(t)
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Table("c1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Table(missing) error = %v; want ErrNotFound", err)
		}
		tables, err := tx.Tables()
		if err != nil || len(tables) != 0 {
			t.Errorf("Tables() on a new file = %v, %v; want none", tables, err)
		}
		return nil
	})

	want1, want2 := newTable("c1"), newTable("c2")
	want2.System, want2.GuildID, want2.Clock = "harm", "", 42
	want2.Options = map[string]string{}
	want2.GMs = nil
	mustUpdate(t, db, func(tx *Tx) error {
		for _, tbl := range []*Table{want2, want1} {
			if err := tx.PutTable(tbl); err != nil {
				return err
			}
		}
		return nil
	})
	mustView(t, db, func(tx *Tx) error {
		for _, want := range []*Table{want1, want2} {
			got, err := tx.Table(want.ChannelID)
			if err != nil {
				t.Errorf("Table(%q) error: %v", want.ChannelID, err)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Table(%q) = %+v; want %+v", want.ChannelID, got, want)
			}
		}
		tables, err := tx.Tables()
		if err != nil {
			return err
		}
		if want := []*Table{want1, want2}; !reflect.DeepEqual(tables, want) {
			t.Errorf("Tables() = %+v; want %+v", tables, want)
		}
		return nil
	})

	// Replace.
	want1.Clock = 7
	want1.GMs = append(want1.GMs, "u-2")
	mustUpdate(t, db, func(tx *Tx) error { return tx.PutTable(want1) })
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want1) {
			t.Errorf("Table after replace = %+v; want %+v", got, want1)
		}
		return nil
	})

	// Invalid tables are refused.
	bad := newTable("c3")
	bad.Clock = -1
	if err := db.Update(func(tx *Tx) error { return tx.PutTable(bad) }); err == nil {
		t.Error("PutTable with a negative clock succeeded")
	}
	if err := db.Update(func(tx *Tx) error { return tx.PutTable(newTable("")) }); err == nil {
		t.Error("PutTable with an empty channel id succeeded")
	}
}

func TestCharacters(t *testing.T) { bothBackends(t, testCharacters) }

func testCharacters(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	setupTable(t, db, "c2")

	// No table: ErrNotFound.
	err := db.Update(func(tx *Tx) error { return tx.CreateCharacter(newCharacter("nope", "Lister", 1)) })
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("CreateCharacter at a channel without a table: error %v; want ErrNotFound", err)
	}

	var created []*Character
	mustUpdate(t, db, func(tx *Tx) error {
		for i, n := range []string{"Lister", "Rimmer", "Kryten"} {
			c := newCharacter("c1", n, i)
			c.ID = 99 // ignored
			if err := tx.CreateCharacter(c); err != nil {
				return err
			}
			if c.ID != uint64(i+1) {
				t.Errorf("CreateCharacter(%q) assigned ID %d; want %d", n, c.ID, i+1)
			}
			created = append(created, c)
		}
		// Ids and names are per table.
		c := newCharacter("c2", "lister", 9)
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		if c.ID != 1 {
			t.Errorf("first ID at another table = %d; want 1", c.ID)
		}
		return nil
	})

	mustView(t, db, func(tx *Tx) error {
		for _, want := range created {
			got, err := tx.Character("c1", want.ID)
			if err != nil {
				t.Errorf("Character(%d) error: %v", want.ID, err)
			} else if !reflect.DeepEqual(got, want) {
				t.Errorf("Character(%d) = %+v; want %+v", want.ID, got, want)
			}
		}
		for _, name := range []string{"Lister", "lister", "LISTER", "lIsTeR"} {
			got, err := tx.CharacterByName("c1", name)
			if err != nil {
				t.Errorf("CharacterByName(%q) error: %v", name, err)
			} else if !reflect.DeepEqual(got, created[0]) {
				t.Errorf("CharacterByName(%q) = %+v; want %+v", name, got, created[0])
			}
		}
		for _, missing := range []string{"Holly", "", "Liste"} {
			if _, err := tx.CharacterByName("c1", missing); !errors.Is(err, ErrNotFound) {
				t.Errorf("CharacterByName(%q) error = %v; want ErrNotFound", missing, err)
			}
		}
		if _, err := tx.Character("c1", 4); !errors.Is(err, ErrNotFound) {
			t.Errorf("Character(4) error = %v; want ErrNotFound", err)
		}
		if _, err := tx.Character("nope", 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("Character at a missing table: error = %v; want ErrNotFound", err)
		}
		all, err := tx.Characters("c1")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(all, created) {
			t.Errorf("Characters() = %+v; want %+v", all, created)
		}
		if none, err := tx.Characters("nope"); err != nil || none != nil {
			t.Errorf("Characters at a missing table = %v, %v; want nil, nil", none, err)
		}
		return nil
	})

	// Name clash on create, case-insensitively.
	for _, name := range []string{"Lister", "LISTER", "rimmer"} {
		err := db.Update(func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", name, 1)) })
		if !errors.Is(err, ErrNameTaken) {
			t.Errorf("CreateCharacter(%q) error = %v; want ErrNameTaken", name, err)
		}
	}
	if err := db.Update(func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", "", 1)) }); err == nil {
		t.Error("CreateCharacter with an empty name succeeded")
	}

	// Rename onto another character's name: ErrNameTaken, nothing changed.
	before := readState(t, db, "c1")
	err = db.Update(func(tx *Tx) error {
		c, err := tx.Character("c1", 1)
		if err != nil {
			return err
		}
		c.Name = "KRYTEN"
		return tx.PutCharacter(c)
	})
	if !errors.Is(err, ErrNameTaken) {
		t.Errorf("PutCharacter renaming onto another's name: error = %v; want ErrNameTaken", err)
	}
	assertState(t, readState(t, db, "c1"), before)

	// Missing character: ErrNotFound.
	err = db.Update(func(tx *Tx) error {
		c := newCharacter("c1", "Holly", 1)
		c.ID = 42
		return tx.PutCharacter(c)
	})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("PutCharacter(missing) error = %v; want ErrNotFound", err)
	}

	// Rename changing case only, then to a new name: the index follows.
	mustUpdate(t, db, func(tx *Tx) error {
		c, err := tx.Character("c1", 1)
		if err != nil {
			return err
		}
		c.Name = "LISTER"
		c.Sheet = sheet(1)
		if err := tx.PutCharacter(c); err != nil {
			return err
		}
		c.Name = "Dave"
		return tx.PutCharacter(c)
	})
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.CharacterByName("c1", "dave")
		if err != nil {
			return err
		}
		if got.ID != 1 || got.Name != "Dave" || string(got.Sheet) != string(sheet(1)) {
			t.Errorf("after rename CharacterByName(dave) = %+v; want id 1 named Dave with the new sheet", got)
		}
		if _, err := tx.CharacterByName("c1", "lister"); !errors.Is(err, ErrNotFound) {
			t.Errorf("old name after rename: error = %v; want ErrNotFound", err)
		}
		return nil
	})
	// The old name is free again.
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateCharacter(newCharacter("c1", "Lister", 1)) })

	// Delete: gone, name free, id not reused.
	mustUpdate(t, db, func(tx *Tx) error { return tx.DeleteCharacter("c1", 2) })
	if err := db.Update(func(tx *Tx) error { return tx.DeleteCharacter("c1", 2) }); !errors.Is(err, ErrNotFound) {
		t.Errorf("DeleteCharacter twice: error = %v; want ErrNotFound", err)
	}
	mustUpdate(t, db, func(tx *Tx) error {
		if _, err := tx.Character("c1", 2); !errors.Is(err, ErrNotFound) {
			t.Errorf("Character after delete: error = %v; want ErrNotFound", err)
		}
		c := newCharacter("c1", "Rimmer", 1)
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		if c.ID != 5 {
			t.Errorf("ID after delete = %d; want 5 (ids are never reused)", c.ID)
		}
		return nil
	})
	mustView(t, db, func(tx *Tx) error {
		all, err := tx.Characters("c1")
		if err != nil {
			return err
		}
		var ids []uint64
		var names []string
		for _, c := range all {
			ids = append(ids, c.ID)
			names = append(names, c.Name)
		}
		if want := []uint64{1, 3, 4, 5}; !reflect.DeepEqual(ids, want) {
			t.Errorf("Characters() ids = %v; want %v", ids, want)
		}
		if got, want := strings.Join(names, ","), "Dave,Kryten,Lister,Rimmer"; got != want {
			t.Errorf("Characters() names = %s; want %s", got, want)
		}
		return nil
	})
}

func TestRecordsRoundTrip(t *testing.T) { bothBackends(t, testRecordsRoundTrip) }

func testRecordsRoundTrip(t *testing.T) {
	db := mustOpen(t)
	local := time.FixedZone("CET", 3600)
	tbl := newTable("c1")
	tbl.CreatedAt = time.Date(2025, 3, 1, 21, 0, 0, 5, local)
	ch := newCharacter("c1", "Bob & <Alice>", 4)
	ch.Sheet = json.RawMessage(`{ "notes": "a <b> & c",  "hp": 4 }`)
	ev := &Event{
		ChannelID: "c1",
		At:        time.Date(2025, 3, 1, 22, 0, 0, 7, local),
		UserID:    "u1",
		UserName:  "Dave",
		Command:   "/damage target:Bob amount:4",
		Summary:   "Bob takes 4.\nBob is down.",
		Dice:      []string{"3d6dl1 [5, 2, ~~1~~] = 7"},
		UndoOf:    3,
		Parts: []EventPart{
			{Summary: "The clock moves."},
			{Characters: []uint64{1}, Hidden: true, Summary: "Bob takes 4.\nBob is down.", Dice: []string{"3d6dl1 [5, 2, ~~1~~] = 7"}},
		},
	}
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.PutTable(tbl); err != nil {
			return err
		}
		if err := tx.CreateCharacter(ch); err != nil {
			return err
		}
		after := *ch
		after.Sheet = sheet(0)
		ev.Changes = []Change{{CharacterID: ch.ID, Name: ch.Name, Before: ch, After: &after}}
		ev.TableBefore, ev.TableAfter = tbl, tbl
		return tx.AppendEvent(ev)
	})

	mustView(t, db, func(tx *Tx) error {
		gotT, err := tx.Table("c1")
		if err != nil {
			return err
		}
		if !gotT.CreatedAt.Equal(tbl.CreatedAt) || gotT.CreatedAt.Location() != time.UTC {
			t.Errorf("Table CreatedAt = %v; want %v in UTC", gotT.CreatedAt, tbl.CreatedAt)
		}
		gotC, err := tx.Character("c1", ch.ID)
		if err != nil {
			return err
		}
		if want := `{"notes":"a <b> & c","hp":4}`; string(gotC.Sheet) != want {
			t.Errorf("Sheet = %s; want %s (compacted, not HTML-escaped)", gotC.Sheet, want)
		}
		if gotC.Name != ch.Name {
			t.Errorf("Name = %q; want %q", gotC.Name, ch.Name)
		}
		gotE, err := tx.Event("c1", ev.Seq)
		if err != nil {
			return err
		}
		if !gotE.At.Equal(ev.At) {
			t.Errorf("Event At = %v; want %v", gotE.At, ev.At)
		}
		// Apart from time zones and sheet whitespace the event is exact.
		want := normEvent(ev)
		want.Changes[0].Before.Sheet = json.RawMessage(`{"notes":"a <b> & c","hp":4}`)
		if !reflect.DeepEqual(gotE, want) {
			g, _ := json.Marshal(gotE)
			w, _ := json.Marshal(want)
			t.Errorf("Event = %s\nwant %s", g, w)
		}
		return nil
	})
}

func TestRecordsNilVersusEmpty(t *testing.T) { bothBackends(t, testRecordsNilVersusEmpty) }

func testRecordsNilVersusEmpty(t *testing.T) {
	db := mustOpen(t)
	tests := []struct {
		name  string
		gms   []string
		opts  map[string]string
		sheet json.RawMessage
		dice  []string
	}{
		{name: "nil", gms: nil, opts: nil, sheet: nil, dice: nil},
		{name: "empty", gms: []string{}, opts: map[string]string{}, sheet: json.RawMessage(`{}`), dice: []string{}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			channel := string(rune('a' + i))
			tbl := newTable(channel)
			tbl.GMs, tbl.Options = tt.gms, tt.opts
			c := newCharacter(channel, "X", 1)
			c.Sheet = tt.sheet
			e := &Event{ChannelID: channel, At: t0, Dice: tt.dice}
			mustUpdate(t, db, func(tx *Tx) error {
				if err := tx.PutTable(tbl); err != nil {
					return err
				}
				if err := tx.CreateCharacter(c); err != nil {
					return err
				}
				return tx.AppendEvent(e)
			})
			mustView(t, db, func(tx *Tx) error {
				gotT, err := tx.Table(channel)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(gotT, tbl) {
					t.Errorf("Table = %#v; want %#v", gotT, tbl)
				}
				gotC, err := tx.Character(channel, c.ID)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(gotC, c) {
					t.Errorf("Character = %#v; want %#v", gotC, c)
				}
				gotE, err := tx.Event(channel, e.Seq)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(gotE, e) {
					t.Errorf("Event = %#v; want %#v", gotE, e)
				}
				return nil
			})
		})
	}
}

func TestReturnedRecordsAreCopies(t *testing.T) { bothBackends(t, testReturnedRecordsAreCopies) }

func testReturnedRecordsAreCopies(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	var kept *Character
	mustView(t, db, func(tx *Tx) error {
		var err error
		kept, err = tx.Character("c1", 1)
		return err
	})
	want := string(kept.Sheet)
	// Grow the file well past its first mapping so bbolt remaps it.
	for i := range 20 {
		mustUpdate(t, db, func(tx *Tx) error {
			big := strings.Repeat("x", 64<<10)
			return tx.AppendEvent(&Event{ChannelID: "c1", At: t0, Summary: big + string(rune('a'+i))})
		})
	}
	if string(kept.Sheet) != want || kept.Name != "Lister" {
		t.Errorf("record kept after its transaction changed: %+v", kept)
	}
	// Changing a returned record changes nothing stored.
	kept.Name = "Rimmer"
	kept.Sheet[0] = '['
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.Character("c1", 1)
		if err != nil {
			return err
		}
		if got.Name != "Lister" || string(got.Sheet) != want {
			t.Errorf("stored character changed through a returned copy: %+v", got)
		}
		return nil
	})
}

// TestTableClone: a clone shares nothing with its table (GMs, options, the
// turn order and its combatants), an untouched table equals its clone, and
// nil stays nil, empty stays empty, so that a mutation records a table
// change exactly when there is one (commands.Service.Mutate).
func TestTableClone(t *testing.T) {
	orig := &Table{ChannelID: "c", GMs: []string{"a"}, Options: map[string]string{"dice": "bot"},
		Initiative: &Initiative{Combatants: []Combatant{{CharacterID: 1, Roll: "given: 3"}}, Joins: 1}}
	cp := orig.Clone()
	if !reflect.DeepEqual(cp, orig) {
		t.Fatalf("Clone(%+v) = %+v; want an equal copy", orig, cp)
	}
	cp.GMs[0], cp.Options["dice"], cp.Initiative.Combatants[0].Roll, cp.Initiative.Turn = "b", "manual", "changed", 1
	if orig.GMs[0] != "a" || orig.Options["dice"] != "bot" || orig.Initiative.Combatants[0].Roll != "given: 3" || orig.Initiative.Turn != 0 {
		t.Errorf("changing the clone changed the table: %+v (order %+v)", orig, orig.Initiative)
	}
	for _, bare := range []*Table{{ChannelID: "c"}, {ChannelID: "c", GMs: []string{}, Options: map[string]string{}, Initiative: &Initiative{Combatants: []Combatant{}}}} {
		if got := bare.Clone(); !reflect.DeepEqual(got, bare) {
			t.Errorf("Clone(%+v) = %+v; nil must stay nil and empty empty", bare, got)
		}
	}
}
