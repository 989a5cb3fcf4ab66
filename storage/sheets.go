package storage

import (
	"container/list"
	"encoding/json"
	"reflect"
	"sync"
)

// Sheets decode once. Rendering a table decodes the sheet of every
// character shown, on every read; the cache (cache.go) hands out the same
// bytes until a character changes. So DecodeSheet keeps the values it
// decoded, by the sheet's bytes and the type decoded into, in an LRU of
// sheetMemoSize entries, and answers a sheet it has seen with a deep copy
// of its value (maps, slices and pointers copied too), exactly what
// json.Unmarshal would give into a zero value, in a fraction of the time.
// Keyed by content, a value can never go stale: a changed sheet is other
// bytes.

// DecodeSheet decodes a character's sheet (Character.Sheet, the JSON its
// rule system stores) into v, a pointer to the system's sheet struct (a
// zero one: v is overwritten). A sheet decodes once: every later call for
// the same bytes and type gets a deep copy of the value kept, which the
// caller owns. The error is json.Unmarshal's.
func DecodeSheet(raw []byte, v any) error { return sheets.decode(raw, v) }

// sheetMemoSize bounds the decoded sheets kept: 8,192, the characters of
// about 1,600 tables of five.
const sheetMemoSize = 8192

type sheetKey struct {
	t   reflect.Type
	raw string
}

type sheetEntry struct {
	key sheetKey
	val reflect.Value // the decoded value (not a pointer), never changed
}

// sheetMemo is the LRU of decoded sheets. It is safe for concurrent use.
type sheetMemo struct {
	mu    sync.Mutex
	limit int
	// entries are by type, then by bytes (so that a lookup of string(raw)
	// allocates nothing).
	entries map[reflect.Type]map[string]*list.Element
	lru     list.List
}

var sheets = newSheetMemo(sheetMemoSize)

func newSheetMemo(limit int) *sheetMemo {
	return &sheetMemo{limit: limit, entries: map[reflect.Type]map[string]*list.Element{}}
}

// decode sets *v (v a non-nil pointer) to the decoded raw, from the memo
// when it holds raw for v's type, else with json.Unmarshal (a sheet that
// does not decode is not kept).
func (m *sheetMemo) decode(raw []byte, v any) error {
	pv := reflect.ValueOf(v)
	if pv.Kind() != reflect.Pointer || pv.IsNil() {
		return json.Unmarshal(raw, v) // json's own error for a non-pointer
	}
	t := pv.Type().Elem()
	m.mu.Lock()
	e := m.entries[t][string(raw)]
	var val reflect.Value
	if e != nil {
		m.lru.MoveToFront(e)
		val = e.Value.(*sheetEntry).val
	}
	m.mu.Unlock()
	if e != nil {
		deepCopy(pv.Elem(), val)
		return nil
	}
	fresh := reflect.New(t)
	if err := json.Unmarshal(raw, fresh.Interface()); err != nil {
		return err
	}
	// Keep a copy of its own: the caller may change what it gets.
	kept := reflect.New(t).Elem()
	deepCopy(kept, fresh.Elem())
	pv.Elem().Set(fresh.Elem())
	m.mu.Lock()
	defer m.mu.Unlock()
	byRaw := m.entries[t]
	if byRaw == nil {
		byRaw = map[string]*list.Element{}
		m.entries[t] = byRaw
	}
	if _, ok := byRaw[string(raw)]; ok || m.limit <= 0 {
		return nil
	}
	key := sheetKey{t, string(raw)}
	byRaw[key.raw] = m.lru.PushFront(&sheetEntry{key: key, val: kept})
	for m.lru.Len() > m.limit {
		old := m.lru.Back()
		m.lru.Remove(old)
		k := old.Value.(*sheetEntry).key
		delete(m.entries[k.t], k.raw)
	}
	return nil
}

// deepCopy sets dst (settable) to a copy of src of the same type that shares
// no map, slice or pointer with it. Unexported struct fields, which
// json.Unmarshal never sets, are left alone.
func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.New(src.Type().Elem())
		deepCopy(n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Struct:
		for i := range src.NumField() {
			if f := dst.Field(i); f.CanSet() {
				deepCopy(f, src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			deepCopy(n.Index(i), src.Index(i))
		}
		dst.Set(n)
	case reflect.Array:
		for i := range src.Len() {
			deepCopy(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopy(v, it.Value())
			n.SetMapIndex(it.Key(), v)
		}
		dst.Set(n)
	case reflect.Interface:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		v := reflect.New(src.Elem().Type()).Elem()
		deepCopy(v, src.Elem())
		dst.Set(v)
	default:
		dst.Set(src)
	}
}
