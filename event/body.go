package event

import (
	"bytes"
	"strconv"
	"sync"
	"unsafe"

	"logq/types"
)

// AppendBody appends one event as drains send it and the tail shows it, a
// JSON object: "id", "timestamp" and "event_message" first, decided as
// Shred decides them (its own id, else one generated from o; its own
// timestamp, else the arrival, as integer µs; its event_message, else its
// message, as a string, absent when neither is there or it is null), then
// its other members in the order received, keys made SQL-safe at every
// level (keys.go), a key repeated after that keeping its first value, as
// Shred keeps it. Values are copied as received, but a string holding raw
// control characters is escaped and a number that is not valid JSON (which
// Shred keeps as text in a STRING field) is written as a string, so the body
// is always valid JSON.
//
// It refuses what Shred refuses whatever the source's fields: a text that
// is not a JSON object, malformed JSON, nesting past MaxDepth. (Shred also
// refuses a malformed number in a field that is already FLOAT64; the body
// keeps it as a string.) ts is the event's timestamp (µs) and msg its
// event_message text ("" when it has none).
func AppendBody(dst, ev []byte, o Origin) (out []byte, ts int64, msg string, err error) {
	return appendBody(dst, ev, o, -1)
}

// appendBody is AppendBody; values that start at or before noCheck are
// written token by token without the fast check (math.MaxInt: none is
// checked, as the tests compare).
func appendBody(dst, ev []byte, o Origin, noCheck int) (out []byte, ts int64, msg string, err error) {
	b := bodyPool.Get().(*bodyWriter)
	defer bodyPool.Put(b)
	b.sc = NewScanner(ev, b.sc.buf)
	b.dirty = noCheck
	sc := &b.sc
	if sc.Peek() != '{' {
		return dst, 0, "", errNotObject
	}
	sc.Advance()
	// One pass: the members other than the fixed fields are written to
	// rest as they are read; the fixed fields are noted (the first of each
	// wins) and written first once the object is read whole.
	var (
		haveTS, haveID, haveMsg, haveMessage bool
		id, msgRaw, messageRaw               []byte
	)
	b.seen, b.names, b.rest = b.seen[:0], b.names[:0], b.rest[:0]
	for first := true; ; first = false {
		rawKey, done, err := sc.NextKey(first)
		if err != nil {
			return dst, 0, "", err
		}
		if done {
			break
		}
		name := sanitizedName(rawKey) // used before the scanner reads on (it may alias its scratch)
		switch name {
		case "timestamp", "id", "event_message", "message":
			which := name[0]
			if name == "event_message" {
				which = 'e'
			}
			raw, err := sc.Skip(1) // raw aliases the event, never the scratch
			if err != nil {
				return dst, 0, "", err
			}
			switch which {
			case 't':
				if !haveTS {
					haveTS = true
					if ts, haveTS = ParseTime(raw); !haveTS {
						ts, haveTS = o.Arrival, true
					}
				}
			case 'i':
				if !haveID {
					id, haveID = raw, true
				}
			case 'e':
				if !haveMsg {
					msgRaw, haveMsg = raw, true
				}
			case 'm':
				if !haveMessage {
					messageRaw, haveMessage = raw, true
				}
			}
			continue
		}
		if b.repeated(0, name) {
			if _, err := sc.Skip(1); err != nil {
				return dst, 0, "", err
			}
			continue
		}
		b.rest = appendKey(append(b.rest, ','), name)
		if b.rest, err = b.value(b.rest, 1); err != nil {
			return dst, 0, "", err
		}
	}
	if sc.Peek() != 0 {
		return dst, 0, "", sc.Fail("the end of the event")
	}
	if !haveTS {
		ts = o.Arrival
	}
	if err := o.checkAge(ts); err != nil {
		return dst, 0, "", err
	}
	messageIsMember := haveMessage && haveMsg // a message beside an event_message is a field
	if !haveMsg && haveMessage {
		msgRaw, haveMsg = messageRaw, true
	}
	dst = append(dst, `{"id":`...)
	if text := b.scalarText(id); len(text) > 0 {
		dst = types.AppendJSONString(dst, unsafe.String(unsafe.SliceData(text), len(text)))
	} else {
		dst = append(dst, '"')
		dst = AppendUUID(dst, o.Seed, o.Index)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, ts, 10)
	if haveMsg && !IsNull(msgRaw) {
		msg = string(b.scalarText(msgRaw))
		dst = append(dst, `,"event_message":`...)
		dst = types.AppendJSONString(dst, msg)
	}
	dst = append(dst, b.rest...)
	if messageIsMember {
		b.sc = NewScanner(messageRaw, b.sc.buf)
		b.dirty = noCheck
		dst = appendKey(append(dst, ','), "message")
		if dst, err = b.value(dst, 1); err != nil {
			return dst, 0, "", err
		}
	}
	return append(dst, '}'), ts, msg, nil
}

var errNotObject = errorString("an event must be a JSON object")

type errorString string

func (e errorString) Error() string { return string(e) }

// sanitizedName is a key made SQL-safe, without a copy when it already is.
func sanitizedName(key []byte) string {
	if SafeKey(key) {
		return unsafe.String(unsafe.SliceData(key), len(key)) // read before the scanner moves on
	}
	return SanitizeKey(key)
}

// scalarText is ScalarText's text, unescaped into the writer's scratch
// (valid until the next call) rather than a string of its own.
func (b *bodyWriter) scalarText(raw []byte) []byte {
	if len(raw) > 0 && raw[0] == '"' {
		sc := Scanner{b: raw, buf: b.text[:0]}
		s, err := sc.Str()
		b.text = sc.buf
		if err == nil {
			return s
		}
	}
	return raw
}

// bodyWriter copies members, keeping the keys seen in each open object.
type bodyWriter struct {
	sc    Scanner
	seen  []seenKey // the keys written in each enclosing object, innermost last
	names []byte
	rest  []byte // the top-level members but the fixed fields
	keys  []keySpan
	text  []byte // scratch for scalarText
	// dirty is where the last fast check of a value (cleanEnd) failed: a
	// value that starts before it is not checked again, so that no byte is
	// checked twice however deep the value that failed.
	dirty int
}

var bodyPool = sync.Pool{New: func() any { return &bodyWriter{} }}

// repeated reports whether name was written already in the object whose
// keys start at seen[level:], and records it when not.
func (b *bodyWriter) repeated(level int, name string) bool {
	h := keyHash(name)
	for _, k := range b.seen[level:] {
		if k.hash == h && string(b.names[k.start:k.end]) == name {
			return true
		}
	}
	start := len(b.names)
	b.names = append(b.names, name...) // a copy: name may alias the scanner's scratch
	b.seen = append(b.seen, seenKey{start: int32(start), end: int32(len(b.names)), hash: h})
	return false
}

// seenKey is a key written in an open object: its span in names, and a
// hash that tells most other keys apart without comparing them.
type seenKey struct {
	start, end int32
	hash       uint32
}

// keyHash is FNV-1a of a key.
func keyHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// appendKey writes a SQL-safe key and its colon (it needs no escaping).
func appendKey(dst []byte, name string) []byte {
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// value copies the value at the scanner.
func (b *bodyWriter) value(dst []byte, depth int) ([]byte, error) {
	sc := &b.sc
	if depth > MaxDepth {
		return dst, errorString("invalid JSON: nested too deeply")
	}
	c := sc.Peek()
	if (c == '{' || c == '[') && sc.i > b.dirty {
		end, ok := cleanEnd(sc.b, sc.i, depth, &b.keys)
		if ok {
			dst = append(dst, sc.b[sc.i:end]...)
			sc.i = end
			return dst, nil
		}
		b.dirty = end
	}
	switch {
	case c == '{':
		sc.Advance()
		dst = append(dst, '{')
		level := len(b.seen)
		n := 0
		for first := true; ; first = false {
			rawKey, done, err := sc.NextKey(first)
			if err != nil {
				return dst, err
			}
			if done {
				break
			}
			if depth == MaxDepth {
				return dst, errorString("invalid JSON: nested too deeply")
			}
			name := sanitizedName(rawKey)
			if b.repeated(level, name) {
				if _, err := sc.Skip(depth + 1); err != nil {
					return dst, err
				}
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = appendKey(dst, name)
			if dst, err = b.value(dst, depth+1); err != nil {
				return dst, err
			}
		}
		if level < len(b.seen) {
			b.names = b.names[:b.seen[level].start]
		}
		b.seen = b.seen[:level]
		return append(dst, '}'), nil
	case c == '[':
		sc.Advance()
		dst = append(dst, '[')
		if sc.Peek() == ']' {
			sc.Advance()
			return append(dst, ']'), nil
		}
		for n := 0; ; n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = b.value(dst, depth+1); err != nil {
				return dst, err
			}
			switch sc.Peek() {
			case ',':
				sc.Advance()
			case ']':
				sc.Advance()
				return append(dst, ']'), nil
			default:
				return dst, sc.Fail("',' or ']'")
			}
		}
	case c == '"':
		raw, clean, err := sc.rawString()
		if err != nil {
			return dst, err
		}
		if clean {
			return append(dst, raw...), nil
		}
		return types.AppendJSONString(dst, ScalarText(raw)), nil
	case c == 't' || c == 'f' || c == 'n':
		raw, err := sc.Skip(depth)
		return append(dst, raw...), err
	default:
		tok, _, err := sc.Number()
		if err != nil {
			return dst, err
		}
		if validNumber(tok) {
			return append(dst, tok...), nil
		}
		return types.AppendJSONString(dst, string(tok)), nil // kept as text, as Shred keeps it
	}
}

// rawString consumes a string at the scanner and returns its token as
// written, without unescaping it: its escapes are checked as Str checks
// them (an event Str refuses is refused), and clean reports that it holds
// no raw control character (which JSON forbids and the scanner accepts).
func (s *Scanner) rawString() (raw []byte, clean bool, err error) {
	start := s.i
	i := s.i + 1
	for {
		q := bytes.IndexByte(s.b[i:], '"')
		if q < 0 {
			s.i = len(s.b)
			return nil, false, s.Fail("the end of a string")
		}
		end := i + q
		// Escapes before the quote: checked, and the quote is escaped when
		// an odd run of backslashes ends right before it.
		escaped := false
		for j := i; j < end; {
			k := bytes.IndexByte(s.b[j:end], '\\')
			if k < 0 {
				break
			}
			j += k
			if j+1 == end { // a backslash right before the quote escapes it
				escaped = true
				break
			}
			switch s.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(s.b) || !isHex4(s.b[j+2:j+6]) {
					s.i = j
					return nil, false, s.Fail("four hex digits")
				}
				j += 6
			default:
				s.i = j + 2
				return nil, false, s.Fail("a valid escape")
			}
			if j > end { // a \u escape ran past the quote: the quote is inside it
				escaped = true
				end = j
				break
			}
		}
		if escaped {
			i = end + 1
			continue
		}
		s.i = end + 1
		raw = s.b[start:s.i]
		clean = true
		for _, c := range raw {
			if c < 0x20 {
				clean = false
				break
			}
		}
		return raw, clean, nil
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// validNumber reports whether tok is a number as JSON writes one.
func validNumber(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(tok) && tok[i] >= '0' && tok[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(tok) && tok[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(tok) && tok[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(tok)
}
