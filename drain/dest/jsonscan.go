package dest

import (
	"strings"
	"unicode/utf8"

	"logq/event"
	"logq/types"
)

// scanner reads an event body with package event's scanner, logq's one JSON
// reader, for the Loki, Datadog and OTLP encoders. A body is logq's own
// output and so valid JSON; on malformed input the scanner stops (bad is
// set, and peek answers 0 from then on) and callers use what was read so
// far.
type scanner struct {
	event.Scanner
	bad bool
}

func newScanner(body []byte) scanner { return scanner{Scanner: event.NewScanner(body, nil)} }

// ok notes err, if any, and reports whether there was none.
func (s *scanner) ok(err error) bool {
	if err != nil {
		s.bad = true
	}
	return !s.bad
}

// peek returns the next non-space byte, 0 at the end or once bad.
func (s *scanner) peek() byte {
	if s.bad {
		return 0
	}
	return s.Peek()
}

// str reads a string at the cursor: its raw content between the quotes and
// whether that content holds an escape.
func (s *scanner) str() (raw []byte, esc bool) {
	raw, esc, err := s.RawStr()
	s.ok(err)
	return raw, esc
}

// number reads a number's text.
func (s *scanner) number() []byte {
	tok, _, err := s.Number()
	s.ok(err)
	return tok
}

// literal reads true, false or null and returns it.
func (s *scanner) literal() string {
	word := ""
	switch s.peek() {
	case 't':
		word = "true"
	case 'f':
		word = "false"
	case 'n':
		word = "null"
	}
	if word == "" || !s.ok(s.Literal(word)) {
		s.bad = true
		return ""
	}
	return word
}

// skip skips one value.
func (s *scanner) skip() {
	_, err := s.Skip(0)
	s.ok(err)
}

// members calls f for each member of the object at the cursor, with the
// cursor on the member's value (f must consume it). It returns false when
// the value there is not an object.
func (s *scanner) members(f func(key []byte, esc bool)) bool {
	if s.peek() != '{' {
		return false
	}
	s.Advance()
	for first := true; ; first = false {
		k, esc, done, err := s.RawKey(first)
		if !s.ok(err) || done {
			return true
		}
		f(k, esc)
	}
}

// elements calls f for each element of the array at the cursor (f must
// consume it).
func (s *scanner) elements(f func(i int)) {
	s.Advance() // '['
	for i := 0; ; i++ {
		done, err := s.NextElement(i == 0)
		if !s.ok(err) || done {
			return
		}
		f(i)
	}
}

// decodeString returns a raw string's value as valid UTF-8.
func decodeString(raw []byte, esc bool) string {
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	return string(appendDecoded(nil, raw))
}

// appendDecoded appends the value of a raw JSON string (its content between
// the quotes) as valid UTF-8: an invalid byte, or a bad escape (and what
// follows it), becomes U+FFFD.
func appendDecoded(dst, raw []byte) []byte {
	start := len(dst)
	dst = event.AppendUnescaped(dst, raw)
	if !utf8.Valid(dst[start:]) {
		fixed := []byte(strings.ToValidUTF8(string(dst[start:]), "\uFFFD"))
		dst = append(dst[:start], fixed...)
	}
	return dst
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
	s := newScanner(body)
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
