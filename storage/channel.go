package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// A channel's records since schema version 4: keys of the one channels
// bucket that begin with the channel id and a 0x00 byte (the layout is in
// schema.go). A nested bucket per channel cost its own pages (three leaves
// and a bucket header for a table of five characters, a third full), which
// made most of a file of small tables; in one bucket the records of many
// channels share a page, and a command's writes (a character, its event,
// the event sequence) mostly fall in one.

// channelsFill is the bbolt fill percent of the channels bucket. Keys of
// one channel are appended in order (events, ids) while channels interleave
// and records are rewritten in place: 0.7 keeps a page split by an append
// fuller than bbolt's default 0.5 would (long histories take less room)
// while leaving room for the next writes of the channels the page holds
// (fewer pages written per commit than 0.9).
const channelsFill = 0.7

// errBadChannel is returned for a channel id that cannot be a key prefix.
var errBadChannel = errors.New("channel id holds a 0x00 byte")

// channel is one channel's records: in the channels bucket (schema 4), or,
// read only, in the channel's nested bucket of a file of schema 3 or older
// (Inspect and the migration read those).
type channel struct {
	id string
	// b holds the table record under tableKey; nil when the channel has no
	// records (a nested file's channel never written).
	b        *bolt.Bucket
	tableKey []byte
	// chars, names and events are the characters (8-byte id → JSON, their
	// sequence assigns ids), the name index (lower-cased name → 8-byte id)
	// and the events (8-byte seq → encoded event, their sequence assigns
	// seqs).
	chars, names, events recordSet
	// j records the writes made through the seam (boltrecords.go), which
	// only a channel opened writable makes; nil: unrecorded.
	j        *journal
	writable bool
}

// recordSet is one kind of a channel's records: the keys of b that begin with
// prefix, seen without it.
type recordSet struct {
	// b is nil when the channel has none of this kind in a nested file.
	b      *bolt.Bucket
	prefix []byte
	// seqKey is the key of b holding the kind's sequence, 8 bytes big
	// endian (absent: 0); nil for a nested bucket, whose own sequence it is.
	seqKey []byte
}

// channelKey returns the key of a channel's record of kind: the channel id,
// 0x00, kind, then rest. The result is a new slice, as bbolt keeps a key
// given to Put until the transaction ends.
func channelKey(channelID string, kind byte, rest []byte) []byte {
	k := make([]byte, 0, len(channelID)+2+len(rest))
	k = append(k, channelID...)
	k = append(k, 0, kind)
	return append(k, rest...)
}

// flatChannel returns the records of channelID in the channels bucket b.
// It fails for an empty id and for one holding a 0x00 byte, which would
// run into another channel's keys.
func flatChannel(b *bolt.Bucket, channelID string) (*channel, error) {
	if channelID == "" {
		return nil, errNoChannel
	}
	if bytes.IndexByte([]byte(channelID), 0) >= 0 {
		return nil, fmt.Errorf("channel %q: %w", channelID, errBadChannel)
	}
	kind := func(k byte) recordSet {
		return recordSet{b: b, prefix: channelKey(channelID, k, nil), seqKey: channelKey(channelID, kindSequence, []byte{k})}
	}
	return &channel{
		id: channelID, b: b, tableKey: channelKey(channelID, kindTable, nil),
		chars: kind(kindCharacter), names: kind(kindName), events: kind(kindEvent),
	}, nil
}

// nestedChannel returns the records of channelID in its nested bucket ch
// (nil: none) of a file of schema 3 or older, for reading only.
func nestedChannel(ch *bolt.Bucket, channelID string) *channel {
	c := &channel{id: channelID, b: ch, tableKey: keyTable}
	if ch != nil {
		c.chars = recordSet{b: ch.Bucket(bucketChars)}
		c.names = recordSet{b: ch.Bucket(bucketNames)}
		c.events = recordSet{b: ch.Bucket(bucketEvents)}
	}
	return c
}

// table returns the stored table, nil when there is none.
func (c *channel) table() []byte {
	if c.b == nil {
		return nil
	}
	return c.b.Get(c.tableKey)
}

// putTable stores the table record v.
func (c *channel) putTable(j *journal, v []byte) error {
	return j.put(c.b, bytes.Clone(c.tableKey), v)
}

// deleteTable removes the table record.
func (c *channel) deleteTable(j *journal) error {
	return j.del(c.b, bytes.Clone(c.tableKey))
}

// key returns the key of b that holds k.
func (r recordSet) key(k []byte) []byte {
	out := make([]byte, 0, len(r.prefix)+len(k))
	return append(append(out, r.prefix...), k...)
}

// get returns the value of k, nil when absent.
func (r recordSet) get(k []byte) []byte {
	if r.b == nil {
		return nil
	}
	return r.b.Get(r.key(k))
}

// put stores k=v, journaled.
func (r recordSet) put(j *journal, k, v []byte) error {
	return j.put(r.b, r.key(k), v)
}

// del deletes k, journaled.
func (r recordSet) del(j *journal, k []byte) error {
	return j.del(r.b, r.key(k))
}

// sequence returns the last id (or seq) handed out, 0 before the first.
func (r recordSet) sequence() (uint64, error) {
	switch {
	case r.b == nil:
		return 0, nil
	case r.seqKey == nil:
		return r.b.Sequence(), nil
	}
	v := r.b.Get(r.seqKey)
	if v == nil {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("sequence %q is %d bytes, not 8", r.seqKey, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// setSequence sets the sequence to n, journaled.
func (r recordSet) setSequence(j *journal, n uint64) error {
	return j.put(r.b, bytes.Clone(r.seqKey), itob(n))
}

// nextSequence increments the sequence, journaled, and returns it.
func (r recordSet) nextSequence(j *journal) (uint64, error) {
	n, err := r.sequence()
	if err != nil {
		return 0, err
	}
	n++
	return n, r.setSequence(j, n)
}

// forEach calls fn with every record in key order until fn fails. fn must
// not write to the bucket.
func (r recordSet) forEach(fn func(k, v []byte) error) error {
	c := r.cursor()
	for k, v := c.first(); k != nil; k, v = c.next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// cursor returns a cursor over the records, which never leaves them. A
// write to the bucket invalidates it, as it does a bbolt cursor.
func (r recordSet) cursor() *recordCursor {
	if r.b == nil {
		return &recordCursor{}
	}
	return &recordCursor{c: r.b.Cursor(), prefix: r.prefix}
}

// recordCursor is a bbolt cursor kept to the keys with one prefix; each
// move returns the key without the prefix, or nil keys past the ends.
type recordCursor struct {
	c      *bolt.Cursor // nil: no records
	prefix []byte
}

// in returns k, v without the prefix, or nils when k is not one of the
// records.
func (c *recordCursor) in(k, v []byte) ([]byte, []byte) {
	if k == nil || !bytes.HasPrefix(k, c.prefix) {
		return nil, nil
	}
	return k[len(c.prefix):], v
}

func (c *recordCursor) first() ([]byte, []byte) {
	if c.c == nil {
		return nil, nil
	}
	if len(c.prefix) == 0 {
		return c.c.First()
	}
	return c.in(c.c.Seek(c.prefix))
}

func (c *recordCursor) last() ([]byte, []byte) {
	if c.c == nil {
		return nil, nil
	}
	if len(c.prefix) == 0 {
		return c.c.Last()
	}
	// The first key past the prefix: the prefix with its last byte (a
	// kind, never 0xFF) one up.
	end := bytes.Clone(c.prefix)
	end[len(end)-1]++
	if k, _ := c.c.Seek(end); k == nil {
		return c.in(c.c.Last())
	}
	return c.in(c.c.Prev())
}

// seek moves to k, or to the next record after it.
func (c *recordCursor) seek(k []byte) ([]byte, []byte) {
	if c.c == nil {
		return nil, nil
	}
	return c.in(c.c.Seek(append(bytes.Clone(c.prefix), k...)))
}

func (c *recordCursor) next() ([]byte, []byte) {
	if c.c == nil {
		return nil, nil
	}
	return c.in(c.c.Next())
}

func (c *recordCursor) prev() ([]byte, []byte) {
	if c.c == nil {
		return nil, nil
	}
	return c.in(c.c.Prev())
}

// channelsBucket returns the channels bucket, which Open always creates,
// with its fill percent set for writing.
func channelsBucket(btx *bolt.Tx) (*bolt.Bucket, error) {
	b := btx.Bucket(bucketChannels)
	if b == nil {
		return nil, fmt.Errorf("bucket %q missing", bucketChannels)
	}
	b.FillPercent = channelsFill
	return b, nil
}

// openChannel returns the records of channelID in btx.
func openChannel(btx *bolt.Tx, channelID string) (*channel, error) {
	if channelID == "" {
		return nil, errNoChannel
	}
	b, err := channelsBucket(btx)
	if err != nil {
		return nil, err
	}
	return flatChannel(b, channelID)
}

// eachChannel calls fn with the id of every channel that has a record in
// the channels bucket b, in byte order, until fn fails. fn must not write
// to b. A key with no 0x00 byte (no channel's) fails the walk.
func eachChannel(b *bolt.Bucket, fn func(channelID string) error) error {
	c := b.Cursor()
	for k, _ := c.First(); k != nil; {
		i := bytes.IndexByte(k, 0)
		if i <= 0 {
			return fmt.Errorf("key %q of bucket %q names no channel", k, bucketChannels)
		}
		id := string(k[:i])
		if err := fn(id); err != nil {
			return err
		}
		// Past every key of the channel: its id and 0x01.
		k, _ = c.Seek(append([]byte(id), 1))
	}
	return nil
}

// channelRange calls fn with every key and value of the channel's records,
// whole keys, in order, until fn fails. fn must not write to b.
func channelRange(b *bolt.Bucket, channelID string, fn func(k, v []byte) error) error {
	prefix := append([]byte(channelID), 0)
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}
