package logstore

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON scanner that visits values in place, so that Append can write
// fields straight into column builders without building a map per event.

var errJSON = errors.New("invalid JSON")

type jscan struct {
	b   []byte
	i   int
	buf []byte // scratch for unescaping
}

func (s *jscan) fail(what string) error {
	if s.i >= len(s.b) {
		return fmt.Errorf("%w: expected %s, found end of input", errJSON, what)
	}
	return fmt.Errorf("%w at byte %d: expected %s, found %q", errJSON, s.i, what, s.b[s.i])
}

func (s *jscan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it (0 at the end).
func (s *jscan) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// str reads a string; the result aliases s.b when there were no escapes, or
// s.buf otherwise. Either way it is only valid until the next call.
func (s *jscan) str() ([]byte, error) {
	if s.peek() != '"' {
		return nil, s.fail("a string")
	}
	s.i++
	start := s.i
	// Most strings have no escapes: find the closing quote and check the
	// span for a backslash, both with SIMD searches. (Raw control characters
	// inside strings, which strict JSON forbids, are accepted: a log line
	// with a stray tab is worth keeping.)
	q := bytes.IndexByte(s.b[start:], '"')
	if q < 0 {
		s.i = len(s.b)
		return nil, s.fail("the end of a string")
	}
	if bytes.IndexByte(s.b[start:start+q], '\\') < 0 {
		s.i = start + q + 1
		return s.b[start : start+q], nil
	}
	return s.strSlow(start)
}

func (s *jscan) strSlow(start int) ([]byte, error) {
	s.buf = append(s.buf[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.buf, nil
		case c != '\\':
			s.buf = append(s.buf, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return nil, s.fail("an escape")
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			s.buf = append(s.buf, e)
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'n':
			s.buf = append(s.buf, '\n')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, s.fail("four hex digits")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(utf8.RuneError)
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					s.i += 2
					if lo, ok := s.hex4(); ok {
						r2 = utf16.DecodeRune(r, lo)
					}
				}
				r = r2
			}
			s.buf = utf8.AppendRune(s.buf, r)
		default:
			return nil, s.fail("a valid escape")
		}
	}
	return nil, s.fail("the end of a string")
}

func (s *jscan) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// nextKey reads the next key of an object whose '{' is consumed, and the
// ':' after it; done reports the closing '}'.
func (s *jscan) nextKey(first bool) (key []byte, done bool, err error) {
	c := s.peek()
	if c == '}' {
		s.i++
		return nil, true, nil
	}
	if !first {
		if c != ',' {
			return nil, false, s.fail("',' or '}'")
		}
		s.i++
	}
	if key, err = s.str(); err != nil {
		return nil, false, err
	}
	if s.peek() != ':' {
		return nil, false, s.fail("':'")
	}
	s.i++
	return key, false, nil
}

// number reads a number token and reports whether it is written as an integer.
func (s *jscan) number() (tok []byte, isInt bool, err error) {
	start := s.i
	isInt = true
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
			isInt = false
		default:
			goto done
		}
		s.i++
	}
done:
	if s.i == digits {
		return nil, false, s.fail("a value")
	}
	return s.b[start:s.i], isInt, nil
}

// literal consumes true, false or null.
func (s *jscan) literal(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.fail(word)
	}
	s.i += len(word)
	return nil
}

// skip consumes one value of any kind, returning its raw bytes.
func (s *jscan) skip(depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", errJSON, maxDepth)
	}
	c := s.peek()
	start := s.i
	switch {
	case c == '{':
		s.i++
		for first := true; ; first = false {
			_, done, err := s.nextKey(first)
			if err != nil {
				return nil, err
			}
			if done {
				return s.b[start:s.i], nil
			}
			if _, err := s.skip(depth + 1); err != nil {
				return nil, err
			}
		}
	case c == '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return s.b[start:s.i], nil
		}
		for {
			if _, err := s.skip(depth + 1); err != nil {
				return nil, err
			}
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return s.b[start:s.i], nil
			default:
				return nil, s.fail("',' or ']'")
			}
		}
	case c == '"':
		_, err := s.str()
		return s.b[start:s.i], err
	case c == 't':
		return s.b[start : start+4], s.literal("true")
	case c == 'f':
		return s.b[start : start+5], s.literal("false")
	case c == 'n':
		return s.b[start : start+4], s.literal("null")
	default:
		_, _, err := s.number()
		return s.b[start:s.i], err
	}
}

// maxDepth bounds nesting in events, well beyond any real log record.
const maxDepth = 64

// SplitEvents splits an ingest body into raw events: a JSON array of events,
// an object {"batch": [...]}, one event object, or NDJSON (one object a line).
func SplitEvents(body []byte) ([][]byte, error) {
	s := &jscan{b: body}
	switch s.peek() {
	case '[':
		return s.elements()
	case '{':
		first, err := s.skip(0)
		if err != nil {
			return nil, err
		}
		if s.peek() == 0 {
			if batch, ok, err := batchField(first); ok || err != nil {
				return batch, err
			}
			return [][]byte{first}, nil
		}
		out := [][]byte{first}
		for s.peek() != 0 {
			if s.peek() != '{' {
				return nil, s.fail("one JSON object per line")
			}
			ev, err := s.skip(0)
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
		}
		return out, nil
	case 0:
		return nil, fmt.Errorf("%w: empty body", errJSON)
	}
	return nil, s.fail("a JSON array or object")
}

func (s *jscan) elements() ([][]byte, error) {
	s.i++ // '['
	var out [][]byte
	if s.peek() == ']' {
		s.i++
		return out, s.end()
	}
	for {
		s.ws()
		ev, err := s.skip(0)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return out, s.end()
		default:
			return nil, s.fail("',' or ']'")
		}
	}
}

func (s *jscan) end() error {
	if s.peek() != 0 {
		return s.fail("the end of the body")
	}
	return nil
}

// batchField returns the elements of a lone "batch" key holding an array.
func batchField(obj []byte) ([][]byte, bool, error) {
	s := &jscan{b: obj}
	s.i++
	if s.peek() == '}' {
		return nil, false, nil
	}
	key, err := s.str()
	if err != nil || string(key) != "batch" {
		return nil, false, nil
	}
	s.peek()
	s.i++ // ':'
	if s.peek() != '[' {
		return nil, false, nil
	}
	start := s.i
	if _, err := s.skip(0); err != nil {
		return nil, false, err
	}
	if s.peek() != '}' {
		return nil, false, nil // more keys: an event that happens to have a "batch" field
	}
	inner := &jscan{b: obj[start:s.i]}
	inner.peek()
	evs, err := inner.elements()
	return evs, true, err
}
