package dest

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"logq/types"
)

// scanner walks one JSON document in place, without building values: the
// Loki, Datadog and OTLP encoders read event bodies with it. A body is
// logq's own output and so valid JSON; on malformed input the scanner stops
// (bad is set) and callers use what was read so far.
type scanner struct {
	b   []byte
	i   int
	bad bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// expect consumes byte c (after spaces) or marks the input bad.
func (s *scanner) expect(c byte) bool {
	if s.peek() != c {
		s.bad = true
		return false
	}
	s.i++
	return true
}

// str reads a string at the cursor: its raw content between the quotes and
// whether that content holds an escape.
func (s *scanner) str() (raw []byte, esc bool) {
	if !s.expect('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			raw = s.b[start:s.i]
			s.i++
			return raw, esc
		case '\\':
			esc = true
			s.i += 2
		default:
			s.i++
		}
	}
	s.bad = true
	return nil, false
}

// number reads a number's text.
func (s *scanner) number() []byte {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		s.bad = true
	}
	return s.b[start:s.i]
}

// literal reads true, false or null and returns it.
func (s *scanner) literal() string {
	s.ws()
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
			s.i += len(lit)
			return lit
		}
	}
	s.bad = true
	return ""
}

// skip skips one value.
func (s *scanner) skip() {
	switch c := s.peek(); {
	case c == '"':
		s.str()
	case c == '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			return
		}
		for !s.bad {
			s.str()
			s.expect(':')
			s.skip()
			if !s.more('}') {
				return
			}
		}
	case c == '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return
		}
		for !s.bad {
			s.skip()
			if !s.more(']') {
				return
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		s.number()
	default:
		s.literal()
	}
}

// more consumes the separator after a member or element: true after a
// comma (another follows), false after the closing byte or on bad input.
func (s *scanner) more(end byte) bool {
	switch s.peek() {
	case ',':
		s.i++
		return true
	case end:
		s.i++
		return false
	}
	s.bad = true
	return false
}

// members calls f for each member of the object at the cursor, with the
// cursor on the member's value (f must consume it). It returns false when
// the value there is not an object.
func (s *scanner) members(f func(key []byte, esc bool)) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for !s.bad {
		k, esc := s.str()
		if !s.expect(':') {
			return true
		}
		f(k, esc)
		if !s.more('}') {
			break
		}
	}
	return true
}

// elements calls f for each element of the array at the cursor (f must
// consume it).
func (s *scanner) elements(f func(i int)) {
	s.i++ // '['
	if s.peek() == ']' {
		s.i++
		return
	}
	for n := 0; !s.bad; n++ {
		f(n)
		if !s.more(']') {
			return
		}
	}
}

// decodeString returns a raw string's value as valid UTF-8.
func decodeString(raw []byte, esc bool) string {
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	return string(appendUnescaped(nil, raw))
}

// appendUnescaped appends the value of a raw JSON string (its content
// between the quotes), as valid UTF-8: a bad escape, a lone surrogate or an
// invalid byte becomes U+FFFD.
func appendUnescaped(dst, raw []byte) []byte {
	start := len(dst)
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := i + 1
			for j < len(raw) && raw[j] != '\\' {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(raw) {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			break
		}
		e := raw[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw, i)
			if !ok {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				continue
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, ok = hex4(raw, i+2)
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		}
	}
	if !utf8.Valid(dst[start:]) {
		fixed := []byte(strings.ToValidUTF8(string(dst[start:]), "\uFFFD"))
		dst = append(dst[:start], fixed...)
	}
	return dst
}

// hex4 reads the 4 hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendRawString appends a raw JSON string (content between the quotes, as
// read) as a JSON string: as it is when it is valid UTF-8 (its escapes are
// already JSON's), else decoded and re-encoded.
func appendRawString(dst, raw []byte, esc bool) []byte {
	if utf8.Valid(raw) {
		dst = append(dst, '"')
		dst = append(dst, raw...)
		return append(dst, '"')
	}
	return types.AppendJSONString(dst, decodeString(raw, esc))
}

// topLevelString returns the string value of top-level key in a JSON
// object, and whether there is one.
func topLevelString(body []byte, key string) (string, bool) {
	s := scanner{b: body}
	var out string
	found := false
	s.members(func(k []byte, esc bool) {
		if !found && !esc && string(k) == key && s.peek() == '"' {
			raw, e := s.str()
			out, found = decodeString(raw, e), true
			return
		}
		s.skip()
	})
	return out, found
}
