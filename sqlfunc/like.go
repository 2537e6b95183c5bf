package sqlfunc

import (
	"regexp"
	"strings"
)

// LikeMatcher compiles a LIKE pattern ('%' any run of characters, '_' any
// one character, '\' taking the next character literally) into a
// predicate. A pattern without '_' is matched by string search alone: a
// literal prefix, a literal suffix, and the literal runs between '%'s found
// in order, leftmost first (a run found later could only leave less room
// for the ones after it). Otherwise the pattern becomes an anchored RE2.
// Compile once per pattern: the executor's kernel caches the predicate.
func LikeMatcher(pattern string) (func(string) bool, error) {
	var (
		parts []string // literal runs between unescaped '%'
		cur   strings.Builder
		any1  bool // an unescaped '_'
	)
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '%':
			parts = append(parts, cur.String())
			cur.Reset()
		case '_':
			any1 = true
		case '\\':
			if i+1 < len(pattern) {
				i++
				cur.WriteByte(pattern[i])
			}
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, cur.String())
	if any1 {
		re, err := likeRegexp(pattern)
		if err != nil {
			return nil, err
		}
		return re.MatchString, nil
	}
	if len(parts) == 1 {
		lit := parts[0]
		return func(s string) bool { return s == lit }, nil
	}
	prefix, suffix, middle := parts[0], parts[len(parts)-1], parts[1:len(parts)-1]
	if len(middle) == 1 && prefix == "" && suffix == "" {
		lit := middle[0]
		return func(s string) bool { return strings.Contains(s, lit) }, nil
	}
	return func(s string) bool {
		if len(s) < len(prefix)+len(suffix) || !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, suffix) {
			return false
		}
		s = s[len(prefix) : len(s)-len(suffix)]
		for _, m := range middle {
			i := strings.Index(s, m)
			if i < 0 {
				return false
			}
			s = s[i+len(m):]
		}
		return true
	}, nil
}

// likeRegexp translates a LIKE pattern to an anchored regexp.
func likeRegexp(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?s)^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(pattern) {
				i++
				b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			}
		default:
			// Byte by byte: a character of several bytes passes through
			// whole, as QuoteMeta leaves bytes past ASCII alone.
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
