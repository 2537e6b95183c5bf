package event

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON scanner that visits values in place, so that Append can write
// fields straight into column builders without building a map per event.

// ErrJSON is wrapped by every error about malformed JSON.
var ErrJSON = errors.New("invalid JSON")

// Scanner reads one JSON text from the front, a value at a time. The zero
// Scanner over b is NewScanner(b, nil).
type Scanner struct {
	b   []byte
	i   int
	buf []byte // scratch for unescaping
}

// NewScanner scans b, unescaping strings into buf (reused scratch, may be nil).
func NewScanner(b, buf []byte) Scanner { return Scanner{b: b, buf: buf} }

// Advance consumes the byte Peek returned (an object's '{', a ':').
func (s *Scanner) Advance() { s.i++ }

// Buffer returns the scratch buffer, for reuse by the next Scanner.
func (s *Scanner) Buffer() []byte { return s.buf }

// Resume continues scanning where saved was, keeping this scanner's
// scratch buffer (a value scanned on the side, then the event again).
func (s *Scanner) Resume(saved Scanner) { s.b, s.i = saved.b, saved.i }

func (s *Scanner) Fail(what string) error {
	if s.i >= len(s.b) {
		return fmt.Errorf("%w: expected %s, found end of input", ErrJSON, what)
	}
	return fmt.Errorf("%w at byte %d: expected %s, found %q", ErrJSON, s.i, what, s.b[s.i])
}

func (s *Scanner) ws() {
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
func (s *Scanner) Peek() byte {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return s.b[s.i] // no space before it: the usual case in machine-written JSON
	}
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// Str reads a string; the result aliases s.b when there were no escapes, or
// s.buf otherwise. Either way it is only valid until the next call.
func (s *Scanner) Str() ([]byte, error) {
	text, _, err := s.str(true)
	return text, err
}

// RawStr reads a string as written: its bytes between the quotes, escapes
// not decoded (AppendUnescaped decodes them), and whether it holds any. The
// escapes are checked as Str checks them. The result aliases s.b.
func (s *Scanner) RawStr() (raw []byte, escaped bool, err error) { return s.str(false) }

// str is Str (decode: escapes decoded into s.buf) or RawStr.
func (s *Scanner) str(decode bool) ([]byte, bool, error) {
	if s.Peek() != '"' {
		return nil, false, s.Fail("a string")
	}
	// Most strings have no escapes: the first quote or backslash is the
	// string's end or the start of its first escape. (Raw control
	// characters inside strings, which strict JSON forbids, are accepted: a
	// log line with a stray tab is worth keeping.)
	start := s.i + 1
	j := s.special(start)
	if j < len(s.b) && s.b[j] == '"' {
		s.i = j + 1
		return s.b[start:j], false, nil
	}
	if j == len(s.b) || bytes.IndexByte(s.b[j:], '"') < 0 {
		// No quote at all: the string's end is missing, whatever its
		// escapes (said so before any of them is read, as AppendBody says).
		s.i = len(s.b)
		return nil, false, s.Fail("the end of a string")
	}
	// Past the first escape, in one pass: the runs between escapes are read
	// a word at a time with no limit (a SIMD search from each run would
	// look to the string's closing quote every time, quadratic in a long
	// string with many escapes), and, to decode, copied as they are read.
	if decode {
		s.buf = append(s.buf[:0], s.b[start:j]...)
	}
	for s.i = j; s.i < len(s.b); {
		switch s.b[s.i] {
		case '"':
			s.i++
			if decode {
				return s.buf, true, nil
			}
			return s.b[start : s.i-1], true, nil
		case '\\':
			n, what := escapeLen(s.b[s.i:])
			if what != "" {
				s.i += n // at the byte the error names
				return nil, false, s.Fail(what)
			}
			if decode {
				s.buf = appendEscape(s.buf, s.b[s.i:s.i+n])
			}
			s.i += n
		default:
			k, _ := s.scanWords(s.i, -1)
			if decode {
				s.buf = append(s.buf, s.b[s.i:k]...)
			}
			s.i = k
		}
	}
	return nil, false, s.Fail("the end of a string")
}

// special returns the index of the first '"' or '\\' in s.b at or after i,
// or len(s.b) when there is none. Half the strings of a log record (keys
// most of all) are under 10 bytes, where a SIMD search's set-up costs more
// than the string: the first 32 bytes are read a word at a time, looking for
// both bytes at once, and only a longer string is left to bytes.IndexByte.
func (s *Scanner) special(i int) int {
	j, found := s.scanWords(i, 4)
	if found {
		return j
	}
	q := bytes.IndexByte(s.b[j:], '"')
	if q < 0 {
		q = len(s.b) - j
	}
	if k := bytes.IndexByte(s.b[j:j+q], '\\'); k >= 0 {
		return j + k
	}
	return j + q
}

// scanWords looks for '"' or '\\' from i a word at a time, for at most n
// words (n < 0: no limit). It returns the index found (len(s.b) at the
// end), or, with found false, where it stopped after n words. strSlow reads
// the runs between escapes with no limit: a SIMD search from each run would
// look to the string's closing quote every time, quadratic in a long string
// with many escapes.
func (s *Scanner) scanWords(i, n int) (j int, found bool) {
	b := s.b
	for ; i+8 <= len(b); i += 8 {
		if n == 0 {
			return i, false
		}
		n--
		w := binary.LittleEndian.Uint64(b[i:])
		if m := hasByte(w, '"') | hasByte(w, '\\'); m != 0 {
			return i + bits.TrailingZeros64(m)>>3, true
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' {
			return i, true
		}
	}
	return len(b), true
}

// hasByte marks, in the high bit of each byte of the result, the bytes of w
// equal to c; hasLess, the bytes below n (n <= 0x80). Bytes above the first
// marked one may be marked wrongly (a borrow), so only the lowest mark is
// exact; it is the only one read. (The bit tricks of "Bit Twiddling Hacks".)
func hasByte(w uint64, c byte) uint64 { return hasLess(w^(wordOnes*uint64(c)), 1) }

func hasLess(w uint64, n byte) uint64 {
	return (w - wordOnes*uint64(n)) &^ w & (wordOnes * 0x80)
}

const wordOnes = 0x0101010101010101

// escapeLen returns the length of the escape at b[0] (a backslash), or
// what was expected instead and how far into b the bytes that are not it
// start. A \u of a surrogate pair is one escape when its low half follows;
// a lone half is an escape alone.
func escapeLen(b []byte) (n int, what string) {
	if len(b) < 2 {
		return 0, "an escape"
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, ""
	case 'u':
		r, ok := hex4(b[2:])
		if !ok {
			return 2, "four hex digits"
		}
		if utf16.IsSurrogate(r) && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
			if lo, ok := hex4(b[8:]); ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
				return 12, ""
			}
		}
		return 6, ""
	}
	return 1, "a valid escape"
}

// AppendUnescaped appends the text of a string as RawStr read it (its
// escapes checked), decoded: a surrogate pair's two escapes are one
// character, and a lone surrogate is U+FFFD. Bytes that are not escapes are
// copied as they are.
func AppendUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				return append(dst, raw[i:]...)
			}
			dst = append(dst, raw[i:i+j]...)
			i += j
			continue
		}
		n, what := escapeLen(raw[i:])
		if what != "" { // not as RawStr read it: no more is decoded
			return utf8.AppendRune(dst, utf8.RuneError)
		}
		dst = appendEscape(dst, raw[i:i+n])
		i += n
	}
	return dst
}

// appendEscape appends the character of escape e, one escape as escapeLen
// measured it (a surrogate pair's two when n was 12).
func appendEscape(dst, e []byte) []byte {
	switch e[1] {
	case 'b':
		return append(dst, '\b')
	case 'f':
		return append(dst, '\f')
	case 'n':
		return append(dst, '\n')
	case 'r':
		return append(dst, '\r')
	case 't':
		return append(dst, '\t')
	case 'u':
		r, _ := hex4(e[2:])
		if len(e) == 12 {
			lo, _ := hex4(e[8:])
			r = utf16.DecodeRune(r, lo)
		} else if utf16.IsSurrogate(r) {
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r)
	}
	return append(dst, e[1]) // '"', '\\', '/'
}

// hex4 reads the 4 hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
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

// NextKey reads the next key of an object whose '{' is consumed, and the
// ':' after it; done reports the closing '}'. The key is as Str returns it.
func (s *Scanner) NextKey(first bool) (key []byte, done bool, err error) {
	key, escaped, done, err := s.RawKey(first)
	if err != nil || done || !escaped {
		return key, done, err
	}
	s.buf = AppendUnescaped(s.buf[:0], key)
	return s.buf, false, nil
}

// RawKey is NextKey with the key as RawStr returns it.
func (s *Scanner) RawKey(first bool) (key []byte, escaped, done bool, err error) {
	c := s.Peek()
	if c == '}' {
		s.i++
		return nil, false, true, nil
	}
	if !first {
		if c != ',' {
			return nil, false, false, s.Fail("',' or '}'")
		}
		s.i++
	}
	if key, escaped, err = s.RawStr(); err != nil {
		return nil, false, false, err
	}
	if s.Peek() != ':' {
		return nil, false, false, s.Fail("':'")
	}
	s.i++
	return key, escaped, false, nil
}

// NextElement steps through an array whose '[' is consumed: before each
// element it consumes the ',' that must come between elements (none before
// the first), and done reports (and consumes) the closing ']'.
func (s *Scanner) NextElement(first bool) (done bool, err error) {
	switch c := s.Peek(); {
	case c == ']':
		s.i++
		return true, nil
	case first:
		return false, nil
	case c == ',':
		s.i++
		return false, nil
	}
	return false, s.Fail("',' or ']'")
}

// number reads a number token and reports whether it is written as an integer.
func (s *Scanner) Number() (tok []byte, isInt bool, err error) {
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
		return nil, false, s.Fail("a value")
	}
	return s.b[start:s.i], isInt, nil
}

// literal consumes true, false or null.
func (s *Scanner) Literal(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.Fail(word)
	}
	s.i += len(word)
	return nil
}

// skip consumes one value of any kind, returning its raw bytes.
func (s *Scanner) Skip(depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrJSON, MaxDepth)
	}
	c := s.Peek()
	start := s.i
	switch {
	case c == '{':
		s.i++
		for first := true; ; first = false {
			_, _, done, err := s.RawKey(first) // checked, not decoded
			if err != nil {
				return nil, err
			}
			if done {
				return s.b[start:s.i], nil
			}
			if _, err := s.Skip(depth + 1); err != nil {
				return nil, err
			}
		}
	case c == '[':
		s.i++
		if s.Peek() == ']' {
			s.i++
			return s.b[start:s.i], nil
		}
		for {
			if _, err := s.Skip(depth + 1); err != nil {
				return nil, err
			}
			switch s.Peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return s.b[start:s.i], nil
			default:
				return nil, s.Fail("',' or ']'")
			}
		}
	case c == '"':
		_, _, err := s.RawStr()
		return s.b[start:s.i], err
	case c == 't' || c == 'f' || c == 'n':
		// The literal is checked before it is sliced: a body may end in
		// the middle of one (found by FuzzSplit).
		word := "null"
		switch c {
		case 't':
			word = "true"
		case 'f':
			word = "false"
		}
		if err := s.Literal(word); err != nil {
			return nil, err
		}
		return s.b[start:s.i], nil
	default:
		_, _, err := s.Number()
		return s.b[start:s.i], err
	}
}

// MaxDepth bounds nesting in events, well beyond any real log record.
const MaxDepth = 64

// Split splits an ingest body into raw events: a JSON array of events,
// an object {"batch": [...]}, one event object, or NDJSON (one object a line).
func Split(body []byte) ([][]byte, error) {
	p := &splitter{Scanner: Scanner{b: body}}
	return p.split()
}

// SplitMarking is Split, and says of each event whether its top-level
// object has one of keys (as written; a key written with an escape counts
// as one of them, and so does an element that is no object), so that a
// later step looking for them skips the events that have none without
// searching their bytes again. A {"batch": [...]} body's marks are its
// elements'.
func SplitMarking(body []byte, keys []string) (evs [][]byte, marked []bool, err error) {
	p := &splitter{Scanner: Scanner{b: body}, keys: keys, marks: []bool{}}
	evs, err = p.split()
	if err != nil {
		return nil, nil, err
	}
	return evs, p.marks, nil
}

// splitter is the scanner Split walks a body with, marking events by keys
// as SplitMarking asks (keys nil: Split, no marks).
type splitter struct {
	Scanner
	keys  []string
	marks []bool
}

func (p *splitter) split() ([][]byte, error) {
	switch p.Peek() {
	case '[':
		return p.elements()
	case '{':
		first, err := p.event()
		if err != nil {
			return nil, err
		}
		if p.Peek() == 0 {
			if batch, ok, err := p.batchField(first); ok || err != nil {
				return batch, err
			}
			return [][]byte{first}, nil
		}
		out := [][]byte{first}
		for p.Peek() != 0 {
			if p.Peek() != '{' {
				return nil, p.Fail("one JSON object per line")
			}
			ev, err := p.event()
			if err != nil {
				return nil, err
			}
			out = append(out, ev)
		}
		return out, nil
	case 0:
		return nil, fmt.Errorf("%w: empty body", ErrJSON)
	}
	return nil, p.Fail("a JSON array or object")
}

// isKey reports whether key is one of p.keys (compared without making a
// string of it: this runs for every top-level key of every event).
func (p *splitter) isKey(key []byte) bool {
	for _, k := range p.keys {
		if string(key) == k {
			return true
		}
	}
	return false
}

func (p *splitter) elements() ([][]byte, error) {
	p.i++ // '['
	var out [][]byte
	if p.Peek() == ']' {
		p.i++
		return out, p.end()
	}
	for {
		p.ws()
		ev, err := p.event()
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
		switch p.Peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return out, p.end()
		default:
			return nil, p.Fail("',' or ']'")
		}
	}
}

// event skips one event, as Skip(0) does, marking it when asked: an object
// is walked key by key here so that its top-level keys are seen.
func (p *splitter) event() ([]byte, error) {
	if p.keys == nil || p.Peek() != '{' {
		ev, err := p.Skip(0)
		if p.keys != nil {
			p.marks = append(p.marks, true) // not an object: the later step decides
		}
		return ev, err
	}
	start := p.i
	p.i++
	marked := false
	for first := true; ; first = false {
		key, escaped, done, err := p.RawKey(first)
		if err != nil {
			return nil, err
		}
		if done {
			p.marks = append(p.marks, marked)
			return p.b[start:p.i], nil
		}
		if !marked {
			marked = escaped || p.isKey(key)
		}
		if _, err := p.Skip(1); err != nil {
			return nil, err
		}
	}
}

func (s *Scanner) end() error {
	if s.Peek() != 0 {
		return s.Fail("the end of the body")
	}
	return nil
}

// batchField returns the elements of a lone "batch" key holding an array.
func (p *splitter) batchField(obj []byte) ([][]byte, bool, error) {
	s := &Scanner{b: obj}
	s.i++
	if s.Peek() == '}' {
		return nil, false, nil
	}
	key, err := s.Str()
	if err != nil || string(key) != "batch" {
		return nil, false, nil
	}
	s.Peek()
	s.i++ // ':'
	if s.Peek() != '[' {
		return nil, false, nil
	}
	start := s.i
	if _, err := s.Skip(0); err != nil {
		return nil, false, err
	}
	if s.Peek() != '}' {
		return nil, false, nil // more keys: an event that happens to have a "batch" field
	}
	inner := &splitter{Scanner: Scanner{b: obj[start:s.i]}, keys: p.keys, marks: p.marks[:0:0]}
	inner.Peek()
	evs, err := inner.elements()
	p.marks = inner.marks // the batch's events' marks, not the object's
	return evs, true, err
}
