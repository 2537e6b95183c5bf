package event

import (
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
	sc := NewScanner(ev, nil)
	if sc.Peek() != '{' {
		return dst, 0, "", errNotObject
	}
	// First pass: the fixed fields, and the event's validity.
	sc.Advance()
	var (
		haveTS         bool
		id, msgRaw     []byte
		haveID         bool
		haveMsg        bool
		messageRaw     []byte
		haveMessageKey bool
	)
	for first := true; ; first = false {
		rawKey, done, err := sc.NextKey(first)
		if err != nil {
			return dst, 0, "", err
		}
		if done {
			break
		}
		name := sanitizedName(rawKey) // compared before Skip reuses the scratch a key with escapes is in
		fixed := name == "timestamp" || name == "id" || name == "event_message" || name == "message"
		if fixed {
			name = string([]byte(name))
		}
		raw, err := sc.Skip(1)
		if err != nil {
			return dst, 0, "", err
		}
		if !fixed {
			continue
		}
		switch name {
		case "timestamp":
			if !haveTS {
				haveTS = true
				if ts, haveTS = ParseTime(raw); !haveTS {
					ts, haveTS = o.Arrival, true
				}
			}
		case "id":
			if !haveID {
				id, haveID = raw, true
			}
		case "event_message":
			if !haveMsg {
				msgRaw, haveMsg = raw, true
			}
		case "message":
			if !haveMessageKey {
				messageRaw, haveMessageKey = raw, true
			}
		}
	}
	if sc.Peek() != 0 {
		return dst, 0, "", sc.Fail("the end of the event")
	}
	if !haveTS {
		ts = o.Arrival
	}
	messageIsMember := haveMessageKey && haveMsg // a message beside an event_message is a field
	if !haveMsg && haveMessageKey {
		msgRaw, haveMsg = messageRaw, true
	}

	start := len(dst)
	dst = append(dst, `{"id":`...)
	if text := ScalarText(id); len(text) > 0 {
		dst = types.AppendJSONString(dst, text)
	} else {
		dst = append(dst, '"')
		dst = AppendUUID(dst, o.Seed, o.Index)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"timestamp":`...)
	dst = strconv.AppendInt(dst, ts, 10)
	if haveMsg && !IsNull(msgRaw) {
		msg = ScalarText(msgRaw)
		dst = append(dst, `,"event_message":`...)
		dst = types.AppendJSONString(dst, msg)
	}
	// Second pass: the other members.
	b := bodyPool.Get().(*bodyWriter)
	defer bodyPool.Put(b)
	b.sc = NewScanner(ev, b.sc.buf)
	b.sc.Advance()
	b.seen, b.names = b.seen[:0], b.names[:0]
	level := len(b.seen)
	for first := true; ; first = false {
		rawKey, done, err := b.sc.NextKey(first)
		if err != nil || done {
			break // checked in the first pass
		}
		name := sanitizedName(rawKey)
		switch name {
		case "timestamp", "id", "event_message":
			_, _ = b.sc.Skip(1)
			continue
		case "message":
			if !messageIsMember {
				_, _ = b.sc.Skip(1)
				continue
			}
		}
		if b.repeated(level, name) {
			_, _ = b.sc.Skip(1)
			continue
		}
		dst = appendKey(append(dst, ','), name)
		if dst, err = b.value(dst, 1); err != nil {
			return dst[:start], 0, "", err
		}
	}
	b.seen = b.seen[:level]
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

// bodyWriter copies members, keeping the keys seen in each open object.
type bodyWriter struct {
	sc    Scanner
	seen  [][2]int // the keys written in each enclosing object, innermost last: spans of names
	names []byte
}

var bodyPool = sync.Pool{New: func() any { return &bodyWriter{} }}

// repeated reports whether name was written already in the object whose
// keys start at seen[level:], and records it when not.
func (b *bodyWriter) repeated(level int, name string) bool {
	for _, k := range b.seen[level:] {
		if string(b.names[k[0]:k[1]]) == name {
			return true
		}
	}
	start := len(b.names)
	b.names = append(b.names, name...) // a copy: name may alias the scanner's scratch
	b.seen = append(b.seen, [2]int{start, len(b.names)})
	return false
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
	switch c := sc.Peek(); {
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
			b.names = b.names[:b.seen[level][0]]
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
		raw, err := sc.Skip(depth)
		if err != nil {
			return dst, err
		}
		if cleanString(raw) {
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

// cleanString reports whether a raw JSON string token holds no raw control
// character (JSON forbids them; the scanner accepts them).
func cleanString(raw []byte) bool {
	for _, c := range raw {
		if c < 0x20 {
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
