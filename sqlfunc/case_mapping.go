package sqlfunc

import (
	"strings"
	"sync"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// LOWER and UPPER of a STRING map case as ZetaSQL (ICU) does, by Unicode's
// full mappings: UPPER('ß') is 'SS' and a final capital sigma lowers to 'ς',
// where Go's strings.ToUpper maps each character to one. An ASCII string,
// the common case, takes strings' fast path, which gives the same text.

// A cases.Caser keeps state between calls and is not safe to share, so
// each call borrows one.
var (
	lowerCasers = sync.Pool{New: func() any { c := cases.Lower(language.Und); return &c }}
	upperCasers = sync.Pool{New: func() any { c := cases.Upper(language.Und); return &c }}
)

func fullLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return mapCase(&lowerCasers, s)
}

func fullUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return mapCase(&upperCasers, s)
}

func mapCase(pool *sync.Pool, s string) string {
	c := pool.Get().(*cases.Caser)
	out := c.String(s) // String resets the caser first
	pool.Put(c)
	return out
}
