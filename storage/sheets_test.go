package storage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// memoSheet has every shape a system's sheet uses: maps of structs,
// slices, pointers, omitted fields, an unexported field json never sets.
type memoSheet struct {
	Class  string                 `json:"class"`
	HP     int                    `json:"hp"`
	Saves  map[string]int         `json:"saves,omitempty"`
	Pools  map[string]memoPool    `json:"pools"`
	Bleeds []memoPool             `json:"bleeds,omitempty"`
	Next   *memoPool              `json:"next,omitempty"`
	Any    any                    `json:"any,omitempty"`
	Nested map[string][]*memoPool `json:"nested,omitempty"`
	secret int
}

type memoPool struct {
	Current int `json:"current"`
	Max     int `json:"max"`
}

// TestDecodeSheetMemo: a sheet decoded again comes from the memo, equal to
// what json.Unmarshal gives into a zero value, and owned by the caller:
// changing its maps, slices and pointers changes no later decode.
func TestDecodeSheetMemo(t *testing.T) {
	m := newSheetMemo(4)
	raws := []string{
		`{"class":"fighter","hp":3,"saves":{"death":12},"pools":{"vigor":{"current":2,"max":3}},"bleeds":[{"current":1,"max":2}],"next":{"current":5,"max":6},"any":{"a":[1,"x"]},"nested":{"k":[{"current":1,"max":1},null]}}`,
		`{"class":"thief","hp":0,"pools":null}`,
		`{"class":"mage","hp":1,"pools":{}}`,
	}
	for round := range 3 {
		for _, raw := range raws {
			var want memoSheet
			if err := json.Unmarshal([]byte(raw), &want); err != nil {
				t.Fatal(err)
			}
			var got memoSheet
			if err := m.decode([]byte(raw), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: decode(%s) = %+v; want %+v", round, raw, got, want)
			}
			// The caller's copy is its own.
			got.Class = "changed"
			if got.Saves != nil {
				got.Saves["death"] = 99
			}
			if got.Pools != nil {
				got.Pools["vigor"] = memoPool{9, 9}
			}
			if len(got.Bleeds) > 0 {
				got.Bleeds[0].Current = 9
			}
			if got.Next != nil {
				got.Next.Current = 9
			}
			if a, ok := got.Any.(map[string]any); ok {
				a["a"].([]any)[0] = 9.0
			}
			if n := got.Nested["k"]; len(n) > 0 {
				n[0].Current = 9
			}
		}
	}
	if got := m.lru.Len(); got != len(raws) {
		t.Errorf("memo holds %d sheets; want %d", got, len(raws))
	}
	// Beyond its size the memo forgets the least recently used.
	for i := range 10 {
		var s memoSheet
		if err := m.decode(fmt.Appendf(nil, `{"hp":%d}`, i), &s); err != nil || s.HP != i {
			t.Fatalf("decode hp %d = %+v, %v", i, s, err)
		}
	}
	if got := m.lru.Len(); got != 4 {
		t.Errorf("memo holds %d sheets; want its limit 4", got)
	}
	// A sheet that does not decode is an error every time, not kept.
	for range 2 {
		var s memoSheet
		if err := m.decode([]byte(`{"hp":"x"}`), &s); err == nil {
			t.Error("decode of a bad sheet: no error")
		}
	}
}

// TestDecodeSheetMemoConcurrent: many goroutines decode and change the same
// sheets (run with -race).
func TestDecodeSheetMemoConcurrent(t *testing.T) {
	m := newSheetMemo(8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				raw := fmt.Appendf(nil, `{"hp":%d,"saves":{"death":%d},"bleeds":[{"current":1,"max":2}]}`, i%5, i%5)
				var s memoSheet
				if err := m.decode(raw, &s); err != nil || s.HP != i%5 || s.Saves["death"] != i%5 {
					t.Errorf("goroutine %d: decode = %+v, %v", g, s, err)
					return
				}
				s.Saves["death"], s.Bleeds[0].Current = -1, -1
			}
		})
	}
	wg.Wait()
}
