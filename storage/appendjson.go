package storage

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// Records written without encoding/json's reflection and re-scan.
//
// encoding/json validates and compacts every json.RawMessage it writes
// (a character's sheet, every record an event holds), a scan of each byte
// through its state machine, and walks each struct by reflection. The
// appenders here write the bytes encoding/json writes (records.go's encode:
// compact, no HTML escaping, strings escaped as it escapes them) for what
// they know to be plain: a time in years 0 to 9999, a raw value that
// validCompact accepts. For anything else they report false, and the
// caller encodes with encoding/json as before, so the bytes on disk are
// the same either way (appendjson_test.go compares the two).

// appendCharacter appends the JSON encoding of c as encodeCharacter
// writes it (normCharacter: its time in UTC, an empty sheet absent), and
// reports whether it could: false when a field needs encoding/json.
func appendCharacter(dst []byte, c *Character) ([]byte, bool) {
	dst = append(dst, `{"channel_id":`...)
	dst = appendString(dst, c.ChannelID)
	dst = append(dst, `,"id":`...)
	dst = strconv.AppendUint(dst, c.ID, 10)
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, c.Name)
	if c.OwnerID != "" {
		dst = append(dst, `,"owner_id":`...)
		dst = appendString(dst, c.OwnerID)
	}
	if c.OwnerName != "" {
		dst = append(dst, `,"owner_name":`...)
		dst = appendString(dst, c.OwnerName)
	}
	dst = append(dst, `,"created_at":`...)
	dst, ok := appendTime(dst, c.CreatedAt)
	if !ok {
		return dst, false
	}
	if len(c.Sheet) > 0 {
		if !validCompact(c.Sheet) {
			return dst, false
		}
		dst = append(dst, `,"sheet":`...)
		dst = append(dst, c.Sheet...)
	}
	if c.Hidden {
		dst = append(dst, `,"hidden":true`...)
	}
	return append(dst, '}'), true
}

// hexDigits are the digits of a \u escape.
const hexDigits = "0123456789abcdef"

// appendString appends s quoted as encoding/json writes it without HTML
// escaping: '"', '\\' and control characters escaped (\b \f \n \r \t, the
// rest as \u00XX), invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028
// and \u2029, everything else as it is.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendTime appends t in UTC as time.Time's MarshalJSON writes it (RFC
// 3339 with nanoseconds, quoted), when its year is within 0 to 9999
// (MarshalJSON fails outside them); otherwise it reports false.
func appendTime(dst []byte, t time.Time) ([]byte, bool) {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return dst, false
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), true
}

// maxCompactDepth is how deeply validCompact follows arrays and objects
// into each other; deeper values are left to encoding/json.
const maxCompactDepth = 64

// validCompact reports whether v is one JSON value, valid as encoding/json
// reads it, with no space outside its strings: what encoding/json writes
// unchanged for a json.RawMessage. It reports false for some values that
// encoding/json would write unchanged too (nesting deeper than
// maxCompactDepth); never true for one it would reject or change.
func validCompact(v []byte) bool {
	end, ok := compactValue(v, 0, 0)
	return ok && end == len(v)
}

// compactValue checks the value at v[i:], depth arrays and objects deep,
// and returns the index after it.
func compactValue(v []byte, i, depth int) (int, bool) {
	if i >= len(v) {
		return i, false
	}
	switch c := v[i]; {
	case c == '"':
		return compactString(v, i)
	case c == '{':
		if depth >= maxCompactDepth {
			return i, false
		}
		i++
		if i < len(v) && v[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(v) || v[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = compactString(v, i); !ok || i >= len(v) || v[i] != ':' {
				return i, false
			}
			if i, ok = compactValue(v, i+1, depth+1); !ok || i >= len(v) {
				return i, false
			}
			switch v[i] {
			case ',':
				i++
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '[':
		if depth >= maxCompactDepth {
			return i, false
		}
		i++
		if i < len(v) && v[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = compactValue(v, i, depth+1); !ok || i >= len(v) {
				return i, false
			}
			switch v[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		return compactNumber(v, i)
	case c == 't':
		return compactLiteral(v, i, "true")
	case c == 'f':
		return compactLiteral(v, i, "false")
	case c == 'n':
		return compactLiteral(v, i, "null")
	}
	return i, false
}

// compactLiteral checks that v[i:] starts with lit.
func compactLiteral(v []byte, i int, lit string) (int, bool) {
	if len(v)-i < len(lit) || string(v[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// compactString checks the string at v[i:] (v[i] is '"'): no control
// characters, only JSON's escapes. Other bytes, invalid UTF-8 included,
// encoding/json copies as they are.
func compactString(v []byte, i int) (int, bool) {
	for i++; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(v) {
				return i, false
			}
			switch v[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(v)-i < 5 {
					return i, false
				}
				for _, h := range v[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

// compactNumber checks the number at v[i:]: -?(0|[1-9][0-9]*)(\.[0-9]+)?
// ([eE][+-]?[0-9]+)?.
func compactNumber(v []byte, i int) (int, bool) {
	if v[i] == '-' {
		i++
	}
	switch {
	case i < len(v) && v[i] == '0':
		i++
	case i < len(v) && '1' <= v[i] && v[i] <= '9':
		i = digits(v, i)
	default:
		return i, false
	}
	if i < len(v) && v[i] == '.' {
		j := digits(v, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		j := digits(v, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// digits returns the index after the decimal digits at v[i:].
func digits(v []byte, i int) int {
	for i < len(v) && '0' <= v[i] && v[i] <= '9' {
		i++
	}
	return i
}

// appendStoredEvent appends the JSON encoding of se as encode writes it,
// and reports whether it could: false for an event with a checkpoint
// (every checkpointEvery-th), a time outside years 0 to 9999, or a raw
// value validCompact does not accept, which encode writes.
func appendStoredEvent(dst []byte, se *storedEvent) ([]byte, bool) {
	if se.Records != nil || len(se.ChannelID) > 0 || len(se.Seq) > 0 || len(se.TableBefore) > 0 || len(se.TableAfter) > 0 {
		return dst, false
	}
	e := &se.Event
	dst = append(dst, `{"at":`...)
	dst, ok := appendTime(dst, e.At)
	if !ok {
		return dst, false
	}
	if e.UserID != "" {
		dst = append(dst, `,"user_id":`...)
		dst = appendString(dst, e.UserID)
	}
	if e.UserName != "" {
		dst = append(dst, `,"user_name":`...)
		dst = appendString(dst, e.UserName)
	}
	if e.Command != "" {
		dst = append(dst, `,"command":`...)
		dst = appendString(dst, e.Command)
	}
	if e.Summary != "" {
		dst = append(dst, `,"summary":`...)
		dst = appendString(dst, e.Summary)
	}
	dst = append(dst, `,"dice":`...)
	dst = appendStrings(dst, e.Dice)
	if e.UndoOf != 0 {
		dst = append(dst, `,"undo_of":`...)
		dst = strconv.AppendUint(dst, e.UndoOf, 10)
	}
	if len(e.Parts) > 0 {
		dst = append(dst, `,"parts":[`...)
		for i := range e.Parts {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendPart(dst, &e.Parts[i])
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"changes":`...)
	if se.Changes == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range se.Changes {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = appendStoredChange(dst, &se.Changes[i]); !ok {
				return dst, false
			}
		}
		dst = append(dst, ']')
	}
	if se.Table != nil {
		dst = append(dst, `,"table":`...)
		if dst, ok = appendStoredChange(dst, se.Table); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendStrings appends ss as a JSON array, null for nil.
func appendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// appendPart appends the JSON encoding of p.
func appendPart(dst []byte, p *EventPart) []byte {
	dst = append(dst, '{')
	n := len(dst)
	if len(p.Characters) > 0 {
		dst = append(dst, `"characters":[`...)
		for i, id := range p.Characters {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendUint(dst, id, 10)
		}
		dst = append(dst, ']')
	}
	if p.Hidden {
		dst = append(appendComma(dst, n), `"hidden":true`...)
	}
	if p.Summary != "" {
		dst = append(appendComma(dst, n), `"summary":`...)
		dst = appendString(dst, p.Summary)
	}
	if len(p.Dice) > 0 {
		dst = append(appendComma(dst, n), `"dice":`...)
		dst = appendStrings(dst, p.Dice)
	}
	return append(dst, '}')
}

// appendComma appends a comma unless dst is n long: the next member of an
// object that opened at n is its first.
func appendComma(dst []byte, n int) []byte {
	if len(dst) > n {
		return append(dst, ',')
	}
	return dst
}

// appendStoredChange appends the JSON encoding of sc, and reports whether
// it could: false for a raw value validCompact does not accept.
func appendStoredChange(dst []byte, sc *storedChange) ([]byte, bool) {
	if len(sc.CharacterID) > 0 {
		return dst, false
	}
	dst = append(dst, '{')
	n := len(dst)
	if sc.ID != 0 {
		dst = append(dst, `"id":`...)
		dst = strconv.AppendUint(dst, sc.ID, 10)
	}
	if sc.Name != nil {
		dst = append(appendComma(dst, n), `"name":`...)
		dst = appendString(dst, *sc.Name)
	}
	if sc.Derived {
		dst = append(appendComma(dst, n), `"derived":true`...)
	}
	if sc.Created {
		dst = append(appendComma(dst, n), `"created":true`...)
	}
	for _, m := range [...]struct {
		name string
		v    []byte
	}{{`"was":`, sc.Was}, {`"before":`, sc.Before}, {`"after":`, sc.After}} {
		if len(m.v) == 0 {
			continue
		}
		if !validCompact(m.v) {
			return dst, false
		}
		dst = append(appendComma(dst, n), m.name...)
		dst = append(dst, m.v...)
	}
	return append(dst, '}'), true
}
