package storage

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func appendEvents(tb testing.TB, db *DB, channelID string, n int) []*Event {
	tb.Helper()
	var out []*Event
	mustUpdate(tb, db, func(tx *Tx) error {
		for i := range n {
			e := &Event{
				ChannelID: channelID,
				At:        t0.Add(time.Duration(i) * time.Second),
				UserID:    "u1",
				Command:   fmt.Sprintf("/roll dice:d20 #%d", i+1),
				Summary:   fmt.Sprintf("%s event %d", channelID, i+1),
				Dice:      []string{"d20 [7] = 7"},
			}
			if err := tx.AppendEvent(e); err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out
}

// walk returns the seqs EachEventBackward visits, stopping after limit (0: all).
func walk(tb testing.TB, tx *Tx, channelID string, limit int) []uint64 {
	tb.Helper()
	var seqs []uint64
	err := tx.EachEventBackward(channelID, func(e *Event) (bool, error) {
		seqs = append(seqs, e.Seq)
		return limit == 0 || len(seqs) < limit, nil
	})
	if err != nil {
		tb.Fatalf("EachEventBackward(%q) error: %v", channelID, err)
	}
	return seqs
}

func TestEvents(t *testing.T) { bothBackends(t, testEvents) }

func testEvents(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	setupTable(t, db, "c2")

	mustView(t, db, func(tx *Tx) error {
		if seq, err := tx.LastEventSeq("c1"); err != nil || seq != 0 {
			t.Errorf("LastEventSeq with no events = %d, %v; want 0, nil", seq, err)
		}
		if seq, err := tx.LastEventSeq("nope"); err != nil || seq != 0 {
			t.Errorf("LastEventSeq at a missing table = %d, %v; want 0, nil", seq, err)
		}
		if seqs := walk(t, tx, "c1", 0); seqs != nil {
			t.Errorf("EachEventBackward with no events visited %v", seqs)
		}
		return nil
	})

	e1 := appendEvents(t, db, "c1", 2)
	e2 := appendEvents(t, db, "c2", 2)
	e1 = append(e1, appendEvents(t, db, "c1", 1)...)
	for i, e := range e1 {
		if e.Seq != uint64(i+1) {
			t.Errorf("c1 event %d: Seq = %d; want %d", i, e.Seq, i+1)
		}
	}
	for i, e := range e2 {
		if e.Seq != uint64(i+1) {
			t.Errorf("c2 event %d: Seq = %d; want %d (seqs are per table)", i, e.Seq, i+1)
		}
	}

	mustView(t, db, func(tx *Tx) error {
		for _, e := range append(append([]*Event{}, e1...), e2...) {
			got, err := tx.Event(e.ChannelID, e.Seq)
			if err != nil {
				t.Errorf("Event(%q, %d) error: %v", e.ChannelID, e.Seq, err)
			} else if !reflect.DeepEqual(got, e) {
				t.Errorf("Event(%q, %d) = %+v; want %+v", e.ChannelID, e.Seq, got, e)
			}
		}
		if _, err := tx.Event("c1", 4); !errors.Is(err, ErrNotFound) {
			t.Errorf("Event(c1, 4) error = %v; want ErrNotFound", err)
		}
		if _, err := tx.Event("nope", 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("Event at a missing table: error = %v; want ErrNotFound", err)
		}
		if seq, err := tx.LastEventSeq("c1"); err != nil || seq != 3 {
			t.Errorf("LastEventSeq(c1) = %d, %v; want 3, nil", seq, err)
		}
		if seq, err := tx.LastEventSeq("c2"); err != nil || seq != 2 {
			t.Errorf("LastEventSeq(c2) = %d, %v; want 2, nil", seq, err)
		}

		if got, want := walk(t, tx, "c1", 0), []uint64{3, 2, 1}; !reflect.DeepEqual(got, want) {
			t.Errorf("EachEventBackward(c1) visited %v; want %v", got, want)
		}
		if got, want := walk(t, tx, "c2", 0), []uint64{2, 1}; !reflect.DeepEqual(got, want) {
			t.Errorf("EachEventBackward(c2) visited %v; want %v", got, want)
		}
		if got, want := walk(t, tx, "c1", 2), []uint64{3, 2}; !reflect.DeepEqual(got, want) {
			t.Errorf("EachEventBackward(c1) stopping after 2 visited %v; want %v", got, want)
		}

		var seen []string
		err := tx.EachEventBackward("c1", func(e *Event) (bool, error) {
			seen = append(seen, e.Summary)
			return true, nil
		})
		if err != nil {
			return err
		}
		if want := []string{"c1 event 1", "c1 event 2", "c1 event 1"}; !reflect.DeepEqual(seen, want) {
			t.Errorf("EachEventBackward(c1) summaries = %q; want %q", seen, want)
		}

		errStop := errors.New("stop")
		calls := 0
		err = tx.EachEventBackward("c1", func(*Event) (bool, error) {
			calls++
			return true, errStop
		})
		if err != errStop || calls != 1 {
			t.Errorf("EachEventBackward with fn failing: %v after %d calls; want fn's error after 1", err, calls)
		}
		return nil
	})
}

func TestEachEventBackwardWhileAppending(t *testing.T) {
	bothBackends(t, testEachEventBackwardWhileAppending)
}

func testEachEventBackwardWhileAppending(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	appendEvents(t, db, "c1", 5)
	mustUpdate(t, db, func(tx *Tx) error {
		var seqs []uint64
		err := tx.EachEventBackward("c1", func(e *Event) (bool, error) {
			seqs = append(seqs, e.Seq)
			// Writing to the events bucket mid-walk must not derail it.
			return true, tx.AppendEvent(&Event{ChannelID: "c1", At: t0, UndoOf: e.Seq})
		})
		if err != nil {
			return err
		}
		if want := []uint64{5, 4, 3, 2, 1}; !reflect.DeepEqual(seqs, want) {
			t.Errorf("EachEventBackward while appending visited %v; want %v", seqs, want)
		}
		if last, err := tx.LastEventSeq("c1"); err != nil || last != 10 {
			t.Errorf("LastEventSeq = %d, %v; want 10, nil", last, err)
		}
		return nil
	})
}

func TestAppendEventWithoutTable(t *testing.T) { bothBackends(t, testAppendEventWithoutTable) }

func testAppendEventWithoutTable(t *testing.T) {
	db := mustOpen(t)
	e := &Event{ChannelID: "c9", At: t0, Summary: "x"}
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendEvent(e) })
	mustView(t, db, func(tx *Tx) error {
		if _, err := tx.Event("c9", e.Seq); err != nil {
			t.Errorf("Event after AppendEvent without a table: %v", err)
		}
		if _, err := tx.Table("c9"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Table after AppendEvent: error = %v; want ErrNotFound", err)
		}
		tables, err := tx.Tables()
		if err != nil || len(tables) != 0 {
			t.Errorf("Tables() = %v, %v; want none (a history alone is not a table)", tables, err)
		}
		return nil
	})
	if err := db.Update(func(tx *Tx) error { return tx.AppendEvent(&Event{}) }); err == nil {
		t.Error("AppendEvent without a channel id succeeded")
	}
}

// storedForm returns the form in which the channel's event seq is stored,
// on either backend.
func storedForm(tb testing.TB, db *DB, channelID string, seq uint64) eventForm {
	tb.Helper()
	var form eventForm
	mustView(tb, db, func(tx *Tx) error {
		ch, err := tx.records(channelID, false)
		if err != nil {
			return err
		}
		d, err := ch.eventRecord(seq)
		form = d.form
		return err
	})
	return form
}

// rawEvent returns the bytes stored for the channel's event seq.
func rawEvent(tb testing.TB, db *DB, channelID string, seq uint64) []byte {
	tb.Helper()
	var raw []byte
	mustView(tb, db, func(tx *Tx) error {
		btx, err := tx.read()
		if err != nil {
			return err
		}
		ch, err := openChannel(btx, channelID)
		if err != nil {
			return err
		}
		raw = append([]byte(nil), ch.events.get(itob(seq))...)
		return nil
	})
	return raw
}

// TestEventsStoredCompact: an event whose changes are the records the file
// holds is stored as eventCompact with only the patch back to each before
// state, far smaller than the whole event's JSON, and reads back exactly;
// one whose after state is not stored (nothing was written) is kept whole
// and reads back exactly too.
func TestEventsStoredCompact(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1", "Lister")
	var e *Event
	mustUpdate(t, db, func(tx *Tx) error {
		before, err := tx.CharacterByName("c1", "Lister")
		if err != nil {
			return err
		}
		c := *before
		c.Sheet = []byte(`{"class":"fighter","hit_die":8,"hp":1}`)
		if err := tx.PutCharacter(&c); err != nil {
			return err
		}
		after, err := tx.Character("c1", c.ID)
		if err != nil {
			return err
		}
		e = &Event{ChannelID: "c1", At: t0, UserID: "u-gm", Command: "/damage target:Lister amount:3",
			Summary: "**Lister** takes 3 damage", Dice: []string{"1d4 [3] = 3"},
			Changes: []Change{{CharacterID: c.ID, Name: "Lister", Before: before, After: after}}}
		return tx.AppendEvent(e)
	})
	loose := &Event{ChannelID: "c1", At: t0, Command: "/note",
		Changes: []Change{{CharacterID: 9, Name: "Ghost", Before: newCharacter("c1", "Ghost", 6), After: newCharacter("c1", "Ghost", 3)}}}
	loose.Changes[0].Before.ID, loose.Changes[0].After.ID = 9, 9
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendEvent(loose) })

	raw := rawEvent(t, db, "c1", e.Seq)
	plain, err := encode(normEvent(e))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) == 0 || raw[0] != eventCompact || 2*len(raw) >= len(plain) {
		t.Errorf("stored event: %d bytes starting %#x; want eventCompact and under half the %d bytes of its JSON", len(raw), raw[:min(1, len(raw))], len(plain))
	}
	mustView(t, db, func(tx *Tx) error {
		for _, want := range []*Event{e, loose} {
			got, err := tx.Event("c1", want.Seq)
			if err != nil {
				return err
			}
			if want := normEvent(want); !reflect.DeepEqual(got, want) {
				t.Errorf("Event = %+v\nwant %+v", got, want)
			}
		}
		return nil
	})
}

// TestPlainJSONEventsStillDecode: events written under schema version 1 are
// plain JSON; they read back through Event and EachEventBackward beside new,
// compressed ones.
func TestPlainJSONEventsStillDecode(t *testing.T) {
	db := mustOpen(t)
	old := appendEvents(t, db, "c1", 1)[0]
	plain, err := encode(normEvent(old))
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, db, func(tx *Tx) error { // as a schema 1 program stored it
		ch, err := openChannel(tx.btx, "c1")
		if err != nil {
			return err
		}
		return ch.events.put(nil, itob(old.Seq), plain)
	})
	appendEvents(t, db, "c1", 1)
	mustView(t, db, func(tx *Tx) error {
		got, err := tx.Event("c1", old.Seq)
		if err != nil {
			return err
		}
		if want := normEvent(old); !reflect.DeepEqual(got, want) {
			t.Errorf("plain JSON event = %+v\nwant %+v", got, want)
		}
		if seqs := walk(t, tx, "c1", 0); !reflect.DeepEqual(seqs, []uint64{2, 1}) {
			t.Errorf("EachEventBackward visited %v; want [2 1]", seqs)
		}
		return nil
	})
	if raw := rawEvent(t, db, "c1", 1); raw[0] != '{' {
		t.Fatalf("test setup: event 1 is not stored as plain JSON")
	}
}

// TestEachEventBefore: the walk starts below the given seq, newest first;
// before 0, or past the newest, walks everything.
func TestEachEventBefore(t *testing.T) { bothBackends(t, testEachEventBefore) }

func testEachEventBefore(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	appendEvents(t, db, "c1", 5)
	mustView(t, db, func(tx *Tx) error {
		for _, c := range []struct {
			before uint64
			want   []uint64
		}{{0, []uint64{5, 4, 3, 2, 1}}, {4, []uint64{3, 2, 1}}, {1, nil}, {9, []uint64{5, 4, 3, 2, 1}}} {
			var got []uint64
			err := tx.EachEventBefore("c1", c.before, func(e *Event) (bool, error) {
				got = append(got, e.Seq)
				return true, nil
			})
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("EachEventBefore(%d) visited %v, %v; want %v", c.before, got, err, c.want)
			}
		}
		return nil
	})
}

// TestEventWithoutPartsDecodes: an event as code before EventPart wrote it
// (no "parts" key) decodes with nil Parts, and one with parts keeps them.
func TestEventWithoutPartsDecodes(t *testing.T) { bothBackends(t, testEventWithoutPartsDecodes) }

func testEventWithoutPartsDecodes(t *testing.T) {
	old := []byte(`{"channel_id":"c1","seq":4,"at":"2025-03-01T21:00:00Z","command":"/damage target:Bob amount:4","summary":"Bob takes 4.","dice":null,"changes":null}`)
	e, err := decodeEvent(old)
	if err != nil || e.Parts != nil || e.Summary != "Bob takes 4." {
		t.Fatalf("decodeEvent(an event without parts) = %+v, %v; want it whole with nil Parts", e, err)
	}
	b, err := encodeEvent(&Event{ChannelID: "c1", Parts: []EventPart{{Characters: []uint64{2}, Hidden: true, Summary: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if e, err = decodeEvent(b); err != nil || len(e.Parts) != 1 || !e.Parts[0].Hidden || e.Parts[0].Characters[0] != 2 {
		t.Fatalf("decodeEvent(an event with parts) = %+v, %v; want its part back", e, err)
	}
}

// TestCorruptCompressedEventIsAnError: a damaged compressed event is reported,
// not decoded into garbage.
func TestCorruptCompressedEventIsAnError(t *testing.T) {
	if _, err := decodeEvent([]byte{eventS2, 0xff, 0xff, 0xff}); err == nil {
		t.Error("decodeEvent(corrupt S2 block) = nil error")
	}
}

// TestAppendEncodedEvents: events encoded before the write transaction
// (EncodeEvent) are stored whole and read back as they were given, in
// sequence; one that is not the next of its channel is refused.
func TestAppendEncodedEvents(t *testing.T) { bothBackends(t, testAppendEncodedEvents) }

func testAppendEncodedEvents(t *testing.T) {
	db := mustOpen(t)
	setupTable(t, db, "c1")
	setupTable(t, db, "c2")
	want := appendEvents(t, db, "c1", 3)
	var encoded []EncodedEvent
	for _, e := range want {
		n := *e
		n.ChannelID = "c2"
		enc, err := EncodeEvent(&n)
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, enc)
	}
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendEncodedEvents("c2", encoded[:2]) })
	for _, bad := range [][]EncodedEvent{encoded[:1], encoded[1:2]} {
		if err := db.Update(func(tx *Tx) error { return tx.AppendEncodedEvents("c2", bad) }); err == nil {
			t.Errorf("AppendEncodedEvents of event %d after 2 succeeded; want it refused", bad[0].seq)
		}
	}
	if err := db.Update(func(tx *Tx) error { return tx.AppendEncodedEvents("c1", encoded[2:]) }); err == nil {
		t.Error("AppendEncodedEvents of a c2 event at c1 succeeded")
	}
	// c1's history was appended by AppendEvent: whole events would sit
	// above events read back from the records.
	c1 := *want[0]
	c1.Seq = 4
	if enc, err := EncodeEvent(&c1); err != nil {
		t.Fatal(err)
	} else if err := db.Update(func(tx *Tx) error { return tx.AppendEncodedEvents("c1", []EncodedEvent{enc}) }); err == nil {
		t.Error("AppendEncodedEvents after AppendEvent's events succeeded")
	}
	mustUpdate(t, db, func(tx *Tx) error { return tx.AppendEncodedEvents("c2", encoded[2:]) })
	mustView(t, db, func(tx *Tx) error {
		if seq, err := tx.LastEventSeq("c2"); err != nil || seq != 3 {
			t.Errorf("LastEventSeq(c2) = %d, %v; want 3", seq, err)
		}
		for _, w := range want {
			got, err := tx.Event("c2", w.Seq)
			if err != nil {
				return err
			}
			w2 := *w
			w2.ChannelID = "c2"
			if !reflect.DeepEqual(got, &w2) {
				t.Errorf("event %d = %+v; want %+v", w.Seq, got, &w2)
			}
		}
		return nil
	})
	// Encoded with no records to tell them from, they are stored whole, as
	// schema 2 stored every event.
	for seq := uint64(1); seq <= 3; seq++ {
		if form := storedForm(t, db, "c2", seq); form != formWhole {
			t.Errorf("event %d encoded beforehand is stored in form %d; want a whole event (%d)", seq, form, formWhole)
		}
		if onPostgres(t) {
			continue
		}
		if raw := rawEvent(t, db, "c2", seq); len(raw) == 0 || raw[0] != eventS2 {
			t.Errorf("event %d encoded beforehand is stored as % x…; want a whole event (%#x)", seq, raw[:min(len(raw), 4)], eventS2)
		}
	}
}
