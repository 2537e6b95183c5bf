package sqlfunc

import (
	"logq/expr"
	"regexp"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
)

// CompileRegexp compiles an RE2 pattern as REGEXP_CONTAINS does. The
// REGEXP_ functions call it for every row, so compiled patterns are kept
// (a *regexp.Regexp is safe for concurrent use): a constant pattern is
// compiled once, not once per row.
func CompileRegexp(pattern string) (*regexp.Regexp, error) {
	if re, ok := compiledRegexps.Get(pattern); ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, expr.EvalErr("invalid regular expression %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	compiledRegexps.Add(pattern, re)
	return re, nil
}

// compiledRegexps are the patterns CompileRegexp compiled last; bounded,
// as the patterns of a column's values may all differ.
var compiledRegexps, _ = lru.New[string, *regexp.Regexp](512)
