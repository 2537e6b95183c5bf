package sqlfunc

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLikeMatcher(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true}, {"", "a", false}, {"abc", "abc", true}, {"abc", "abcd", false},
		{"%", "", true}, {"%", "anything", true}, {"a%", "abc", true}, {"a%", "ba", false},
		{"%c", "abc", true}, {"%c", "cb", false}, {"%send-email%", "POST /send-email 200", true},
		{"%send-email%", "send-mail", false}, {"a%b%c", "aXbYc", true}, {"a%b%c", "acb", false},
		{"ab%ba", "aba", false}, // prefix and suffix may not overlap
		{"ab%ba", "abba", true}, {"%a%a%", "aa", true}, {"%a%a%", "a", false},
		{"a_c", "abc", true}, {"a_c", "ac", false}, {"_", "é", true}, {"__", "é", false},
		{`a\%b`, "a%b", true}, {`a\%b`, "axb", false}, {`a\_b`, "a_b", true}, {`a\_b`, "axb", false},
		{`\\`, `\`, true}, {"é%", "été", true}, {`\é_`, "éx", true}, {"%é_", "xéy", true},
		{"A%", "abc", false}, // case-sensitive
		{"a%\n", "a\nb\n", true},
	} {
		m, err := LikeMatcher(c.pattern)
		require.NoError(t, err, c.pattern)
		require.Equal(t, c.want, m(c.s), "%q LIKE %q", c.s, c.pattern)
	}
}

// The string-search matcher agrees with the anchored regexp on random
// patterns and strings over a small alphabet (where matches are common).
func TestLikeMatcherAgreesWithRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alpha := []string{"a", "b", "%", "%", `\%`, "é"}
	for i := 0; i < 20000; i++ {
		var p, s string
		for j := r.IntN(6); j > 0; j-- {
			p += alpha[r.IntN(len(alpha))]
		}
		for j := r.IntN(8); j > 0; j-- {
			s += []string{"a", "b", "%", "é"}[r.IntN(4)]
		}
		m, err := LikeMatcher(p)
		require.NoError(t, err)
		re, err := likeRegexp(p)
		require.NoError(t, err)
		require.Equal(t, re.MatchString(s), m(s), "%q LIKE %q", s, p)
	}
}
