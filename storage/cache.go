package storage

import (
	"bytes"
	"container/list"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// The state cache.
//
// The process that holds the file keeps the decoded tables and characters of
// the channels it has read, so that a read decodes no JSON and touches no
// page of the file, and a write encodes only the records it changes. One
// entry is one channel: its table and all its characters, an immutable
// channelState. The cache is write-through and never ahead of durability:
//
//   - the writer goroutine (group.go) runs each Update function against
//     private copies of the states it changes, mirrored write by write from
//     the records it puts in the bbolt transaction; a function that fails
//     or panics leaves its copies behind with its journal;
//   - only after the group's commit returned nil (synced to disk) does the
//     writer publish the group's states into the cache, under the cache's
//     lock, and record that commit's transaction id as durable; a commit
//     that fails publishes nothing;
//   - a read that misses decodes the channel from a bbolt read transaction
//     and offers it to the cache, which takes it only when that snapshot is
//     no newer than the last durable commit and no newer write of the channel
//     was published or evicted since (stateCache.offer), so a slow reader
//     never puts back an older state than the cache has seen.
//
// Every record a Tx hands out is a copy (Sheet bytes, GMs and Options
// included), so no caller can change a cached state. The cache holds at most
// Options.CacheBytes of states by an estimate of their size and evicts the
// least recently used channels.

// DefaultCacheBytes is the size of the state cache when Options.CacheBytes is
// 0: 8 MiB, about 2,500 tables of 5 characters with the replies kept ready
// beside them. It was 32 MiB; at 10,000 tables of 5 that kept the process's
// anonymous memory at 113–147 MB, against 57 MB at 8 MiB, and a bot's tables
// in play at once are far fewer (BENCHMARKS.md, issue 29).
const DefaultCacheBytes = 8 << 20

// channelState is one channel's table and characters as committed, decoded.
// A state in the cache or handed to a Tx as its snapshot is never changed;
// a writing function changes only a copy it made (Tx.writable).
type channelState struct {
	// table is the channel's table record, or nil when it has none.
	table *Table
	// chars are the characters by ascending id, and keys their name index
	// keys (nameKey) in the same order.
	chars []*Character
	keys  []string
	// version is the id of the bbolt transaction this state was read from
	// or written by: the state holds every write of the channel up to it.
	// On PostgreSQL it is the version of the channel's row (pgNextVersion),
	// which names one state and orders none.
	version uint64
}

// find returns the index of character id in s.chars and whether it is there.
func (s *channelState) find(id uint64) (int, bool) {
	return slices.BinarySearchFunc(s.chars, id, func(c *Character, id uint64) int {
		switch {
		case c.ID < id:
			return -1
		case c.ID > id:
			return 1
		}
		return 0
	})
}

// character returns character id, or nil.
func (s *channelState) character(id uint64) *Character {
	if i, ok := s.find(id); ok {
		return s.chars[i]
	}
	return nil
}

// named returns the character whose name index key is key, or nil.
func (s *channelState) named(key string) *Character {
	for i, k := range s.keys {
		if k == key {
			return s.chars[i]
		}
	}
	return nil
}

// clone returns a copy of s that can be changed without changing s (the
// records are shared: a change replaces a record, never edits it).
func (s *channelState) clone() *channelState {
	return &channelState{table: s.table, chars: slices.Clone(s.chars), keys: slices.Clone(s.keys), version: s.version}
}

// setCharacter puts c (which the state then owns) in place of the character
// with its id, or adds it.
func (s *channelState) setCharacter(c *Character) {
	i, ok := s.find(c.ID)
	if ok {
		s.chars[i], s.keys[i] = c, string(nameKey(c.Name))
		return
	}
	s.chars = slices.Insert(s.chars, i, c)
	s.keys = slices.Insert(s.keys, i, string(nameKey(c.Name)))
}

// removeCharacter removes character id, if present.
func (s *channelState) removeCharacter(id uint64) {
	if i, ok := s.find(id); ok {
		s.chars = slices.Delete(s.chars, i, i+1)
		s.keys = slices.Delete(s.keys, i, i+1)
	}
}

// size estimates the bytes s holds, for the cache's bound.
func (s *channelState) size() int {
	n := 96 + 24*cap(s.chars)
	if t := s.table; t != nil {
		n += 256 + len(t.ChannelID) + len(t.GuildID) + len(t.System) + len(t.SetupBy) + len(t.TrackerMessageID)
		for _, g := range t.GMs {
			n += 16 + len(g)
		}
		for k, v := range t.Options {
			n += 48 + len(k) + len(v)
		}
		if o := t.Initiative; o != nil {
			n += 64 + 56*cap(o.Combatants) // a Combatant is 56 bytes
			for _, c := range o.Combatants {
				n += len(c.Roll)
			}
		}
	}
	for i, c := range s.chars {
		n += 160 + len(c.Name) + len(s.keys[i]) + len(c.OwnerID) + len(c.OwnerName) + cap(c.Sheet)
	}
	return n
}

// loadChannel decodes the table and characters of channel ch of the bbolt
// transaction btx.
func loadChannel(btx *bolt.Tx, ch *channel) (*channelState, error) {
	return loadState(ch, uint64(btx.ID()))
}

// loadState decodes the table and characters of ch as of version.
func loadState(ch channelRecords, version uint64) (*channelState, error) {
	st := &channelState{version: version}
	channelID := ch.channelID()
	t, err := ch.tableRecord()
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", channelID, err)
	}
	if t != nil {
		if st.table, err = getTable(ch); err != nil {
			return nil, err
		}
	}
	err = ch.eachCharacter(func(id uint64, v []byte) error {
		rec, err := decodeCharacter(v)
		if err != nil {
			return fmt.Errorf("character %d at table %s: %w", id, channelID, err)
		}
		rec.ChannelID, rec.ID = channelID, id
		st.chars = append(st.chars, rec)
		st.keys = append(st.keys, string(nameKey(rec.Name)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// stateCache is the LRU cache of channel states, bounded by an estimate of
// their bytes. It is safe for concurrent use.
type stateCache struct {
	mu      sync.Mutex
	limit   int // bytes; 0: the cache keeps nothing
	used    int
	entries map[string]*list.Element // of *cacheEntry
	lru     list.List                // front: most recently used
	// durable is the transaction id of the last commit the writer
	// published: every commit up to it is on disk.
	durable uint64
	// evicted is the highest version of any state evicted so far: a state
	// read from an older snapshot might be older than one already dropped.
	evicted uint64
	// hits and misses count lookups, for tests and benchmarks.
	hits, misses int64
	// shared is what the caches kept beside this one hold (CacheShare):
	// counted against limit with used, so that together they keep to it.
	shared int
}

type cacheEntry struct {
	channelID string
	st        *channelState
	size      int
}

func newStateCache(limit int) *stateCache {
	return &stateCache{limit: max(limit, 0), entries: map[string]*list.Element{}}
}

// get returns the cached state of the channel, or nil.
func (c *stateCache) get(channelID string) *channelState {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[channelID]
	if e == nil {
		c.misses++
		return nil
	}
	c.hits++
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).st
}

// offer adds st, read by a reader from a snapshot that was durable... or
// not: it is taken only when its version is no newer than the last durable
// commit, and either the cache has an entry no newer than st or none and
// nothing newer than st was evicted. It reports whether st was taken.
func (c *stateCache) offer(channelID string, st *channelState) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limit == 0 || st.version > c.durable {
		return false
	}
	if e := c.entries[channelID]; e != nil {
		if e.Value.(*cacheEntry).st.version > st.version {
			return false
		}
	} else if st.version < c.evicted {
		return false
	}
	c.setLocked(channelID, st)
	return true
}

// publish records that the commit of transaction version is durable and
// puts the states it wrote (and those its functions read from it) in the
// cache. Only the writer calls it, after the commit returned nil.
func (c *stateCache) publish(version uint64, states map[string]*channelState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.durable = max(c.durable, version)
	if c.limit == 0 {
		return
	}
	for id, st := range states {
		c.setLocked(id, st)
	}
}

// setLocked puts st in the cache under channelID and evicts the least
// recently used entries beyond the limit.
func (c *stateCache) setLocked(channelID string, st *channelState) {
	size := st.size() + len(channelID) + 64
	if e := c.entries[channelID]; e != nil {
		ce := e.Value.(*cacheEntry)
		c.used += size - ce.size
		ce.st, ce.size = st, size
		c.lru.MoveToFront(e)
	} else {
		c.entries[channelID] = c.lru.PushFront(&cacheEntry{channelID: channelID, st: st, size: size})
		c.used += size
	}
	c.evictLocked()
}

// evictLocked evicts the least recently used entries until the states and
// the shares (CacheShare) fit in the limit, or no state is left.
func (c *stateCache) evictLocked() {
	for c.used+c.shared > c.limit && c.lru.Len() > 0 {
		e := c.lru.Back()
		ce := e.Value.(*cacheEntry)
		c.lru.Remove(e)
		delete(c.entries, ce.channelID)
		c.used -= ce.size
		c.evicted = max(c.evicted, ce.st.version)
	}
}

// CacheStats is what the state cache holds and has served since Open.
type CacheStats struct {
	// Channels and Bytes are the cached channels and the estimate of their
	// size; Limit is Options.CacheBytes as applied.
	Channels, Bytes, Limit int
	// Hits and Misses count lookups of a channel's state by readers and by
	// the writer's functions.
	Hits, Misses int64
	// Shared is what the caches kept beside the state cache hold of its
	// budget (CacheShare: the kernel's memo of replies), beside Bytes.
	Shared int
}

// CacheStats returns the state cache's counters. It is safe for concurrent use.
func (db *DB) CacheStats() CacheStats {
	c := db.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Channels: c.lru.Len(), Bytes: c.used, Limit: c.limit, Hits: c.hits, Misses: c.misses, Shared: c.shared}
}

// CacheShare is a part of the state cache's budget (Options.CacheBytes)
// that a cache kept beside it (the kernel's memo of replies,
// commands/memo) holds: what that cache holds is counted against the
// budget with the states, so that a state is evicted to make room for it
// and both together keep to the budget. It is safe for concurrent use.
type CacheShare struct {
	c     *stateCache
	limit int
}

// CacheShare returns a share of a quarter of the state cache's budget (0
// when the DB keeps no cache). Each call returns a share of its own: a
// process that holds one per DB keeps to the budget.
func (db *DB) CacheShare() *CacheShare {
	c := db.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return &CacheShare{c: c, limit: c.limit / 4}
}

// Limit returns the most the share may hold, in bytes.
func (s *CacheShare) Limit() int { return s.limit }

// Charge counts delta more bytes (fewer when negative) held in the share,
// evicting the least recently used states past the budget.
func (s *CacheShare) Charge(delta int) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shared += delta
	c.evictLocked()
}

// The records of a state are what decoding their stored JSON gives, so that
// a record from the cache is exactly a record read from the file. These
// helpers make that form from what a caller passes to a write, without a
// round trip through JSON.

// storedCharacter returns the form c takes once stored and read back: a
// copy with its time in UTC, its sheet compacted (nil when empty) and its
// strings valid UTF-8 as encoding/json writes them.
func storedCharacter(c *Character) (*Character, error) {
	n := normCharacter(c)
	n.Name, n.OwnerID, n.OwnerName = storedString(n.Name), storedString(n.OwnerID), storedString(n.OwnerName)
	if n.Sheet != nil && validCompact(n.Sheet) {
		// Compact already (the usual sheet): what json.Compact would
		// copy, without its scan.
		n.Sheet = bytes.Clone(n.Sheet)
	} else if n.Sheet != nil {
		// Compact JSON is never longer than its input: a buffer of the
		// sheet's length keeps no spare capacity in the cache.
		buf := bytes.NewBuffer(make([]byte, 0, len(n.Sheet)))
		if err := json.Compact(buf, n.Sheet); err != nil {
			return nil, fmt.Errorf("encode character %d at table %s: sheet: %w", c.ID, c.ChannelID, err)
		}
		n.Sheet = buf.Bytes()
	}
	return n, nil
}

// storedTable returns the form t takes once stored and read back: a deep
// copy with its time in UTC and its strings valid UTF-8.
func storedTable(t *Table) *Table {
	n := normTable(t)
	n.GuildID, n.System, n.SetupBy = storedString(n.GuildID), storedString(n.System), storedString(n.SetupBy)
	n.TrackerMessageID = storedString(n.TrackerMessageID)
	if t.GMs != nil {
		n.GMs = make([]string, len(t.GMs))
		for i, g := range t.GMs {
			n.GMs[i] = storedString(g)
		}
	}
	if t.Options != nil {
		n.Options = make(map[string]string, len(t.Options))
		for k, v := range t.Options {
			n.Options[storedString(k)] = storedString(v)
		}
	}
	n.Initiative = cloneInitiative(t.Initiative)
	if o := n.Initiative; o != nil {
		for i := range o.Combatants {
			o.Combatants[i].Roll = storedString(o.Combatants[i].Roll)
		}
	}
	if t.GMInbox != nil {
		n.GMInbox = make([]GMNote, len(t.GMInbox))
		for i, note := range t.GMInbox {
			note.Text = storedString(note.Text)
			given := make([]string, len(note.Given))
			for j, g := range note.Given {
				given[j] = storedString(g)
			}
			if note.Given == nil {
				given = nil
			}
			note.Given = given
			n.GMInbox[i] = note
		}
	}
	return n
}

// storedString returns s as encoding/json writes it: each byte that is not
// part of valid UTF-8 becomes U+FFFD.
func storedString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// copyCharacter returns a copy of a cached record that the caller may change.
func copyCharacter(c *Character) *Character {
	n := *c
	n.Sheet = bytes.Clone(c.Sheet)
	return &n
}

// putPG puts st, a state read from its PostgreSQL row or written to it, in
// the cache in place of what it holds of the channel. The versions of rows
// are not ordered (pgNextVersion): a state put late may be older than the
// one it replaces, which costs the next transaction of the channel the
// reading of its characters, never a wrong read (a cached state is used
// only while the row holds its version).
func (c *stateCache) putPG(channelID string, st *channelState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limit == 0 {
		return
	}
	if e := c.entries[channelID]; e != nil && e.Value.(*cacheEntry).st.version == st.version {
		c.lru.MoveToFront(e)
		return
	}
	c.setLocked(channelID, st)
}
