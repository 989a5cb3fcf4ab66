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
// compact, no HTML escaping) for what they know to be plain: a string
// that needs no escaping, a time in years 0 to 9999, a raw value that
// validCompact accepts. For anything else they report false, and the
// caller encodes with encoding/json as before, so the bytes on disk are
// the same either way (appendjson_test.go compares the two).

// appendCharacter appends the JSON encoding of c as encodeCharacter
// writes it (normCharacter: its time in UTC, an empty sheet absent), and
// reports whether it could: false when a field needs encoding/json.
func appendCharacter(dst []byte, c *Character) ([]byte, bool) {
	dst = append(dst, `{"channel_id":`...)
	dst, ok := appendPlainString(dst, c.ChannelID)
	if !ok {
		return dst, false
	}
	dst = append(dst, `,"id":`...)
	dst = strconv.AppendUint(dst, c.ID, 10)
	dst = append(dst, `,"name":`...)
	if dst, ok = appendPlainString(dst, c.Name); !ok {
		return dst, false
	}
	if c.OwnerID != "" {
		dst = append(dst, `,"owner_id":`...)
		if dst, ok = appendPlainString(dst, c.OwnerID); !ok {
			return dst, false
		}
	}
	if c.OwnerName != "" {
		dst = append(dst, `,"owner_name":`...)
		if dst, ok = appendPlainString(dst, c.OwnerName); !ok {
			return dst, false
		}
	}
	dst = append(dst, `,"created_at":`...)
	if dst, ok = appendTime(dst, c.CreatedAt); !ok {
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

// appendPlainString appends s quoted when encoding/json would write it
// unchanged between quotes: valid UTF-8 without control characters, '"',
// '\\', U+2028 or U+2029. Otherwise it reports false.
func appendPlainString(dst []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b < 0x20 || b == '"' || b == '\\' {
				return dst, false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return dst, false
		}
		i += size
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"'), true
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
