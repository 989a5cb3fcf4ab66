package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Placing tables is the file work of the offline tool that moves tables
// between database files when the bot's shards change (hpkeeper shard
// split and merge, cmd/hpkeeper/shard.go): this file copies every table
// of some files into new ones, byte for byte, each into the file a
// Placement chooses, and checks them; the tool decides where each table
// goes (by the shard of its guild, Discord's formula in bot/discord).

// ShardFile is one output of PlaceTables: a database file to create and the
// share of the guilds it holds (its meta/shards).
type ShardFile struct {
	// Path is the new file; it must not exist.
	Path string
	// Shards are the guilds whose tables go to Path (whole: every guild).
	Shards ShardRange
}

// A Placement chooses the output of every table PlaceTables copies.
type Placement interface {
	// Check is given the share of the guilds each source holds (its
	// meta/shards; the zero ShardRange: every guild), in the order of the
	// sources, before anything is written: an error stops PlaceTables.
	Check(held []ShardRange) error
	// Place returns the index in the outputs of the file of one table.
	// guild reads the table's guild id ("" for a DM): its table's, or,
	// for a table since undone whose history is kept, that of the newest
	// event that recorded the table; an error wrapping ErrNoGuild when no
	// record names one.
	Place(guild func() (string, error)) (int, error)
}

// Counts are the records of one or more database files.
type Counts struct {
	Tables, Characters, Events int
}

// sumCounts adds up the counts of reps.
func sumCounts(reps []*Report) Counts {
	var c Counts
	for _, r := range reps {
		c.Tables += r.Tables
		c.Characters += r.Characters
		c.Events += r.Events
	}
	return c
}

// PlaceReport is what PlaceTables read and wrote.
type PlaceReport struct {
	// Sources are Inspect's reports of the files read, in the order given.
	Sources []*Report
	// Outputs are Inspect's reports of the files written, in the order
	// given; Channels counts the channels each received (tables, and the
	// histories kept of tables since undone).
	Outputs  []*Report
	Channels []int
	// Before and After are the totals of Sources and Outputs.
	Before, After Counts
}

// copyBatch is how many bytes PlaceTables copies into the outputs' open
// transactions, all outputs together, before committing them and starting
// the next: it bounds the memory their dirty pages take (bbolt holds a
// transaction's changes in memory until it commits), whatever the number
// of outputs.
const copyBatch = 32 << 20

// PlaceTables copies every table of the database files sources, with its
// characters, name index, events and id sequences (every record of the
// channel, byte for byte: its keys of the channels bucket, or in a file of
// schema 3 or older its whole nested bucket), into the new files outputs,
// each into the output p places it in, in one pass over each source. No
// process may hold a source (each is opened read-only, waiting up to
// timeout for its lock); the sources are not changed.
//
// The outputs must not exist. p checks the shares of the guilds the
// sources hold before anything is written. Each output gets the sources'
// schema version and its own meta/shards; a source's saved replay guard is
// not copied: it belongs to the process that stopped, and a file without
// one makes serve refuse the requests signed before its next start
// (bot/replay.go).
//
// Each output is written beside its path, synced, checked with Inspect, and
// only then linked into place, after every output passed and the counts of
// tables, characters and events of the outputs equal those of the sources.
// On any error no output is left. It returns the report (as far as it got)
// and an error: a source held (ErrLocked) or unsound, p's refusal of the
// sources or of a table, a channel in two sources, an output that exists,
// a bucket or meta key this program does not know how to place, or the
// counts unequal.
//
// Its memory is bounded whatever the files' size: the outputs are written
// in transactions of copyBatch bytes, and the pages read from the sources
// are dropped from memory as it goes (resident.go).
//
// When ctx is done it stops between two tables (or a few thousand pages of
// a check; bbolt's own check of a source, about 3 s a GB, runs to its end),
// removes every output it began and returns an error wrapping ErrStopped
// and ctx's cause; the sources are unchanged.
func PlaceTables(ctx context.Context, sources []string, outputs []ShardFile, p Placement, timeout time.Duration) (*PlaceReport, error) {
	rep := &PlaceReport{}
	if err := checkPaths(sources, outputs); err != nil {
		return rep, err
	}
	srcs := make([]*bolt.DB, 0, len(sources))
	defer func() {
		for _, s := range srcs {
			s.Close()
		}
	}()
	for _, path := range sources {
		bdb, err := openReadOnly(path, timeout)
		if err != nil {
			return rep, err
		}
		srcs = append(srcs, bdb)
	}
	// The shared locks held above keep a process from opening the sources
	// until the copy is done; Inspect takes its own shared lock beside them.
	for _, path := range sources {
		r, err := inspectContext(ctx, path, timeout)
		if err != nil {
			return rep, stopped(ctx, fmt.Errorf("repartition: source %w", err))
		}
		rep.Sources = append(rep.Sources, r)
	}
	rep.Before = sumCounts(rep.Sources)
	version := rep.Sources[0].SchemaVersion
	for _, r := range rep.Sources[1:] {
		if r.SchemaVersion != version {
			return rep, fmt.Errorf("repartition: %s has schema version %d and %s %d: open the older with this hpkeeper first, which migrates it",
				rep.Sources[0].Path, version, r.Path, r.SchemaVersion)
		}
	}
	held := make([]ShardRange, len(srcs))
	for i, s := range srcs {
		if err := s.View(func(btx *bolt.Tx) error {
			var err error
			held[i], err = checkKnown(btx, version)
			return err
		}); err != nil {
			return rep, fmt.Errorf("repartition: %s: %w", sources[i], err)
		}
	}
	if err := p.Check(held); err != nil {
		return rep, fmt.Errorf("repartition: %w", err)
	}

	outs, err := createOutputs(outputs, version)
	defer func() {
		for _, o := range outs {
			o.discard()
		}
	}()
	if err != nil {
		return rep, err
	}
	rep.Channels = make([]int, len(outs))
	seen := map[string]string{} // channel id → the source it came from
	for i, s := range srcs {
		err := boundResident(s, func() error {
			return s.View(func(btx *bolt.Tx) error {
				return copyChannels(ctx, btx, sources[i], version, outs, outputs, p, seen, rep.Channels)
			})
		})
		if err != nil {
			return rep, stopped(ctx, fmt.Errorf("repartition: %w", err))
		}
	}
	for _, o := range outs {
		if err := o.finish(); err != nil {
			return rep, fmt.Errorf("repartition: %w", err)
		}
	}
	for i, o := range outs {
		r, err := inspectContext(ctx, o.tmp, -1)
		if err != nil {
			return rep, stopped(ctx, fmt.Errorf("repartition: the new %s is not sound, not kept: %w", outputs[i].Path, err))
		}
		r.Path = outputs[i].Path
		rep.Outputs = append(rep.Outputs, r)
	}
	rep.After = sumCounts(rep.Outputs)
	if rep.After != rep.Before {
		return rep, fmt.Errorf("repartition: the new files hold %+v, the sources %+v: not kept", rep.After, rep.Before)
	}
	if ctx.Err() != nil {
		return rep, stopped(ctx, nil) // the last moment to give up: nothing placed yet
	}
	for _, o := range outs {
		if err := o.place(); err != nil {
			for _, p := range outs {
				p.unplace()
			}
			return rep, fmt.Errorf("repartition: %w", err)
		}
	}
	for _, o := range outs {
		if err := syncDir(filepath.Dir(o.path)); err != nil {
			return rep, fmt.Errorf("repartition: %w", err)
		}
	}
	return rep, nil
}

// ErrStopped is wrapped by the error of PlaceTables when its
// context was done before it finished (SIGINT, SIGTERM): no output was
// kept.
var ErrStopped = errors.New("stopped before the end; no file was kept")

// stopped returns err, or, when ctx is done, an error wrapping ErrStopped
// and ctx's cause instead.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("repartition: %w (%w)", ErrStopped, context.Cause(ctx))
}

// checkPaths refuses sources or outputs named twice, an output that is a
// source, and an output that exists.
func checkPaths(sources []string, outputs []ShardFile) error {
	if len(sources) == 0 || len(outputs) == 0 {
		return errors.New("repartition: no source or no output")
	}
	all := slices.Clone(sources)
	for _, o := range outputs {
		all = append(all, o.Path)
	}
	for i, a := range all {
		for _, b := range all[:i] {
			if SamePath(a, b) {
				return fmt.Errorf("repartition: %s is named twice", a)
			}
		}
	}
	for _, o := range outputs {
		if _, err := os.Lstat(o.Path); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("repartition: %s exists; name a new file (nothing is overwritten)", o.Path)
		}
	}
	return nil
}

// checkKnown returns the share of the guilds the source holds
// (meta/shards), and refuses a top-level bucket or meta key this program
// does not know how to place: rather than guess whether it belongs to a
// table or to the process. The channels are copied from the bucket of the
// source's schema version only (the channels bucket from 4 on, the tables
// bucket before), so the other one is refused too: its records would be
// neither copied nor counted.
func checkKnown(btx *bolt.Tx, version uint64) (ShardRange, error) {
	var held ShardRange
	err := btx.ForEach(func(name []byte, b *bolt.Bucket) error {
		switch {
		case bytes.Equal(name, bucketChannels) && version >= 4:
			return nil // every key is a channel's (Inspect checked them)
		case bytes.Equal(name, bucketTables) && version < 4:
			return b.ForEach(func(k, v []byte) error {
				if v != nil {
					return fmt.Errorf("tables/%q is not a channel bucket", k)
				}
				return nil
			})
		case bytes.Equal(name, bucketMeta):
			return b.ForEach(func(k, v []byte) error {
				switch {
				case bytes.Equal(k, keySchema), bytes.Equal(k, keyReplayGuard):
					return nil
				case bytes.Equal(k, keyShards):
					var err error
					held, err = parseStamp(v)
					return err
				}
				return fmt.Errorf("meta/%q is not known to this program: not moved", k)
			})
		case bytes.Equal(name, bucketChannels), bytes.Equal(name, bucketTables):
			return fmt.Errorf("bucket %q is not of a file of schema version %d: not moved", name, version)
		}
		return fmt.Errorf("bucket %q is not known to this program: not moved", name)
	})
	return held, err
}

// output is a file PlaceTables is writing: a temporary file beside path.
type output struct {
	path, tmp string
	db        *bolt.DB
	tx        *bolt.Tx // the open write transaction, if any
	bucket    []byte   // the name of the bucket of the channels
	batch     int      // bytes put in tx
	placed    bool
}

// createOutputs creates every output's temporary file with its meta
// (schema version, shards) and an empty bucket for the channels: the
// channels bucket, or for a schema before 4 the tables bucket. On error
// the outputs made so far are returned for discard.
func createOutputs(outputs []ShardFile, version uint64) ([]*output, error) {
	var outs []*output
	for _, o := range outputs {
		f, err := os.CreateTemp(filepath.Dir(o.Path), "."+filepath.Base(o.Path)+".partial-*")
		if err != nil {
			return outs, fmt.Errorf("repartition: %w", err)
		}
		out := &output{path: o.Path, tmp: f.Name(), bucket: bucketChannels}
		if version < 4 {
			out.bucket = bucketTables
		}
		outs = append(outs, out)
		if err := f.Close(); err != nil {
			return outs, fmt.Errorf("repartition: %w", err)
		}
		opts := *bolt.DefaultOptions
		opts.Timeout = time.Nanosecond
		opts.NoSync = true // synced once, in finish
		if out.db, err = bolt.Open(out.tmp, 0o600, &opts); err != nil {
			return outs, fmt.Errorf("repartition: create %s: %w", o.Path, err)
		}
		err = out.db.Update(func(btx *bolt.Tx) error {
			meta, err := btx.CreateBucket(bucketMeta)
			if err != nil {
				return err
			}
			if err := writeVersion(meta, version); err != nil {
				return err
			}
			if s := o.Shards.stamp(); s != nil {
				if err := meta.Put(keyShards, s); err != nil {
					return err
				}
			}
			_, err = btx.CreateBucket(out.bucket)
			return err
		})
		if err != nil {
			return outs, fmt.Errorf("repartition: create %s: %w", o.Path, err)
		}
	}
	return outs, nil
}

// channels returns the output's bucket of the channels in its open write
// transaction, opening one when none is.
func (o *output) channels() (*bolt.Bucket, error) {
	if o.tx == nil {
		tx, err := o.db.Begin(true)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", o.path, err)
		}
		o.tx = tx
	}
	b := o.tx.Bucket(o.bucket)
	b.FillPercent = channelsFill
	return b, nil
}

// sumBatches returns the bytes the outputs' open transactions hold.
func sumBatches(outs []*output) int {
	n := 0
	for _, o := range outs {
		if o.tx != nil {
			n += o.batch
		}
	}
	return n
}

// commit commits the open write transaction, if any.
func (o *output) commit() error {
	if o.tx == nil {
		return nil
	}
	tx := o.tx
	o.tx, o.batch = nil, 0
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write %s: %w", o.path, err)
	}
	return nil
}

// finish commits, syncs and closes the file.
func (o *output) finish() error {
	if err := o.commit(); err != nil {
		return err
	}
	if err := o.db.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", o.path, err)
	}
	db := o.db
	o.db = nil
	if err := db.Close(); err != nil {
		return fmt.Errorf("close %s: %w", o.path, err)
	}
	return nil
}

// place links the checked file to its path, which must still not exist
// (a link never replaces a file), and removes the temporary name.
func (o *output) place() error {
	if err := os.Link(o.tmp, o.path); err != nil {
		return err // *LinkError names both paths; EEXIST when it appeared meanwhile
	}
	o.placed = true
	return os.Remove(o.tmp)
}

// unplace removes a file place linked, after a later output failed.
func (o *output) unplace() {
	if o.placed {
		os.Remove(o.path)
		o.placed = false
	}
}

// discard rolls back and closes what is open and removes the temporary
// file (a no-op after place).
func (o *output) discard() {
	if o.tx != nil {
		o.tx.Rollback()
		o.tx = nil
	}
	if o.db != nil {
		o.db.Close()
		o.db = nil
	}
	os.Remove(o.tmp)
}

// copyChannels copies every channel of the source in btx (named src, of
// schema version) into the output of its guild's shard, committing each
// output's transaction before btx ends (a Put keeps no reference past its
// own transaction, but the keys and values are cloned all the same).
func copyChannels(ctx context.Context, btx *bolt.Tx, src string, version uint64, outs []*output, outputs []ShardFile, p Placement, seen map[string]string, channels []int) error {
	// place returns the output p chooses for the channel.
	place := func(ch *channel) (int, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		// Between two tables: commit every output once they hold a
		// batch together.
		if batch := sumBatches(outs); batch >= copyBatch {
			for _, o := range outs {
				if err := o.commit(); err != nil {
					return 0, err
				}
			}
		}
		if first, dup := seen[ch.id]; dup {
			return 0, fmt.Errorf("channel %s is in %s and in %s: keep one of them", ch.id, first, src)
		}
		seen[ch.id] = src
		i, err := p.Place(func() (string, error) { return channelGuild(ch) })
		if err != nil {
			return 0, fmt.Errorf("%s: table %s: %w", src, ch.id, err)
		}
		if i < 0 || i >= len(outs) {
			return 0, fmt.Errorf("%s: table %s: placed in output %d of %d", src, ch.id, i, len(outs))
		}
		return i, nil
	}
	var err error
	if version < 4 {
		err = copyNested(btx, outs, outputs, channels, place)
	} else {
		err = copyFlat(btx, outs, outputs, channels, place)
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", src, err)
	}
	for _, o := range outs {
		if cerr := o.commit(); err == nil {
			err = cerr
		}
	}
	return err
}

// copyFlat copies the keys of every channel of the channels bucket in btx
// into the channels bucket of the output place chooses.
func copyFlat(btx *bolt.Tx, outs []*output, outputs []ShardFile, channels []int, place func(*channel) (int, error)) error {
	b := btx.Bucket(bucketChannels)
	if b == nil {
		return fmt.Errorf("bucket %q missing", bucketChannels)
	}
	return eachChannel(b, func(channelID string) error {
		ch, err := flatChannel(b, channelID)
		if err != nil {
			return err
		}
		i, err := place(ch)
		if err != nil {
			return err
		}
		dst, err := outs[i].channels()
		if err != nil {
			return err
		}
		err = channelRange(b, channelID, func(k, v []byte) error {
			if outs[i].batch >= copyBatch {
				// A table larger than a batch is committed in parts.
				if err := outs[i].commit(); err != nil {
					return err
				}
				if dst, err = outs[i].channels(); err != nil {
					return err
				}
			}
			outs[i].batch += len(k) + len(v)
			return dst.Put(bytes.Clone(k), bytes.Clone(v))
		})
		if err != nil {
			return fmt.Errorf("write table %s to %s: %w", channelID, outputs[i].Path, err)
		}
		channels[i]++
		return nil
	})
}

// copyNested copies every channel bucket of the tables bucket in btx (a
// file of schema 3 or older) into the tables bucket of the output place
// chooses.
func copyNested(btx *bolt.Tx, outs []*output, outputs []ShardFile, channels []int, place func(*channel) (int, error)) error {
	tables := btx.Bucket(bucketTables)
	if tables == nil {
		return fmt.Errorf("bucket %q missing", bucketTables)
	}
	return tables.ForEachBucket(func(k []byte) error {
		channelID := string(k)
		ch := tables.Bucket(k)
		i, err := place(nestedChannel(ch, channelID))
		if err != nil {
			return err
		}
		dst, err := outs[i].channels()
		if err != nil {
			return err
		}
		child, err := dst.CreateBucket(bytes.Clone(k))
		if err != nil {
			return fmt.Errorf("write table %s to %s: %w", channelID, outputs[i].Path, err)
		}
		n, err := copyBucket(child, ch)
		if err != nil {
			return fmt.Errorf("write table %s to %s: %w", channelID, outputs[i].Path, err)
		}
		outs[i].batch += n
		channels[i]++
		return nil
	})
}

// copyBucket copies src's keys, values, nested buckets and sequences into
// the empty bucket dst and returns the bytes copied.
func copyBucket(dst, src *bolt.Bucket) (int, error) {
	if err := dst.SetSequence(src.Sequence()); err != nil {
		return 0, err
	}
	n := 0
	err := src.ForEach(func(k, v []byte) error {
		n += len(k) + len(v)
		if v != nil {
			return dst.Put(bytes.Clone(k), bytes.Clone(v))
		}
		child, err := dst.CreateBucket(bytes.Clone(k))
		if err != nil {
			return err
		}
		m, err := copyBucket(child, src.Bucket(k))
		n += m
		return err
	})
	return n, err
}

// ErrNoGuild is returned (wrapped) by the guild function PlaceTables gives
// its Placement for a channel whose guild no record names.
var ErrNoGuild = errors.New("no record names its guild: it cannot be placed on a shard")

// channelGuild returns the guild of the channel ch ("" for a DM): its
// table's, or, for a table since undone whose history is kept, that of the
// newest event that recorded the table.
func channelGuild(ch *channel) (string, error) {
	if v := ch.table(); v != nil {
		t, err := decodeTable(v)
		if err != nil {
			return "", err
		}
		return t.GuildID, nil
	}
	// Newest first, as the history is read back (eventcodec.go).
	h, err := startHistory(ch, ch.id, false)
	if err != nil {
		return "", err
	}
	guild, found := "", false
	err = ch.eachEventBefore(0, func(seq uint64, d eventData) (bool, error) {
		e, err := h.visit(d, seq, true)
		if err != nil {
			return false, err
		}
		switch {
		case e.TableAfter != nil:
			guild, found = e.TableAfter.GuildID, true
		case e.TableBefore != nil:
			guild, found = e.TableBefore.GuildID, true
		}
		return !found, nil
	})
	if err != nil || found {
		return guild, err
	}
	return "", ErrNoGuild
}
