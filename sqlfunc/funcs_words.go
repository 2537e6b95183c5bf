package sqlfunc

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"logq/expr"
	"logq/types"
)

// INITCAP and SOUNDEX, as BigQuery's reference implementation computes
// them.
func registerWordFuncs() {
	// INITCAP(s[, delimiters]): the first character of each word upper
	// case, the others lower case; a word starts after a delimiter. The
	// default delimiters are white space and the characters below; given
	// delimiters replace them all (white space included).
	expr.Register("initcap", def(1, 2, sig(types.KindString, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		isDelim := func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(initcapDelimiters, r) }
		if len(a) == 2 {
			isDelim = func(r rune) bool { return strings.ContainsRune(a[1].S, r) }
		}
		if !utf8.ValidString(a[0].S) || len(a) == 2 && !utf8.ValidString(a[1].S) {
			return types.Value{}, expr.EvalErr("INITCAP: invalid UTF-8")
		}
		var b strings.Builder
		start := true
		for _, r := range a[0].S {
			switch {
			case isDelim(r):
				start = true
			case start:
				r, start = unicode.ToUpper(r), false
			default:
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		}
		return types.StringValue(b.String()), nil
	}, false))
	// SOUNDEX(s): the first ASCII letter as written, then the codes of the
	// following consonants, a code written only when it differs from the
	// last one written (vowels, H, W and Y write none and separate nothing;
	// other characters are skipped), padded with 0 to four characters; ""
	// when s has no ASCII letter.
	expr.Register("soundex", def(1, 1, sig(types.KindString, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		out := []byte{}
		var prev byte
		for i := 0; i < len(a[0].S) && len(out) < 4; i++ {
			ch := a[0].S[i]
			code := soundexCode(ch)
			switch {
			case code == 0:
				continue // not an ASCII letter
			case len(out) == 0:
				out, prev = append(out, ch), code
			case code != '0' && code != prev:
				out, prev = append(out, code), code
			}
		}
		if len(out) == 0 {
			return types.StringValue(""), nil
		}
		for len(out) < 4 {
			out = append(out, '0')
		}
		return types.StringValue(string(out)), nil
	}, false))
}

// initcapDelimiters are INITCAP's default word separators besides white
// space.
const initcapDelimiters = "[](){}/|\\<>!?@\"#$&~_,.:;*%+-^"

// soundexCode is an ASCII letter's Soundex digit ('0' for vowels, H, W
// and Y), 0 for any other byte.
func soundexCode(ch byte) byte {
	switch ch | 0x20 {
	case 'a', 'e', 'i', 'o', 'u', 'y', 'h', 'w':
		return '0'
	case 'b', 'f', 'p', 'v':
		return '1'
	case 'c', 'g', 'j', 'k', 'q', 's', 'x', 'z':
		return '2'
	case 'd', 't':
		return '3'
	case 'l':
		return '4'
	case 'm', 'n':
		return '5'
	case 'r':
		return '6'
	}
	return 0
}
