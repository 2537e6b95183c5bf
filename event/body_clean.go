package event

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// cleanEnd is AppendBody's fast path for a nested value. It reads the
// value that starts at b[i] and returns where it ends when the body would
// hold it byte for byte as received: compact JSON (no whitespace between
// tokens), every key already SQL-safe, written without escapes and not
// repeated in its object, strings without raw control characters and with
// valid escapes, numbers as JSON writes them, nesting within MaxDepth. It
// returns ok false at the first byte where that does not hold (at): the
// writer (bodyWriter.value) then takes the value token by token and decides
// what it becomes or refuses it, as before.
//
// Drains build a body for every event they send, and events from real
// shippers are nearly always clean, so checking a value in one pass and
// copying it is ~3× cheaper than writing it token by token (issue 32).
//
// keys is scratch: the spans of the keys of the open objects.
func cleanEnd(b []byte, i, depth int, keys *[]keySpan) (end int, ok bool) {
	if depth >= MaxDepth || i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		level := len(*keys)
		end, ok = cleanObjectEnd(b, i+1, depth, keys)
		*keys = (*keys)[:level]
		return end, ok
	case c == '[':
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			if i, ok = cleanEnd(b, i, depth+1, keys); !ok || i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '"':
		for i = plainRun(b, i+1); i < len(b); i = plainRun(b, i) {
			switch c := b[i]; {
			case c == '"':
				return i + 1, true
			case c < 0x20:
				return i, false // the writer escapes it
			default: // a backslash
				if i+1 >= len(b) {
					return i, false
				}
				switch b[i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i += 2
				case 'u':
					if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
						return i, false
					}
					i += 6
				default:
					return i, false
				}
			}
		}
		return i, false
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		// The token Scanner.Number reads, kept as it is when it is a number
		// as JSON writes one.
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		if !validNumber(b[i:j]) {
			return i, false
		}
		return j, true
	}
	return i, false
}

// keySpan is a key's bytes in the event.
type keySpan struct{ start, end int32 }

// keyBytes marks the bytes of SQL-safe keys: a table, as the fast path
// looks up every byte of every key.
var keyBytes = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return t
}()

func literalEnd(b []byte, i int, word string) (int, bool) {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word), true
	}
	return i, false
}

// cleanObjectEnd is cleanEnd past an object's '{'.
func cleanObjectEnd(b []byte, i, depth int, keys *[]keySpan) (end int, ok bool) {
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	level := len(*keys)
	// seen has bit h%64 set for each key of this object so far whose hash
	// is h: a key whose bit is clear is not repeated, and most keys are
	// told so without comparing them to the others.
	var seen uint64
	for {
		// A key: '"', SQL-safe bytes not starting with a digit, '"', ':'.
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		start := i + 1
		j := start
		h := uint(0)
		for j < len(b) && keyBytes[b[j]] {
			h = h*31 + uint(b[j])
			j++
		}
		if j == start || b[start] >= '0' && b[start] <= '9' || j+1 >= len(b) || b[j] != '"' || b[j+1] != ':' {
			return start, false // empty, unsafe, escaped or starting with a digit; or no ':'
		}
		if bit := uint64(1) << (h % 64); seen&bit == 0 {
			seen |= bit
		} else {
			key := b[start:j]
			for _, k := range (*keys)[level:] {
				if int(k.end-k.start) == len(key) && bytes.Equal(b[k.start:k.end], key) {
					return start, false // repeated: the writer keeps the first
				}
			}
		}
		*keys = append(*keys, keySpan{start: int32(start), end: int32(j)})
		if i, ok = cleanEnd(b, j+2, depth+1, keys); !ok || i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// plainRun returns the index of the first byte at or after i that ends a
// string's plain run: a quote, a backslash or a control character; len(b)
// when there is none. Strings are most of an event's bytes, so it tests
// eight bytes at a time (the bit tricks of "Bit Twiddling Hacks": a byte
// below 0x20, a byte equal to '"' or '\\'), which are exact when no byte
// of the word is special, and exact for the lowest one that is.
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if m := hasLess(x, 0x20) | hasByte(x, '"') | hasByte(x, '\\'); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}
