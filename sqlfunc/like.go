package sqlfunc

import (
	"fmt"
	"regexp"
	"strings"

	"logq/expr"
	"logq/types"
)

// LikeMatcher compiles a LIKE pattern ('%' any run of characters, '_' any
// one character, '\' taking the next character literally; a pattern ending
// in a lone '\' is BigQuery's error) into a predicate. A pattern without
// '_' is matched by string search alone: a literal prefix, a literal
// suffix, and the literal runs between '%'s found in order, leftmost first
// (a run found later could only leave less room for the ones after it).
// Otherwise the pattern becomes an anchored RE2. Compile once per pattern:
// the executor's kernel caches the predicate.
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
			if i+1 == len(pattern) {
				return nil, errLikeBackslash()
			}
			i++
			cur.WriteByte(pattern[i])
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

// errLikeBackslash is ZetaSQL's error (like.cc) for a pattern whose last
// '\' escapes nothing, raised for STRING and BYTES patterns alike.
func errLikeBackslash() error { return expr.EvalErr("LIKE pattern ends with a backslash") }

// constLikePattern adds to LIKE's check the pattern's own, when it is a
// constant: a bad one is refused when the query is bound, as a constant
// REGEXP pattern is (constPattern); a pattern read from a row fails when
// that row is evaluated.
func constLikePattern(check func(*expr.Call) (types.Type, error)) func(*expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		t, err := check(c)
		if err != nil {
			return t, err
		}
		if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null {
			if _, err := LikeMatcher(k.V.S); err != nil {
				if k.Param != "" {
					return t, &expr.ParamError{Param: k.Param, Msg: fmt.Sprintf("value %q is not a valid LIKE pattern: %v", k.V.S, err), Err: err}
				}
				return t, err
			}
		}
		return t, nil
	}
}

// likeRegexp translates a LIKE pattern to an anchored regexp (LikeMatcher
// has refused a trailing lone '\').
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
