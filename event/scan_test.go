package event

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// special finds the first quote or backslash at or after i, as a byte loop
// does, whatever the length (word-at-a-time, tail, then the SIMD search)
// and whatever bytes surround it: the ones next to '"' (0x22) and '\\'
// (0x5c), and high bytes, are where a word-at-a-time search would go wrong.
func TestSpecialFindsTheFirstQuoteOrBackslash(t *testing.T) {
	alphabet := []byte{'a', '"', '\\', 0x21, 0x23, 0x5b, 0x5d, 0x00, 0x80, 0xa2, 0xdc, 0xff, 0x02, 0x01}
	naive := func(b []byte, i int) int {
		for ; i < len(b); i++ {
			if b[i] == '"' || b[i] == '\\' {
				return i
			}
		}
		return len(b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		b := make([]byte, rng.IntN(120))
		for k := range b {
			b[k] = 'x'
			if rng.IntN(4) == 0 || n%2 == 0 && rng.IntN(40) == 0 {
				b[k] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		if n%3 == 0 { // long runs with nothing to find
			for k := range b {
				if b[k] == '"' || b[k] == '\\' {
					b[k] = 0x23
				}
			}
		}
		i := 0
		if len(b) > 0 {
			i = rng.IntN(len(b) + 1)
		}
		s := Scanner{b: b}
		require.Equal(t, naive(b, i), s.special(i), "%q from %d", b, i)
	}
}

// Str reads every string encoding/json reads, to the same bytes.
func FuzzStrAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"\u00e9\n\t\\\/"`, `"` + string(bytes.Repeat([]byte("x"), 70)) + `\r"`,
		`"\ud83d\ude00 and more than thirty-two bytes before the end"`, `""`, `"\"`,
		// Halves of surrogate pairs that are not pairs: each is U+FFFD and
		// what follows it is read on its own (the A was once lost).
		`"a\ud800\u0041b"`, `"\ud800\ud800"`, `"\udc00\ud83d\ude00"`, `"\ud83d"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		var want string
		if json.Unmarshal(lit, &want) != nil || !utf8.Valid(lit) {
			return // Str accepts more (raw control characters), which is not checked here
		}
		s := NewScanner(lit, nil)
		got, err := s.Str()
		require.NoError(t, err, "%q", lit)
		require.Equal(t, want, string(got), "%q", lit)
		require.Zero(t, s.Peek(), "%q: the whole literal is read", lit)
		// RawStr reads the same string as written, and AppendUnescaped
		// decodes that to what Str gave.
		s = NewScanner(lit, nil)
		raw, escaped, err := s.RawStr()
		require.NoError(t, err, "%q", lit)
		quoted := bytes.TrimSpace(lit)
		require.Equal(t, string(quoted[1:len(quoted)-1]), string(raw), "%q", lit)
		require.Equal(t, bytes.IndexByte(raw, '\\') >= 0, escaped, "%q", lit)
		require.Equal(t, want, string(AppendUnescaped(nil, raw)), "%q", lit)
	})
}

// A string with no closing quote is refused as such, whatever escapes it
// holds (as AppendBody words it), the scanner left at the end.
func TestStrWithoutItsEnd(t *testing.T) {
	for _, in := range []string{`"\x`, `"a\`, `"\u12`, `"abc`, `"` + string(bytes.Repeat([]byte(`x\n`), 40))} {
		s := NewScanner([]byte(in), nil)
		_, err := s.Str()
		require.EqualError(t, err, "invalid JSON: expected the end of a string, found end of input", in)
		require.Equal(t, len(in), s.i, in)
	}
}
