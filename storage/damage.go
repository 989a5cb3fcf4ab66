package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/bits"
	"os"
	"strings"
)

// Damaged files.
//
// bbolt maps the file into memory and trusts what it reads there: a file
// shorter than the pages its meta page records makes it fault (SIGBUS) past
// the end of the file, a freelist or root page that is not one makes it
// panic as it opens, and an element of a branch or leaf page that points
// outside its page makes it read whatever memory lies there. So before
// bbolt reads a file's pages, this file reads them itself, with plain
// reads that cannot fault: the two meta pages (examine), then every page
// of the tree from the root and the freelist (walkPages), checking that
// each is what its reference says it is and that everything it points at
// lies within its page and within the file. Only then does bbolt's own
// consistency check (Tx.Check) run, for what it checks beyond: pages free
// and in use at once, pages lost, keys out of order.

// ErrDamaged is wrapped by the errors of Open, Inspect, BackupFile and
// PlaceTables for a file that is not a sound bbolt database: empty,
// shorter than its own pages, without a valid meta page, with a page that
// is not what its reference says or points outside itself, or that
// bbolt's consistency check calls inconsistent. The error is a
// *DamageError naming the file and what is wrong. After a fault that
// bbolt met while the file was in use (a page it could not read), every
// Update, View and Ping of that DB returns it too.
var ErrDamaged = errors.New("database file is damaged")

// DamageError says what is wrong with a database file.
type DamageError struct {
	// Path is the file.
	Path string
	// Problems are what was found, at most ten, each a phrase such as
	// "it is 8,192 bytes long, shorter than the 53,248 bytes of pages its
	// meta page records (truncated)".
	Problems []string
	// Count is the number of problems found; more than len(Problems) when
	// some were left out.
	Count int
	// Readable reports that bbolt can open the file as it is: what is
	// wrong is one damaged meta page beside a sound one, or what bbolt's
	// consistency check reports on pages that are all where they should
	// be. Open opens such a file only with Options.AllowUnsound.
	Readable bool
}

// Error returns one line: the file, then what is wrong.
func (e *DamageError) Error() string {
	msg := e.Path + " is damaged: " + strings.Join(e.Problems, "; ")
	if e.Count > len(e.Problems) {
		msg += fmt.Sprintf("; and %d more problems", e.Count-len(e.Problems))
	}
	return msg
}

// Is makes errors.Is(err, ErrDamaged) report true.
func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

// damage collects the problems of one file.
type damage struct {
	path     string
	problems []string
	count    int
	// fatal: some problem keeps bbolt from opening the file safely.
	fatal bool
}

func (d *damage) add(fatal bool, format string, args ...any) {
	d.count++
	d.fatal = d.fatal || fatal
	if len(d.problems) < maxCheckErrors {
		d.problems = append(d.problems, fmt.Sprintf(format, args...))
	}
}

// err returns nil when nothing was found, else the *DamageError.
func (d *damage) err() error {
	if d.count == 0 {
		return nil
	}
	return &DamageError{Path: d.path, Problems: d.problems, Count: d.count, Readable: !d.fatal}
}

// The layout of a bbolt file (go.etcd.io/bbolt/internal/common), in the
// byte order of the machine that wrote it, as bbolt reads it.
const (
	pageHeaderSize   = 16 // id u64, flags u16, count u16, overflow u32
	metaSize         = 64 // magic, version, page size, flags u32; root, sequence, freelist, pgid, txid, checksum u64
	metaChecksumAt   = 56 // the checksum is FNV-64a of the meta's bytes before it
	branchElemSize   = 16 // pos u32, ksize u32, pgid u64
	leafElemSize     = 16 // flags, pos, ksize, vsize u32
	bucketHeaderSize = 16 // root pgid u64, sequence u64

	boltMagic   = 0xED0CDAED
	boltVersion = 2

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagFreelist = 0x10
	flagBucket   = 0x01 // of a leaf element: its value is a bucket

	noFreelist = ^uint64(0)

	// maxDepth bounds the nesting of pages and buckets walkPages follows:
	// bbolt's trees are a few levels deep, so a deeper one loops.
	maxDepth = 64
)

var ne = binary.NativeEndian

// meta is a decoded meta page.
type meta struct {
	pageSize, version    uint32
	root, freelist, pgid uint64
	txid                 uint64
	// bad says why the page is not a valid meta page ("" when it is).
	bad string
}

func decodeMeta(b []byte) meta {
	if len(b) < pageHeaderSize+metaSize {
		return meta{bad: "cut short"}
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	out := meta{
		version: ne.Uint32(m[4:]), pageSize: ne.Uint32(m[8:]),
		root: ne.Uint64(m[16:]), freelist: ne.Uint64(m[32:]), pgid: ne.Uint64(m[40:]), txid: ne.Uint64(m[48:]),
	}
	h := fnv.New64a()
	h.Write(m[:metaChecksumAt])
	switch {
	case ne.Uint32(m) != boltMagic:
		out.bad = "no bbolt magic number"
	case out.version != boltVersion:
		out.bad = fmt.Sprintf("format version %d, not %d", out.version, boltVersion)
	case ne.Uint64(m[metaChecksumAt:]) != h.Sum64():
		out.bad = "checksum mismatch"
	}
	return out
}

// header is what examine read of a file.
type header struct {
	size     int64
	pageSize int
	meta     meta // the meta page bbolt reads: the newest valid one
}

// examine reads the meta pages of the bbolt file f (at path) and checks
// what bbolt would trust before reading anything else: the page size, the
// file's length against the pages the meta records, and that the root and
// the freelist are pages within them. Problems that keep bbolt from
// opening the file go to d as fatal; a damaged meta page beside a valid
// one (bbolt reads the file as of the valid one's transaction) is not.
func examine(f *os.File, d *damage) (header, bool) {
	var h header
	fi, err := f.Stat()
	if err != nil {
		d.add(true, "%v", err)
		return h, false
	}
	h.size = fi.Size()
	if h.size == 0 {
		d.add(true, "it is empty (0 bytes), not a database")
		return h, false
	}
	buf := make([]byte, 4096)
	read := func(off int64) []byte {
		n, _ := f.ReadAt(buf, off)
		return buf[:n]
	}
	// The page size is the first meta page's, or, when that one is not
	// valid, the second's, found where it would be for each page size
	// bbolt allows (as bbolt finds it).
	m0 := decodeMeta(read(0))
	h.pageSize = int(m0.pageSize)
	if m0.bad != "" {
		h.pageSize = 0
		for size := int64(1024); size <= 1<<24 && size < h.size; size *= 2 {
			if m := decodeMeta(read(size)); m.bad == "" && int64(m.pageSize) == size {
				h.pageSize = int(size)
				break
			}
		}
	}
	if h.pageSize == 0 {
		if h.size < 2*1024 {
			d.add(true, "it is %s long, too short for bbolt's two meta pages: not a database, or cut short", byteCount(h.size))
		} else {
			d.add(true, "neither of its two meta pages is valid (page 0: %s): not a bbolt database, or both are damaged", m0.bad)
		}
		return h, false
	}
	if h.pageSize < 1024 || h.pageSize&(h.pageSize-1) != 0 {
		d.add(true, "its meta page gives a page size of %d bytes, which bbolt never writes", h.pageSize)
		return h, false
	}
	m1 := decodeMeta(read(int64(h.pageSize)))
	if m0.bad == "" && int(m0.pageSize) != h.pageSize || m1.bad == "" && int(m1.pageSize) != h.pageSize {
		d.add(true, "its two meta pages give different page sizes (%d and %d bytes)", m0.pageSize, m1.pageSize)
		return h, false
	}
	switch {
	case m0.bad == "" && (m1.bad != "" || m0.txid >= m1.txid):
		h.meta = m0
	default:
		h.meta = m1
	}
	m := h.meta
	ps := uint64(h.pageSize)
	if m.pgid < 3 {
		d.add(true, "its meta page records %d pages, which no bbolt file has", m.pgid)
		return h, false
	}
	if m.pgid > uint64(h.size)/ps {
		need := fmt.Sprintf("%d pages of %d bytes", m.pgid, ps)
		if m.pgid < 1<<40 {
			need = byteCount(int64(m.pgid * ps))
		}
		d.add(true, "it is %s long, shorter than the %s of pages its meta page records (cut short: truncated, or a copy that did not finish)",
			byteCount(h.size), need)
		return h, false
	}
	if m.root < 2 || m.root >= m.pgid {
		d.add(true, "its meta page puts the root at page %d, outside pages 2-%d", m.root, m.pgid-1)
	}
	if m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid) {
		d.add(true, "its meta page puts the freelist at page %d, outside pages 2-%d", m.freelist, m.pgid-1)
	}
	for i, m := range []meta{m0, m1} {
		if m.bad != "" {
			d.add(false, "meta page %d is damaged (%s): bbolt reads the file as of transaction %d, from meta page %d, so the last change written before the damage may be missing",
				i, m.bad, h.meta.txid, 1-i)
		}
	}
	return h, !d.fatal
}

// byteCount renders n bytes with thousands separators: "53,248 bytes".
func byteCount(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " bytes"
}

// pageWalk reads a file's pages as walkPages checks them.
type pageWalk struct {
	ctx     context.Context // done: the walk stops
	pages   int             // pages read so far
	stopped bool            // ctx was found done
	f       *os.File
	h       header
	d       *damage
	seen    []uint64 // a bit per page: referenced already
	buf     []byte
}

// walkPages checks the pages of the file f whose meta pages examine read
// as h: the freelist page and every page of the tree from the root,
// nested buckets included. Each must be within the file, referenced once,
// of the type its reference expects and carry its own id; every element's
// key and value must lie within its page, every child within the file.
// Problems go to d, fatal (bbolt would read outside the pages or loop)
// except a freelist that names pages outside the file, which only
// bbolt's allocator would trust. It reads each page once, with plain reads.
func walkPages(ctx context.Context, f *os.File, h header, d *damage) {
	w := &pageWalk{ctx: ctx, f: f, h: h, d: d, seen: make([]uint64, (h.meta.pgid+63)/64)}
	w.mark(0, 0)
	w.mark(1, 0)
	if fl := h.meta.freelist; fl != noFreelist {
		w.freelist(fl)
	}
	w.page(h.meta.root, flagBranch|flagLeaf, 0, "the root")
}

// mark notes pages id…id+overflow as referenced; it reports false (and
// adds the problem) when one already was.
func (w *pageWalk) mark(id uint64, overflow uint32) bool {
	for p := id; p <= id+uint64(overflow); p++ {
		if w.seen[p/64]&(1<<(p%64)) != 0 {
			w.d.add(true, "page %d is referenced twice (a loop or a crossed reference)", p)
			return false
		}
		w.seen[p/64] |= 1 << (p % 64)
	}
	return true
}

// read returns page id and its overflow pages, after checking its header
// against what referenced it (ref, for the messages) and marking them; nil
// when it cannot be used.
func (w *pageWalk) read(id uint64, flags uint16, ref string) []byte {
	ps := uint64(w.h.pageSize)
	if id < 2 || id >= w.h.meta.pgid {
		w.d.add(true, "%s points at page %d, outside pages 2-%d", ref, id, w.h.meta.pgid-1)
		return nil
	}
	if w.pages++; w.stopped || w.pages%4096 == 0 && w.ctx.Err() != nil {
		w.stopped = true
		return nil // the caller returns ctx's error
	}
	// One read for the page, and one more for its overflow pages.
	if uint64(cap(w.buf)) < ps {
		w.buf = make([]byte, ps)
	}
	hdr := w.buf[:ps]
	if _, err := w.f.ReadAt(hdr, int64(id*ps)); err != nil {
		w.d.add(true, "page %d (%s): %v", id, ref, err)
		return nil
	}
	gotID, gotFlags, overflow := ne.Uint64(hdr), ne.Uint16(hdr[8:]), ne.Uint32(hdr[12:])
	switch {
	case gotFlags&flags == 0 || bits.OnesCount16(gotFlags) != 1:
		w.d.add(true, "page %d (%s) is not a %s page (flags %#x)", id, ref, pageKind(flags), gotFlags)
		return nil
	case gotID != id:
		w.d.add(true, "page %d (%s) carries the id %d", id, ref, gotID)
		return nil
	case id+uint64(overflow) >= w.h.meta.pgid:
		w.d.add(true, "page %d (%s) runs %d pages past the last page, %d", id, ref, overflow, w.h.meta.pgid-1)
		return nil
	}
	if !w.mark(id, overflow) {
		return nil
	}
	if overflow == 0 {
		return hdr
	}
	n := (uint64(overflow) + 1) * ps
	if uint64(cap(w.buf)) < n {
		w.buf = append(w.buf[:ps], make([]byte, n-ps)...)
	}
	b := w.buf[:n]
	if _, err := w.f.ReadAt(b[ps:], int64((id+1)*ps)); err != nil {
		w.d.add(true, "page %d (%s): %v", id, ref, err)
		return nil
	}
	return b
}

func pageKind(flags uint16) string {
	switch flags {
	case flagFreelist:
		return "freelist"
	case flagLeaf:
		return "leaf"
	}
	return "branch or leaf"
}

// freelist checks the freelist page: every free page within the file,
// none twice.
func (w *pageWalk) freelist(id uint64) {
	b := w.read(id, flagFreelist, "the freelist")
	if b == nil {
		return
	}
	at, count := pageHeaderSize, uint64(ne.Uint16(b[10:]))
	if count == 0xFFFF { // the count is the first element
		if len(b) < at+8 {
			w.d.add(true, "the freelist (page %d) is cut short", id)
			return
		}
		count, at = ne.Uint64(b[at:]), at+8
	}
	if count > uint64(len(b)-at)/8 {
		w.d.add(true, "the freelist (page %d) lists %d pages, more than it holds", id, count)
		return
	}
	free := make(map[uint64]bool, count)
	for i := uint64(0); i < count; i++ {
		p := ne.Uint64(b[at+int(i)*8:])
		switch {
		case p < 2 || p >= w.h.meta.pgid:
			w.d.add(true, "the freelist (page %d) lists page %d, outside pages 2-%d", id, p, w.h.meta.pgid-1)
			return
		case free[p]:
			w.d.add(false, "the freelist (page %d) lists page %d twice", id, p)
		}
		free[p] = true
	}
}

// page checks page id, of the types flags, and the pages it points at.
func (w *pageWalk) page(id uint64, flags uint16, depth int, ref string) {
	if depth > maxDepth {
		w.d.add(true, "page %d (%s) is nested more than %d levels deep", id, ref, maxDepth)
		return
	}
	b := w.read(id, flags, ref)
	if b == nil {
		return
	}
	// The buffer is reused by the pages below: keep what is needed.
	isBranch := ne.Uint16(b[8:]) == flagBranch
	children, buckets := w.elements(b, id, isBranch, fmt.Sprintf("page %d", id))
	for _, c := range children {
		w.page(c, flagBranch|flagLeaf, depth+1, fmt.Sprintf("a child of page %d", id))
	}
	for _, c := range buckets {
		w.page(c, flagBranch|flagLeaf, depth+1, fmt.Sprintf("a bucket in page %d", id))
	}
}

// elements checks the elements of the branch or leaf page b (or of an
// inline bucket's page) named name: each key and value within b. It
// returns the child pages of a branch page and the root pages of the
// buckets of a leaf page (inline buckets are checked here).
func (w *pageWalk) elements(b []byte, id uint64, isBranch bool, name string) (children, buckets []uint64) {
	count := int(ne.Uint16(b[10:]))
	size := leafElemSize
	if isBranch {
		size = branchElemSize
	}
	if pageHeaderSize+count*size > len(b) {
		w.d.add(true, "%s lists %d elements, more than it holds", name, count)
		return nil, nil
	}
	for i := 0; i < count; i++ {
		at := pageHeaderSize + i*size
		e := b[at : at+size]
		if isBranch {
			pos, ksize := uint64(ne.Uint32(e)), uint64(ne.Uint32(e[4:]))
			if uint64(at)+pos+ksize > uint64(len(b)) {
				w.d.add(true, "element %d of %s points outside it", i, name)
				return nil, nil
			}
			children = append(children, ne.Uint64(e[8:]))
			continue
		}
		eflags, pos, ksize, vsize := ne.Uint32(e), uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
		end := uint64(at) + pos + ksize + vsize
		if end > uint64(len(b)) {
			w.d.add(true, "element %d of %s points outside it", i, name)
			return nil, nil
		}
		if eflags&flagBucket == 0 {
			continue
		}
		v := b[uint64(at)+pos+ksize : end]
		if len(v) < bucketHeaderSize {
			w.d.add(true, "bucket %d of %s is cut short", i, name)
			continue
		}
		if root := ne.Uint64(v); root != 0 {
			buckets = append(buckets, root)
			continue
		}
		// An inline bucket: its one leaf page follows the header, and
		// holds no bucket of its own.
		p := v[bucketHeaderSize:]
		if len(p) < pageHeaderSize || ne.Uint16(p[8:]) != flagLeaf {
			w.d.add(true, "the inline bucket of element %d of %s is not a leaf page", i, name)
			continue
		}
		if _, nested := w.elements(p, id, false, fmt.Sprintf("the inline bucket of element %d of %s", i, name)); len(nested) > 0 {
			w.d.add(true, "the inline bucket of element %d of %s holds a bucket, which bbolt never writes", i, name)
		}
	}
	return children, buckets
}

// prefetch reads the first n bytes of f in order, so that the page cache
// holds them when the walk and bbolt's check read them page by page: on a
// file that is not cached, a sequential read is many times faster than
// bbolt's reads in tree order (1 GB: 6 s, then 3 s of checks, against 100 s).
func prefetch(ctx context.Context, f *os.File, n int64) {
	buf := make([]byte, 1<<20)
	for off := int64(0); off < n && ctx.Err() == nil; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), n-off)], off)
		off += int64(k)
		if err != nil && !errors.Is(err, io.EOF) || k == 0 {
			return
		}
	}
}
