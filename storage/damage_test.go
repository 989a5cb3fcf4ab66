package storage

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// soundFile writes a database of 300 tables with characters and events
// (so that the channels bucket has branch pages), deletes some characters
// (so that the freelist lists pages), closes it and returns its path.
func soundFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hpkeeper.db")
	db, err := Open(path, Options{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		ch := fmt.Sprintf("c%03d", i)
		mustUpdate(t, db, func(tx *Tx) error {
			if err := tx.PutTable(newTable(ch)); err != nil {
				return err
			}
			var cs []*Character
			for j, n := range []string{"Lister", "Rimmer"} {
				c := newCharacter(ch, n, j+3)
				if err := tx.CreateCharacter(c); err != nil {
					return err
				}
				cs = append(cs, c)
			}
			return tx.AppendEvent(&Event{ChannelID: ch, At: t0, UserID: "u-gm", Command: "/damage target:Rimmer amount:1",
				Summary: strings.Repeat("Rimmer takes 1. ", 20), Dice: []string{"1d6 [1] = 1"},
				Changes: []Change{{CharacterID: cs[1].ID, Name: "Rimmer", Before: cs[1], After: cs[1]}}})
		})
	}
	// Free pages for the freelist: delete a character of every third
	// table.
	mustUpdate(t, db, func(tx *Tx) error {
		for i := 0; i < 300; i += 3 {
			if err := tx.DeleteCharacter(fmt.Sprintf("c%03d", i), 1); err != nil {
				return err
			}
		}
		return nil
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// fileLayout is where a sound file keeps its pages, as bbolt reports them.
type fileLayout struct {
	h                         header
	branches, leaves, freePgs []uint64
}

func layoutOf(t *testing.T, path string) fileLayout {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var l fileLayout
	d := &damage{path: path}
	var ok bool
	if l.h, ok = examine(f, d); !ok || d.count > 0 {
		t.Fatalf("examine of the sound file: %v", d.err())
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.View(func(btx *bolt.Tx) error {
		for id := 2; uint64(id) < l.h.meta.pgid; {
			p, err := btx.Page(id)
			if err != nil {
				return err
			}
			switch p.Type {
			case "branch":
				l.branches = append(l.branches, uint64(id))
			case "leaf":
				l.leaves = append(l.leaves, uint64(id))
			case "free":
				l.freePgs = append(l.freePgs, uint64(id))
			}
			id += 1 + p.OverflowCount
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.branches) < 1 || len(l.leaves) < 10 || len(l.freePgs) == 0 || l.h.meta.freelist == noFreelist {
		t.Fatalf("the sound file has %d branch, %d leaf and %d free pages and freelist %d; the test needs more of each",
			len(l.branches), len(l.leaves), len(l.freePgs), l.h.meta.freelist)
	}
	return l
}

// damaged copies the sound file at src and damages the copy with harm.
func damaged(t *testing.T, src string, harm func(f *os.File)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "damaged.db")
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(dst, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	harm(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeAt(t *testing.T, f *os.File, off int64, b []byte) {
	t.Helper()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func u16(v uint16) []byte { b := make([]byte, 2); ne.PutUint16(b, v); return b }
func u32(v uint32) []byte { b := make([]byte, 4); ne.PutUint32(b, v); return b }
func u64(v uint64) []byte { b := make([]byte, 8); ne.PutUint64(b, v); return b }

// TestDamagedFilesRefused damages a sound file in each way a disk, a copy
// or a program can (cut short, emptied, a meta page, the root, a branch, a
// leaf and the freelist page overwritten) and opens it as serve does and
// as check does: never a crash or a panic, but an error naming the file
// and what is wrong (ErrDamaged); the file is left as it was.
func TestDamagedFilesRefused(t *testing.T) {
	src := soundFile(t)
	l := layoutOf(t, src)
	ps := int64(l.h.pageSize)
	root := l.h.meta.root
	newest := int64(0) // the meta page bbolt reads
	if l.h.meta.txid%2 == 1 {
		newest = 1
	}
	branch := l.branches[len(l.branches)-1]
	if branch == root {
		branch = l.branches[0]
	}
	leaf := l.leaves[len(l.leaves)/2]
	cases := []struct {
		name string
		harm func(f *os.File)
		want string
		// readable: Options.AllowUnsound opens it.
		readable bool
	}{
		{"truncated to 8192 bytes", func(f *os.File) { f.Truncate(8192) }, "is 8,192 bytes long, shorter than the", false},
		{"cut short by one page", func(f *os.File) { f.Truncate(int64(l.h.meta.pgid-1) * ps) }, "shorter than the", false},
		{"zero length", func(f *os.File) { f.Truncate(0) }, "it is empty (0 bytes)", false},
		{"shorter than one page", func(f *os.File) { f.Truncate(1000) }, "is 1,000 bytes long, shorter than the", false},
		{"shorter than one page, its meta page overwritten", func(f *os.File) {
			writeAt(t, f, pageHeaderSize, []byte{0})
			f.Truncate(1000)
		}, "too short for bbolt's two meta pages", false},
		{"the newest meta page flipped", func(f *os.File) { writeAt(t, f, newest*ps+pageHeaderSize+48, []byte{0xFF}) },
			fmt.Sprintf("meta page %d is damaged (checksum mismatch)", newest), true},
		{"both meta pages flipped", func(f *os.File) {
			writeAt(t, f, pageHeaderSize+40, []byte{0xFF})
			writeAt(t, f, ps+pageHeaderSize+40, []byte{0xFF})
		}, "neither of its two meta pages is valid", false},
		{"the root page's type overwritten", func(f *os.File) { writeAt(t, f, int64(root)*ps+8, u16(0x10)) },
			fmt.Sprintf("page %d (the root) is not a branch or leaf page", root), false},
		{"the root page zeroed", func(f *os.File) { writeAt(t, f, int64(root)*ps, make([]byte, ps)) },
			fmt.Sprintf("page %d (the root) is not a branch or leaf page", root), false},
		{"a branch page's child pointing at itself", func(f *os.File) {
			writeAt(t, f, int64(branch)*ps+pageHeaderSize+8, u64(branch))
		}, fmt.Sprintf("page %d is referenced twice", branch), false},
		{"a branch page's child outside the file", func(f *os.File) {
			writeAt(t, f, int64(branch)*ps+pageHeaderSize+8, u64(1<<40))
		}, "outside pages 2-", false},
		{"a branch page's element count overwritten", func(f *os.File) { writeAt(t, f, int64(branch)*ps+10, u16(0xFFF0)) },
			fmt.Sprintf("page %d lists 65520 elements, more than it holds", branch), false},
		{"a leaf page's key pointing outside it", func(f *os.File) {
			writeAt(t, f, int64(leaf)*ps+pageHeaderSize+4, u32(1<<31))
		}, fmt.Sprintf("element 0 of page %d points outside it", leaf), false},
		{"a leaf page zeroed", func(f *os.File) { writeAt(t, f, int64(leaf)*ps, make([]byte, ps)) },
			fmt.Sprintf("page %d (a child of page", leaf), false},
		{"a leaf page's keys out of order", func(f *os.File) {
			// The first key of the page gets the first byte 0xFF: the keys
			// and pointers stay in the page, their order does not.
			b := make([]byte, 16)
			f.ReadAt(b, int64(leaf)*ps+pageHeaderSize)
			writeAt(t, f, int64(leaf)*ps+pageHeaderSize+int64(ne.Uint32(b[4:])), []byte{0xFF})
		}, "bbolt's consistency check", true},
		{"the freelist page's type overwritten", func(f *os.File) { writeAt(t, f, int64(l.h.meta.freelist)*ps+8, u16(0x02)) },
			fmt.Sprintf("page %d (the freelist) is not a freelist page", l.h.meta.freelist), false},
		{"the freelist listing a page outside the file", func(f *os.File) {
			writeAt(t, f, int64(l.h.meta.freelist)*ps+pageHeaderSize, u64(l.h.meta.pgid+10))
		}, "the freelist (page", false},
		{"the freelist listing a page in use", func(f *os.File) {
			writeAt(t, f, int64(l.h.meta.freelist)*ps+pageHeaderSize, u64(leaf))
		}, "bbolt's consistency check", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := damaged(t, src, tc.harm)
			before, _ := os.ReadFile(path)

			db, err := Open(path, Options{Timeout: testTimeout})
			if err == nil {
				db.Close()
				t.Fatalf("Open: no error; want the file refused")
			}
			var de *DamageError
			if !errors.Is(err, ErrDamaged) || !errors.As(err, &de) {
				t.Fatalf("Open: %v; want a *DamageError", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("Open: %q; want one line naming %s and saying %q", msg, path, tc.want)
			}
			if de.Readable != tc.readable {
				t.Errorf("Readable = %v; want %v (%v)", de.Readable, tc.readable, err)
			}

			rep, err := Inspect(path, testTimeout)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Inspect: %v; want the damage", err)
			}
			metaOnly := strings.HasPrefix(tc.want, "meta page")
			if metaOnly {
				// bbolt reads the records as of the other meta page.
				if rep == nil || rep.Tables != 300 {
					t.Errorf("Inspect: report %+v; want the 300 tables counted", rep)
				}
			} else if rep != nil {
				t.Errorf("Inspect: report %+v; want none: the records were not read", rep)
			}
			if _, err := BackupFile(path, filepath.Join(t.TempDir(), "copy.db"), testTimeout); !tc.readable && !errors.Is(err, ErrDamaged) {
				t.Errorf("BackupFile: %v; want the damage", err)
			}

			db, err = Open(path, Options{Timeout: testTimeout, AllowUnsound: true})
			if tc.readable {
				if err != nil {
					t.Fatalf("Open with AllowUnsound: %v; want it opened", err)
				}
				if !errors.Is(db.Unsound(), ErrDamaged) {
					t.Errorf("Unsound() = %v; want what was found", db.Unsound())
				}
				db.Close()
				return
			}
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("Open with AllowUnsound: %v; want the damage all the same (bbolt cannot read the file)", err)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("the refused file was changed")
			}
		})
	}
}

// TestDamagedMetaPageOlder: a damaged meta page that bbolt does not read
// (the older one) still makes the file unsound, but its records read.
func TestDamagedMetaPageOlder(t *testing.T) {
	src := soundFile(t)
	l := layoutOf(t, src)
	older := int64(1)
	if l.h.meta.txid%2 == 1 {
		older = 0
	}
	path := damaged(t, src, func(f *os.File) { writeAt(t, f, older*int64(l.h.pageSize)+pageHeaderSize+48, []byte{0xFF}) })
	if _, err := Open(path, Options{Timeout: testTimeout}); !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open: %v; want the damaged meta page", err)
	}
	rep, err := Inspect(path, testTimeout)
	if rep == nil || rep.Tables != 300 || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("meta page %d is damaged", older)) {
		t.Errorf("Inspect: %+v, %v; want 300 tables counted and the meta page named", rep, err)
	}
	db, err := Open(path, Options{Timeout: testTimeout, AllowUnsound: true})
	if err != nil {
		t.Fatal(err)
	}
	// The next commit writes that meta page again: the file is sound.
	mustUpdate(t, db, func(tx *Tx) error { return tx.PutTable(newTable("c-new")) })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(path, testTimeout); err != nil {
		t.Errorf("Inspect after a commit: %v; want the file sound again", err)
	}
}

// TestRandomPageDamage overwrites random bytes of random pages of a sound
// file, many times: opening it as serve does, checking it as check does
// and reading every table of what opens must never crash or panic; and a
// file that check finds damaged below its records (bbolt's check or the
// pages) is never opened.
func TestRandomPageDamage(t *testing.T) {
	src := soundFile(t)
	l := layoutOf(t, src)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 26))
	runs := 30
	if testing.Short() {
		runs = 10
	}
	refused := 0
	for i := 0; i < runs; i++ {
		page := 2 + rng.Uint64N(l.h.meta.pgid-2)
		n := 1 + rng.IntN(8)
		// Half the time in the header and the first elements, where
		// bbolt finds its way; else anywhere in the page.
		span := int64(l.h.pageSize)
		if rng.IntN(2) == 0 {
			span = 256
		}
		off := int64(page)*int64(l.h.pageSize) + rng.Int64N(span-int64(n))
		junk := make([]byte, n)
		for j := range junk {
			junk[j] = byte(rng.Uint32())
		}
		path := damaged(t, src, func(f *os.File) { writeAt(t, f, off, junk) })
		_, inspectErr := Inspect(path, testTimeout)
		db, err := Open(path, Options{Timeout: testTimeout, CacheBytes: -1})
		if errors.Is(inspectErr, ErrDamaged) != (err != nil) {
			t.Errorf("%d bytes at %d (page %d): Inspect says %v, Open says %v; want both to refuse or neither", n, off, page, inspectErr, err)
		}
		if err != nil {
			refused++
			if !errors.Is(err, ErrDamaged) {
				t.Errorf("%d bytes at %d (page %d): Open: %v; want ErrDamaged", n, off, page, err)
			}
			continue
		}
		// What opened reads without a crash (an undecodable record is an
		// error of its table).
		db.View(func(tx *Tx) error {
			tables, _ := tx.Tables()
			for _, tb := range tables {
				tx.Characters(tb.ChannelID)
				tx.EachEventBackward(tb.ChannelID, func(*Event) (bool, error) { return true, nil })
			}
			return nil
		})
		db.Close()
	}
	t.Logf("%d of %d damaged files refused", refused, runs)
}

// TestFaultWhileOpen damages the file under a process that has it open (as
// a failing disk or another program could): the read that meets the
// damage gets an error wrapping ErrDamaged instead of a crash (SIGBUS past
// the end of the file), and the DB is not used again: every later View,
// Update, Ping and Backup fails the same way, and Health says why.
func TestFaultWhileOpen(t *testing.T) {
	path := soundFile(t)
	l := layoutOf(t, path)
	db, err := Open(path, Options{Timeout: testTimeout, CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Every leaf's first key now starts 100 MB on: past the end of the
	// file, inside bbolt's 1 GiB mapping.
	for _, leaf := range l.leaves {
		writeAt(t, f, int64(leaf)*int64(l.h.pageSize)+pageHeaderSize+4, u32(100<<20))
	}
	f.Close()
	err = db.View(func(tx *Tx) error {
		_, err := tx.Tables()
		return err
	})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), path) {
		t.Fatalf("View over the damaged pages: %v; want ErrDamaged naming the file", err)
	}
	t.Logf("View: %v", err)
	if err := db.View(func(*Tx) error { return nil }); !errors.Is(err, ErrDamaged) {
		t.Errorf("a later View: %v; want the fault again", err)
	}
	if err := db.Update(func(*Tx) error { return nil }); !errors.Is(err, ErrDamaged) || !errors.Is(err, ErrCommitFailed) {
		t.Errorf("a later Update: %v; want the fault again (nothing saved)", err)
	}
	if err := db.Ping(t.Context()); !errors.Is(err, ErrDamaged) {
		t.Errorf("Ping: %v; want the fault", err)
	}
	if _, err := db.Backup(io.Discard, nil); !errors.Is(err, ErrDamaged) {
		t.Errorf("Backup: %v; want the fault", err)
	}
	if h := db.Health(); !errors.Is(h.Fault, ErrDamaged) {
		t.Errorf("Health().Fault = %v; want the fault", h.Fault)
	}
}
