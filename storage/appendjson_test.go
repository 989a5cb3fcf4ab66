package storage

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sameEncoding fails unless encodeCharacter and encoding/json
// (encodeCharacterJSON) give c the same bytes, or both fail.
func sameEncoding(t *testing.T, c *Character) {
	t.Helper()
	got, err := encodeCharacter(c)
	want, werr := encodeCharacterJSON(c)
	if (err != nil) != (werr != nil) || !bytes.Equal(got, want) {
		t.Errorf("encodeCharacter(%+v) = %s, %v; encoding/json gives %s, %v", c, got, err, want, werr)
	}
}

func TestEncodeCharacterIsEncodingJSONs(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	base := Character{ChannelID: "c1", ID: 7, Name: "Lister", OwnerID: "u1", OwnerName: "Dave", CreatedAt: t0,
		Sheet: json.RawMessage(`{"hp":12,"max":20}`)}
	for _, tc := range []struct {
		name string
		edit func(c *Character)
	}{
		{"plain", func(*Character) {}},
		{"hidden", func(c *Character) { c.Hidden = true }},
		{"no owner", func(c *Character) { c.OwnerID, c.OwnerName = "", "" }},
		{"zero", func(c *Character) { *c = Character{} }},
		{"max id", func(c *Character) { c.ID = 1<<64 - 1 }},
		{"html", func(c *Character) { c.Name = "Bob & <Alice>" }},
		{"accents", func(c *Character) { c.Name, c.OwnerName = "Zoë", "日本語 🎲" }},
		{"quote", func(c *Character) { c.Name = `the "Cat"` }},
		{"backslash", func(c *Character) { c.OwnerName = `a\b` }},
		{"controls", func(c *Character) { c.Name = "a\tb\nc\x01\x7f\b\f" }},
		{"line separators", func(c *Character) { c.Name = "a\u2028b\u2029" }},
		{"invalid utf-8", func(c *Character) { c.Name = "a\xffb\xc3" }},
		{"time in a zone", func(c *Character) { c.CreatedAt = t0.In(paris) }},
		{"time without nanoseconds", func(c *Character) { c.CreatedAt = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }},
		{"time with monotonic", func(c *Character) { c.CreatedAt = time.Now() }},
		{"zero time", func(c *Character) { c.CreatedAt = time.Time{} }},
		{"year 9999", func(c *Character) { c.CreatedAt = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC) }},
		{"year 10000", func(c *Character) { c.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"year -1", func(c *Character) { c.CreatedAt = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"empty sheet", func(c *Character) { c.Sheet = json.RawMessage{} }},
		{"nil sheet", func(c *Character) { c.Sheet = nil }},
		{"spaced sheet", func(c *Character) { c.Sheet = json.RawMessage(`{ "notes": "a <b> & c",  "hp": 4 }`) }},
		{"sheet with a newline", func(c *Character) { c.Sheet = json.RawMessage("{\"hp\":4}\n") }},
		{"escaped sheet", func(c *Character) { c.Sheet = json.RawMessage(`{"n":"\u003cb\u003e \"q\" \\ \/ \n \ud83c\udfb2"}`) }},
		{"html sheet", func(c *Character) { c.Sheet = json.RawMessage(`{"n":"<b>&"}`) }},
		{"nested sheet", func(c *Character) {
			c.Sheet = json.RawMessage(`{"a":[1,-2.5e+3,0,0.0,1E9,true,false,null,{},[],[{}]],"b":{"c":{"d":"e"}}}`)
		}},
		{"deep sheet", func(c *Character) {
			c.Sheet = json.RawMessage(strings.Repeat("[", 100) + strings.Repeat("]", 100))
		}},
		{"scalar sheet", func(c *Character) { c.Sheet = json.RawMessage(`42`) }},
		{"invalid sheet", func(c *Character) { c.Sheet = json.RawMessage(`{"hp":}`) }},
		{"sheet with trailing data", func(c *Character) { c.Sheet = json.RawMessage(`{}{}`) }},
		{"sheet with a leading zero", func(c *Character) { c.Sheet = json.RawMessage(`[01]`) }},
		{"sheet with a control character", func(c *Character) { c.Sheet = json.RawMessage("[\"a\x01\"]") }},
		{"sheet with a bad escape", func(c *Character) { c.Sheet = json.RawMessage(`["\x"]`) }},
		{"sheet with invalid utf-8", func(c *Character) { c.Sheet = json.RawMessage("[\"\xff\"]") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			sameEncoding(t, &c)
		})
	}
}

// TestAppendCharacterKnowsEveryField: appendCharacter writes Character's
// fields by name; a field added to Character must be added there too (and
// here).
func TestAppendCharacterKnowsEveryField(t *testing.T) {
	var got []string
	ty := reflect.TypeFor[Character]()
	for i := range ty.NumField() {
		got = append(got, ty.Field(i).Name+" "+ty.Field(i).Tag.Get("json"))
	}
	want := []string{"ChannelID channel_id", "ID id", "Name name", "OwnerID owner_id,omitempty",
		"OwnerName owner_name,omitempty", "CreatedAt created_at", "Sheet sheet,omitempty", "Hidden hidden,omitempty"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("Character's fields are\n%s\nappendCharacter writes\n%s", strings.Join(got, "; "), strings.Join(want, "; "))
	}
}

// FuzzEncodeCharacter: whatever the strings, time and sheet, encodeCharacter
// gives encoding/json's bytes, or fails where it fails.
func FuzzEncodeCharacter(f *testing.F) {
	f.Add("Lister", "Dave", int64(1740860130), int64(123456789), []byte(`{"hp":12}`))
	f.Add("Bob & <Alice>", "Zoë\u2028", int64(-62135596800), int64(0), []byte(`{ "a" : [1, 2] }`))
	f.Add("a\"b\\c\x01", "\xff", int64(253402300800), int64(5), []byte(`[-0.5e-7,"\u00e9",null]`))
	f.Fuzz(func(t *testing.T, name, owner string, sec, nsec int64, sheet []byte) {
		c := &Character{ChannelID: "c1", ID: 3, Name: name, OwnerName: owner,
			CreatedAt: time.Unix(sec, nsec), Sheet: sheet}
		sameEncoding(t, c)
	})
}

// FuzzValidCompact: validCompact accepts exactly the values encoding/json
// writes unchanged as a json.RawMessage (nested less than
// maxCompactDepth deep).
func FuzzValidCompact(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1}`, `{ "a":1}`, `[1,2,]`, `"\u12G4"`, `-`, `-0`, `1.`, `1e`,
		`1e+5`, `tru`, `nul`, `[true,false,null]`, "\"\x7f\xff\"", `{"a" :1}`, `[[[[]]]]`, ``, ` `, `0 `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		var buf bytes.Buffer
		unchanged := json.Compact(&buf, v) == nil && bytes.Equal(buf.Bytes(), v)
		got := validCompact(v)
		if got && !unchanged {
			t.Fatalf("validCompact(%q) = true; encoding/json rejects or changes it", v)
		}
		if !got && unchanged && depthOf(v) < maxCompactDepth {
			t.Fatalf("validCompact(%q) = false; encoding/json writes it unchanged", v)
		}
	})
}

// depthOf is how deeply brackets nest in v, strings not skipped (an
// overestimate is enough here).
func depthOf(v []byte) int {
	d, most := 0, 0
	for _, c := range v {
		switch c {
		case '[', '{':
			d++
			most = max(most, d)
		case ']', '}':
			d--
		}
	}
	return most
}

// BenchmarkEncodeCharacter encodes a character with a sheet of about 400
// bytes, as the systems' are, by encoding/json (json) and as
// encodeCharacter does (append).
func BenchmarkEncodeCharacter(b *testing.B) {
	c := &Character{ChannelID: "1234567890123456789", ID: 3, Name: "Kryten", OwnerID: "9876543210987654321",
		OwnerName: "Robert", CreatedAt: t0, Sheet: json.RawMessage(`{"class":"fighter","level":3,"hit_die":"d10",` +
			`"hp":27,"hp_max":31,"temp_hp":0,"mp":4,"mp_max":6,"wp":9,"wp_max":12,"con":14,"armor":{"name":"chain mail",` +
			`"protection":4},"conditions":["bleeding","prone"],"injuries":[{"kind":"cut","severity":2,"since":1740860130}],` +
			`"notes":"carries the lantern; owes Lister 3 silver","death_saves":{"successes":0,"failures":1}}`)}
	for _, enc := range []struct {
		name string
		fn   func(*Character) ([]byte, error)
	}{{"json", encodeCharacterJSON}, {"append", encodeCharacter}} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc.fn(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// randomStoredEvent is a stored event drawn from r: strings with escapes,
// raw values valid, spaced or invalid, every optional member set or not.
func randomStoredEvent(r *rand.Rand) *storedEvent {
	strs := []string{"", "Lister", "Zoë & <Cat>", "a\nb\tc\x01", `q"\`, "\u2028\xff", "🎲 3d6 [1, 2, 3] = 6"}
	raws := []json.RawMessage{nil, {}, json.RawMessage(`{"hp":4}`), json.RawMessage(`{ "hp": 4 }`),
		json.RawMessage(`{"a":[1,2.5,-3e2,"\u00e9",null,true]}`), json.RawMessage(`[{"op":"set","k":"hp","v":3}]`),
		json.RawMessage(`{"hp":`), json.RawMessage(`"\x"`)}
	str := func() string { return strs[r.IntN(len(strs))] }
	strList := func() []string {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		l := make([]string, 1+r.IntN(3))
		for i := range l {
			l[i] = str()
		}
		return l
	}
	change := func() storedChange {
		sc := storedChange{ID: uint64(r.IntN(3)), Derived: r.IntN(2) == 0, Created: r.IntN(2) == 0,
			Was: raws[r.IntN(len(raws))], Before: raws[r.IntN(len(raws))], After: raws[r.IntN(len(raws))]}
		if r.IntN(2) == 0 {
			n := str()
			sc.Name = &n
		}
		return sc
	}
	se := &storedEvent{Event: Event{At: time.Unix(r.Int64N(1<<35), r.Int64N(1e9)).UTC(), UserID: str(), UserName: str(),
		Command: str(), Summary: str(), Dice: strList(), UndoOf: uint64(r.IntN(2) * r.IntN(100))}}
	if r.IntN(3) == 0 {
		se.At = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	for range r.IntN(3) {
		p := EventPart{Hidden: r.IntN(2) == 0, Summary: str(), Dice: strList()}
		for range r.IntN(3) {
			p.Characters = append(p.Characters, uint64(r.IntN(5)))
		}
		se.Parts = append(se.Parts, p)
	}
	if r.IntN(4) > 0 {
		se.Changes = []storedChange{}
		for range r.IntN(3) {
			se.Changes = append(se.Changes, change())
		}
	}
	if r.IntN(2) == 0 {
		sc := change()
		se.Table = &sc
	}
	if r.IntN(10) == 0 {
		se.Records = &checkpoint{Table: raws[2], Chars: []checkpointRecord{{ID: 1, Record: raws[3]}}}
	}
	return se
}

// TestEncodeStoredEventIsEncodingJSONs: over random stored events,
// encodeStoredEvent gives encode's bytes, or fails where it fails. The
// seed is printed; -seed gives it back.
func TestEncodeStoredEventIsEncodingJSONs(t *testing.T) {
	seed := *eventSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 29))
	appended := 0
	for range 5000 {
		se := randomStoredEvent(r)
		if _, ok := appendStoredEvent(nil, se); ok {
			appended++
		}
		got, err := encodeStoredEvent(se)
		want, werr := encode(se)
		if (err != nil) != (werr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("encodeStoredEvent(%+v) =\n%s, %v\nencode gives\n%s, %v", se, got, err, want, werr)
		}
	}
	if appended < 500 {
		t.Errorf("only %d of 5000 events appended without encoding/json", appended)
	}
}

var eventSeed = flag.Uint64("seed", 0, "seed of TestEncodeStoredEventIsEncodingJSONs (0: the clock)")

// FuzzAppendString: appendString writes what encoding/json writes for any
// string, HTML escaping off.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\x00\x1f\b\f\n\r\t\x7f", "<&>", "\u2028\u2029", "\xff\xc3", "é日🎲"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s; encoding/json writes %s", s, got, want)
		}
	})
}

// TestAppendStoredEventKnowsEveryField: appendStoredEvent writes the
// fields of storedEvent, Event, EventPart, storedChange and Change by
// name; a field added to one of them must be added there too (and here).
func TestAppendStoredEventKnowsEveryField(t *testing.T) {
	for _, tc := range []struct {
		ty   reflect.Type
		want string
	}{
		{reflect.TypeFor[Event](), "ChannelID channel_id; Seq seq; At at; UserID user_id,omitempty; UserName user_name,omitempty; " +
			"Command command,omitempty; Summary summary,omitempty; Dice dice; Changes changes; TableBefore table_before,omitempty; " +
			"TableAfter table_after,omitempty; UndoOf undo_of,omitempty; Parts parts,omitempty"},
		{reflect.TypeFor[EventPart](), "Characters characters,omitempty; Hidden hidden,omitempty; Summary summary,omitempty; Dice dice,omitempty"},
		{reflect.TypeFor[Change](), "CharacterID character_id; Name name; Before before,omitempty; After after,omitempty"},
		{reflect.TypeFor[storedChange](), "Change ; CharacterID character_id,omitempty; ID id,omitempty; Name name,omitempty; " +
			"Derived derived,omitempty; Created created,omitempty; Was was,omitempty; Before before,omitempty; After after,omitempty"},
		{reflect.TypeFor[storedEvent](), "Event ; ChannelID channel_id,omitempty; Seq seq,omitempty; Changes changes; Table table,omitempty; " +
			"TableBefore table_before,omitempty; TableAfter table_after,omitempty; Records records,omitempty"},
	} {
		var got []string
		for i := range tc.ty.NumField() {
			got = append(got, tc.ty.Field(i).Name+" "+tc.ty.Field(i).Tag.Get("json"))
		}
		if g := strings.Join(got, "; "); g != tc.want {
			t.Errorf("%v's fields are\n%s\nappendStoredEvent writes\n%s", tc.ty, g, tc.want)
		}
	}
}

// BenchmarkEncodeStoredEvent encodes a typical command's stored event (a
// summary of two lines, two dice, one character's change stored as a
// patch, one hidden part) by encoding/json (json) and as
// encodeStoredEvent does (append).
func BenchmarkEncodeStoredEvent(b *testing.B) {
	name := "Kryten"
	se := &storedEvent{Event: Event{At: t0, UserID: "9876543210987654321", UserName: "Robert",
		Command: "/damage target:Kryten amount:2d6+1 kind:fire", Summary: "Kryten takes 8 fire damage: 27 → 19 HP\nKryten is Wounded",
		Dice:  []string{"2d6+1 [3, 4] + 1 = 8", "1d20 [12] = 12"},
		Parts: []EventPart{{Characters: []uint64{3}, Hidden: true, Summary: "Kryten takes 8 fire damage", Dice: []string{"2d6+1 [3, 4] + 1 = 8"}}}},
		Changes: []storedChange{{ID: 3, Name: &name, Derived: true,
			Was: json.RawMessage(`{"sheet":["{\"hp\":27,\"wounded\":false}",4],"owner_name":["Robert",2]}`)}}}
	for _, enc := range []struct {
		name string
		fn   func(*storedEvent) ([]byte, error)
	}{{"json", func(se *storedEvent) ([]byte, error) { return encode(se) }}, {"append", encodeStoredEvent}} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc.fn(se); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestStoredCharacterCopiesTheSheet: storedCharacter gives the sheet
// json.Compact gives, in memory of its own, whether the sheet was compact
// already (no scan by encoding/json) or not.
func TestStoredCharacterCopiesTheSheet(t *testing.T) {
	for _, sheet := range []string{`{"hp":4,"n":"a <b>"}`, `{ "hp": 4 }`} {
		c := &Character{ChannelID: "c1", ID: 1, Name: "Lister", CreatedAt: t0, Sheet: json.RawMessage(sheet)}
		got, err := storedCharacter(c)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, c.Sheet); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Sheet, want.Bytes()) {
			t.Errorf("storedCharacter(%s).Sheet = %s; want %s", sheet, got.Sheet, want.Bytes())
		}
		c.Sheet[0] = 'x'
		if got.Sheet[0] != '{' {
			t.Errorf("storedCharacter(%s).Sheet shares the caller's memory", sheet)
		}
	}
}
