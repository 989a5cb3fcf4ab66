package memo_test

import (
	"fmt"
	"testing"

	"github.com/hpkeeper/hpkeeper/commands/memo"
)

// TestNeverAcrossVersion: a reply is served at its table's version only,
// and a reply kept at another version drops the table's others.
func TestNeverAcrossVersion(t *testing.T) {
	m := memo.New[string](1<<20, nil)
	k := memo.Key{Channel: "c1", Version: 7, What: "char list"}
	m.Put(k, "seven", 10)
	m.Put(memo.Key{Channel: "c1", Version: 7, What: "table show"}, "seven too", 10)
	if v, ok := m.Get(k); !ok || v != "seven" {
		t.Fatalf("Get(%v) = %q, %v; want seven", k, v, ok)
	}
	at8 := k
	at8.Version = 8
	if v, ok := m.Get(at8); ok {
		t.Fatalf("Get(%v) = %q at another version", at8, v)
	}
	m.Put(at8, "eight", 10)
	for _, old := range []memo.Key{k, {Channel: "c1", Version: 7, What: "table show"}} {
		if v, ok := m.Get(old); ok {
			t.Errorf("Get(%v) = %q after version 8 was kept", old, v)
		}
	}
	if st := m.Stats(); st.Replies != 1 || st.Drops != 2 {
		t.Errorf("Stats() = %+v; want 1 reply, 2 dropped", st)
	}
	if v, ok := m.Get(memo.Key{Channel: "c1", What: "char list"}); ok {
		t.Errorf("Get at version 0 = %q; want nothing", v)
	}
}

// TestBounded: the memo holds at most its limit, dropping the least
// recently used, and tells charge every byte it takes and gives back.
func TestBounded(t *testing.T) {
	charged := 0
	m := memo.New[int](10_000, func(d int) { charged += d })
	for i := range 200 {
		m.Put(memo.Key{Channel: fmt.Sprintf("c%d", i), Version: 1, What: "x"}, i, 100)
		if i == 100 {
			m.Get(memo.Key{Channel: "c0", Version: 1, What: "x"}) // lost already
		}
	}
	st := m.Stats()
	if st.Bytes > 10_000 || st.Replies == 0 || st.Bytes != charged {
		t.Fatalf("Stats() = %+v, charged %d; want at most 10000 bytes, all charged", st, charged)
	}
	if _, ok := m.Get(memo.Key{Channel: "c199", Version: 1, What: "x"}); !ok {
		t.Error("the newest reply was dropped")
	}
	if _, ok := m.Get(memo.Key{Channel: "c0", Version: 1, What: "x"}); ok {
		t.Error("the oldest reply was kept")
	}
	m.Put(memo.Key{Channel: "big", Version: 1}, 0, 20_000)
	if _, ok := m.Get(memo.Key{Channel: "big", Version: 1}); ok {
		t.Error("a reply larger than the memo was kept")
	}
	off := memo.New[int](0, nil)
	off.Put(memo.Key{Channel: "c", Version: 1}, 1, 1)
	if _, ok := off.Get(memo.Key{Channel: "c", Version: 1}); ok {
		t.Error("a memo of limit 0 kept a reply")
	}
}

// TestConcurrent: readers and writers of many tables at once (run with
// -race) only ever get a reply put under the very key they ask for.
func TestConcurrent(t *testing.T) {
	m := memo.New[memo.Key](50_000, nil)
	done := make(chan bool)
	for g := range 8 {
		go func() {
			defer func() { done <- true }()
			for i := range 5000 {
				k := memo.Key{Channel: fmt.Sprintf("c%d", (i*7+g)%13), Version: uint64(1 + (i/50+g)%3), What: fmt.Sprint(i % 5)}
				if v, ok := m.Get(k); ok && v != k {
					t.Errorf("Get(%v) = %v", k, v)
					return
				}
				m.Put(k, k, 100)
			}
		}()
	}
	for range 8 {
		<-done
	}
	if st := m.Stats(); st.Bytes > 50_000 || st.Hits == 0 {
		t.Errorf("Stats() = %+v; want hits, within the limit", st)
	}
}
