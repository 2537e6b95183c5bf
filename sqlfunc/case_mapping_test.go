package sqlfunc

import (
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// LOWER and UPPER take strings' per-character mapping for a string without
// the characters SpecialCasing lists; for every other character, alone and
// inside a word, that must give what the full mapping gives.
func TestCaseFastPathAgreesWithFullMapping(t *testing.T) {
	lo, up := cases.Lower(language.Und), cases.Upper(language.Und)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF || !unicode.IsPrint(r) && !unicode.IsLetter(r) {
			continue
		}
		for _, s := range []string{string(r), "a" + string(r) + "b", "A" + string(r)} {
			if got, want := fullLower(s), lo.String(s); got != want {
				t.Fatalf("LOWER(%q) (%U): %q, want %q", s, r, got, want)
			}
			if got, want := fullUpper(s), up.String(s); got != want {
				t.Fatalf("UPPER(%q) (%U): %q, want %q", s, r, got, want)
			}
		}
	}
	// The characters that need the full mapping, by hand.
	require.Equal(t, "SS", fullUpper("ß"))
	require.Equal(t, "STRASSE", fullUpper("Straße"))
	require.Equal(t, "FI", fullUpper("ﬁ"))
	require.Equal(t, "σας", fullLower("ΣΑΣ"))
	require.Equal(t, "i\u0307", fullLower("İ"))
}
