package lql

import (
	"bytes"
	"sync"

	"logq/event"
)

// matcher is the per-call scratch of Match, pooled so that Match does not
// allocate: where the top-level values are, and the buffer strings are
// unescaped into.
type matcher struct {
	buf   []byte
	spans []int // where each top-level key's value begins: -1 missing, -2 not looked for yet
}

var matchers = sync.Pool{New: func() any { return &matcher{buf: make([]byte, 0, 1024)} }}

// Match reports whether event, one event as a JSON object, satisfies every filter.
// The event is the drain's "body": keys already SQL-safe ([A-Za-z0-9_]), "event_message", "id", "timestamp" (µs integer) at the top level, nested objects and arrays as JSON.
//
// Keys are compared as written: a key that spells a plain letter as an
// escape (\u0061) is not recognised, which no JSON encoder writes. An event
// that is not a JSON object does not match, nor does malformed text where a
// filter reads; what no filter reads is stepped over without being checked.
// When a key is repeated, its first value counts.
func (q *Query) Match(event []byte) bool {
	if q == nil || len(q.Filters) == 0 {
		return true
	}
	if len(q.keys) == 0 {
		return false // not from Parse
	}
	m := matchers.Get().(*matcher)
	ok := m.match(q, event)
	m.spans = m.spans[:0]
	matchers.Put(m)
	return ok
}

func (m *matcher) scanner(raw []byte) event.Scanner { return event.NewScanner(raw, m.buf[:0]) }

// keep holds on to a scanner's buffer, which it may have grown.
func (m *matcher) keep(s *event.Scanner) {
	if b := s.Buffer(); cap(b) > cap(m.buf) {
		m.buf = b
	}
}

func (m *matcher) match(q *Query, ev []byte) bool {
	if i := skipSpace(ev, 0); i >= len(ev) || ev[i] != '{' {
		return false
	}
	for range q.keys {
		m.spans = append(m.spans, -2)
	}
	for i := range q.Filters {
		f := &q.Filters[i]
		if m.spans[f.key] == -2 {
			m.spans[f.key] = topMember(ev, q.keys[f.key], q.rare[f.key])
		}
		at := m.spans[f.key]
		if at < 0 {
			return false // a missing path matches nothing, negated or not
		}
		_, found, ok := m.walk(f, ev, at, f.Path[1:], 1, false)
		if !found || ok == f.Negate {
			return false
		}
	}
	return true
}

// walk follows path from the value at b[i], trying every element of an
// array it meets, and tests f on what it reaches, in one pass over the
// bytes. found reports that the path exists; ok that some value reached
// satisfies f (before negation). Once either is decided walk returns; end
// is where the value ends, needed by an array to go on to its next element
// (-1 at malformed text, or when ok, or when needEnd is false and the
// result is known before the end).
func (m *matcher) walk(f *Filter, b []byte, i int, path []string, depth int, needEnd bool) (end int, found, ok bool) {
	if depth > event.MaxDepth || i >= len(b) {
		return -1, false, false
	}
	switch b[i] {
	case '{':
		if len(path) == 0 {
			end, ok := skipValue(b, i)
			if !ok {
				end = -1
			}
			return end, true, false // an object satisfies no filter
		}
		decided := false
		for j, first := i+1, true; ; first = false {
			j = skipSpace(b, j)
			if j < len(b) && b[j] == '}' {
				return j + 1, found, false
			}
			if !first {
				if j >= len(b) || b[j] != ',' {
					return -1, found, false
				}
				j = skipSpace(b, j+1)
			}
			if j >= len(b) || b[j] != '"' {
				return -1, found, false
			}
			kend, ok := skipString(b, j)
			if !ok {
				return -1, found, false
			}
			key := b[j+1 : kend-1]
			if j = skipSpace(b, kend); j >= len(b) || b[j] != ':' {
				return -1, found, false
			}
			j = skipSpace(b, j+1)
			if !decided && string(key) == path[0] {
				// The first of repeated keys counts.
				decided = true
				var k bool
				j, found, k = m.walk(f, b, j, path[1:], depth+1, needEnd)
				if k || !needEnd || j < 0 {
					return -1, found, k
				}
				continue
			}
			if j, ok = skipValue(b, j); !ok {
				return -1, found, false
			}
		}
	case '[':
		found = len(path) == 0 // an array at the end of the path exists, even empty
		for j, first := i+1, true; ; first = false {
			j = skipSpace(b, j)
			if j < len(b) && b[j] == ']' {
				return j + 1, found, false
			}
			if !first {
				if j >= len(b) || b[j] != ',' {
					return -1, found, false
				}
				j = skipSpace(b, j+1)
			}
			var fd, k bool
			j, fd, k = m.walk(f, b, j, path, depth+1, true)
			if k {
				return -1, true, true
			}
			found = found || fd
			if j < 0 {
				return -1, found, false
			}
		}
	}
	if len(path) == 0 && !needEnd && b[i] == '"' {
		return -1, true, m.leaf(f, b[i:]) // no need to find the end first
	}
	end, valid := skipValue(b, i)
	if !valid {
		return -1, false, false
	}
	if len(path) > 0 {
		return end, false, false // a path through a scalar does not exist
	}
	return end, true, m.leaf(f, b[i:end])
}

// leaf tests f on one scalar: a string, number, true, false or null. A
// string is read from the front of raw, which may go on past it.
func (m *matcher) leaf(f *Filter, raw []byte) bool {
	switch raw[0] {
	case '"':
		if f.matchAll {
			return true // what the string holds does not matter
		}
		s := m.scanner(raw)
		text, err := s.Str()
		m.keep(&s)
		return err == nil && f.matchString(text)
	case 'n':
		return f.Op == IsNull
	case 't', 'f':
		return f.matchText(raw, false)
	}
	return f.matchText(raw, true)
}

// matchString tests f on a JSON string's text.
func (f *Filter) matchString(text []byte) bool {
	switch f.Op {
	case Eq, Includes:
		return string(text) == f.Value
	case Contains:
		return bytes.Contains(text, f.val)
	case Regex, IncludesRegex:
		return f.re != nil && f.re.Match(text)
	case Gt, Ge, Lt, Le:
		if f.hasNum {
			n, ok := parseNumber(text)
			return ok && f.compare(n.cmp(f.num))
		}
		return f.compare(bytes.Compare(text, f.val))
	case Range:
		n, ok := parseNumber(text)
		return ok && n.cmp(f.lo) >= 0 && n.cmp(f.hi) <= 0
	}
	return false
}

// matchText tests f on a number's or a boolean's JSON text.
func (f *Filter) matchText(raw []byte, isNum bool) bool {
	switch f.Op {
	case Eq, Includes:
		if !isNum {
			return string(raw) == f.Value
		}
		if string(raw) == f.Value {
			return true
		}
		if !f.hasNum {
			return false
		}
		n, ok := parseNumber(raw)
		return ok && n.cmp(f.num) == 0
	case Contains:
		return bytes.Contains(raw, f.val)
	case Regex, IncludesRegex:
		return f.matchAll || f.re != nil && f.re.Match(raw)
	case Gt, Ge, Lt, Le:
		if !isNum || !f.hasNum {
			return false
		}
		n, ok := parseNumber(raw)
		return ok && f.compare(n.cmp(f.num))
	case Range:
		if !isNum {
			return false
		}
		n, ok := parseNumber(raw)
		return ok && n.cmp(f.lo) >= 0 && n.cmp(f.hi) <= 0
	}
	return false
}

// compare turns c, the event value compared with the rule value, into f's
// verdict.
func (f *Filter) compare(c int) bool {
	switch f.Op {
	case Gt:
		return c > 0
	case Ge:
		return c >= 0
	case Lt:
		return c < 0
	case Le:
		return c <= 0
	}
	return false
}
