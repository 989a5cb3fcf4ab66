package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// createWithEvent creates the named character at channelID's table and
// records an event for it, in one Update.
func createWithEvent(db *DB, channelID, name string) error {
	return db.Update(func(tx *Tx) error {
		c := newCharacter(channelID, name, 5)
		if err := tx.CreateCharacter(c); err != nil {
			return err
		}
		return tx.AppendEvent(&Event{ChannelID: channelID, At: t0, Command: "/char create name:" + name, Summary: "created " + name})
	})
}

// TestBackupUnderLoad copies the database while eight writers create
// characters: the copy passes Inspect, and every creation acknowledged
// before the backup started is in it, with its event.
func TestBackupUnderLoad(t *testing.T) {
	db := mustOpen(t)
	const channels = 4
	for i := range channels {
		setupTable(t, db, fmt.Sprintf("ch%d", i))
	}
	var (
		mu    sync.Mutex
		acked = map[string]string{} // name → channel
		stop  atomic.Bool
		wg    sync.WaitGroup
		n     atomic.Int64
	)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				ch, name := fmt.Sprintf("ch%d", w%channels), fmt.Sprintf("w%d-%d", w, i)
				if err := createWithEvent(db, ch, name); err != nil {
					t.Errorf("create %s: %v", name, err)
					return
				}
				mu.Lock()
				acked[name] = ch
				mu.Unlock()
				n.Add(1)
			}
		}()
	}
	for n.Load() < 200 {
		time.Sleep(time.Millisecond)
	}
	mu.Lock()
	before := make(map[string]string, len(acked))
	for k, v := range acked {
		before[k] = v
	}
	mu.Unlock()

	dst := filepath.Join(t.TempDir(), "copy.db")
	var announced, written int64
	rep, err := SaveBackup(dst, func(w io.Writer) error {
		var err error
		written, err = db.Backup(w, func(size int64) { announced = size })
		return err
	})
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatalf("SaveBackup under load: %v", err)
	}
	if announced != written || written != rep.Size {
		t.Errorf("Backup announced %d bytes, wrote %d, the copy holds %d; want all equal", announced, written, rep.Size)
	}
	if rep.Path != dst || rep.SchemaVersion != SchemaVersion || rep.Tables != channels {
		t.Errorf("report %+v; want path %s, schema %d, %d tables", rep, dst, SchemaVersion, channels)
	}
	if rep.Characters < len(before) || rep.Events < len(before) {
		t.Errorf("the copy holds %d characters and %d events; want at least the %d acknowledged before it", rep.Characters, rep.Events, len(before))
	}

	cp := mustOpenPath(t, dst)
	if err := cp.Check(); err != nil {
		t.Fatal(err)
	}
	mustView(t, cp, func(tx *Tx) error {
		for name, ch := range before {
			if _, err := tx.CharacterByName(ch, name); err != nil {
				t.Errorf("acknowledged before the backup but not in the copy: %s: %v", name, err)
			}
		}
		return nil
	})
	t.Logf("%d creations acknowledged before the backup, %d in the copy, %d in all", len(before), rep.Characters, n.Load())
}

func TestBackupFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "live.db")
	db := mustOpenPath(t, src)
	setupTable(t, db, "ch1", "Lister", "Rimmer")

	// Held by a process (here: this one): refused at once.
	start := time.Now()
	if _, err := BackupFile(src, filepath.Join(dir, "copy.db"), -1); !errors.Is(err, ErrLocked) {
		t.Errorf("BackupFile of a held file = %v; want ErrLocked", err)
	}
	// Trying once takes microseconds; waiting for the lock would wait for
	// ever (this process never lets go). The bound only tells the two apart,
	// on however busy a machine.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("BackupFile of a held file took %v; want it to try once", d)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	dst := filepath.Join(dir, "copy.db")
	rep, err := BackupFile(src, dst, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tables != 1 || rep.Characters != 2 {
		t.Errorf("report %+v; want 1 table and 2 characters", rep)
	}
	// A second backup replaces the first.
	if _, err := BackupFile(src, dst, time.Second); err != nil {
		t.Errorf("backup over an earlier copy: %v", err)
	}
	for _, same := range []string{src, filepath.Join(dir, ".", "live.db")} {
		if _, err := BackupFile(src, same, time.Second); err == nil || !strings.Contains(err.Error(), "replace the database") {
			t.Errorf("BackupFile(%s, %s) = %v; want a refusal", src, same, err)
		}
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	if _, err := BackupFile(src, link, time.Second); err == nil {
		t.Errorf("BackupFile onto a symbolic link to the source succeeded; want a refusal")
	}
	if _, err := BackupFile(filepath.Join(dir, "missing.db"), filepath.Join(dir, "x.db"), time.Second); err == nil {
		t.Error("BackupFile of a missing file succeeded")
	}
	assertOnly(t, dir, "copy.db", "link.db", "live.db")
}

// assertOnly fails unless dir holds exactly the named files (no temporary
// copies left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v; want %v", dir, got, names)
	}
}

// TestSaveBackupNeverPartial: a copy that fails while written, or that is
// not a sound database, never appears at dst, and what was there stays.
func TestSaveBackupNeverPartial(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "backup.db")
	if err := os.WriteFile(dst, []byte("the previous backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	cut := errors.New("connection cut")
	tests := []struct {
		name  string
		write func(io.Writer) error
		want  string
	}{
		{"write fails", func(w io.Writer) error { w.Write(make([]byte, 8192)); return cut }, "connection cut"},
		{"not a database", func(w io.Writer) error { _, err := w.Write(bytes.Repeat([]byte("x"), 8192)); return err }, "not sound"},
	}
	for _, tt := range tests {
		if _, err := SaveBackup(dst, tt.write); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: SaveBackup = %v; want an error with %q", tt.name, err, tt.want)
		}
		if b, _ := os.ReadFile(dst); string(b) != "the previous backup" {
			t.Errorf("%s: dst holds %q; want the previous backup untouched", tt.name, b)
		}
		assertOnly(t, dir, "backup.db")
	}
	if _, err := SaveBackup(filepath.Join(dir, "no-such-dir", "b.db"), func(io.Writer) error { return nil }); err == nil {
		t.Error("SaveBackup into a missing directory succeeded")
	}
}

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hpkeeper.db")
	db := mustOpenPath(t, path)
	setupTable(t, db, "ch1", "Lister", "Rimmer")
	setupTable(t, db, "ch2", "Kryten")
	for _, name := range []string{"Cat", "Holly"} {
		if err := createWithEvent(db, "ch2", name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Inspect(path, -1); !errors.Is(err, ErrLocked) {
		t.Errorf("Inspect of a held file = %v; want ErrLocked", err)
	}
	db.Close()

	rep, err := Inspect(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Path: path, Size: rep.Size, SchemaVersion: SchemaVersion, Tables: 2, Characters: 5, Events: 2}
	if *rep != want || rep.Size <= 0 {
		t.Errorf("Inspect = %+v; want %+v", *rep, want)
	}

	// Not an hpkeeper file: a bbolt file without the meta bucket.
	other := filepath.Join(dir, "other.db")
	bdb, err := bolt.Open(other, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	if _, err := Inspect(other, time.Second); err == nil || !strings.Contains(err.Error(), "not an hpkeeper database") {
		t.Errorf("Inspect of a bare bbolt file = %v; want 'not an hpkeeper database'", err)
	}
	// Not a bbolt file at all.
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, bytes.Repeat([]byte{0xAB}, 16384), 0o600)
	if _, err := Inspect(junk, time.Second); err == nil {
		t.Error("Inspect of a junk file succeeded")
	}
	if _, err := Inspect(filepath.Join(dir, "missing.db"), time.Second); err == nil {
		t.Error("Inspect of a missing file succeeded")
	}
}

// TestInspectFindsBrokenRecords breaks records behind storage's back: an
// undecodable character and event, and a name index entry that points
// nowhere. Inspect names each.
func TestInspectFindsBrokenRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db := mustOpenPath(t, path)
	setupTable(t, db, "ch1", "Lister")
	db.Close()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = bdb.Update(func(btx *bolt.Tx) error {
		ch, err := openChannel(btx, "ch1")
		if err != nil {
			return err
		}
		if err := ch.chars.put(nil, itob(99), []byte("{not json")); err != nil {
			return err
		}
		if err := ch.names.put(nil, []byte("ghost"), itob(42)); err != nil {
			return err
		}
		if err := btx.Bucket(bucketChannels).Put(channelKey("ch1", 'x', nil), []byte("stray")); err != nil {
			return err
		}
		return ch.events.put(nil, itob(7), []byte{eventS2, 0xFF, 0xFF})
	})
	bdb.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Inspect(path, time.Second)
	if err == nil {
		t.Fatal("Inspect of a file with broken records succeeded")
	}
	for _, want := range []string{"character 99 at table ch1", "event 7 at table ch1", `has "ghost" for id 000000000000002a`,
		"character id 99 is in use but the next to be handed out is 2", "event seq 7 is in use but the next to be handed out is 1",
		`key "ch1\x00x" is of no record`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Inspect error %q; want it to name %q", err, want)
		}
	}
	if rep == nil || rep.Characters != 2 || rep.Events != 1 {
		t.Errorf("report %+v; want the 2 characters and 1 event counted", rep)
	}
}

// TestInspectNewerSchema: a file a newer hpkeeper wrote is reported with
// its version and ErrSchemaTooNew, and is not changed.
func TestInspectNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db := mustOpenPath(t, path)
	db.Close()
	bdb, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bdb.Update(func(btx *bolt.Tx) error { return writeVersion(btx.Bucket(bucketMeta), SchemaVersion+1) }); err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	before, _ := os.ReadFile(path)
	rep, err := Inspect(path, time.Second)
	if !errors.Is(err, ErrSchemaTooNew) || rep == nil || rep.SchemaVersion != SchemaVersion+1 {
		t.Errorf("Inspect = %+v, %v; want schema version %d and ErrSchemaTooNew", rep, err, SchemaVersion+1)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("Inspect changed the file")
	}
}

func TestPing(t *testing.T) {
	db := mustOpen(t)
	ctx := context.Background()
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping of an idle database = %v", err)
	}
	before := db.WriterStats()
	release := holdWriter(t, db)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err := db.Ping(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "writer") {
		t.Errorf("Ping while the writer is stuck = %v; want a deadline error naming the writer", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping after the writer is free again = %v", err)
	}
	// Probes are not Updates: only the held one is counted.
	if d := db.WriterStats(); d.Groups-before.Groups != 1 || d.Updates-before.Updates != 1 {
		t.Errorf("WriterStats moved by %d groups, %d updates; want 1 and 1 (probes not counted)", d.Groups-before.Groups, d.Updates-before.Updates)
	}
	db.Close()
	if err := db.Ping(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Ping after Close = %v; want ErrClosed", err)
	}
}

// TestWriterQueueAndCommitHook: WriterStats.Queued counts the Updates
// waiting behind a busy writer, and Options.OnCommit sees every group with
// its size.
func TestWriterQueueAndCommitHook(t *testing.T) {
	var mu sync.Mutex
	var groups []GroupStats
	db, err := Open(filepath.Join(t.TempDir(), "hpkeeper.db"), Options{OnCommit: func(g GroupStats) {
		mu.Lock()
		groups = append(groups, g)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	release := holdWriter(t, db)
	const queued = 7
	var results []<-chan any
	for i := range queued {
		results = append(results, enqueue(t, db, func(tx *Tx) error { return tx.PutTable(newTable(fmt.Sprintf("ch%d", i))) }))
	}
	if q := db.WriterStats().Queued; q != queued {
		t.Errorf("WriterStats.Queued = %d behind a held writer; want %d", q, queued)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	if q := db.WriterStats().Queued; q != 0 {
		t.Errorf("WriterStats.Queued = %d after the queue drained; want 0", q)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(groups) != 2 || groups[0].Updates != 1 || groups[1].Updates != queued || groups[1].Commit <= 0 || groups[1].Err != nil {
		t.Errorf("OnCommit saw %+v; want the held group of 1, then one of %d with a commit time and no error", groups, queued)
	}
}

// TestInspectFindsTheOtherLayoutsBucket: a file of schema 4 that also
// holds the tables bucket of schema 3 has channels nothing reads (nor
// counts): Inspect says so rather than call the file sound.
func TestInspectFindsTheOtherLayoutsBucket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db := mustOpenPath(t, path)
	setupTable(t, db, "ch1", "Lister")
	db.Close()
	rawUpdate(t, path, func(btx *bolt.Tx) error {
		tables, err := btx.CreateBucket(bucketTables)
		if err != nil {
			return err
		}
		_, err = tables.CreateBucket([]byte("ch2"))
		return err
	})
	_, err := Inspect(path, testTimeout)
	if err == nil || !strings.Contains(err.Error(), `bucket "tables" of schema 3 and older in a file of schema version 4`) {
		t.Errorf("Inspect = %v; want it to name the tables bucket", err)
	}
}
