package lql

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
)

// Stepping over JSON fast. Match reads few values of an event and steps
// over the rest; event.Scanner checks every byte as it goes, which costs
// more than the whole match when a rule reads one key. These functions
// find where a value ends (strings eight bytes at a time, then by
// IndexByte for their closing quote) without checking what they step over:
// a drain's events are valid JSON already, and the strings a filter does
// read are read by event.Scanner.

var jsonSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func skipSpace(b []byte, i int) int {
	for i < len(b) && jsonSpace[b[i]] {
		i++
	}
	return i
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// quoteOrBackslash marks (with its high bit) the first byte of x, read
// little-endian, that is '"' or '\\' (bytes above it may be marked wrongly).
func quoteOrBackslash(x uint64) uint64 {
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return ((q - ones) &^ q & highs) | ((bs - ones) &^ bs & highs)
}

// skipString returns the end of the string that starts at b[i] == '"'.
func skipString(b []byte, i int) (int, bool) {
	i++
	start := i
	// Most keys and many values are short: eight bytes at a time beats a
	// call to IndexByte for them.
	for lim := min(len(b), i+64); i < lim; {
		if i+8 <= len(b) {
			x := quoteOrBackslash(binary.LittleEndian.Uint64(b[i:]))
			if x == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(x) / 8
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			i += 2 // and the escaped byte
		default:
			i++
		}
	}
	for i < len(b) {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			break
		}
		j := i + q
		n := 0 // backslashes before the quote: an odd number escapes it
		for k := j - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		i = j + 1
	}
	return 0, false
}

// skipValue returns the end of the value that starts at b[i], which is not
// white space.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	case '}', ']', ',', ':':
		return 0, false
	}
	start := i
	for i < len(b) && !jsonSpace[b[i]] && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i, i > start
}

// objectIter walks the members of an object.
type objectIter struct {
	b     []byte
	i     int
	first bool
}

func newObjectIter(b []byte) (objectIter, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return objectIter{}, false
	}
	return objectIter{b: b, i: i + 1, first: true}, true
}

// next returns where the next member's key and value begin, stepping over
// the value of the member it returned before. ok is false at the end of
// the object or at malformed text.
func (it *objectIter) next() (keyAt, valAt int, ok bool) {
	b := it.b
	i := it.i
	if !it.first {
		if i, ok = skipValue(b, i); !ok {
			return 0, 0, false
		}
	}
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return 0, 0, false
	}
	if !it.first {
		if i >= len(b) || b[i] != ',' {
			return 0, 0, false
		}
		i = skipSpace(b, i+1)
	}
	it.first = false
	if i >= len(b) || b[i] != '"' {
		return 0, 0, false
	}
	end, ok := skipString(b, i)
	if !ok {
		return 0, 0, false
	}
	keyAt = i
	if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
		return 0, 0, false
	}
	it.i = skipSpace(b, i+1)
	return keyAt, it.i, true
}

// topMember returns where the value of the first member of the object ev
// whose key is written pat (a JSON string with its quotes, needing no
// escapes) begins, or -1. It searches for the key's text, which is quick,
// and then checks that what it found is a key of ev itself and not of an
// object inside it: by reading from there to the end of ev when that is
// the shorter way, else by stepping over ev's members from the start. rare
// is the offset in pat of its rarest byte (see rareByte).
func topMember(ev, pat []byte, rare int) int {
	var (
		it        objectIter
		started   bool
		keyAt     int // the member it last returned
		valAt     int
		haveKey   bool
		triedTail bool
	)
	for from := 0; ; {
		p := indexRare(ev, from, pat, rare)
		if p < 0 {
			return -1
		}
		from = p + 1
		n := 0 // an odd run of backslashes before: the text is inside a string
		for k := p - 1; k >= 0 && ev[k] == '\\'; k-- {
			n++
		}
		if n%2 == 1 {
			continue
		}
		colon := skipSpace(ev, p+len(pat))
		if colon >= len(ev) || ev[colon] != ':' {
			continue // a string value
		}
		if !triedTail && p > len(ev)/2 {
			triedTail = true
			vstart := skipSpace(ev, colon+1)
			if vend, ok := skipValue(ev, vstart); ok && restOfObject(ev, vend) {
				return vstart
			}
			continue
		}
		if !started {
			if it, started = newObjectIter(ev); !started {
				return -1
			}
		}
		for !haveKey || keyAt < p {
			var ok bool
			if keyAt, valAt, ok = it.next(); !ok {
				return -1 // no member of ev begins at or after p
			}
			haveKey = true
		}
		if keyAt == p {
			return valAt
		}
	}
}

// restOfObject reports that ev, from i, holds only further members of an
// object and its closing brace, at the end of ev: that the member before i
// was at ev's top level.
func restOfObject(ev []byte, i int) bool {
	for {
		i = skipSpace(ev, i)
		if i >= len(ev) {
			return false
		}
		switch ev[i] {
		case '}':
			return skipSpace(ev, i+1) == len(ev)
		case ',':
		default:
			return false
		}
		i = skipSpace(ev, i+1)
		if i >= len(ev) || ev[i] != '"' {
			return false
		}
		end, ok := skipString(ev, i)
		if !ok {
			return false
		}
		i = skipSpace(ev, end)
		if i >= len(ev) || ev[i] != ':' {
			return false
		}
		if i, ok = skipValue(ev, skipSpace(ev, i+1)); !ok {
			return false
		}
	}
}

// indexRare returns the first index at or after from where pat occurs in
// b, or -1. It looks for pat's rarest byte, at offset rare, with
// IndexByte: bytes.Index looks for the first, here a quote, which JSON is
// full of.
func indexRare(b []byte, from int, pat []byte, rare int) int {
	c := pat[rare]
	for i := from + rare; i < len(b); i++ {
		k := bytes.IndexByte(b[i:], c)
		if k < 0 {
			return -1
		}
		i += k
		start := i - rare
		if start+len(pat) > len(b) {
			return -1
		}
		if start >= from && string(b[start:start+len(pat)]) == string(pat) {
			return start
		}
	}
	return -1
}

// byteRank orders lowercase letters from the most to the least common in
// English, which keys and log text mostly are.
const byteRank = "etaoinsrhldcumfpgwybvkxjqz"

// rareByte returns the offset of pat's rarest byte, by a guess: upper case
// letters rarer than lower case ones, lower case ones by byteRank, digits,
// "_" and quotes the most common.
func rareByte(pat []byte) int {
	best, bestRank := 0, -1
	for i, c := range pat {
		r := 0
		switch {
		case 'A' <= c && c <= 'Z':
			r = 100
		case 'a' <= c && c <= 'z':
			r = 10 + strings.IndexByte(byteRank, c)
		case c == '"':
			r = -1
		}
		if r > bestRank {
			best, bestRank = i, r
		}
	}
	return best
}
