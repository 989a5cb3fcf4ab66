// Package memo keeps replies ready: the reply of a read-only command,
// rendered once, kept under what it was rendered from (a table's state at
// one version, the command and its options, the audience) and answered
// again from memory while nothing of it changed. Package commands keeps
// one beside the state cache (storage.CacheShare), whose budget it shares;
// it knows nothing of commands, tables or audiences but the words of its
// keys, which the caller chooses.
//
// A reply is never served across a version: a key names its table's
// version, and a table holds the replies of one version at a time (a reply
// kept at another version drops those of the one before).
package memo

import (
	"container/list"
	"sync"
)

// Key names one reply: the table (its channel) it is about, the version of
// the table's state it was rendered from (storage.Tx.Version; never 0),
// and What, in the caller's words, everything else it depends on: the
// command and its options, the audience, the newest event.
type Key struct {
	Channel string
	Version uint64
	What    string
}

// Memo is a bounded memory of replies of type V, the least recently used
// dropped first. It is safe for concurrent use.
type Memo[V any] struct {
	mu     sync.Mutex
	limit  int // bytes
	used   int
	charge func(delta int)
	tables map[string]*table
	lru    list.List // of *entry[V]; front: most recently used
	stats  Stats
}

// table is what a memo holds of one channel: the replies of one version.
type table struct {
	version uint64
	entries map[string]*list.Element // by Key.What
}

// entry is one reply kept.
type entry[V any] struct {
	key  Key
	v    V
	size int
}

// Stats counts what a memo holds and has answered.
type Stats struct {
	// Replies and Bytes are the replies kept and the estimate of their size.
	Replies, Bytes int
	// Hits and Misses count lookups; Drops the replies dropped, for room
	// or because their table moved to another version.
	Hits, Misses, Drops int64
}

// New returns a memo that holds at most limit bytes of replies, by the
// sizes Put is given; limit 0 (or less) keeps none. charge, when not nil,
// is told of every change of the bytes held (storage.CacheShare.Charge), so
// that they count against a budget the memo shares.
func New[V any](limit int, charge func(delta int)) *Memo[V] {
	return &Memo[V]{limit: max(limit, 0), charge: charge, tables: map[string]*table{}}
}

// Limit returns the most the memo holds, in bytes (0 for a nil Memo).
func (m *Memo[V]) Limit() int {
	if m == nil {
		return 0
	}
	return m.limit
}

// Get returns the reply kept under k, and whether there is one.
func (m *Memo[V]) Get(k Key) (V, bool) {
	var zero V
	if m == nil || m.limit == 0 || k.Version == 0 {
		return zero, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tables[k.Channel]
	if t == nil || t.version != k.Version {
		m.stats.Misses++
		return zero, false
	}
	e := t.entries[k.What]
	if e == nil {
		m.stats.Misses++
		return zero, false
	}
	m.stats.Hits++
	m.lru.MoveToFront(e)
	return e.Value.(*entry[V]).v, true
}

// Put keeps v under k, its size size bytes (an estimate of what it holds).
// A reply at another version than the table's replies drops them first; a
// reply larger than the memo is not kept.
func (m *Memo[V]) Put(k Key, v V, size int) {
	if m == nil || m.limit == 0 || k.Version == 0 || size > m.limit {
		return
	}
	size += len(k.Channel) + len(k.What) + 128 // the entry, the key and their map and list cells
	m.mu.Lock()
	delta := 0
	defer func() {
		m.mu.Unlock()
		if m.charge != nil && delta != 0 {
			m.charge(delta)
		}
	}()
	t := m.tables[k.Channel]
	if t != nil && t.version != k.Version {
		delta -= m.dropTableLocked(t)
		t = nil
	}
	if t == nil {
		t = &table{version: k.Version, entries: map[string]*list.Element{}}
		m.tables[k.Channel] = t
	}
	if e := t.entries[k.What]; e != nil {
		old := e.Value.(*entry[V])
		delta += size - old.size
		m.used += size - old.size
		old.v, old.size = v, size
		m.lru.MoveToFront(e)
	} else {
		t.entries[k.What] = m.lru.PushFront(&entry[V]{key: k, v: v, size: size})
		m.used += size
		delta += size
	}
	for m.used > m.limit && m.lru.Len() > 0 {
		e := m.lru.Back()
		delta -= m.removeLocked(e)
	}
}

// removeLocked removes the entry e and returns its size.
func (m *Memo[V]) removeLocked(e *list.Element) int {
	en := e.Value.(*entry[V])
	m.lru.Remove(e)
	t := m.tables[en.key.Channel]
	delete(t.entries, en.key.What)
	if len(t.entries) == 0 {
		delete(m.tables, en.key.Channel)
	}
	m.used -= en.size
	m.stats.Drops++
	return en.size
}

// dropTableLocked removes every entry of t and returns their size.
func (m *Memo[V]) dropTableLocked(t *table) int {
	n := 0
	for _, e := range t.entries {
		n += m.removeLocked(e)
	}
	return n
}

// Stats returns the memo's counters.
func (m *Memo[V]) Stats() Stats {
	if m == nil {
		return Stats{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.Replies, s.Bytes = m.lru.Len(), m.used
	return s
}
