package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// Every bucket and key name used in the file, in one place.
//
// Layout of the file (schema 4):
//
//	meta/                       bucket
//	  schema                    schema version, decimal ASCII ("4")
//	  replay-guard              the HTTP endpoint's replay guard, saved at a graceful
//	                            stop, taken at the next start (bot's own encoding);
//	                            empty in a new file, which nothing was served from
//	  shards                    the guilds the file holds when not every guild's:
//	                            "<first>-<last>/<count>" (shard.go); absent: all
//	channels/                   bucket: every channel's records (a channel is a
//	                            "table"), keyed by <channel id> 0x00 <kind> … (channel.go)
//	  <id> 0x00 't'             Table as JSON; absent until /table setup (or after its undo)
//	  <id> 0x00 'c' <8-byte BE id>
//	                            Character as JSON
//	  <id> 0x00 'n' <lower-cased name>
//	                            8-byte BE character id: the case-insensitive name index
//	  <id> 0x00 'e' <8-byte BE seq>
//	                            Event: 0x02 + S2-compressed JSON of what changed (eventcodec.go);
//	                            schema 2: 0x01 + S2-compressed JSON of whole states; schema 1: plain JSON
//	  <id> 0x00 's' 'c'         8-byte BE: the last character id handed out (absent: 0)
//	  <id> 0x00 's' 'e'         8-byte BE: the last event seq handed out (absent: 0)
//	  <id> 0x00 'i' <interaction id>
//	                            8-byte BE event seq (0: none) + 8-byte BE Unix nanoseconds:
//	                            a state-changing interaction, kept InteractionTTL (boltinteractions.go)
//
// Schema 3 and older kept each channel in a nested bucket instead:
//
//	tables/<channel id>/        one nested bucket per channel
//	  table                     Table as JSON
//	  chars/                    nested bucket; its sequence assigns character ids
//	    <8-byte BE id>          Character as JSON
//	  names/                    nested bucket: <lower-cased name> → 8-byte BE id
//	  events/                   nested bucket; its sequence assigns event seqs
//	    <8-byte BE seq>         Event
//
// Channel ids never hold a 0x00 byte (Discord's are decimal), so one
// channel's keys are never a prefix of another's, and the records of a
// channel are one run of keys, kind by kind.
var (
	bucketMeta = []byte("meta")
	keySchema  = []byte("schema")
	// keyReplayGuard needs no schema step: older programs ignore it.
	keyReplayGuard = []byte("replay-guard")
	bucketChannels = []byte("channels")

	// keyShards (in meta) needs no schema step: older programs ignore it and
	// serve the file whole, as before sharding.
	keyShards = []byte("shards")

	// The nested layout of schema 3 and older, which the migration to
	// schema 4 and Inspect read.
	bucketTables = []byte("tables")
	keyTable     = []byte("table")
	bucketChars  = []byte("chars")
	bucketNames  = []byte("names")
	bucketEvents = []byte("events")
)

// The kinds of a channel's records in the channels bucket: the byte after
// the channel id and its 0x00.
const (
	kindTable     byte = 't'
	kindCharacter byte = 'c'
	kindName      byte = 'n'
	kindEvent     byte = 'e'
	// kindSequence keys are followed by the kind whose sequence they hold
	// (kindCharacter or kindEvent).
	kindSequence byte = 's'
	// kindInteraction keys are followed by a Discord interaction id that
	// changed the channel (boltinteractions.go); needs no schema step:
	// older programs neither write nor read them.
	kindInteraction byte = 'i'
)

// migration is one step of the schema: apply brings a file at version-1 to
// version. Open runs each pending step and its version bump in one transaction.
type migration struct {
	version uint64
	name    string
	apply   func(tx *bolt.Tx) error
}

// migrations lists every schema step in order; the last version is the one this
// code writes. Append new steps, never edit or reorder old ones.
var migrations = []migration{
	{
		version: 1,
		name:    "create tables bucket",
		apply: func(tx *bolt.Tx) error {
			// Schema 4 deletes it again: a new file goes straight to
			// the channels bucket.
			_, err := tx.CreateBucketIfNotExists(bucketTables)
			return err
		},
	},
	{
		// New events are stored S2-compressed (records.go, eventS2); old
		// ones stay plain JSON and still decode. Nothing to convert: the
		// version only makes older programs, which cannot read compressed
		// events, refuse the file (ErrSchemaTooNew).
		version: 2,
		name:    "events stored S2-compressed",
		apply:   func(*bolt.Tx) error { return nil },
	},
	{
		// New events store what changed (eventcodec.go, eventCompact): per
		// character and for the table, the patch back to the state before,
		// read back from the records and the events after it. Events of
		// schema 1 and 2 keep their whole states and still decode; nothing
		// is converted (bbolt never shrinks a file, so rewriting them would
		// save no disk). The version makes older programs, which cannot
		// read compact events, refuse the file (ErrSchemaTooNew).
		version: 3,
		name:    "events store what changed",
		apply:   func(*bolt.Tx) error { return nil },
	},
	{
		// Every channel's nested bucket becomes a run of keys of the one
		// channels bucket (channel.go), records byte for byte, the bucket
		// sequences keys of their own; the tables bucket is then deleted.
		// The version makes older programs, which look for the tables
		// bucket, refuse the file (ErrSchemaTooNew).
		version: 4,
		name:    "one channels bucket instead of a bucket per channel",
		apply:   flattenChannels,
	},
}

// SchemaVersion is the schema version this code reads and writes: the version of
// the last entry in migrations. Open migrates older files up to it and refuses
// newer ones with ErrSchemaTooNew.
const SchemaVersion uint64 = 4

// migrate brings the file to SchemaVersion inside tx, creating the meta bucket
// if needed. It fails with ErrSchemaTooNew when the file is newer than the code.
func migrate(tx *bolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return fmt.Errorf("create meta bucket: %w", err)
	}
	current, err := readVersion(meta)
	if err != nil {
		return err
	}
	if current > SchemaVersion {
		return fmt.Errorf("file has schema version %d, this program knows up to %d: %w",
			current, SchemaVersion, ErrSchemaTooNew)
	}
	if current == 0 {
		// A new file: no request was ever accepted against it, which the
		// endpoint's replay guard reads from an empty saved state.
		if err := meta.Put(keyReplayGuard, []byte{}); err != nil {
			return fmt.Errorf("mark a new file: %w", err)
		}
	}
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		if err := m.apply(tx); err != nil {
			return fmt.Errorf("migrate to schema version %d (%s): %w", m.version, m.name, err)
		}
		if err := writeVersion(meta, m.version); err != nil {
			return err
		}
	}
	return nil
}

// readVersion returns the schema version stored in meta, 0 when none is stored.
func readVersion(meta *bolt.Bucket) (uint64, error) {
	v := meta.Get(keySchema)
	if v == nil {
		return 0, nil
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid schema version %q in meta bucket", v)
	}
	return n, nil
}

// writeVersion stores version in meta.
func writeVersion(meta *bolt.Bucket, version uint64) error {
	if err := meta.Put(keySchema, []byte(strconv.FormatUint(version, 10))); err != nil {
		return fmt.Errorf("write schema version %d: %w", version, err)
	}
	return nil
}

// itob encodes an id or seq as an 8-byte big-endian key, so keys sort numerically.
func itob(n uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, n)
	return b
}

// btoi decodes an 8-byte big-endian key or index value.
func btoi(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("invalid 8-byte id %x", b)
	}
	return binary.BigEndian.Uint64(b), nil
}

// flattenChannels is the step to schema 4: it copies every channel bucket
// of tables (schema 3 and older) into the channels bucket it creates, in
// key order (so the new pages fill in order), then deletes tables. Keys and
// values are copied, as the copy outlives the pages of the deleted bucket
// until the transaction commits.
func flattenChannels(tx *bolt.Tx) error {
	dst, err := tx.CreateBucket(bucketChannels)
	if err != nil {
		return fmt.Errorf("create bucket %q: %w", bucketChannels, err)
	}
	dst.FillPercent = channelsFill
	tables := tx.Bucket(bucketTables)
	if tables == nil {
		return nil
	}
	err = tables.ForEach(func(k, v []byte) error {
		if v != nil {
			return fmt.Errorf("tables/%q is not a channel bucket", k)
		}
		return flattenChannel(nestedChannel(tables.Bucket(k), string(k)), dst)
	})
	if err != nil {
		return err
	}
	return tx.DeleteBucket(bucketTables)
}

// flattenChannel copies the nested channel src into the channels bucket
// dst, in the order of the new keys: bbolt splits a bucket's pages only at
// commit, so each key is appended to the end of the bucket's node.
func flattenChannel(src *channel, dst *bolt.Bucket) error {
	to, err := flatChannel(dst, src.id)
	if err != nil {
		return err
	}
	kinds := []struct{ from, to recordSet }{{src.chars, to.chars}, {src.events, to.events}, {src.names, to.names}}
	for _, kind := range kinds {
		err := kind.from.forEach(func(k, v []byte) error {
			return kind.to.put(nil, bytes.Clone(k), bytes.Clone(v))
		})
		if err != nil {
			return fmt.Errorf("table %s: %w", src.id, err)
		}
	}
	for _, kind := range kinds[:2] { // names have no sequence
		seq, err := kind.from.sequence()
		if err == nil && seq > 0 {
			err = kind.to.setSequence(nil, seq)
		}
		if err != nil {
			return fmt.Errorf("table %s: %w", src.id, err)
		}
	}
	if v := src.table(); v != nil {
		if err := to.putTable(nil, bytes.Clone(v)); err != nil {
			return fmt.Errorf("table %s: %w", src.id, err)
		}
	}
	return nil
}
