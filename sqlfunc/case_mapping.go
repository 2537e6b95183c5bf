package sqlfunc

import (
	"strings"
	"sync"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// LOWER and UPPER of a STRING map case as ZetaSQL (ICU) does, by Unicode's
// full mappings: UPPER('ß') is 'SS' and a final capital sigma lowers to 'ς',
// where Go's strings.ToUpper maps each character to one. Only a few
// characters map differently (SpecialCasing.txt); a string without them,
// the common case, takes strings' faster path, which gives the same text.

// A cases.Caser is not documented as safe to share, so each call borrows one.
var (
	lowerCasers = sync.Pool{New: func() any { c := cases.Lower(language.Und); return &c }}
	upperCasers = sync.Pool{New: func() any { c := cases.Upper(language.Und); return &c }}
)

func fullLower(s string) string {
	if !strings.ContainsFunc(s, lowersSpecially) {
		return strings.ToLower(s)
	}
	return mapCase(&lowerCasers, s)
}

func fullUpper(s string) string {
	if !strings.ContainsFunc(s, uppersSpecially) {
		return strings.ToUpper(s)
	}
	return mapCase(&upperCasers, s)
}

// lowersSpecially: İ (to i and a combining dot) and Σ (ς at a word's end).
func lowersSpecially(r rune) bool { return r == 0x130 || r == 0x3A3 }

// uppersSpecially: the characters whose uppercase is more than one
// character (ß, ŉ, ǰ, ΐ, ΰ, և, ẖ…ẚ, the Greek extended block, the Latin and
// Armenian ligatures); the Greek block is taken whole, some of it needlessly.
func uppersSpecially(r rune) bool {
	switch {
	case r < 0xDF:
		return false
	case r == 0xDF, r == 0x149, r == 0x1F0, r == 0x390, r == 0x3B0, r == 0x587:
		return true
	}
	return 0x1E96 <= r && r <= 0x1E9A || 0x1F50 <= r && r <= 0x1FFF || 0xFB00 <= r && r <= 0xFB17
}

func mapCase(pool *sync.Pool, s string) string {
	c := pool.Get().(*cases.Caser)
	out := c.String(s) // String resets the caser first
	pool.Put(c)
	return out
}
