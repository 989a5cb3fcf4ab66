package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestDiffPatch: for records as the encoder writes them, with members
// changed, added, removed and nested objects changed, patch(after,
// diff(after, before)) gives before back byte for byte, and a patch
// applies to an after state with a member more (a later code's record),
// leaving that member alone.
func TestDiffPatch(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	value := func() any {
		switch rng.IntN(6) {
		case 0:
			return rng.IntN(100)
		case 1:
			return fmt.Sprintf("s\"%d,}{", rng.IntN(5))
		case 2:
			return []any{rng.IntN(3), "x]"}
		case 3:
			return map[string]any{"a": rng.IntN(3), "b": []int{rng.IntN(2)}}
		case 4:
			return nil
		}
		return rng.IntN(2) == 0
	}
	keys := []string{"name", "hp", "sheet", "hidden", "a\"b", "z"}
	record := func() map[string]any {
		m := map[string]any{}
		for _, k := range keys {
			if rng.IntN(3) > 0 {
				m[k] = value()
			}
		}
		return m
	}
	for i := range 2000 {
		a, b := record(), record()
		if rng.IntN(2) == 0 { // mostly alike, as before and after states are
			for k, v := range a {
				if rng.IntN(4) > 0 {
					b[k] = v
				}
			}
		}
		ea, _ := json.Marshal(a)
		eb, _ := json.Marshal(b)
		p, ok := diff(ea, eb)
		if !ok {
			t.Fatalf("seed %d case %d: diff(%s, %s) failed", seed, i, ea, eb)
		}
		got, err := patch(ea, p)
		if err != nil || !bytes.Equal(got, eb) {
			t.Fatalf("seed %d case %d: patch(%s, %s) = %s, %v; want %s", seed, i, ea, p, got, err, eb)
		}
	}
	// A member more in the after state is kept; the patch still applies.
	after := []byte(`{"name":"Lister","sheet":{"hp":2,"hd":1},"initiative":4}`)
	got, err := patch(after, []byte(`{"sheet":{"hp":[5]}}`))
	if want := `{"name":"Lister","sheet":{"hp":5,"hd":1},"initiative":4}`; err != nil || string(got) != want {
		t.Errorf("patch onto a record with a member more = %s, %v; want %s", got, err, want)
	}
	for _, bad := range []string{``, `[]`, `{"a":1`, `{"a":[1,2,3]}`, `{"a":5}`, `{"sheet":{"x":{}}}`} {
		if _, err := patch([]byte(`{"a":1}`), []byte(bad)); err == nil {
			t.Errorf("patch with %q: no error", bad)
		}
	}
}
