package types

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Escapes written by hand from the rules on AppendJSONString.
func TestAppendJSONString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, `""`},
		{`plain text`, `"plain text"`},
		{`say "hi" \ bye`, `"say \"hi\" \\ bye"`},
		{"a\nb\rc\td\be\ff", `"a\nb\rc\td\be\ff"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f\""},
		{"é€😀", "\"é€😀\""},
		{"line\u2028para\u2029end", `"line\u2028para\u2029end"`},
		{"bad \xff byte", "\"bad \uFFFD byte\""},
		{"cut \xe2\x82", "\"cut \uFFFD\uFFFD\""},
		{"\uFFFD kept", "\"\uFFFD kept\""},
		{`"`, `"\""`},
		{"tail\n", `"tail\n"`},
	} {
		require.Equal(t, c.want, string(AppendJSONString([]byte("x"), c.in))[1:], "%q", c.in)
	}
}

// Any text, invalid UTF-8 included, reads back as itself with U+FFFD for
// each invalid byte.
func TestAppendJSONStringReadsBack(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" back \\ nl \n cr \r tab \t", "\x00\x01\x1f\x7f", "é ✓ 😀", "bad \xff byte", "<&>"} {
		var got string
		require.NoError(t, json.Unmarshal(AppendJSONString(nil, s), &got), s)
		require.Equal(t, strings.ToValidUTF8(s, "\uFFFD"), got)
	}
}

// referenceJSONString is the rule a rune at a time, the way the encoder
// was first written: the fast path must give the same bytes.
func referenceJSONString(s string) string {
	const hex = "0123456789abcdef"
	var b []byte
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b = append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, '"'))
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "abc", "a\"b\\c\n", "\xff\xfe", "\u2028x\u2029", "é\x00😀\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := string(AppendJSONString(nil, s))
		if want := referenceJSONString(s); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
		if utf8.ValidString(s) {
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil || back != s {
				t.Fatalf("%q: %s reads back as %q (%v)", s, got, back, err)
			}
		}
	})
}

// A log line's worth of text: a URL, a user agent, quotes and one newline.
var benchLine = strings.Repeat(`GET /rest/v1/items?select=*&id=eq.42 HTTP/1.1 "Mozilla/5.0 (X11; Linux x86_64)" `, 8) + "\n"

func BenchmarkAppendJSONString(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	buf := make([]byte, 0, 4*len(benchLine))
	for b.Loop() {
		buf = AppendJSONString(buf[:0], benchLine)
	}
}

func BenchmarkAppendJSONStringReference(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	for b.Loop() {
		_ = referenceJSONString(benchLine)
	}
}
